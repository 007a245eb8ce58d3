// Close times of ledgers, for `didDocumentMetadata.created` / `updated` (spec: resolveDid).
//
// Exact, not estimated: the registry emits an event in every ledger that changes a record (did_registered,
// did_updated, did_controller_transferred, did_deactivated), so the record's createdLedger and updatedLedger
// each hold at least one registry event, and `getEvents` reports every event with its ledger's
// `ledgerClosedAt`. One getEvents over [sequence, sequence + 1) filtered to the registry gives the time.
// Ledgers older than the RPC's event retention give no time: the field is then left out, as the spec allows.
// Close times never change, so they are remembered (bounded) in process.
import { LRUCache } from 'lru-cache';
import type { ChainClient } from './types.ts';

/** Ledger sequence → close time, or undefined when it cannot be known. Never throws. */
export type LedgerCloseTime = (sequence: number) => Promise<Date | undefined>;

export interface EventLedgerTimeOptions {
  /** The network's chain client: its RPC settings and timeouts, and its metrics when instrumented. */
  client: Pick<ChainClient, 'getEvents'>;
  registryId: string;
  maxEntries?: number;
}

export function eventLedgerCloseTime(o: EventLedgerTimeOptions): LedgerCloseTime {
  const { client, registryId, maxEntries = 50_000 } = o;
  const known = new LRUCache<number, Date>({ max: maxEntries });
  return async (sequence) => {
    const hit = known.get(sequence);
    if (hit) return hit;
    if (!Number.isInteger(sequence) || sequence < 1) return undefined;
    try {
      const res = await client.getEvents({
        startLedger: sequence,
        endLedger: sequence + 1,
        filters: [{ type: 'contract', contractIds: [registryId] }],
        limit: 1,
      });
      const event = res.events[0];
      if (!event || event.ledger !== sequence) return undefined;
      const at = new Date(event.ledgerClosedAt);
      if (Number.isNaN(at.getTime())) return undefined;
      known.set(sequence, at);
      return at;
    } catch {
      return undefined;
    }
  };
}
