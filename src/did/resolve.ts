// W3C DID Resolution `resolve(did)` over the registry, as a function: what the resolver service answers
// at /1.0/identifiers/{did}, for in-process callers (the vault API's credential verification) that read
// the registry themselves. Resolution failures are resolution metadata, never throws; a defect (a TypeError) is thrown.
import { parseDid } from './did.ts';
import { buildResolutionResult, resolutionError, DID_LD_JSON, type LedgerTime } from './document.ts';
import type { DidRecord, DidResolutionResult, ParsedDid } from './types.ts';
import type { Network } from '../domain.ts';

export interface ResolveFromRegistryOptions {
  did: string;
  /** The networks whose registry `readRecord` reads; a DID of another network is `invalidDid`. */
  networks: readonly Network[];
  /** The registry's record of a DID; undefined when not registered. */
  readRecord: (parsed: ParsedDid) => Promise<DidRecord | undefined>;
  /**
   * Whether a throw of `readRecord` is a resolution failure (the ledger unreachable): it becomes `internalError`
   * metadata. Any other throw (a TypeError of a defect) propagates, so that it is not reported as a DID that
   * cannot be resolved.
   */
  isReadFailure: (e: unknown) => boolean;
  ledgerTime?: LedgerTime;
}

export async function resolveFromRegistry({
  did,
  networks,
  readRecord,
  isReadFailure,
  ledgerTime,
}: ResolveFromRegistryOptions): Promise<DidResolutionResult> {
  const parsed = parseDid(did);
  if (!parsed.ok) return resolutionError('invalidDid', parsed.message);
  if (!networks.includes(parsed.value.network)) {
    return resolutionError('invalidDid', `this verifier resolves ${networks.join(', ')} DIDs only`);
  }
  let record: DidRecord | undefined;
  try {
    record = await readRecord(parsed.value);
  } catch (e) {
    if (!isReadFailure(e)) throw e;
    return resolutionError('internalError', `the registry could not be read: ${(e as Error)?.message ?? String(e)}`);
  }
  if (!record) return resolutionError('notFound', `${did} is not registered`);
  return buildResolutionResult({
    parsed: parsed.value,
    record,
    representation: DID_LD_JSON,
    ...(ledgerTime ? { ledgerTime } : {}),
  });
}
