// W3C DID Resolution `resolve(did)` over the registry, as a function: what the resolver service answers
// at /1.0/identifiers/{did}, for in-process callers (the vault API's credential verification) that read
// the registry themselves. Failures are resolution metadata, never throws, except the reader's own errors.
import { parseDid } from './did.ts';
import { buildResolutionResult, resolutionError, DID_LD_JSON, type LedgerTime } from './document.ts';
import type { DidRecord, DidResolutionResult, Network, ParsedDid } from './types.ts';

export interface ResolveFromRegistryOptions {
  did: string;
  /** The networks whose registry `readRecord` reads; a DID of another network is `invalidDid`. */
  networks: readonly Network[];
  /** The registry's record of a DID; undefined when not registered. A throw is an unreachable ledger. */
  readRecord: (parsed: ParsedDid) => Promise<DidRecord | undefined>;
  ledgerTime?: LedgerTime;
}

export async function resolveFromRegistry({ did, networks, readRecord, ledgerTime }: ResolveFromRegistryOptions): Promise<DidResolutionResult> {
  const parsed = parseDid(did);
  if (!parsed.ok) return resolutionError('invalidDid', parsed.message);
  if (!networks.includes(parsed.value.network)) {
    return resolutionError('invalidDid', `this verifier resolves ${networks.join(', ')} DIDs only`);
  }
  let record: DidRecord | undefined;
  try {
    record = await readRecord(parsed.value);
  } catch (e) {
    return resolutionError('internalError', `the registry could not be read: ${(e as Error)?.message ?? String(e)}`);
  }
  if (!record) return resolutionError('notFound', `${did} is not registered`);
  return buildResolutionResult({ parsed: parsed.value, record, representation: DID_LD_JSON, ...(ledgerTime ? { ledgerTime } : {}) });
}
