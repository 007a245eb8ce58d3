// Rate-limit windows, the resolver's cache, its proof-of-control nonces and the vault API's presentation
// challenges in Redis, shared by many instances.
//
// The limiter is one Lua script, so checking and recording a hit is atomic across instances: a sorted
// set per bucket holds one member per allowed request (score = time in ms, member unique), exact to the
// millisecond. Time comes from the caller (`now`, the service's clock) rather than Redis TIME: tests can
// drive it, and instances with NTP-synchronized clocks disagree by far less than the 60-second window.
//
// A nonce is one key `nonce:<nonce>` holding `<expiresAt ms>:<binding>`, set with NX and a TTL to its expiry;
// consume is GETDEL, so exactly one attempt across all instances gets the value, whatever it then compares.
// Validity is decided on the service clock (`now`), as MemoryNonceStore does; the TTL only frees memory.
//
// A down Redis fails fast: no offline queue, one retry per command, 1-second connect and command timeouts;
// the client keeps reconnecting in the background (backoff capped at 1 s) and works again by itself.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { checkHitInput, hitResult } from './sliding-window.ts';
import {
  StoreUnavailableError,
  type Cache,
  type ChallengeIssue,
  type ChallengeStore,
  type HitInput,
  type HitResult,
  type NonceStore,
  type RateLimiter,
  type StoreName,
} from './types.ts';
import type { Clock } from '../domain.ts';

/**
 * KEYS[1] bucket; ARGV: now (ms), window (ms), limit, unique member.
 * Returns {allowed 0|1, count in window, oldest score or -1, blocker score or -1}, where blocker is the
 * entry whose expiry frees a slot when refused.
 */
export const SLIDING_WINDOW_LUA = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  redis.call('ZADD', key, now, ARGV[4])
  count = count + 1
  allowed = 1
end
local oldest = -1
local first = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
if first[2] then oldest = tonumber(first[2]) end
local blocker = -1
if allowed == 0 and count > 0 and count >= limit then
  local b = redis.call('ZRANGE', key, count - limit, count - limit, 'WITHSCORES')
  if b[2] then blocker = tonumber(b[2]) end
end
redis.call('PEXPIRE', key, window)
return {allowed, count, oldest, blocker}
`;

/**
 * A client's live challenges: one sorted set, member = challenge, score = expiry (ms). KEYS[1] the set; ARGV:
 * now, expiry, quota, challenge. Drops the expired, refuses past the quota (0), else adds (1).
 */
const CHALLENGE_ISSUE_LUA = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local expires = tonumber(ARGV[2])
redis.call('ZREMRANGEBYSCORE', key, '-inf', '(' .. now)
if redis.call('ZCARD', key) >= tonumber(ARGV[3]) then return 0 end
redis.call('ZADD', key, expires, ARGV[4])
redis.call('PEXPIRE', key, math.max(1, expires - now))
return 1
`;

/** KEYS[1] the client's set; ARGV[1] the challenge. Removes it and answers its expiry, or -1. */
const CHALLENGE_CONSUME_LUA = `
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score then return -1 end
redis.call('ZREM', KEYS[1], ARGV[1])
return score
`;

export interface RedisStoresOptions {
  url: string;
  /** Prefix of every key this service writes (default `credential-vault:`). */
  keyPrefix?: string;
  now?: Clock;
  /** Connect and command timeout (default 1000 ms). */
  timeoutMs?: number;
  /** Told about connection errors (the client reconnects by itself either way). */
  onError?: (err: Error) => void;
}

export interface RedisStores {
  rateLimiter: RateLimiter;
  cache: Cache;
  nonces: NonceStore;
  challenges: ChallengeStore;
  health(): Promise<boolean>;
  close(): Promise<void>;
}

type SlidingWindowReply = [number, number, number, number];

interface WithScript {
  cvSlidingWindow(
    key: string,
    now: number,
    windowMs: number,
    limit: number,
    member: string,
  ): Promise<SlidingWindowReply>;
  cvChallengeIssue(key: string, now: number, expiresAt: number, quota: number, challenge: string): Promise<number>;
  cvChallengeConsume(key: string, challenge: string): Promise<number | string>;
}

/** Redis errors that mean "not now" rather than a bug in the command. */
const UNAVAILABLE_REPLIES = /^(LOADING|BUSY|READONLY|MASTERDOWN|CLUSTERDOWN|TRYAGAIN|OOM|NOAUTH|WRONGPASS)/;

function toOutage(store: StoreName, err: unknown): unknown {
  if (err instanceof StoreUnavailableError) return err;
  const e = err as Error;
  if (e?.name === 'ReplyError' && !UNAVAILABLE_REPLIES.test(e.message)) return err;
  return new StoreUnavailableError(store, `redis: ${e?.message ?? String(err)}`, { cause: err });
}

/** What the stores over one Redis connection share. */
interface RedisContext {
  redis: Redis;
  scripted: WithScript;
  now: Clock;
  /** Runs one command: waits for a connection attempt under way, outages as StoreUnavailableError. */
  run<T>(store: StoreName, op: () => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** While a connection attempt is under way, wait for it (bounded by `timeoutMs`) instead of failing at once. */
async function settled(redis: Redis, timeoutMs: number): Promise<void> {
  if (redis.status !== 'connecting' && redis.status !== 'connect') return;
  await new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      redis.off('ready', done);
      redis.off('close', done);
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    redis.once('ready', done);
    redis.once('close', done);
  });
}

function redisRateLimiter({ scripted, now, run, close }: RedisContext): RateLimiter {
  return {
    async hit({ bucket, limit, windowMs, now: at }: HitInput): Promise<HitResult> {
      checkHitInput(limit, windowMs);
      const t = Math.floor(at ?? now());
      const member = `${t}-${randomBytes(6).toString('hex')}`;
      const [allowed, count, oldest, blocker] = await run('rate_limit', () =>
        scripted.cvSlidingWindow(`rl:${bucket}`, t, windowMs, limit, member),
      );
      return hitResult(
        allowed === 1,
        limit,
        count,
        oldest < 0 ? undefined : oldest,
        blocker < 0 ? undefined : blocker,
        t,
        windowMs,
      );
    },
    close,
  };
}

function redisCache({ redis, run, close }: RedisContext): Cache {
  return {
    async get(key: string) {
      const value = await run('cache', () => redis.get(`cache:${key}`));
      return value ?? undefined;
    },
    async set(key: string, value: string, ttlMs: number) {
      if (!(ttlMs > 0)) throw new RangeError('ttlMs must be positive');
      await run('cache', () => redis.set(`cache:${key}`, value, 'PX', Math.ceil(ttlMs)));
    },
    async delete(key: string) {
      await run('cache', () => redis.del(`cache:${key}`));
    },
    close,
  };
}

function redisNonces({ redis, now, run, close }: RedisContext): NonceStore {
  return {
    async issue(nonce: string, expiresAt: Date, binding: string) {
      const expiresMs = expiresAt.getTime();
      const ttlMs = expiresMs - now();
      // Expired on arrival: nothing to keep; consume answers false as for any unknown nonce.
      if (!(ttlMs > 0)) return;
      const set = await run('nonces', () =>
        redis.set(`nonce:${nonce}`, `${expiresMs}:${binding}`, 'PX', Math.ceil(ttlMs), 'NX'),
      );
      // 16 random bytes never collide; a second issue of one nonce is a caller's bug, not an outage.
      if (set !== 'OK') throw new Error('nonce already issued');
    },
    async consume(nonce: string, binding: string) {
      const value = await run('nonces', () => redis.getdel(`nonce:${nonce}`));
      if (value === null) return false;
      const colon = value.indexOf(':');
      return value.slice(colon + 1) === binding && Number(value.slice(0, colon)) >= now();
    },
    close,
  };
}

function redisChallenges({ scripted, now, run, close }: RedisContext): ChallengeStore {
  // Redis's own memory bounds the shared store: only the per-client quota refuses here.
  return {
    async issue(client: string, challenge: string, expiresAt: Date, quota: number): Promise<ChallengeIssue> {
      const added = await run('challenges', () =>
        scripted.cvChallengeIssue(`challenges:${client}`, now(), expiresAt.getTime(), quota, challenge),
      );
      return added === 1 ? 'issued' : 'client_quota';
    },
    async consume(client: string, challenge: string): Promise<boolean> {
      const expiresAt = Number(
        await run('challenges', () => scripted.cvChallengeConsume(`challenges:${client}`, challenge)),
      );
      return expiresAt >= 0 && expiresAt >= now();
    },
    close,
  };
}

export function createRedisStores(options: RedisStoresOptions): RedisStores {
  const timeoutMs = options.timeoutMs ?? 1000;
  const redis = new Redis(options.url, {
    keyPrefix: options.keyPrefix ?? 'credential-vault:',
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: timeoutMs,
    commandTimeout: timeoutMs,
    retryStrategy: (times) => Math.min(50 * times, 1000),
  });
  redis.on('error', (err: Error) => options.onError?.(err));
  redis.defineCommand('cvSlidingWindow', { numberOfKeys: 1, lua: SLIDING_WINDOW_LUA });
  redis.defineCommand('cvChallengeIssue', { numberOfKeys: 1, lua: CHALLENGE_ISSUE_LUA });
  redis.defineCommand('cvChallengeConsume', { numberOfKeys: 1, lua: CHALLENGE_CONSUME_LUA });
  let closed = false;
  const ctx: RedisContext = {
    redis,
    scripted: redis as unknown as WithScript,
    now: options.now ?? Date.now,
    async run(store, op) {
      if (closed) throw new StoreUnavailableError(store, 'redis store closed');
      try {
        await settled(redis, timeoutMs);
        return await op();
      } catch (err) {
        throw toOutage(store, err);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      redis.disconnect();
    },
  };
  return {
    rateLimiter: redisRateLimiter(ctx),
    cache: redisCache(ctx),
    nonces: redisNonces(ctx),
    challenges: redisChallenges(ctx),
    async health() {
      try {
        return (await ctx.run('rate_limit', () => redis.ping())) === 'PONG';
      } catch {
        return false;
      }
    },
    close: ctx.close,
  };
}
