// In-process stores: the embedded rate limiter and cache (one instance, nothing to share), and key and
// idempotency stores for tests. Everything is lost when the process ends.
import {
  addKey,
  beginIn,
  checkNoActiveKey,
  completeIn,
  hashKey,
  listKeys,
  lookupOf,
  mintKey,
  purgeIn,
  releaseIn,
  revokeKey,
  type IdempotencyRecord,
} from './records.ts';
import { LRUCache } from 'lru-cache';
import { checkHitInput, hitResult } from './sliding-window.ts';
import {
  IDEMPOTENCY_LEASE_MS,
  IDEMPOTENCY_PURGE_EVERY_MS,
  IDEMPOTENCY_TTL_MS,
  type ApiKeyRecord,
  type BeginInput,
  type BeginResult,
  type Cache,
  type CreateKeyInput,
  type CreateKeyOptions,
  type CreatedKey,
  type HitInput,
  type HitResult,
  type IdempotencyStore,
  type KeyStore,
  type RateLimiter,
  type StoredResponse,
} from './types.ts';
import { lruClock, type Clock, type Network } from '../domain.ts';

export interface MemoryOptions {
  now?: Clock;
}

export interface MemoryKeyStoreOptions extends MemoryOptions {
  /** Told the hashes of the keys a revoke or create changed (a key cache of this process evicts them). */
  onKeysChanged?: (hashes: readonly string[]) => void;
}

export function createMemoryKeyStore(options: MemoryKeyStoreOptions = {}): KeyStore {
  const now = options.now ?? Date.now;
  const changed = (hashes: readonly string[]) => {
    if (hashes.length > 0) options.onKeysChanged?.(hashes);
  };
  const keys: ApiKeyRecord[] = [];
  const lookup = async (key: string) => {
    const hash = hashKey(key);
    return lookupOf(hash === undefined ? undefined : keys.find((k) => k.keyHash === hash), now());
  };
  return {
    async create(input: CreateKeyInput, options?: CreateKeyOptions): Promise<CreatedKey> {
      const t = now();
      const created = mintKey(input, t);
      // Check and add with no await between them: atomic on the one thread.
      checkNoActiveKey(keys, created.record, options, t);
      changed(addKey(keys, created.record));
      return { key: created.key, record: { ...created.record, scopes: [...created.record.scopes] } };
    },
    async findByKey(key: string) {
      const found = await lookup(key);
      return found?.state === 'active' ? found.record : undefined;
    },
    lookup,
    async list(filter?: { network?: Network; includeRevoked?: boolean }) {
      return listKeys(keys, filter);
    },
    async revoke(keyId: string) {
      const record = keys.find((k) => k.keyId === keyId);
      const revoked = revokeKey(keys, keyId, now());
      if (revoked && record) changed([record.keyHash]);
      return revoked;
    },
    async close() {},
  };
}

export interface MemoryIdempotencyOptions extends MemoryOptions {
  leaseMs?: number;
  ttlMs?: number;
}

export function createMemoryIdempotencyStore(options: MemoryIdempotencyOptions = {}): IdempotencyStore {
  const now = options.now ?? Date.now;
  const leaseMs = options.leaseMs ?? IDEMPOTENCY_LEASE_MS;
  const ttlMs = options.ttlMs ?? IDEMPOTENCY_TTL_MS;
  const records = new Map<string, IdempotencyRecord>();
  let lastPurge = -Infinity;
  return {
    async begin(input: BeginInput): Promise<BeginResult> {
      const t = input.now ?? now();
      if (t - lastPurge > IDEMPOTENCY_PURGE_EVERY_MS) {
        purgeIn(records, t);
        lastPurge = t;
      }
      return beginIn(records, input, t, leaseMs);
    },
    async complete(scope: string, key: string, token: string, response: StoredResponse) {
      return completeIn(records, scope, key, token, response, now(), ttlMs);
    },
    async release(scope: string, key: string, token: string) {
      releaseIn(records, scope, key, token);
    },
    async close() {},
  };
}

/**
 * A bucket's log: the timestamps at `log[head..]` are the live ones, sorted. Expired entries are dropped
 * by moving `head`, and the dead prefix is cut off only once it is at least half the array, so expiry
 * costs O(1) amortized per hit however large the limit (a `shift()` or front `splice` per hit is O(n)).
 */
interface WindowLog {
  log: number[];
  head: number;
  windowMs: number;
}

/** Sliding-window log in memory (exact to the millisecond); buckets that fall idle are swept. */
export function createMemoryRateLimiter(options: MemoryOptions = {}): RateLimiter {
  const now = options.now ?? Date.now;
  const buckets = new Map<string, WindowLog>();
  let hits = 0;
  const sweep = (t: number) => {
    for (const [name, b] of buckets) {
      const last = b.log[b.log.length - 1];
      if (last === undefined || b.head >= b.log.length || last <= t - b.windowMs) buckets.delete(name);
    }
  };
  return {
    async hit({ bucket, limit, windowMs, now: at }: HitInput): Promise<HitResult> {
      checkHitInput(limit, windowMs);
      const t = at ?? now();
      if (++hits % 1000 === 0) sweep(t);
      let b = buckets.get(bucket);
      if (!b) {
        b = { log: [], head: 0, windowMs };
        buckets.set(bucket, b);
      }
      b.windowMs = windowMs;
      const log = b.log;
      let head = b.head;
      while (head < log.length && log[head]! <= t - windowMs) head++;
      if (head > 0 && head * 2 >= log.length) {
        log.splice(0, head);
        head = 0;
      }
      b.head = head;
      const count = log.length - head;
      const allowed = count < limit;
      if (allowed) {
        // Keep the log sorted even if the injected clock steps back (normally this appends).
        let i = log.length;
        while (i > head && log[i - 1]! > t) i--;
        if (i === log.length) log.push(t);
        else log.splice(i, 0, t);
      }
      const size = log.length - head;
      const oldest = log[head];
      const blocker = allowed ? oldest : log[log.length - limit];
      return hitResult(allowed, limit, size, oldest, blocker, t, windowMs);
    },
    async close() {
      buckets.clear();
    },
  };
}

export interface MemoryCacheOptions extends MemoryOptions {
  /** Least recently used entries are evicted beyond this many (default MEMORY_CACHE_ENTRIES). */
  maxEntries?: number;
}

/**
 * Entries of the embedded cache by default. It holds the resolver's cached resolutions when no Redis is
 * configured, one small JSON entry per DID, each also kept for CV_RESOLVER_CACHE_TTL_MS at most: a bound on
 * memory rather than a tuning knob (an operator with more DIDs in use than this configures Redis).
 */
const MEMORY_CACHE_ENTRIES = 10_000;

/** The embedded Cache: an lru-cache LRU, each entry with its own ttl on the injected clock. */
export function createMemoryCache(options: MemoryCacheOptions = {}): Cache {
  const entries = new LRUCache<string, string>({
    max: options.maxEntries ?? MEMORY_CACHE_ENTRIES,
    ...lruClock(options.now ?? Date.now),
  });
  return {
    async get(key: string) {
      const value = entries.get(key);
      if (value === undefined) return undefined;
      // Gone once ttlMs has passed: lru-cache still returns an entry whose age is exactly its ttl.
      if (entries.getRemainingTTL(key) <= 0) {
        entries.delete(key);
        return undefined;
      }
      return value;
    },
    async delete(key: string) {
      entries.delete(key);
    },
    async set(key: string, value: string, ttlMs: number) {
      if (!(ttlMs > 0)) throw new RangeError('ttlMs must be positive');
      entries.set(key, value, { ttl: ttlMs });
    },
    async close() {
      entries.clear();
    },
  };
}
