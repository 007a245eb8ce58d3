// API keys, scopes and the admin role over HTTP (vault-api.yaml "Authentication").
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createHash } from 'node:crypto';
import {
  startVaultTestEnv,
  storeFaults,
  stubChain,
  stubContractRoutes,
  type VaultTestEnv,
} from '../../../test-support/vault-api.ts';
import { UNKNOWN_KEY } from './auth.ts';

const G = 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR';
const READ: { path: string; method: string; body?: unknown } = {
  path: `/contracts/vault/vc-count?owner=${G}`,
  method: 'GET',
};
const WRITE = { path: '/contracts/vault/revoke-vault', method: 'POST', body: { owner: G, sourcePublicKey: G } };

let env: VaultTestEnv;

beforeAll(async () => {
  env = await startVaultTestEnv({ chain: stubChain(), contractRoutes: stubContractRoutes().router });
});
afterAll(async () => {
  await env?.close();
});

describe('the key headers', () => {
  it.each(['x-svc-key', 'x-api-key', 'bearer'] as const)('%s is accepted', async (keyHeader) => {
    const { key } = await env.mintKey();
    const res = await env.request(READ.path, { key, keyHeader });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it('X-SVC-Key wins over the other forms', async () => {
    const { key } = await env.mintKey();
    const res = await env.request(READ.path, {
      key,
      headers: { 'x-api-key': 'f'.repeat(64), authorization: `Bearer ${'e'.repeat(64)}` },
    });
    expect(res.status).toBe(200);
  });

  it('an uppercase hex key works (keys are hex, case does not matter)', async () => {
    const { key } = await env.mintKey();
    expect((await env.request(READ.path, { key: key.toUpperCase() })).status).toBe(200);
  });
});

describe('401', () => {
  const cases: { name: string; headers: Record<string, string>; error: string }[] = [
    { name: 'no key', headers: {}, error: 'missing_api_key' },
    { name: 'empty X-SVC-Key', headers: { 'x-svc-key': '' }, error: 'missing_api_key' },
    { name: 'Authorization Basic', headers: { authorization: 'Basic dXNlcjpwYXNz' }, error: 'missing_api_key' },
    { name: 'unknown key', headers: { 'x-svc-key': 'a'.repeat(64) }, error: 'invalid_api_key' },
    { name: 'not 64 hex', headers: { 'x-svc-key': 'sk_live_123' }, error: 'invalid_api_key' },
    { name: 'unknown bearer key', headers: { authorization: `Bearer ${'b'.repeat(64)}` }, error: 'invalid_api_key' },
  ];
  it.each(cases)('$name → $error', async (c) => {
    for (const op of [READ, WRITE]) {
      const res = await env.request(op.path, { method: op.method, body: op.body, headers: c.headers });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        error: c.error,
        message: c.error === 'invalid_api_key' ? UNKNOWN_KEY : expect.any(String),
      });
    }
  });

  // docs/vault-api.md "Authentication": a missing or invalid key returns 401, whatever the body;
  // the body is read only after the key (and the rate limit) passed.
  it.each<{ name: string; body: string; headers: Record<string, string> }>([
    { name: 'text that is not JSON', body: '{', headers: {} },
    { name: 'a body over 512 KiB', body: JSON.stringify({ owner: 'x'.repeat(600 * 1024) }), headers: {} },
    { name: 'a body that is not application/json', body: 'owner=G', headers: { 'content-type': 'text/plain' } },
  ])('the key is checked before the body is read: $name → 401', async ({ body, headers }) => {
    const missing = await env.request('/contracts/vc/issue', { body, headers });
    expect([missing.status, missing.body.error]).toEqual([401, 'missing_api_key']);
    const unknown = await env.request('/contracts/vc/issue', { key: 'a'.repeat(64), body, headers });
    expect([unknown.status, unknown.body.error]).toEqual([401, 'invalid_api_key']);
    const { key } = await env.mintKey({ expiresAt: new Date(env.clock.now() - 1000).toISOString() });
    const expired = await env.request('/contracts/vc/issue', { key, body, headers });
    expect([expired.status, expired.body.error]).toEqual([401, 'api_key_expired']);
  });

  it('a valid key still gets the body errors', async () => {
    const { key } = await env.mintKey();
    expect((await env.request('/contracts/vc/issue', { key, body: '{' })).body.error).toBe('invalid_json');
    expect(
      (await env.request('/contracts/vc/issue', { key, body: JSON.stringify({ owner: 'x'.repeat(600 * 1024) }) }))
        .status,
    ).toBe(413);
  });

  it('a revoked key → invalid_api_key', async () => {
    const { key, record } = await env.mintKey();
    await env.stores.keys.revoke(record.keyId);
    expect((await env.request(READ.path, { key })).body.error).toBe('invalid_api_key');
  });

  it('a key replaced by a newer one of the same wallet → invalid_api_key', async () => {
    const first = await env.mintKey();
    await env.mintKey({ wallet: first.wallet! });
    expect((await env.request(READ.path, { key: first.key })).body.error).toBe('invalid_api_key');
  });

  it('a key of the other network → invalid_api_key', async () => {
    const made = await env.stores.keys.create({
      walletAddress: G,
      network: 'mainnet',
      role: 'admin',
      scopes: [],
      expiresAt: null,
    });
    const res = await env.request(READ.path, { key: made.key });
    expect([res.status, res.body.error]).toEqual([401, 'invalid_api_key']);
  });

  it('an expired key → api_key_expired, naming the expiry', async () => {
    const expiresAt = new Date(env.clock.now() + 60_000).toISOString();
    const { key } = await env.mintKey({ expiresAt });
    expect((await env.request(READ.path, { key })).status).toBe(200);
    env.clock.advance(61_000);
    const res = await env.request(READ.path, { key });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'api_key_expired', message: expect.stringContaining(expiresAt) });
  });

  it('refusals look the key up once and never list the keys', async () => {
    const { key } = await env.mintKey({ expiresAt: new Date(env.clock.now() + 1000).toISOString() });
    env.clock.advance(2000);
    const list = vi.spyOn(env.stores.keys, 'list');
    const lookup = vi.spyOn(env.stores.keys, 'lookup');
    try {
      expect((await env.request(READ.path, { key })).body.error).toBe('api_key_expired');
      expect((await env.request(READ.path, { key: 'c'.repeat(64) })).body.error).toBe('invalid_api_key');
      expect([list.mock.calls.length, lookup.mock.calls.length]).toEqual([0, 2]);
    } finally {
      list.mockRestore();
      lookup.mockRestore();
    }
  });

  it.each([
    { given: 'expired, then revoked', network: 'testnet' as const, revoke: true },
    { given: 'expired, of the other network', network: 'mainnet' as const, revoke: false },
  ])('a key $given → invalid_api_key', async ({ network, revoke }) => {
    const expiresAt = new Date(env.clock.now() + 1000).toISOString();
    const made = await env.stores.keys.create({ walletAddress: G, network, role: 'standard', scopes: [], expiresAt });
    env.clock.advance(2000);
    if (revoke) await env.stores.keys.revoke(made.record.keyId);
    const res = await env.request(READ.path, { key: made.key });
    expect([res.status, res.body.error]).toEqual([401, 'invalid_api_key']);
  });

  it('public routes need no key', async () => {
    for (const path of ['/health', '/config', '/docs']) expect((await env.request(path)).status).toBe(200);
  });
});

describe('scopes and roles', () => {
  it('a key without scopes is unrestricted', async () => {
    const { key } = await env.mintKey({ scopes: [] });
    expect((await env.request(READ.path, { key })).status).toBe(200);
    expect((await env.request(WRITE.path, { key, body: WRITE.body })).status).toBe(200);
  });

  it('a key with the scope passes; without it → 403 insufficient_scope naming the scope', async () => {
    const { key } = await env.mintKey({ scopes: ['credentials:read'] });
    expect((await env.request(READ.path, { key })).status).toBe(200);
    const res = await env.request(WRITE.path, { key, body: WRITE.body });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'insufficient_scope', message: 'this operation needs the scope vault:write' });
  });

  it.each([
    ['/contracts/vc/issue', 'credentials:issue'],
    ['/contracts/vc/revoke', 'credentials:revoke'],
    ['/contracts/vault/deny-issuer', 'vault:admin'],
    ['/contracts/vault/authorize-issuer', 'vault:admin'],
    ['/contracts/sponsored-vault/create', 'sponsor'],
  ])('%s needs %s', async (path, scope) => {
    const { key } = await env.mintKey({ scopes: ['credentials:read'] });
    const res = await env.request(path, { key, body: {} });
    expect([res.status, res.body.error, res.body.message]).toEqual([
      403,
      'insufficient_scope',
      `this operation needs the scope ${scope}`,
    ]);
  });

  it('scopes are checked before the body', async () => {
    const { key } = await env.mintKey({ scopes: ['credentials:read'] });
    expect((await env.request('/contracts/vc/issue', { key, body: { nonsense: true } })).body.error).toBe(
      'insufficient_scope',
    );
    // ... before it is even read.
    expect((await env.request('/contracts/vc/issue', { key, body: '{' })).body.error).toBe('insufficient_scope');
  });

  it.each([
    ['GET', '/admin/keys', undefined],
    ['POST', '/admin/keys', { wallet_address: G }],
    ['DELETE', `/admin/keys/${'0'.repeat(16)}`, undefined],
    ['POST', '/contracts/issuer-registry', { issuer: G, amount: '1', sourcePublicKey: G }],
    ['PATCH', `/contracts/issuer-registry/${G}`, { amount: '1', sourcePublicKey: G }],
    ['DELETE', `/contracts/issuer-registry/${G}`, { sourcePublicKey: G }],
  ])('%s %s needs an admin key → 403 admin_required', async (method, path, body) => {
    for (const role of ['standard', 'early'] as const) {
      const { key } = await env.mintKey({ role });
      const res = await env.request(path, { method, key, body });
      expect([res.status, res.body.error]).toEqual([403, 'admin_required']);
    }
  });

  it('an admin key opens the admin routes, also without a wallet', async () => {
    const { key } = await env.mintKey({ role: 'admin', wallet: null });
    expect((await env.request('/admin/keys', { key })).status).toBe(200);
  });
});

describe('key store down', () => {
  const faults = storeFaults();
  let down: VaultTestEnv;
  // Each test's own key: one looked up while the store is up may be answered from the key cache later.
  let key: string, recovering: string;
  beforeAll(async () => {
    down = await startVaultTestEnv({
      chain: stubChain(),
      contractRoutes: stubContractRoutes().router,
      stores: faults.wrap,
    });
    [key, recovering] = [(await down.mintKey()).key, (await down.mintKey()).key];
  });
  beforeEach(() => {
    faults.down.keys = true;
  });
  afterAll(async () => {
    await down?.close();
  });

  it('→ 503 store_unavailable, no internals', async () => {
    for (const op of [READ, WRITE]) {
      const res = await down.request(op.path, { method: op.method, body: op.body, key });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: 'store_unavailable', message: 'the key store is unavailable' });
    }
  });

  it('public routes still answer', async () => {
    expect((await down.request('/health')).status).toBe(200);
    expect((await down.request('/config')).status).toBe(200);
  });

  it('recovers by itself when the store is back', async () => {
    expect((await down.request(READ.path, { key: recovering })).status).toBe(503);
    faults.down.keys = false;
    expect((await down.request(READ.path, { key: recovering })).status).toBe(200);
  });
});

it('keys are compared by hash: the store never sees the key (sanity of the fixture)', async () => {
  const { key, record } = await env.mintKey();
  expect(record.keyHash).toBe(createHash('sha256').update(key).digest('hex'));
});
