// What a network with ledger timing holds until its next close, as stellar-core's transaction queue does: at most one
// transaction per source account (another one is TRY_AGAIN_LATER while the first waits for a ledger) and at most
// QUEUE_LIMIT in all; the next close applies them in arrival order. The simulator's own friendbot queues past the
// per-account rule, each of its transactions taking the sequence number after the one queued before it.
import type { xdr } from '@stellar/stellar-sdk';
import type { Preexecuted } from './apply.ts';
import type { TxRecord } from './records.ts';

/** Queued transactions at most (stellar-core sizes its queue in multiples of a ledger's capacity). */
export const QUEUE_LIMIT = 1_000;

/** How a queued transaction ended at the close: applied (SUCCESS or FAILED), or dropped with the check it failed. */
export type QueueOutcome = { readonly record: TxRecord } | { readonly dropped: string };

export interface Queued {
  readonly hash: string;
  readonly env: xdr.TransactionEnvelope;
  readonly source: string;
  /** The envelope as received (base64), kept by the record instead of the decoded one. */
  readonly b64?: string;
  readonly pre?: Preexecuted;
  /** Told the outcome at the close. */
  readonly settle?: (outcome: QueueOutcome) => void;
}

export class TxQueue {
  private entries: Queued[] = [];
  private readonly hashes = new Set<string>();
  private readonly sources = new Map<string, number>();

  get size(): number {
    return this.entries.length;
  }

  has(hash: string): boolean {
    return this.hashes.has(hash);
  }

  /** Transactions of `source` waiting for the next close. */
  waiting(source: string): number {
    return this.sources.get(source) ?? 0;
  }

  push(q: Queued): void {
    this.entries.push(q);
    this.hashes.add(q.hash);
    this.sources.set(q.source, this.waiting(q.source) + 1);
  }

  /** Everything queued, in arrival order; the queue is empty afterwards. */
  take(): Queued[] {
    const out = this.entries;
    this.entries = [];
    this.hashes.clear();
    this.sources.clear();
    return out;
  }

  /** Empties the queue, telling every waiter why (the state its checks ran against is gone). */
  drop(reason: string): void {
    for (const q of this.take()) settle(q, { dropped: reason });
  }
}

/** Tells a waiter its outcome; a waiter's failure is its own. */
export function settle(q: Queued, outcome: QueueOutcome): void {
  try {
    q.settle?.(outcome);
  } catch {
    // the waiter's own error: nothing the ledger can do about it
  }
}
