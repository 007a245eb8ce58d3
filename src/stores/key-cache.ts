// Verified API keys in memory, so that authenticating a request costs no store round trip, and safe across
// instances: a key revoked, replaced or changed through any instance or process (the `keys` CLI) is refused
// by every instance within KEY_CACHE_MAX_STALENESS_MS (1 s).
//
// - Records are kept by the SHA-256 of the key in an injected LRU (sized by CV_KEY_CACHE_SIZE). Only keys the
//   store knows are kept: an unknown key is asked of the store every time, so guesses cannot fill memory.
// - A change feed of the store reports every changed key (PostgreSQL: LISTEN/NOTIFY, ./postgres.ts; SQLite: a
//   change log read by polling, ./sqlite.ts) and a watermark: a time on the monotonic clock before which every
//   committed change has been delivered. A cached record is used only while the watermark is at most
//   KEY_CACHE_MAX_STALENESS_MS old; when the feed is late, reconnecting or down, lookups read the store (and
//   fail closed if the store is down too). A feed that (re)connects forgets everything cached before.
// - Expiry is judged at every lookup from the cached `expiresAt` and the service clock: exact.
// - A store read that raced with a change is not cached (a generation count), and this instance's own
//   changes evict at once (`evict`, called by the SQL store after its commit).
import type { LRUCache } from 'lru-cache';
import { hashKey, lookupOf } from './records.ts';
import type { ApiKeyRecord, KeyLookup, KeyStore } from './types.ts';
import type { Clock } from '../domain.ts';

/** The longest a revoked, replaced or changed key may still be accepted by another instance. */
export const KEY_CACHE_MAX_STALENESS_MS = 1000;
/** How often a busy instance asks its feed for a newer watermark (a ping or a poll). */
export const KEY_CACHE_REFRESH_EVERY_MS = 250;

/** The LRU of verified keys by key hash (lru-cache, created where the settings are read). */
export type KeyCacheLru = LRUCache<string, ApiKeyRecord>;

/** Where a feed delivers changes. */
export interface KeyChangeSink {
  /** These key hashes changed: forget them. */
  evict(hashes: readonly string[]): void;
  /** Changes may have been missed (the feed started, reconnected or fell behind): forget everything. */
  clear(): void;
}

/** Changes of the stored keys made anywhere, as they are committed. */
export interface KeyChangeFeed {
  /**
   * Monotonic time before which every committed change has reached the sink; -Infinity before the feed is
   * up and from the moment it knows it lost its channel.
   */
  watermark(): number;
  /** Asks for a newer watermark; returns at once, and does nothing while an earlier request runs. */
  refresh(): void;
  close(): Promise<void>;
}

export type OpenKeyChangeFeed = (sink: KeyChangeSink, clock: Clock) => KeyChangeFeed;

export interface KeyCacheOptions {
  lru: KeyCacheLru;
  /** Opens the feed at the first lookup (a CLI that only creates or lists keys never opens one). */
  openFeed: OpenKeyChangeFeed;
  /** The service clock, for expiry. */
  now: Clock;
  /** Monotonic milliseconds, for staleness (default performance.now). */
  clock?: Clock;
  maxStalenessMs?: number;
  refreshEveryMs?: number;
}

export interface CachedKeyStore extends KeyStore {
  /** Forgets these key hashes now: this instance changed them. */
  evict(hashes: readonly string[]): void;
}

export function cachedKeyStore(inner: KeyStore, options: KeyCacheOptions): CachedKeyStore {
  const { lru, now } = options;
  const clock = options.clock ?? (() => performance.now());
  const maxStalenessMs = options.maxStalenessMs ?? KEY_CACHE_MAX_STALENESS_MS;
  const refreshEveryMs = options.refreshEveryMs ?? KEY_CACHE_REFRESH_EVERY_MS;
  /** Bumped by every eviction: a store read that started before one may hold what it evicted. */
  let generation = 0;
  let lastRefresh = -Infinity;
  let feed: KeyChangeFeed | undefined;
  let closed = false;

  const sink: KeyChangeSink = {
    evict(hashes) {
      generation++;
      for (const hash of hashes) lru.delete(hash);
    },
    clear() {
      generation++;
      lru.clear();
    },
  };

  async function lookup(key: string): Promise<KeyLookup | undefined> {
    const hash = hashKey(key);
    if (hash === undefined || closed) return inner.lookup(key);
    feed ??= options.openFeed(sink, clock);
    const t = clock();
    if (t - lastRefresh >= refreshEveryMs) {
      lastRefresh = t;
      feed.refresh();
    }
    if (t - feed.watermark() <= maxStalenessMs) {
      const cached = lru.get(hash);
      if (cached) return lookupOf(cached, now());
    }
    const before = generation;
    const found = await inner.lookup(key);
    if (found && before === generation && !closed) lru.set(hash, { ...found.record, scopes: [...found.record.scopes] });
    return found;
  }

  return {
    create: (input, createOptions) => inner.create(input, createOptions),
    async findByKey(key) {
      const found = await lookup(key);
      return found?.state === 'active' ? found.record : undefined;
    },
    lookup,
    list: (filter) => inner.list(filter),
    revoke: (keyId) => inner.revoke(keyId),
    evict: (hashes) => sink.evict(hashes),
    async close() {
      closed = true;
      lru.clear();
      await feed?.close();
      await inner.close();
    },
  };
}
