// The shared backends fail fast while PostgreSQL or Redis is away (StoreUnavailableError, which the HTTP
// layer turns into a 503) and recover by themselves when it returns: a TCP proxy between the store and the
// real server is cut and restored under a live store instance.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createStores } from './index.ts';
import { createPostgresStores, type PostgresStores } from './postgres.ts';
import { createRedisStores, type RedisStores } from './redis.ts';
import {
  PG_HOST,
  PG_PORT,
  REDIS_HOST,
  REDIS_PORT,
  dropRedisPrefix,
  dropSchema,
  pgUrl,
  redisUrl,
  tempDir,
  uniqueName,
} from '../../test-support/stores/backends.ts';
import { closedPort, startTcpProxy, type TcpProxy } from '../../test-support/stores/tcp-proxy.ts';
import { StoreUnavailableError, type StoreName } from './types.ts';

const schema = uniqueName('cv_faults');
const prefix = `${uniqueName('cvfaults')}:`;
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await dropSchema(schema);
  await dropRedisPrefix(prefix);
});

const someKey = () => randomBytes(32).toString('hex');
const bucket = { bucket: 'k:read', limit: 5, windowMs: 60_000 };

async function expectUnavailable(op: Promise<unknown>, store: StoreName): Promise<void> {
  const err = await op.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(StoreUnavailableError);
  expect((err as StoreUnavailableError).store).toBe(store);
}

/** Retries op until it succeeds: recovery is the store's own doing, the test only waits. */
const eventually = <T>(op: () => Promise<T>): Promise<T> => vi.waitFor(op, { timeout: 10_000, interval: 100 });

describe('unreachable backends', () => {
  it('PostgreSQL on a closed port: every operation throws StoreUnavailableError', async () => {
    const pg = createPostgresStores({ connectionString: pgUrl(await closedPort()), schema });
    cleanups.push(() => pg.close());
    await expectUnavailable(pg.keys.findByKey(someKey()), 'keys');
    await expectUnavailable(
      pg.keys.create({ walletAddress: 'GX', network: 'testnet', role: 'standard', scopes: [], expiresAt: null }),
      'keys',
    );
    await expectUnavailable(pg.idempotency.begin({ scope: 's', key: 'k', requestHash: 'h' }), 'idempotency');
    expect(await pg.health()).toBe(false);
  });

  it('Redis on a closed port: hits and cache reads throw StoreUnavailableError', async () => {
    const redis = createRedisStores({ url: redisUrl(await closedPort()), keyPrefix: prefix });
    cleanups.push(() => redis.close());
    await expectUnavailable(redis.rateLimiter.hit(bucket), 'rate_limit');
    await expectUnavailable(redis.cache.get('x'), 'cache');
    await expectUnavailable(redis.cache.set('x', 'y', 1000), 'cache');
    expect(await redis.health()).toBe(false);
  });

  it('createStores reports each backend in health()', async () => {
    const { dir, remove } = await tempDir();
    cleanups.push(remove);
    const embedded = createStores({ dataDir: dir });
    expect(await embedded.health()).toEqual([
      { name: 'keys', backend: 'sqlite', ok: true },
      { name: 'idempotency', backend: 'sqlite', ok: true },
      { name: 'rate_limit', backend: 'memory', ok: true },
      { name: 'cache', backend: 'memory', ok: true },
    ]);
    const down = createStores({
      dataDir: dir,
      databaseUrl: pgUrl(await closedPort()),
      redisUrl: redisUrl(await closedPort()),
    });
    cleanups.push(() => down.close());
    expect(await down.health()).toEqual([
      { name: 'keys', backend: 'postgres', ok: false },
      { name: 'idempotency', backend: 'postgres', ok: false },
      { name: 'rate_limit', backend: 'redis', ok: false },
      { name: 'cache', backend: 'redis', ok: false },
    ]);
    await expectUnavailable(down.rateLimiter.hit(bucket), 'rate_limit');
    await expectUnavailable(down.keys.findByKey(someKey()), 'keys');
  });
});

describe('recovery through a proxy that is cut and restored', () => {
  /** A PostgreSQL store of its own behind a proxy of its own: each test cuts only what it made. */
  const pgThroughProxy = async (): Promise<{ pgProxy: TcpProxy; pg: PostgresStores }> => {
    const pgProxy = await startTcpProxy({ host: PG_HOST, port: PG_PORT });
    cleanups.push(() => pgProxy.close());
    const pg = createPostgresStores({ connectionString: pgUrl(pgProxy.port), schema });
    cleanups.push(() => pg.close());
    return { pgProxy, pg };
  };
  const redisThroughProxy = async (): Promise<{ redisProxy: TcpProxy; redis: RedisStores }> => {
    const redisProxy = await startTcpProxy({ host: REDIS_HOST, port: REDIS_PORT });
    cleanups.push(() => redisProxy.close());
    const redis = createRedisStores({ url: redisUrl(redisProxy.port), keyPrefix: prefix });
    cleanups.push(() => redis.close());
    return { redisProxy, redis };
  };

  it('PostgreSQL: works, fails fast while cut, works again by itself', async () => {
    const { pgProxy, pg } = await pgThroughProxy();
    const { key } = await pg.keys.create({
      walletAddress: 'GPROXY',
      network: 'testnet',
      role: 'standard',
      scopes: [],
      expiresAt: null,
    });
    expect(await pg.keys.findByKey(key)).toBeDefined();

    await pgProxy.stop();
    await expectUnavailable(pg.keys.findByKey(key), 'keys');
    await expectUnavailable(
      pg.idempotency.begin({ scope: 's', key: 'during-outage', requestHash: 'h' }),
      'idempotency',
    );
    expect(await pg.health()).toBe(false);

    await pgProxy.start();
    expect((await eventually(() => pg.keys.findByKey(key)))?.walletAddress).toBe('GPROXY');
    expect((await pg.idempotency.begin({ scope: 's', key: 'after-outage', requestHash: 'h' })).state).toBe('started');
    expect(await pg.health()).toBe(true);
  });

  it('PostgreSQL: a silent network (black hole) fails within the timeouts, then recovers', async () => {
    const { pgProxy, pg } = await pgThroughProxy();
    await eventually(() => pg.keys.list()); // a pooled connection, which the cut kills
    await pgProxy.stop();
    pgProxy.setMode('blackhole');
    await pgProxy.start();
    // First on the pooled connection the cut killed, then on a new one into the black hole
    // (bounded by connectionTimeoutMillis).
    await expectUnavailable(pg.keys.findByKey(someKey()), 'keys');
    await expectUnavailable(pg.keys.findByKey(someKey()), 'keys');
    await pgProxy.stop();
    pgProxy.setMode('forward');
    await pgProxy.start();
    await eventually(() => pg.keys.list());
  });

  it('Redis: works, fails fast while cut, works again by itself', async () => {
    const { redisProxy, redis } = await redisThroughProxy();
    const bucket = { bucket: `k:read:${someKey()}`, limit: 5, windowMs: 60_000 };
    expect((await redis.rateLimiter.hit(bucket)).allowed).toBe(true);

    await redisProxy.stop();
    await expectUnavailable(redis.rateLimiter.hit(bucket), 'rate_limit');
    await expectUnavailable(redis.cache.get('x'), 'cache');

    await redisProxy.start();
    const after = await eventually(() => redis.rateLimiter.hit(bucket));
    // The window survived in Redis: this is the second allowed hit of the bucket.
    expect(after.remaining).toBe(3);
    await redis.cache.set('x', 'y', 10_000);
    expect(await redis.cache.get('x')).toBe('y');
  });

  it('Redis: a silent network (black hole) fails within the command timeout, then recovers', async () => {
    const { redisProxy, redis } = await redisThroughProxy();
    const bucket = { bucket: `k:read:${someKey()}`, limit: 5, windowMs: 60_000 };
    await eventually(() => redis.rateLimiter.hit(bucket)); // a live connection, which the cut kills
    await redisProxy.stop();
    redisProxy.setMode('blackhole');
    await redisProxy.start();
    await expectUnavailable(redis.rateLimiter.hit(bucket), 'rate_limit');
    await redisProxy.stop();
    redisProxy.setMode('forward');
    await redisProxy.start();
    await eventually(() => redis.rateLimiter.hit(bucket));
  });
});
