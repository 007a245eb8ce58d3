// Rate limits over HTTP with small limits and an injected clock (vault-api.yaml "Rate limits").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keypair } from '@stellar/stellar-sdk';
import {
  startVaultTestEnv,
  storeFaults,
  stubChain,
  stubContractRoutes,
  type VaultTestEnv,
} from '../../../test-support/vault-api.ts';
import { AUTH_IP_LIMIT, KEYLESS_IP_LIMIT } from './rate-limit.ts';

const G = 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR';
const read = (env: VaultTestEnv, key: string) => env.request(`/contracts/vault/vc-count?owner=${G}`, { key });
const postRead = (env: VaultTestEnv, key: string) =>
  env.request('/contracts/vault/verify-vc', { key, body: { owner: G, vcId: 'vc-1' } });
const write = (env: VaultTestEnv, key: string) =>
  env.request('/contracts/vault/revoke-vault', { key, body: { owner: G, sourcePublicKey: G } });

const faults = storeFaults();
let env: VaultTestEnv;

beforeAll(async () => {
  env = await startVaultTestEnv({
    chain: stubChain(),
    contractRoutes: stubContractRoutes().router,
    stores: faults.wrap,
    limits: {
      rateLimits: { standard: { read: 3, write: 2 }, early: { read: 5, write: 4 }, admin: { read: 4, write: 3 } },
      rateWindowMs: 60_000,
    },
  });
});
afterAll(async () => {
  await env?.close();
});

describe('read bucket', () => {
  it('counts down, then 429 rate_limit_exceeded with Retry-After', async () => {
    const { key } = await env.mintKey();
    const remaining: (string | null)[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await read(env, key);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-ratelimit-limit')).toBe('3');
      expect(res.headers.get('x-writeratelimit-limit')).toBeNull();
      remaining.push(res.headers.get('x-ratelimit-remaining'));
    }
    expect(remaining).toEqual(['2', '1', '0']);
    const over = await read(env, key);
    expect(over.status).toBe(429);
    expect(over.body).toEqual({
      error: 'rate_limit_exceeded',
      message: 'read rate limit of 3 requests per minute exceeded',
    });
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
  });

  it('POST reads (verify-vc) draw from the read bucket', async () => {
    const { key } = await env.mintKey();
    await read(env, key);
    await read(env, key);
    const third = await postRead(env, key);
    expect([third.status, third.headers.get('x-ratelimit-remaining')]).toEqual([200, '0']);
    expect((await postRead(env, key)).body.error).toBe('rate_limit_exceeded');
  });

  it('the window slides: a slot frees 60 s after the request that took it', async () => {
    const { key } = await env.mintKey();
    await read(env, key);
    env.clock.advance(30_000);
    await read(env, key);
    await read(env, key);
    expect((await read(env, key)).status).toBe(429);
    env.clock.advance(30_001);
    expect((await read(env, key)).status).toBe(200);
    expect((await read(env, key)).status).toBe(429);
    env.clock.advance(30_000);
    expect((await read(env, key)).status).toBe(200);
  });

  it('each key has its own bucket', async () => {
    const a = await env.mintKey();
    const b = await env.mintKey();
    for (let i = 0; i < 3; i++) await read(env, a.key);
    expect((await read(env, a.key)).status).toBe(429);
    expect((await read(env, b.key)).status).toBe(200);
  });
});

describe('write bucket', () => {
  it('is separate from reads, with its own headers and code', async () => {
    const { key } = await env.mintKey();
    for (let i = 0; i < 3; i++) await read(env, key);
    expect((await read(env, key)).status).toBe(429);

    const first = await write(env, key);
    expect(first.status).toBe(200);
    expect([first.headers.get('x-writeratelimit-limit'), first.headers.get('x-writeratelimit-remaining')]).toEqual([
      '2',
      '1',
    ]);
    expect(first.headers.get('x-ratelimit-limit')).toBeNull();
    expect((await write(env, key)).status).toBe(200);
    const over = await write(env, key);
    expect(over.status).toBe(429);
    expect(over.body).toEqual({
      error: 'write_rate_limit_exceeded',
      message: 'write rate limit of 2 requests per minute exceeded',
    });
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('counts a request before its body is read: an exhausted bucket answers 429 even to a broken body', async () => {
    const { key } = await env.mintKey();
    const broken = () => env.request('/contracts/vault/revoke-vault', { key, body: '{' });
    const first = await broken();
    expect([first.status, first.body.error, first.headers.get('x-writeratelimit-remaining')]).toEqual([
      400,
      'invalid_json',
      '1',
    ]);
    expect((await write(env, key)).status).toBe(200);
    const over = await broken();
    expect([over.status, over.body.error]).toEqual([429, 'write_rate_limit_exceeded']);
    const huge = await env.request('/contracts/vault/revoke-vault', {
      key,
      body: JSON.stringify({ owner: 'x'.repeat(600 * 1024) }),
    });
    expect([huge.status, huge.body.error]).toEqual([429, 'write_rate_limit_exceeded']);
  });

  it('rejected writes do not run the route', async () => {
    const stub = stubContractRoutes();
    const own = await startVaultTestEnv({
      chain: stubChain(),
      contractRoutes: stub.router,
      limits: {
        rateLimits: { standard: { read: 1, write: 1 }, early: { read: 1, write: 1 }, admin: { read: 1, write: 1 } },
      },
    });
    try {
      const { key } = await own.mintKey();
      await write(own, key);
      expect((await write(own, key)).status).toBe(429);
      expect(stub.calls.get('/contracts/vault/revoke-vault')).toBe(1);
    } finally {
      await own.close();
    }
  });

  it('key administration counts as writes', async () => {
    const admin = await env.mintKey({ role: 'admin', wallet: null });
    const created = await env.request('/admin/keys', {
      key: admin.key,
      body: { wallet_address: Keypair.random().publicKey() },
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('x-writeratelimit-limit')).toBe('3');
    const deleted = await env.request(`/admin/keys/${created.body.key_id}`, { method: 'DELETE', key: admin.key });
    expect([deleted.status, deleted.headers.get('x-writeratelimit-remaining')]).toEqual([204, '1']);
    const listed = await env.request('/admin/keys', { key: admin.key });
    expect(listed.headers.get('x-ratelimit-limit')).toBe('4');
  });
});

describe('per role', () => {
  it.each([
    ['standard', 3, 2],
    ['early', 5, 4],
    ['admin', 4, 3],
  ] as const)('%s: %i reads, %i writes', async (role, reads, writes) => {
    const { key } = await env.mintKey({ role });
    expect((await read(env, key)).headers.get('x-ratelimit-limit')).toBe(String(reads));
    expect((await write(env, key)).headers.get('x-writeratelimit-limit')).toBe(String(writes));
  });
});

describe('unlimited and per-IP routes', () => {
  it('/config and /health are never limited and carry no rate headers', async () => {
    for (let i = 0; i < 12; i++) {
      for (const path of ['/config', '/health']) {
        const res = await env.request(path);
        expect(res.status).toBe(200);
        expect(res.headers.get('x-ratelimit-limit')).toBeNull();
      }
    }
  });

  it(`/auth/* is limited per client IP at ${AUTH_IP_LIMIT} per window`, async () => {
    const account = Keypair.random().publicKey();
    let last;
    for (let i = 0; i < AUTH_IP_LIMIT; i++) {
      last = await env.request(`/auth/challenge?account=${account}`);
      expect(last.status).toBe(200);
    }
    expect(last!.headers.get('x-ratelimit-limit')).toBe(String(AUTH_IP_LIMIT));
    expect(last!.headers.get('x-ratelimit-remaining')).toBe('0');
    const over = await env.request(`/auth/challenge?account=${account}`);
    expect([over.status, over.body.error]).toEqual([429, 'rate_limit_exceeded']);
    expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
    env.clock.advance(60_001);
    expect((await env.request(`/auth/challenge?account=${account}`)).status).toBe(200);
  });

  it.each([
    { given: 'without trust proxy', trustProxy: undefined, want: ['59', '58'] },
    { given: 'behind a trusted proxy (loopback)', trustProxy: 'loopback', want: ['59', '59'] },
  ])('/auth/* buckets $given: two X-Forwarded-For clients → remaining $want', async ({ trustProxy, want }) => {
    const own = await startVaultTestEnv({
      chain: stubChain(),
      contractRoutes: stubContractRoutes().router,
      ...(trustProxy ? { trustProxy } : {}),
    });
    try {
      const from = (ip: string) => own.request(`/auth/challenge?account=${G}`, { headers: { 'x-forwarded-for': ip } });
      const remaining = [];
      for (const ip of ['203.0.113.1', '203.0.113.2'])
        remaining.push((await from(ip)).headers.get('x-ratelimit-remaining'));
      expect(remaining).toEqual(want);
    } finally {
      await own.close();
    }
  });
});

describe('per-client limits by network (CV_IPV6_CLIENT_PREFIX)', () => {
  // The whole app over the simulator: the verification routes are mounted (the stub routes have none).
  const withPrefix = (ipv6ClientPrefix?: number) =>
    startVaultTestEnv({
      trustProxy: 'loopback',
      ...(ipv6ClientPrefix ? { limits: { ipv6ClientPrefix } } : {}),
    });
  // Keyless verification; an empty body is refused (400) after the request is counted.
  const verify = (own: VaultTestEnv, ip: string) =>
    own.request('/credentials/verify', { body: {}, headers: { 'x-forwarded-for': ip } });

  it.each([
    { given: 'one /64, a new address each time', ips: (i: number) => `2001:db8:7:1:${(i + 1).toString(16)}::${i}` },
    {
      given: 'an IPv4 address, then its IPv4-mapped form',
      ips: (i: number) => (i < 15 ? '10.77.0.1' : '::ffff:10.77.0.1'),
    },
  ])(`${KEYLESS_IP_LIMIT + 1} keyless requests from $given: the last is refused`, async ({ ips }) => {
    const own = await withPrefix();
    try {
      const statuses = [];
      for (let i = 0; i <= KEYLESS_IP_LIMIT; i++) statuses.push((await verify(own, ips(i))).status);
      expect(new Set(statuses.slice(0, KEYLESS_IP_LIMIT))).toEqual(new Set([400]));
      expect(statuses[KEYLESS_IP_LIMIT]).toBe(429);
      // Another /64 is another client.
      expect((await verify(own, '2001:db8:7:2::1')).status).toBe(400);
    } finally {
      await own.close();
    }
  });

  it('/auth/* too: two addresses of one /64 share a bucket, unless the prefix is set to /128', async () => {
    for (const [prefix, want] of [
      [undefined, ['59', '58']],
      [128, ['59', '59']],
    ] as const) {
      const own = await withPrefix(prefix);
      try {
        const remaining = [];
        for (const ip of ['2001:db8:7:1::1', '2001:db8:7:1::2'])
          remaining.push(
            (await own.request(`/auth/challenge?account=${G}`, { headers: { 'x-forwarded-for': ip } })).headers.get(
              'x-ratelimit-remaining',
            ),
          );
        expect(remaining, `prefix ${prefix}`).toEqual(want);
      } finally {
        await own.close();
      }
    }
  });
});

describe('rate-limit store down: fail closed', () => {
  it('reads and writes → 503 rate_limit_unavailable; /config and /health still answer; recovers', async () => {
    const { key } = await env.mintKey({ role: 'early' });
    faults.down.rateLimiter = true;
    try {
      for (const res of [
        await read(env, key),
        await write(env, key),
        await env.request(`/auth/challenge?account=${G}`),
      ]) {
        expect(res.status).toBe(503);
        expect(res.body).toEqual({ error: 'rate_limit_unavailable', message: 'the rate-limit store is unavailable' });
      }
      expect((await env.request('/config')).status).toBe(200);
      expect((await env.request('/health')).status).toBe(200);
    } finally {
      faults.down.rateLimiter = false;
    }
    expect((await read(env, key)).status).toBe(200);
  });
});
