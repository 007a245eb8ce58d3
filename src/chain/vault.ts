// Vault template 0.4.0 (docs/chain-abi.md "Vault") as typed functions: prepare builders for every write the API
// offers, and reads through simulation. No ScVal crosses this module's surface.
import { Address, Contract, xdr } from '@stellar/stellar-sdk';
import type { LRUCache } from 'lru-cache';
import {
  address,
  fromEnum,
  fromOption,
  fromStruct,
  field,
  isVoid,
  str,
  toAddress,
  toStr,
  toU32,
  toVec,
  u32,
  vec,
} from './codec.ts';
import { PROTOCOL_28_TTL, STATE_ARCHIVAL_KEY, ttlSettingsOf } from './ttl.ts';
import type { ChainClient, PreparedTransaction, StoredVc, TtlSettings, VcStatus } from './types.ts';

export interface VaultRef {
  /** C… address of the vault. */
  vault: string;
}
interface Write extends VaultRef {
  /** Transaction source (G…). */
  source: string;
  /** Its sequence number, asked for already (PrepareRequest.sequence). */
  sequence?: Promise<string>;
}
/** What a TTL extension of a vault needs (VaultApi.ttlState). */
export interface VaultTtlState {
  /** The network's TTL settings (Protocol 28's when its RPC does not answer them). */
  settings: TtlSettings;
  /** Whether the vault's contract instance exists (live or archived). */
  vaultExists: boolean;
  /** The asked credentials the vault does not hold. */
  missing: string[];
  /**
   * The ledger keys that exist, live or archived: the instance first, then each credential's, as the simulations of
   * its reads (`get_vc`, `verify_vc`) name them: the vault's contract data in their footprints and restore
   * preambles, whatever the contract's storage layout.
   */
  keys: xdr.LedgerKey[];
}

/** Credentials whose reads are simulated at once (VaultApi.ttlState): two simulations each. */
const FOOTPRINT_CONCURRENCY = 4;

/** `fn` over `items`, at most `bound` at a time, the answers in the items' order. */
async function mapBounded<T, R>(items: readonly T[], bound: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(bound, items.length) }, worker));
  return out;
}

/** Whether a ledger key is contract data (the instance included) of `contract` (its ScAddress, base64). */
function dataOf(k: xdr.LedgerKey, contract: string): boolean {
  return k.type === 'contractData' && k.contractData.contract.toXdr('base64') === contract;
}

interface Page extends VaultRef {
  offset: number;
  limit: number;
}

export interface VaultApi {
  issue(o: Write & { vcId: string; vcData: string; issuer: string; issuerDid: string }): Promise<PreparedTransaction>;
  batchIssue(
    o: Write & { issuer: string; issuerDid: string; vcs: { vcId: string; vcData: string }[] },
  ): Promise<PreparedTransaction>;
  revoke(o: Write & { vcId: string; date: string }): Promise<PreparedTransaction>;
  denyIssuer(o: Write & { issuer: string }): Promise<PreparedTransaction>;
  allowIssuer(o: Write & { issuer: string }): Promise<PreparedTransaction>;
  setVaultDid(o: Write & { didUri: string }): Promise<PreparedTransaction>;
  /** What the API calls set-new-owner: `vault_owner` itself never changes. */
  setVaultAdmin(o: Write & { newAdmin: string }): Promise<PreparedTransaction>;
  revokeVault(o: Write): Promise<PreparedTransaction>;
  push(o: Write & { vcId: string; destVault: string }): Promise<PreparedTransaction>;

  verifyVc(o: VaultRef & { vcId: string }): Promise<VcStatus>;
  getVc(o: VaultRef & { vcId: string }): Promise<StoredVc | undefined>;
  listVcIds(o: Page): Promise<string[]>;
  vcCount(o: VaultRef): Promise<number>;
  listDeniedIssuers(o: Page): Promise<string[]>;
  deniedIssuerCount(o: VaultRef): Promise<number>;
  version(o: VaultRef & { source?: string }): Promise<string>;
  vaultOwner(o: VaultRef): Promise<string>;
  vaultDid(o: VaultRef): Promise<string | undefined>;
  /** Whether a contract instance exists at the address (one ledger-entry read). */
  exists(o: VaultRef): Promise<boolean>;
  /**
   * The vault's and the credentials' ledger keys and the network's TTL settings: a ledger-entry read of the settings
   * and the instance, two simulated reads a credential (four credentials at a time), and a ledger-entry read of what
   * they name.
   */
  ttlState(o: VaultRef & { vcIds: readonly string[] }): Promise<VaultTtlState>;
}

/**
 * VCStatus → API status: `Valid`, `Invalid`, `Revoked(date)`; any other shape (such as the pre-0.4
 * `Map{status, since}`) is `unknown`, as docs/chain-abi.md prescribes.
 */
export function decodeVcStatus(v: xdr.ScVal): VcStatus {
  try {
    const { tag, values } = fromEnum(v);
    if (tag === 'Valid' && values.length === 0) return { status: 'valid' };
    if (tag === 'Invalid' && values.length === 0) return { status: 'invalid' };
    if (tag === 'Revoked' && values.length === 1) return { status: 'revoked', since: toStr(values[0]!) };
  } catch {
    // another shape
  }
  return { status: 'unknown' };
}

export function decodeStoredVc(v: xdr.ScVal): StoredVc | undefined {
  if (isVoid(v)) return undefined;
  const s = fromStruct(v);
  return {
    id: toStr(field(s, 'id')),
    data: toStr(field(s, 'data')),
    issuanceContract: toAddress(field(s, 'issuance_contract')),
    issuerDid: toStr(field(s, 'issuer_did')),
  };
}

/**
 * VaultApi.ttlState: the settings and the instance first (no vault, nothing to simulate), then each credential's
 * reads simulated, then which of the keys they name exist.
 */
async function ttlState(client: ChainClient, o: VaultRef & { vcIds: readonly string[] }): Promise<VaultTtlState> {
  const instance = new Contract(o.vault).getFootprint();
  const head = await client.getLedgerEntries([STATE_ARCHIVAL_KEY, instance]);
  const settings = ttlSettingsOf(head.entries) ?? PROTOCOL_28_TTL;
  if (!head.entries.some((e) => e.key.type === 'contractData'))
    return { settings, vaultExists: false, missing: [], keys: [] };
  const simulated = (vcId: string, fn: string) =>
    client.readFootprint({ contractId: o.vault, fn, args: [str(vcId)], contract: 'vault' });
  const reads = await mapBounded(o.vcIds, FOOTPRINT_CONCURRENCY, (id) =>
    Promise.all([simulated(id, 'get_vc'), simulated(id, 'verify_vc')]),
  );
  const contract = new Address(o.vault).toScAddress().toXdr('base64');
  const keys = new Map<string, xdr.LedgerKey>([[instance.toXdr('base64'), instance]]);
  for (const k of reads.flat().flatMap((r) => r.keys)) if (dataOf(k, contract)) keys.set(k.toXdr('base64'), k);
  const found = await client.getLedgerEntries([...keys.values()]);
  const exists = new Set(found.entries.map((e) => e.key.toXdr('base64')));
  return {
    settings,
    vaultExists: true,
    missing: o.vcIds.filter((_, i) => isVoid(reads[i]![0].value)),
    keys: [...keys].flatMap(([text, k]) => (exists.has(text) ? [k] : [])),
  };
}

/** `owners`: vault → its `vault_owner`, which never changes (docs/chain-abi.md "Vault"; caches.ts). */
export function createVaultApi(client: ChainClient, { owners }: { owners?: LRUCache<string, string> } = {}): VaultApi {
  const prepare = (o: Write, fn: string, args: xdr.ScVal[]) =>
    client.prepare({
      source: o.source,
      contractId: o.vault,
      fn,
      args,
      contract: 'vault',
      ...(o.sequence ? { sequence: o.sequence } : {}),
    });
  const read = (o: VaultRef & { source?: string }, fn: string, args: xdr.ScVal[] = [], live = false) =>
    client.read({
      contractId: o.vault,
      fn,
      args,
      contract: 'vault',
      ...(o.source ? { source: o.source } : {}),
      ...(live ? { refuseArchived: true } : {}),
    });

  return {
    issue: (o) =>
      prepare(o, 'issue', [str(o.vcId), str(o.vcData), address(o.vault), address(o.issuer), str(o.issuerDid)]),
    batchIssue: (o) =>
      prepare(o, 'batch_issue', [
        address(o.issuer),
        address(o.vault),
        str(o.issuerDid),
        vec(o.vcs.map((c) => vec([str(c.vcId), str(c.vcData)]))),
      ]),
    revoke: (o) => prepare(o, 'revoke', [str(o.vcId), str(o.date)]),
    denyIssuer: (o) => prepare(o, 'deny_issuer', [address(o.issuer)]),
    allowIssuer: (o) => prepare(o, 'allow_issuer', [address(o.issuer)]),
    setVaultDid: (o) => prepare(o, 'set_vault_did', [str(o.didUri)]),
    setVaultAdmin: (o) => prepare(o, 'set_vault_admin', [address(o.newAdmin)]),
    revokeVault: (o) => prepare(o, 'revoke_vault', []),
    push: (o) => prepare(o, 'push', [str(o.vcId), address(o.destVault)]),

    // a credential is read from live state only: an archived one answers state_archived (docs/vault-api.md)
    verifyVc: async (o) => decodeVcStatus(await read(o, 'verify_vc', [str(o.vcId)], true)),
    getVc: async (o) => decodeStoredVc(await read(o, 'get_vc', [str(o.vcId)], true)),
    listVcIds: async (o) => toVec(await read(o, 'list_vc_ids', [u32(o.offset), u32(o.limit)])).map(toStr),
    vcCount: async (o) => toU32(await read(o, 'vc_count')),
    listDeniedIssuers: async (o) =>
      toVec(await read(o, 'list_denied_issuers', [u32(o.offset), u32(o.limit)])).map(toAddress),
    deniedIssuerCount: async (o) => toU32(await read(o, 'denied_issuer_count')),
    version: async (o) => toStr(await read(o, 'version')),
    vaultOwner: async (o) => {
      const known = owners?.get(o.vault);
      if (known !== undefined) return known;
      const owner = toAddress(await read(o, 'vault_owner'));
      owners?.set(o.vault, owner);
      return owner;
    },
    vaultDid: async (o) => fromOption(await read(o, 'vault_did'), toStr),
    exists: async (o) => (await client.getLedgerEntries([new Contract(o.vault).getFootprint()])).entries.length > 0,
    ttlState: (o) => ttlState(client, o),
  };
}
