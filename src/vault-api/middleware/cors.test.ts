// CORS of the wallet-proof key routes (vault-api.yaml "Browsers (CORS)"): preflights from allowed and other
// origins, the `*` list, the headers of actual answers (errors included), and no CORS anywhere else. Every
// answer is checked against the spec (validateResponses is on in the test harness).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Keypair } from '@stellar/stellar-sdk';
import {
  startVaultTestEnv,
  stubChain,
  stubContractRoutes,
  type VaultTestEnv,
} from '../../../test-support/vault-api.ts';
import { allowedOriginValue, CORS_EXPOSE_HEADERS } from './cors.ts';

const G = 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR';
const APP = 'https://app.example.org';
const EVIL = 'https://evil.example.com';
const CORS_HEADERS = [
  'access-control-allow-origin',
  'access-control-allow-methods',
  'access-control-allow-headers',
  'access-control-max-age',
  'access-control-expose-headers',
];

let strict: VaultTestEnv;
let open: VaultTestEnv;
let key: string;

beforeAll(async () => {
  [strict, open] = await Promise.all([
    startVaultTestEnv({
      chain: stubChain(),
      contractRoutes: stubContractRoutes().router,
      limits: { authOrigins: [APP] },
    }),
    startVaultTestEnv({
      chain: stubChain(),
      contractRoutes: stubContractRoutes().router,
      limits: { authOrigins: ['*'] },
    }),
  ]);
  expect(strict.deps.validateResponses).toBe(true);
  key = (await strict.mintKey()).key;
});
afterAll(async () => {
  await Promise.all([strict?.close(), open?.close()]);
});
// /auth/* is limited per client IP: start every test in a fresh window.
beforeEach(() => {
  strict.clock.advance(61_000);
  open.clock.advance(61_000);
});

const preflight = (on: VaultTestEnv, path: string, headers: Record<string, string>) =>
  on.request(path, {
    method: 'OPTIONS',
    headers: { 'access-control-request-headers': 'content-type,x-request-id', ...headers },
  });
const corsOf = (headers: Headers) =>
  Object.fromEntries(CORS_HEADERS.flatMap((h) => (headers.has(h) ? [[h, headers.get(h)]] : [])));

describe('allowedOriginValue', () => {
  it.each([
    { given: { list: [APP], origin: APP }, want: APP },
    { given: { list: [APP], origin: 'https://APP.example.org/' }, want: 'https://APP.example.org/' },
    { given: { list: [`${APP}/`], origin: APP }, want: APP },
    { given: { list: [APP], origin: EVIL }, want: undefined },
    { given: { list: [APP], origin: 'null' }, want: undefined },
    { given: { list: ['*'], origin: EVIL }, want: '*' },
    { given: { list: [APP, '*'], origin: APP }, want: '*' },
    { given: { list: [], origin: APP }, want: undefined },
  ])('$given.list, $given.origin → $want', ({ given, want }) => {
    expect(allowedOriginValue(given.list, given.origin)).toBe(want);
  });
});

describe('preflight', () => {
  it.each([
    { path: `/auth/challenge?account=${G}`, methods: 'GET, OPTIONS' },
    { path: '/auth/keys', methods: 'POST, OPTIONS' },
  ])('OPTIONS $path from an allowed origin → 204 with the CORS headers', async ({ path, methods }) => {
    const res = await preflight(strict, path, { origin: APP, 'access-control-request-method': methods.split(',')[0]! });
    expect(res.status).toBe(204);
    expect(res.body).toBe('');
    expect(corsOf(res.headers)).toEqual({
      'access-control-allow-origin': APP,
      'access-control-allow-methods': methods,
      'access-control-allow-headers': 'Content-Type, X-Request-ID',
      'access-control-max-age': '600',
      'access-control-expose-headers': CORS_EXPOSE_HEADERS,
    });
    expect(res.headers.get('vary')).toBe('Origin');
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it.each([`/auth/challenge?account=${G}`, '/auth/keys'])(
    'OPTIONS %s from another origin → 403 origin_not_allowed, no CORS headers',
    async (path) => {
      const res = await preflight(strict, path, { origin: EVIL, 'access-control-request-method': 'POST' });
      expect(res.status).toBe(403);
      expect(res.body).toEqual({ error: 'origin_not_allowed', message: 'this origin may not request API keys' });
      expect(corsOf(res.headers)).toEqual({});
      expect(res.headers.get('vary')).toBe('Origin');
    },
  );

  it('with the `*` list any origin gets `*`', async () => {
    const res = await preflight(open, '/auth/keys', { origin: EVIL, 'access-control-request-method': 'POST' });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('without an Origin → 204, and no Access-Control-Allow-Origin to act on', async () => {
    const res = await preflight(strict, '/auth/keys', {});
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
    expect(res.headers.get('access-control-allow-methods')).toBe('POST, OPTIONS');
  });

  it('is not rate limited, and leaves the per-IP budget of the route alone', async () => {
    for (let i = 0; i < 70; i++) expect((await preflight(strict, '/auth/keys', { origin: APP })).status).toBe(204);
    const res = await strict.request(`/auth/challenge?account=${G}`, { headers: { origin: APP } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-remaining')).toBe('59');
  });

  it("ignores the query string it carries (the actual request's), even an invalid one", async () => {
    const res = await preflight(strict, '/auth/challenge?account=not-an-account&color=red', { origin: APP });
    expect(res.status).toBe(204);
  });
});

describe('actual requests', () => {
  it('GET /auth/challenge from an allowed origin: the origin, Vary and the exposed headers', async () => {
    const res = await strict.request(`/auth/challenge?account=${Keypair.random().publicKey()}`, {
      headers: { origin: APP },
    });
    expect(res.status).toBe(200);
    expect(corsOf(res.headers)).toEqual({
      'access-control-allow-origin': APP,
      'access-control-expose-headers': CORS_EXPOSE_HEADERS,
    });
    expect(res.headers.get('vary')).toBe('Origin');
  });

  it('POST /auth/keys from an allowed origin: 201 with the CORS headers', async () => {
    const wallet = Keypair.random();
    const c = await strict.request(`/auth/challenge?account=${wallet.publicKey()}`, { headers: { origin: APP } });
    const res = await strict.request('/auth/keys', {
      headers: { origin: APP },
      body: { transaction: strict.sign(c.body.transaction, wallet) },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(corsOf(res.headers)).toEqual({
      'access-control-allow-origin': APP,
      'access-control-expose-headers': CORS_EXPOSE_HEADERS,
    });
    expect(res.headers.get('vary')).toBe('Origin');
  });

  it.each([
    {
      name: '400 challenge_invalid',
      path: '/auth/keys',
      body: { transaction: 'AAAA' },
      status: 400,
      error: 'challenge_invalid',
    },
    { name: '400 invalid_request', path: '/auth/challenge?account=nope', status: 400, error: 'invalid_request' },
    { name: '400 invalid_json', path: '/auth/keys', body: '{"transaction": ', status: 400, error: 'invalid_json' },
    {
      name: '413 payload_too_large',
      path: '/auth/keys',
      body: JSON.stringify({ transaction: 'x'.repeat(600 * 1024) }),
      status: 413,
      error: 'payload_too_large',
    },
  ])('errors are readable by the page too: $name', async ({ path, body, status, error }) => {
    const res = await strict.request(path, { headers: { origin: APP }, ...(body !== undefined ? { body } : {}) });
    expect([res.status, res.body.error]).toEqual([status, error]);
    expect(res.headers.get('access-control-allow-origin')).toBe(APP);
    expect(res.headers.get('vary')).toBe('Origin');
  });

  it('429 carries Retry-After, exposed to the page', async () => {
    let res;
    for (let i = 0; i < 61; i++)
      res = await strict.request(`/auth/challenge?account=${G}`, { headers: { origin: APP } });
    expect([res!.status, res!.body.error]).toEqual([429, 'rate_limit_exceeded']);
    expect(res!.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(res!.headers.get('access-control-allow-origin')).toBe(APP);
    expect(res!.headers.get('access-control-expose-headers')).toContain('Retry-After');
  });

  it('another origin → 403 origin_not_allowed with Vary and no CORS headers', async () => {
    const res = await strict.request(`/auth/challenge?account=${G}`, { headers: { origin: EVIL } });
    expect([res.status, res.body.error]).toEqual([403, 'origin_not_allowed']);
    expect(corsOf(res.headers)).toEqual({});
    expect(res.headers.get('vary')).toBe('Origin');
  });

  it('the `*` list answers `*`', async () => {
    const res = await open.request(`/auth/challenge?account=${G}`, { headers: { origin: EVIL } });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('no Origin: served, Vary but no CORS headers', async () => {
    const res = await strict.request(`/auth/challenge?account=${G}`);
    expect(res.status).toBe(200);
    expect(corsOf(res.headers)).toEqual({});
    expect(res.headers.get('vary')).toBe('Origin');
  });
});

describe('no CORS on any other route', () => {
  it.each([
    { name: 'a keyed read', path: `/contracts/vault/vc-count?owner=${G}`, key: true },
    { name: 'a keyed write', path: '/contracts/vault/revoke-vault', body: { owner: G, sourcePublicKey: G }, key: true },
    { name: 'a keyed route without a key', path: `/contracts/vault/vc-count?owner=${G}` },
    { name: '/health', path: '/health' },
    { name: '/config', path: '/config' },
    { name: '/admin/keys', path: '/admin/keys', key: true },
  ])('$name from an allowed origin: no CORS headers, no Vary', async (c) => {
    const res = await strict.request(c.path, {
      headers: { origin: APP },
      ...(c.key ? { key } : {}),
      ...(c.body ? { body: c.body } : {}),
    });
    expect(res.status).toBeLessThan(500);
    expect(corsOf(res.headers)).toEqual({});
    expect(res.headers.get('vary')).toBeNull();
  });

  it.each(['/contracts/vault/vc-count', '/contracts/vc/issue', '/health', '/admin/keys'])(
    'OPTIONS %s → 204 with Allow, no CORS headers (a browser refuses the actual request)',
    async (path) => {
      const res = await preflight(strict, path, { origin: APP, 'access-control-request-method': 'POST' });
      expect(res.status).toBe(204);
      expect(res.headers.get('allow')).toMatch(/, OPTIONS$/);
      expect(corsOf(res.headers)).toEqual({});
    },
  );
});
