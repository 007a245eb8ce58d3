// On-chain status that travels inside the credential (vault-api.yaml LedgerVaultStatusEntry), and the vault
// reads behind the `credentialStatus` and `issuerAllowed` checks: which vault and vcId hold the credential
// (named by owner + vcId, or by the entry), what the vault stored there (the issuer DID it recorded, the wallet
// this service recorded in the sealed payload, the payload itself), its status, and its deny list.
import { StrKey } from '@stellar/stellar-sdk';
import { ChainError, type VcStatus } from '../chain/index.ts';
import { openVcData } from '../crypto/envelope.ts';
import type { Network } from '../domain.ts';
import { clip } from '../openapi/error-bounds.ts';
import { ApiError, VaultErrors, type VaultAppDeps } from './context.ts';
import { problem, type ProblemDetails } from './verification-problems.ts';
import type { Where } from './routes/issue-rules.ts';

export const LEDGER_VAULT_STATUS_ENTRY = 'LedgerVaultStatusEntry';

export interface LedgerVaultStatusEntry {
  type: typeof LEDGER_VAULT_STATUS_ENTRY;
  statusPurpose: 'revocation';
  network: Network;
  vaultContract: string;
  vcId: string;
  id?: string;
}

/** The status input a result echoes: the entry's known members, strings cut to 256 characters. */
const STATUS_INPUT_MEMBERS = [
  'id',
  'type',
  'statusPurpose',
  'network',
  'vaultContract',
  'vcId',
  'statusListIndex',
  'statusListCredential',
] as const;
export type StatusInput = Partial<Record<(typeof STATUS_INPUT_MEMBERS)[number], string>>;

export function statusInput(entry: Record<string, unknown>): StatusInput {
  const out: StatusInput = {};
  for (const k of STATUS_INPUT_MEMBERS) {
    if (typeof entry[k] === 'string') out[k] = clip(entry[k], 256);
  }
  return out;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export type EntryParse =
  | { kind: 'ledger'; entry: LedgerVaultStatusEntry }
  | { kind: 'other'; input: StatusInput; entry: Record<string, unknown> }
  | { kind: 'invalid'; input: StatusInput; problem: ProblemDetails };

/** The credential's `credentialStatus` entries (its structure was checked: 1 to 4 objects with a type). */
export function statusEntries(credential: Record<string, unknown>): EntryParse[] {
  const status = credential['credentialStatus'];
  if (status === undefined) return [];
  const list = (Array.isArray(status) ? status : [status]) as Record<string, unknown>[];
  let ledger = 0;
  return list.map((e): EntryParse => {
    if (e['type'] !== LEDGER_VAULT_STATUS_ENTRY) return { kind: 'other', input: statusInput(e), entry: e };
    const why =
      entryProblem(e) ?? (++ledger > 1 ? `a credential carries at most one ${LEDGER_VAULT_STATUS_ENTRY}` : undefined);
    if (why)
      return {
        kind: 'invalid',
        input: statusInput(e),
        problem: problem('MALFORMED_VALUE_ERROR', 'credentialStatus', 'status_entry_invalid', why),
      };
    return { kind: 'ledger', entry: e as unknown as LedgerVaultStatusEntry };
  });
}

function entryProblem(e: Record<string, unknown>): string | undefined {
  if (e['statusPurpose'] !== 'revocation') return `${LEDGER_VAULT_STATUS_ENTRY}.statusPurpose must be revocation`;
  if (e['network'] !== 'testnet' && e['network'] !== 'mainnet')
    return `${LEDGER_VAULT_STATUS_ENTRY}.network must be testnet or mainnet`;
  if (typeof e['vaultContract'] !== 'string' || !StrKey.isValidContract(e['vaultContract'])) {
    return `${LEDGER_VAULT_STATUS_ENTRY}.vaultContract must be a contract address (C…)`;
  }
  if (typeof e['vcId'] !== 'string' || e['vcId'].length < 1 || e['vcId'].length > 64)
    return `${LEDGER_VAULT_STATUS_ENTRY}.vcId must be 1 to 64 characters`;
  if (e['id'] !== undefined && typeof e['id'] !== 'string') return `${LEDGER_VAULT_STATUS_ENTRY}.id must be a URL`;
  return undefined;
}

/** What a vault holds under a vcId, as far as a verifier needs it. */
export interface VaultSlot {
  vault: string;
  vcId: string;
  /** The issuer DID the vault recorded at issuance. */
  issuerDid: string;
  /** The wallet that issued it, when this service recorded it (envelopes since API 2.0.0). */
  issuerWallet?: string;
  /** The credential as stored, when this service can open the payload. */
  document?: Record<string, unknown>;
  status: VcStatus;
}

export type SlotRead =
  | { ok: true; slot: VaultSlot }
  | { ok: false; reason: 'vault_not_found' | 'vc_not_found'; detail: string };

const NOT_ABOUT_THE_VAULT: ReadonlySet<string> = new Set([
  'chain_unavailable',
  'state_archived',
  'source_account_not_found',
  'tx_timeout',
]);

/**
 * Reads a vault slot. `owner` is needed to open the payload (the envelope is bound to it): the vault's own
 * `vault_owner` when the caller named only the vault. A contract that is no vault of this network's factory,
 * or a vcId it does not hold, is `vc_not_found`; an unreachable ledger throws (502).
 */
export async function readSlot(deps: VaultAppDeps, vault: string, vcId: string, owner?: string): Promise<SlotRead> {
  const gone = (detail: string, reason: 'vault_not_found' | 'vc_not_found' = 'vc_not_found'): SlotRead => ({
    ok: false,
    reason,
    detail,
  });
  try {
    if (owner === undefined && !(await deps.chain.factory.isVault(vault)))
      return gone(`${vault} is not a vault of this network's factory`);
    const [stored, status] = await Promise.all([
      deps.chain.vault.getVc({ vault, vcId }),
      deps.chain.vault.verifyVc({ vault, vcId }),
    ]);
    if (!stored) return gone(`the vault ${vault} holds no credential ${clip(vcId, 64)}`);
    const slot: VaultSlot = { vault, vcId, issuerDid: stored.issuerDid, status };
    const vaultOwner = owner ?? (await deps.chain.vault.vaultOwner({ vault }));
    try {
      const opened = openVcData(deps.keyring, { owner: vaultOwner, vcId, data: stored.data });
      const doc = JSON.parse(opened.plaintext) as unknown;
      if (isObject(doc)) slot.document = doc;
      if (opened.issuer !== undefined) slot.issuerWallet = opened.issuer;
    } catch {
      // Written by another deployment or not through this service: the content cannot be compared.
    }
    return { ok: true, slot };
  } catch (e) {
    if (e instanceof ChainError && !NOT_ABOUT_THE_VAULT.has(e.code)) {
      if (!(await deps.chain.vault.exists({ vault })))
        return gone(`no vault is deployed at ${vault}`, 'vault_not_found');
    }
    throw e;
  }
}

/** The first of `wallets` the vault denies (denied issuers are few: the count, then pages of 200). */
export async function deniedWallet(
  deps: VaultAppDeps,
  vault: string,
  wallets: readonly string[],
): Promise<string | undefined> {
  if (wallets.length === 0) return undefined;
  const count = await deps.chain.vault.deniedIssuerCount({ vault });
  for (let offset = 0; offset < count; offset += 200) {
    const page = await deps.chain.vault.listDeniedIssuers({ vault, offset, limit: 200 });
    const hit = wallets.find((w) => page.includes(w));
    if (hit) return hit;
    if (page.length < 200) break;
  }
  return undefined;
}

/**
 * Issuance: a vcData that carries a LedgerVaultStatusEntry must name the network, vault and vcId it is issued
 * into (else 400 credentialStatus_mismatch), so a verifier reads the status where the credential really is.
 */
export function checkStatusEntry(
  deps: VaultAppDeps,
  where: Where,
  vcData: string,
  at: { vault: string; vcId: string },
): void {
  let doc: unknown;
  try {
    doc = JSON.parse(vcData);
  } catch {
    return; // checkVcData answers vcData_invalid
  }
  if (!isObject(doc) || doc['credentialStatus'] === undefined) return;
  const list = Array.isArray(doc['credentialStatus']) ? doc['credentialStatus'] : [doc['credentialStatus']];
  const entries = list.filter(
    (e): e is Record<string, unknown> => isObject(e) && e['type'] === LEDGER_VAULT_STATUS_ENTRY,
  );
  if (entries.length > 1)
    throw mismatch(where, `carries ${entries.length} ${LEDGER_VAULT_STATUS_ENTRY} entries; at most one`);
  const [e] = entries;
  if (!e) return;
  const why = entryProblem(e);
  if (why) throw mismatch(where, why);
  const want = { network: deps.profile.network, vaultContract: at.vault, vcId: at.vcId };
  for (const [k, v] of Object.entries(want)) {
    if (e[k] !== v)
      throw mismatch(where, `names ${k} ${clip(String(e[k]), 80)}, but the credential is issued into ${k} ${v}`);
  }
}

function mismatch(where: Where, why: string): ApiError {
  return VaultErrors.credentialStatusMismatch(`${where}vcData credentialStatus ${why}`);
}
