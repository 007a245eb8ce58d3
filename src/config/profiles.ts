// The network profiles against the embedded simulator setting: with the simulator, no profile setting at all (its
// own networks replace them, so a set one would be ignored silently); without it, what each served network needs.
import type { Config } from './index.ts';
import { SETTINGS } from './setting-table.ts';
import { ConfigError } from './settings.ts';
import { type Network, NETWORKS } from '../domain.ts';

const PROFILE_FIELDS = [
  'rpcUrl',
  'publicRpcUrl',
  'passphrase',
  'factoryId',
  'vaultWasmHash',
  'registryId',
  'feeTokenId',
  'simulationAccount',
] as const;

/**
 * The network profiles against the simulator setting. Without the embedded simulator, the fields a served network
 * needs. With it, no profile field at all: the simulator's own networks replace every one of them, so a set
 * `CV_TESTNET_RPC_URL` (or the file it is read from) would be silently ignored; and no state file or ledger timing
 * without it.
 */
export function requireProfiles(
  config: Config,
  networks: readonly Network[],
  options: { vaultApi: boolean } = { vaultApi: true },
): void {
  const problems: string[] = [];
  const setting = (key: string) => SETTINGS.find((x) => x.key === key)!;
  const label = (key: string) => {
    const s = setting(key);
    return `${s.env} (${s.flag})`;
  };
  // The setting the user set: a value read from a file is named by its file setting, as parseConfig names it.
  const given = (key: string) => {
    const fileKey = config.fromFile?.[key];
    return fileKey ? `${label(fileKey)} (the file's content)` : label(key);
  };
  if (config.simulator) {
    const fix = 'set CV_SIMULATOR=false (--simulator false) to use a real RPC, or remove it';
    for (const n of NETWORKS) {
      for (const k of PROFILE_FIELDS) {
        if (config.networks[n][k] === undefined) continue;
        const why = `the embedded simulator replaces the ${n} network profile, so this setting would be ignored`;
        problems.push(`${given(`${n}.${k}`)}: ${why}; ${fix}`);
      }
    }
  } else {
    const off = 'and CV_SIMULATOR (--simulator) is false; remove it';
    if (config.stateFile !== undefined) {
      problems.push(`${label('stateFile')}: only the embedded simulator has a state file, ${off}`);
    }
    if (config.ledgerCloseMs > 0) {
      problems.push(`${label('ledgerCloseMs')}: only the embedded simulator closes ledgers on a clock, ${off}`);
    }
    // The resolver reads and writes the DID registry only (simulated from the simulation account); the
    // factory and the template hash (reported in GET /config) are the vault API's. The fee token is optional.
    const vaultOnly = options.vaultApi ? (['factoryId', 'vaultWasmHash'] as const) : [];
    const fields = ['rpcUrl', 'passphrase', 'registryId', 'simulationAccount', ...vaultOnly] as const;
    for (const n of networks) {
      for (const k of fields) {
        if (config.networks[n][k]) continue;
        problems.push(`${label(`${n}.${k}`)}: required to serve ${n} when the embedded simulator is off`);
      }
    }
  }
  if (problems.length) throw new ConfigError(problems);
}
