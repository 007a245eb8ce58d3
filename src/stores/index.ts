// Chooses the backends by configuration: keys and idempotency records in PostgreSQL when a database URL
// is given, else in the SQLite database of the data directory (one SQL store, two drivers: ./sql.ts); rate-limit windows and the cache in Redis when a Redis
// URL is given, else in memory; the resolver's proof-of-control nonces in Redis when a Redis URL is given,
// else nowhere here (the resolver then keeps them per process). Nothing connects eagerly in a way that can
// fail: an unreachable backend shows up as StoreUnavailableError on use and in health(), and recovers by itself.
// With `keyCache`, verified keys are answered from memory and kept true by the records backend's change feed
// (./key-cache.ts).
import { sqlDidIndex, type DidIndexStore } from './did-index.ts';
import { cachedKeyStore, type KeyCacheLru } from './key-cache.ts';
import { createMemoryChallengeStore } from './challenges.ts';
import { createMemoryCache, createMemoryRateLimiter } from './memory.ts';
import { createPostgresStores } from './postgres.ts';
import { createRedisStores } from './redis.ts';
import { sqlRegistrarJobs, type RegistrarJobStore } from './registrar-jobs.ts';
import { createSqliteStores } from './sqlite.ts';
import type { Cache, ChallengeStore, IdempotencyStore, KeyStore, NonceStore, RateLimiter, StoreName } from './types.ts';
import type { Clock } from '../domain.ts';

export * from './types.ts';
export type { DidIndexStore } from './did-index.ts';
export type { RegistrarJobStore } from './registrar-jobs.ts';

export interface StoresOptions {
  dataDir: string;
  databaseUrl?: string;
  /** PostgreSQL schema for the tables (default: the connection's search_path). */
  databaseSchema?: string;
  redisUrl?: string;
  /** Prefix of Redis keys (default `credential-vault:`). */
  redisKeyPrefix?: string;
  now?: Clock;
  /** Told about background connection errors of the shared backends. */
  onError?: (err: Error) => void;
  /** An LRU for verified API keys (its `max` from CV_KEY_CACHE_SIZE); without it every lookup reads the store. */
  keyCache?: KeyCacheLru;
  /** Live challenges the in-memory challenge store keeps (default DEFAULT_CHALLENGE_ENTRIES; not with Redis). */
  challengeEntries?: number;
}

export interface StoreHealth {
  name: StoreName;
  backend: 'sqlite' | 'postgres' | 'memory' | 'redis';
  ok: boolean;
}

export interface Stores {
  keys: KeyStore;
  idempotency: IdempotencyStore;
  rateLimiter: RateLimiter;
  cache: Cache;
  /** The resolver's Universal Registrar jobs, in the records backend (shared with PostgreSQL). */
  registrarJobs: RegistrarJobStore;
  /** The resolver's reverse lookup of DIDs by controller, in the records backend. */
  didIndex: DidIndexStore;
  /** Proof-of-control nonces shared by every resolver instance; only with a Redis URL. */
  nonces?: NonceStore;
  /** The vault API's presentation challenges: in Redis when a Redis URL is given, else in memory. */
  challenges?: ChallengeStore;
  /** Which backend serves what, and whether it answers now. */
  health(): Promise<StoreHealth[]>;
  close(): Promise<void>;
}

export function createStores(options: StoresOptions): Stores {
  const now = options.now;
  // The cache is made after the stores; the stores tell it of their own changes through this.
  let evict: ((hashes: readonly string[]) => void) | undefined;
  const onKeysChanged = (hashes: readonly string[]) => evict?.(hashes);
  const records = options.databaseUrl
    ? (() => {
        const pg = createPostgresStores({
          connectionString: options.databaseUrl,
          ...(options.databaseSchema ? { schema: options.databaseSchema } : {}),
          ...(now ? { now } : {}),
          ...(options.onError ? { onError: options.onError } : {}),
          onKeysChanged,
        });
        return { backend: 'postgres' as const, ...pg };
      })()
    : (() => {
        const sqlite = createSqliteStores({ dataDir: options.dataDir, ...(now ? { now } : {}), onKeysChanged });
        return { backend: 'sqlite' as const, ...sqlite };
      })();
  const cached = options.keyCache
    ? cachedKeyStore(records.keys, { lru: options.keyCache, openFeed: records.keyChanges, now: now ?? Date.now })
    : undefined;
  evict = cached?.evict;
  const keys: KeyStore = cached ?? records.keys;

  const windows = options.redisUrl
    ? (() => {
        const redis = createRedisStores({
          url: options.redisUrl,
          ...(options.redisKeyPrefix ? { keyPrefix: options.redisKeyPrefix } : {}),
          ...(now ? { now } : {}),
          ...(options.onError ? { onError: options.onError } : {}),
        });
        return { backend: 'redis' as const, ...redis };
      })()
    : {
        backend: 'memory' as const,
        rateLimiter: createMemoryRateLimiter(now ? { now } : {}),
        cache: createMemoryCache(now ? { now } : {}),
        health: async () => true,
        nonces: undefined,
        challenges: createMemoryChallengeStore({
          ...(now ? { now } : {}),
          ...(options.challengeEntries !== undefined ? { maxEntries: options.challengeEntries } : {}),
        }),
        close: async () => {},
      };

  return {
    keys,
    idempotency: records.idempotency,
    registrarJobs: sqlRegistrarJobs(records.query, now),
    didIndex: sqlDidIndex(records.query),
    rateLimiter: windows.rateLimiter,
    cache: windows.cache,
    ...(windows.nonces ? { nonces: windows.nonces } : {}),
    challenges: windows.challenges,
    async health() {
      const [keysOk, windowsOk] = await Promise.all([records.health(), windows.health()]);
      // keys and idempotency share one backend, rate limits and the cache another: one probe each.
      return [
        { name: 'keys', backend: records.backend, ok: keysOk },
        { name: 'idempotency', backend: records.backend, ok: keysOk },
        { name: 'rate_limit', backend: windows.backend, ok: windowsOk },
        { name: 'cache', backend: windows.backend, ok: windowsOk },
      ];
    },
    async close() {
      await Promise.all([keys.close(), records.close(), windows.close()]);
    },
  };
}
