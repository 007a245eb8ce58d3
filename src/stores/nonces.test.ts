// One contract for the proof-of-control nonce stores (docs/did-resolver.md "Proof of control"):
// the embedded MemoryNonceStore and the Redis one shared by every resolver instance. Same semantics: a
// nonce is spent by the first consume, whether its binding matches or not, and is valid up to and including
// its expiry on the service's clock. Redis runs at 127.0.0.1:6379 under a key prefix of this file's own.
import { afterAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { MemoryNonceStore } from '../did/proof.ts';
import { createStores } from './index.ts';
import { createRedisStores, type RedisStores } from './redis.ts';
import { dropRedisPrefix, manualClock, redisUrl, tempDir, uniqueName } from '../../test-support/stores/backends.ts';
import { closedPort } from '../../test-support/stores/tcp-proxy.ts';
import { StoreUnavailableError } from './types.ts';

const prefix = `${uniqueName('cvnonces')}:`;
const opened: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
  await dropRedisPrefix(prefix);
});

function redisStores(now?: () => number, url = redisUrl()): RedisStores {
  const r = createRedisStores({ url, keyPrefix: prefix, ...(now ? { now } : {}) });
  opened.push(r);
  return r;
}

type Store = { issue(n: string, e: Date, b: string): Promise<void>; consume(n: string, b: string): Promise<boolean> };

interface Backend {
  name: string;
  /** Two stores that share their nonces (two resolver instances) on one clock. */
  pair(now: () => number): [Store, Store];
}

const backends: Backend[] = [
  {
    name: 'memory',
    pair: (now) => {
      const one = new MemoryNonceStore({ now });
      return [one, one];
    },
  },
  { name: 'redis', pair: (now) => [redisStores(now).nonces, redisStores(now).nonces] },
];

const T0 = Date.now();
const MIN = 60_000;
let n = 0;
const freshNonce = () => `nonce-${process.pid}-${++n}`;

describe.each(backends)('$name nonce store', (backend) => {
  const clock = manualClock(T0);
  const [issuer, verifier] = backend.pair(clock.now);

  it.each([
    { name: 'fresh nonce, same binding: true once', binding: 'b', at: 4 * MIN, want: [true, false] },
    { name: 'other binding: false, and the nonce is spent', binding: 'c', at: MIN, want: [false, false] },
    { name: 'at the expiry instant: still valid', binding: 'b', at: 5 * MIN, want: [true, false] },
    { name: 'after expiry: false', binding: 'b', at: 5 * MIN + 1, want: [false, false] },
  ])('$name (issued on one instance, consumed on the other)', async ({ binding, at, want }) => {
    clock.set(T0);
    const nonce = freshNonce();
    await issuer.issue(nonce, new Date(T0 + 5 * MIN), 'b');
    clock.set(T0 + at);
    expect([await verifier.consume(nonce, binding), await issuer.consume(nonce, 'b')]).toEqual(want);
  });

  it('an unknown nonce is false', async () => {
    clock.set(T0);
    expect(await verifier.consume(freshNonce(), 'b')).toBe(false);
  });

  it('an already expired issue never verifies', async () => {
    clock.set(T0);
    const nonce = freshNonce();
    await issuer.issue(nonce, new Date(T0 - 1), 'b');
    expect(await verifier.consume(nonce, 'b')).toBe(false);
  });
});

describe('redis nonce store', () => {
  it('exactly one of many concurrent consumes across instances wins', async () => {
    const stores = [redisStores(), redisStores(), redisStores()];
    const nonce = freshNonce();
    await stores[0]!.nonces.issue(nonce, new Date(Date.now() + 5 * MIN), 'b');
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => stores[i % 3]!.nonces.consume(nonce, 'b')));
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('keeps a nonce in Redis only until its expiry, and consume removes it', async () => {
    const { nonces } = redisStores();
    const raw = new Redis(redisUrl(), { keyPrefix: prefix });
    opened.push({ close: async () => raw.disconnect() });
    const [short, spent] = [freshNonce(), freshNonce()];
    await nonces.issue(short, new Date(Date.now() + 5 * MIN), 'b');
    const ttl = await raw.pttl(`nonce:${short}`);
    expect(ttl).toBeGreaterThan(5 * MIN - 5_000);
    expect(ttl).toBeLessThanOrEqual(5 * MIN);
    await nonces.issue(spent, new Date(Date.now() + 5 * MIN), 'b');
    await nonces.consume(spent, 'x');
    expect(await raw.exists(`nonce:${spent}`)).toBe(0);
  });

  it('refuses to issue a nonce twice (never rebinds an outstanding nonce)', async () => {
    const { nonces } = redisStores();
    const nonce = freshNonce();
    await nonces.issue(nonce, new Date(Date.now() + MIN), 'b');
    await expect(nonces.issue(nonce, new Date(Date.now() + MIN), 'c')).rejects.toThrow(/already issued/);
    expect(await nonces.consume(nonce, 'b')).toBe(true);
  });

  it('Redis away: issue and consume throw StoreUnavailableError("nonces")', async () => {
    const { nonces } = redisStores(undefined, redisUrl(await closedPort()));
    for (const op of [
      () => nonces.issue(freshNonce(), new Date(Date.now() + MIN), 'b'),
      () => nonces.consume(freshNonce(), 'b'),
    ]) {
      const err = await op().catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreUnavailableError);
      expect(err).toMatchObject({ store: 'nonces' });
    }
  });
});

describe('createStores', () => {
  it('has nonces only with a Redis URL', async () => {
    const { dir, remove } = await tempDir();
    try {
      const local = createStores({ dataDir: dir });
      const shared = createStores({ dataDir: dir, redisUrl: redisUrl(), redisKeyPrefix: prefix });
      opened.push(local, shared);
      expect(local.nonces).toBeUndefined();
      const nonce = freshNonce();
      await shared.nonces!.issue(nonce, new Date(Date.now() + MIN), 'b');
      expect(await redisStores().nonces.consume(nonce, 'b')).toBe(true);
    } finally {
      await remove();
    }
  });
});
