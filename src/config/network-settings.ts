// The settings each network has (testnet, mainnet): its Soroban RPC and its contracts, one group per network in the
// table of every setting (setting-table.ts).
import type { Network } from '../domain.ts';
import type { Setting } from './setting-table.ts';

/** The settings of network `n`: its RPC endpoint and the contracts the services call there. */
export function networkSettings(n: Network): Setting[] {
  const N = n.toUpperCase();
  return [
    {
      key: `${n}.rpcUrl`,
      env: `CV_${N}_RPC_URL`,
      flag: `--${n}-rpc-url`,
      kind: 'url',
      doc:
        `${n} Soroban RPC URL (default: the embedded simulator's /${n}/rpc); ` +
        'GET /config publishes it without userinfo and query',
    },
    {
      key: `${n}.rpcUrlFile`,
      env: `CV_${N}_RPC_URL_FILE`,
      flag: `--${n}-rpc-url-file`,
      kind: 'string',
      doc:
        `file whose content (trimmed) is CV_${N}_RPC_URL, for an RPC URL that carries a password or an API key; ` +
        `not with CV_${N}_RPC_URL`,
    },
    {
      key: `${n}.publicRpcUrl`,
      env: `CV_${N}_PUBLIC_RPC_URL`,
      flag: `--${n}-public-rpc-url`,
      kind: 'url',
      doc:
        `the ${n} RPC URL GET /config publishes instead of CV_${N}_RPC_URL, as it is (no userinfo, query or ` +
        'fragment): for a provider whose key sits in the URL path, or a public endpoint other than the one the ' +
        'service uses',
    },
    {
      key: `${n}.passphrase`,
      env: `CV_${N}_PASSPHRASE`,
      flag: `--${n}-passphrase`,
      kind: 'string',
      doc: `${n} network passphrase (checked against the RPC's getNetwork at start)`,
    },
    {
      key: `${n}.factoryId`,
      env: `CV_${N}_FACTORY_ID`,
      flag: `--${n}-factory-id`,
      kind: 'string',
      doc: `${n} vc-vault-factory contract id (C…)`,
    },
    {
      key: `${n}.vaultWasmHash`,
      env: `CV_${N}_VAULT_WASM_HASH`,
      flag: `--${n}-vault-wasm-hash`,
      kind: 'string',
      doc: `${n} vault template hash (64 hex)`,
    },
    {
      key: `${n}.registryId`,
      env: `CV_${N}_REGISTRY_ID`,
      flag: `--${n}-registry-id`,
      kind: 'string',
      doc: `${n} DID registry contract id (C…)`,
    },
    {
      key: `${n}.feeTokenId`,
      env: `CV_${N}_FEE_TOKEN_ID`,
      flag: `--${n}-fee-token-id`,
      kind: 'string',
      doc: `${n} fee token contract id (C…), informational`,
    },
    {
      key: `${n}.simulationAccount`,
      env: `CV_${N}_SIMULATION_ACCOUNT`,
      flag: `--${n}-simulation-account`,
      kind: 'string',
      doc: `${n} existing account (G…) used as source of read-only simulations`,
    },
  ];
}
