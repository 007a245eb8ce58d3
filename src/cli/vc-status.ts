// `vc sign --status-owner G… --status-vc-id ID`: the credential's LedgerVaultStatusEntry (vault-api.yaml
// LedgerVaultStatusEntry), so that any verifier reads its revocation on the chain. The entry names the network
// and the owner's vault; both come from the vault API's keyless `GET /config` (its network, passphrase and
// factory), the vault's address derived as the factory deploys it (src/chain/derive.ts), so the issuer needs no
// key of the vault API to sign. The entry's JSON-LD context is that API's `GET /contexts/ledger-vault/v1`.
import { StrKey } from '@stellar/stellar-sdk';
import { deriveVaultAddress } from '../chain/derive.ts';
import { publicUrl } from '../config/redact.ts';
import { NETWORKS, type Network } from '../domain.ts';
import type { LedgerVaultStatus } from '../did/index.ts';
import { UsageError, takeFlag, type CliIo } from './args.ts';

/** Where `vc sign` finds the vault API when `--vault-api` is not given: `npm start`'s testnet service. */
export const DEFAULT_VAULT_API = 'http://127.0.0.1:3000';

/** Takes the status flags from `args`; undefined when the credential gets no status entry. */
export function takeStatusFlags(args: string[]): { owner: string; vcId: string; api: string } | undefined {
  const owner = takeFlag(args, '--status-owner');
  const vcId = takeFlag(args, '--status-vc-id');
  const api = takeFlag(args, '--vault-api');
  if (owner === undefined && vcId === undefined) {
    if (api !== undefined) throw new UsageError('vc sign: --vault-api goes with --status-owner and --status-vc-id');
    return undefined;
  }
  if (owner === undefined || vcId === undefined)
    throw new UsageError(
      'vc sign: a status entry names the vault owner and the vcId: --status-owner G… --status-vc-id ID',
    );
  if (!StrKey.isValidEd25519PublicKey(owner))
    throw new UsageError('vc sign: --status-owner must be the holder account address (G…)');
  if (vcId === '' || vcId.length > 64) throw new UsageError('vc sign: --status-vc-id must be 1 to 64 characters');
  return { owner, vcId, api: (api ?? DEFAULT_VAULT_API).replace(/\/+$/, '') };
}

interface VaultConfig {
  networkType: Network;
  networkPassphrase: string;
  factoryContractId: string;
}

function vaultConfigOf(body: unknown): VaultConfig | undefined {
  const c = body as Partial<Record<keyof VaultConfig, unknown>> | null;
  if (typeof c !== 'object' || c === null) return undefined;
  const { networkType, networkPassphrase, factoryContractId } = c;
  if (!NETWORKS.includes(networkType as Network) || typeof networkPassphrase !== 'string') return undefined;
  if (typeof factoryContractId !== 'string' || !StrKey.isValidContract(factoryContractId)) return undefined;
  return { networkType: networkType as Network, networkPassphrase, factoryContractId };
}

/** The LedgerVaultStatusEntry's parts, from the vault API's configuration. */
export async function ledgerVaultStatus(
  flags: { owner: string; vcId: string; api: string },
  io: CliIo,
): Promise<LedgerVaultStatus> {
  const where = `${flags.api}/config`;
  let res: Response;
  try {
    res = await io.fetch(where, { headers: { accept: 'application/json' } });
  } catch (e) {
    throw new UsageError(`vc sign: cannot reach ${publicUrl(where)} for the status entry's network and vault`, {
      cause: e,
    });
  }
  const config = res.ok ? vaultConfigOf(await res.json().catch(() => undefined)) : undefined;
  if (!config) throw new UsageError(`vc sign: ${publicUrl(where)} did not answer a vault API configuration`);
  return {
    network: config.networkType,
    vaultContract: deriveVaultAddress({
      networkPassphrase: config.networkPassphrase,
      factoryId: config.factoryContractId,
      owner: flags.owner,
    }),
    vcId: flags.vcId,
    contextUrl: `${flags.api}/contexts/ledger-vault/v1`,
  };
}
