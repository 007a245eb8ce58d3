// One contract for the sliding-window rate limiters (memory, Redis) and the caches (memory, Redis).
// Time is the test's: the memory limiter takes `now`, and so does the Redis script (an argument, not TIME).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createMemoryCache, createMemoryRateLimiter } from './memory.ts';
import { createRedisStores, type RedisStores } from './redis.ts';
import { dropRedisPrefix, manualClock, redisUrl, uniqueName } from '../../test-support/stores/backends.ts';
import type { Cache, RateLimiter } from './types.ts';

const T0 = Date.parse('2026-07-01T00:00:00Z');
const WINDOW = 60_000;
const prefix = `${uniqueName('cvtest')}:`;
const redisInstances: RedisStores[] = [];
const redis = () => {
  const r = createRedisStores({ url: redisUrl(), keyPrefix: prefix });
  redisInstances.push(r);
  return r;
};

afterAll(async () => {
  await Promise.all(redisInstances.map((r) => r.close()));
  await dropRedisPrefix(prefix);
});

interface LimiterBackend {
  name: string;
  /** Two limiters that share their windows (two instances of a service). */
  pair(): [RateLimiter, RateLimiter];
}

const memoryLimiter: LimiterBackend = {
  name: 'memory',
  pair: () => {
    const one = createMemoryRateLimiter();
    return [one, one];
  },
};

const redisLimiter: LimiterBackend = {
  name: 'redis',
  pair: () => [redis().rateLimiter, redis().rateLimiter],
};

let bucketNo = 0;
const freshBucket = () => `k${++bucketNo}:read`;

describe.each([memoryLimiter, redisLimiter])('$name rate limiter', (backend) => {
  const [limiter, sibling] = backend.pair();
  const hit = (bucket: string, at: number, limit = 3) => limiter.hit({ bucket, limit, windowMs: WINDOW, now: T0 + at });

  it('allows limit requests, counting down, then refuses with Retry-After', async () => {
    const bucket = freshBucket();
    const results = [];
    for (const at of [0, 1000, 2000, 3000]) results.push(await hit(bucket, at));
    expect(results.map((r) => [r.allowed, r.remaining, r.retryAfterSeconds])).toEqual([
      [true, 2, 0],
      [true, 1, 0],
      [true, 0, 0],
      [false, 0, 57],
    ]);
    expect(results.every((r) => r.limit === 3)).toBe(true);
    expect(results[3]!.resetMs).toBe(57_000);
  });

  it.each([
    // Hits at 0 s, 20 s, 40 s fill a limit of 3.
    { at: 59_999, allowed: false, retryAfter: 1, why: 'the first hit is 1 ms from leaving the window' },
    { at: 60_000, allowed: true, retryAfter: 0, why: 'the first hit left the window exactly 60 s later' },
    { at: 79_999, allowed: true, retryAfter: 0, why: 'the 0 s hit is gone: 20 s, 40 s are in' },
  ])('slides by the millisecond: at $at ms allowed=$allowed ($why)', async ({ at, allowed, retryAfter }) => {
    const bucket = freshBucket();
    for (const t of [0, 20_000, 40_000]) expect((await hit(bucket, t)).allowed).toBe(true);
    const r = await hit(bucket, at);
    expect([r.allowed, r.retryAfterSeconds]).toEqual([allowed, retryAfter]);
  });

  it('is not a fixed window: a burst late in one minute still counts early in the next', async () => {
    const bucket = freshBucket();
    for (const t of [50_000, 50_001, 50_002]) expect((await hit(bucket, t)).allowed).toBe(true);
    const r = await hit(bucket, 61_000);
    expect(r.allowed).toBe(false);
    expect(r.retryAfterSeconds).toBe(49); // until 110.000 s
    expect((await hit(bucket, 110_000)).allowed).toBe(true);
  });

  it('does not log refused requests, so hammering does not extend the wait', async () => {
    const bucket = freshBucket();
    for (const t of [0, 1, 2]) await hit(bucket, t);
    for (let t = 1000; t < 60_000; t += 1000) expect((await hit(bucket, t)).allowed).toBe(false);
    expect((await hit(bucket, 60_000)).allowed).toBe(true);
  });

  it('Retry-After waits for as many hits as needed when the limit drops', async () => {
    const bucket = freshBucket();
    for (const t of [0, 10_000, 20_000]) await hit(bucket, t, 3);
    // Limit now 1 (e.g. a role change): all three must leave; the last one leaves at 80 s.
    const r = await hit(bucket, 30_000, 1);
    expect([r.allowed, r.remaining, r.retryAfterSeconds]).toEqual([false, 0, 50]);
  });

  it('a limit of 0 refuses everything', async () => {
    const r = await hit(freshBucket(), 0, 0);
    expect([r.allowed, r.remaining, r.retryAfterSeconds]).toEqual([false, 0, 60]);
  });

  it('keeps buckets apart (read and write, key and key)', async () => {
    const k = `k${++bucketNo}`;
    for (const t of [0, 1, 2]) await hit(`${k}:read`, t);
    expect((await hit(`${k}:read`, 3)).allowed).toBe(false);
    expect((await hit(`${k}:write`, 3)).allowed).toBe(true);
    expect((await hit(`${freshBucket()}`, 3)).allowed).toBe(true);
  });

  it('100 concurrent hits over two instances allow exactly the limit', async () => {
    const bucket = freshBucket();
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        (i % 2 ? sibling : limiter).hit({ bucket, limit: 20, windowMs: WINDOW, now: T0 + i }),
      ),
    );
    expect(results.filter((r) => r.allowed)).toHaveLength(20);
    expect(results.filter((r) => !r.allowed).every((r) => r.retryAfterSeconds >= 1)).toBe(true);
  });

  it('uses its own clock when no time is given', async () => {
    const r = await limiter.hit({ bucket: freshBucket(), limit: 1, windowMs: WINDOW });
    expect(r).toEqual({ allowed: true, limit: 1, remaining: 0, retryAfterSeconds: 0, resetMs: WINDOW });
  });
});

describe('memory rate limiter clock', () => {
  it('takes the injected clock when hit() has no time', async () => {
    const clock = manualClock();
    const limiter = createMemoryRateLimiter({ now: clock.now });
    await limiter.hit({ bucket: 'b', limit: 1, windowMs: WINDOW });
    clock.advance(WINDOW - 1);
    expect((await limiter.hit({ bucket: 'b', limit: 1, windowMs: WINDOW })).retryAfterSeconds).toBe(1);
    clock.advance(1);
    expect((await limiter.hit({ bucket: 'b', limit: 1, windowMs: WINDOW })).allowed).toBe(true);
  });
});

/** A cache and how the test lets its TTL pass: the memory cache's clock is the test's, Redis's is the server's. */
interface CacheUnderTest {
  cache: Cache;
  /** Resolves once an entry set with `ttlMs` is gone. */
  expire(key: string, ttlMs: number): Promise<void>;
}

describe.each([
  {
    name: 'memory',
    cache: (): CacheUnderTest => {
      const clock = manualClock();
      return { cache: createMemoryCache({ now: clock.now }), expire: async (_key, ttlMs) => clock.advance(ttlMs) };
    },
  },
  {
    name: 'redis',
    cache: (): CacheUnderTest => {
      const cache = redis().cache;
      const expire = (key: string) =>
        vi.waitFor(async () => expect(await cache.get(key)).toBeUndefined(), { timeout: 5000, interval: 25 });
      return { cache, expire };
    },
  },
])('$name cache', ({ cache: make }) => {
  const { cache, expire } = make();
  // Connected before the first test, whichever runs first.
  beforeAll(() => vi.waitFor(() => cache.get('warm-up'), { timeout: 10_000, interval: 50 }));

  it('returns what was set until the TTL passes', async () => {
    await cache.set('did:ledger:testnet:a', '{"doc":1}', 150);
    expect(await cache.get('did:ledger:testnet:a')).toBe('{"doc":1}');
    expect(await cache.get('did:ledger:testnet:missing')).toBeUndefined();
    await expire('did:ledger:testnet:a', 150);
    expect(await cache.get('did:ledger:testnet:a')).toBeUndefined();
  });

  it('deletes', async () => {
    await cache.set('gone', 'v', 30_000);
    await cache.delete('gone');
    await cache.delete('never-set');
    expect(await cache.get('gone')).toBeUndefined();
  });

  it('overwrites', async () => {
    await cache.set('k', 'one', 30_000);
    await cache.set('k', 'two', 30_000);
    expect(await cache.get('k')).toBe('two');
  });
});

describe('memory cache', () => {
  it('follows the injected clock and keeps at most maxEntries', async () => {
    const clock = manualClock();
    const cache = createMemoryCache({ now: clock.now, maxEntries: 2 });
    await cache.set('a', '1', 30_000);
    clock.advance(29_999);
    expect(await cache.get('a')).toBe('1');
    clock.advance(1);
    expect(await cache.get('a')).toBeUndefined();
    await cache.set('x', '1', 30_000);
    await cache.set('y', '2', 30_000);
    await cache.set('z', '3', 30_000);
    expect([await cache.get('x'), await cache.get('y'), await cache.get('z')]).toEqual([undefined, '2', '3']);
  });

  it('evicts the least recently used: a read keeps an entry', async () => {
    const clock = manualClock();
    const cache = createMemoryCache({ now: clock.now, maxEntries: 2 });
    await cache.set('x', '1', 30_000);
    await cache.set('y', '2', 30_000);
    expect(await cache.get('x')).toBe('1');
    await cache.set('z', '3', 30_000);
    expect([await cache.get('x'), await cache.get('y'), await cache.get('z')]).toEqual(['1', undefined, '3']);
  });
});
