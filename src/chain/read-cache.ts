// A short-lived cache of read-only contract calls (simulations) and chosen ledger-entry reads for one chain client.
//
// Chain state changes only when a ledger closes, so an answer stays right until a newer ledger is seen.
// An entry is served while all of these hold:
//   - it is younger than `ttlMs` (counted from when its simulation was sent);
//   - no newer ledger than the one it was read at has been seen in any RPC answer of this client;
//   - this client has not submitted a transaction since (a submit clears the cache when it sends and again
//     when the transaction is final, so a read after one's own write always sees it).
// So a write made elsewhere (another instance, another program) shows within `ttlMs` at most. Concurrent
// identical reads share one simulation. Failures are never kept. The entries are an lru-cache LRU with its ttl on
// the injected clock; when full, the least recently used goes first.
import type { xdr } from '@stellar/stellar-sdk';
import { LRUCache } from 'lru-cache';
import { lruClock, type Clock } from '../domain.ts';

export interface ReadCacheOptions {
  /** How long an answer may be served; 0 turns the cache off. */
  ttlMs: number;
  /** Entries kept at most (CV_CHAIN_CACHE_ENTRIES); the least recently used go first. Default 10,000. */
  maxEntries?: number;
  now?: Clock;
}

export interface ReadResult<T = xdr.ScVal> {
  value: T;
  /** The ledger the answer was read at (the simulation's `latestLedger`). */
  ledger: number;
}

interface Entry {
  value: Promise<unknown>;
  /** Known once the simulation answered. */
  ledger?: number;
}

export const DEFAULT_READ_CACHE_ENTRIES = 10_000;

export class ReadCache {
  readonly ttlMs: number;
  /** Each entry's lifetime counts from when its simulation was sent (the `set`). */
  private readonly entries: LRUCache<string, Entry>;
  /** The newest ledger sequence seen in any answer. */
  private latest = 0;

  constructor(options: ReadCacheOptions) {
    this.ttlMs = Math.max(0, options.ttlMs);
    this.entries = new LRUCache<string, Entry>({
      max: Math.max(1, options.maxEntries ?? DEFAULT_READ_CACHE_ENTRIES),
      ...(this.ttlMs > 0 ? { ttl: this.ttlMs } : {}),
      ...lruClock(options.now ?? Date.now),
    });
  }

  get enabled(): boolean {
    return this.ttlMs > 0;
  }

  /** Entries held now (fresh or not yet evicted). */
  get size(): number {
    return this.entries.size;
  }

  /** The cached answer for `key`, or `load()`'s (shared with concurrent callers, kept on success). */
  read<T = xdr.ScVal>(key: string, load: () => Promise<ReadResult<T>>): Promise<T> {
    if (!this.enabled) return load().then((r) => this.seen(r).value);
    const hit = this.entries.get(key);
    // Served for less than ttlMs: lru-cache keeps an entry whose age is exactly its ttl, this cache does not.
    if (hit && this.entries.getRemainingTTL(key) > 0 && (hit.ledger === undefined || hit.ledger >= this.latest))
      return hit.value as Promise<T>;
    if (hit) this.entries.delete(key);
    const entry: Entry = { value: undefined as unknown as Promise<T> };
    const value: Promise<T> = load().then(
      (r) => {
        entry.ledger = r.ledger;
        return this.seen(r).value;
      },
      (err: unknown) => {
        if (this.entries.peek(key, { allowStale: true }) === entry) this.entries.delete(key);
        throw err;
      },
    );
    entry.value = value;
    this.entries.set(key, entry);
    return value;
  }

  /** A ledger sequence seen in any RPC answer: entries read at an older ledger stop being served. */
  observeLedger(sequence: number | undefined): void {
    if (typeof sequence === 'number' && sequence > this.latest) this.latest = sequence;
  }

  /** Forget everything (this client is submitting a transaction, or has just seen it final). */
  clear(): void {
    this.entries.clear();
  }

  private seen<T>(r: ReadResult<T>): ReadResult<T> {
    this.observeLedger(r.ledger);
    return r;
  }
}

/** The cache key of a read: contract, function, simulation source and each argument (its XDR, or a cheaper exact form). */
export function readKey(contractId: string, fn: string, source: string, args: readonly xdr.ScVal[]): string {
  let k = `${contractId} ${fn} ${source}`;
  for (const a of args) k += ` ${argKey(a)}`;
  return k;
}

/** One argument, injectively: strings and u32s without encoding XDR (the common read arguments), the rest as XDR. */
function argKey(a: xdr.ScVal): string {
  if (a.type === 'scvString') return `S${Buffer.from(a.str.bytes).toString('base64')}`;
  if (a.type === 'scvU32') return `u${a.u32}`;
  return a.toXdr('base64');
}
