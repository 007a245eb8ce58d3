// The app's pipeline over HTTP: validator failures → the spec's codes, unknown routes, bodies that are too
// large or not JSON, uncaught and chain errors, X-Request-ID. A stub chain and stub contract routes keep
// the platform layer alone under test; every answer is checked against the spec (validateResponses).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ApiError } from './context.ts';
import { ChainError } from '../chain/index.ts';
import { vaultModel } from '../platform/vault-model.ts';
import {
  startVaultTestEnv,
  stubChain,
  stubContractRoutes,
  type StubContractRoutes,
  type VaultTestEnv,
} from '../../test-support/vault-api.ts';
import { parseExposition } from '../../test-support/observability.ts';

const G = 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR';
const DID = 'did:ledger:testnet:b4pc2pclljuxrb4wuw2mhuxb6a';
const VC =
  '{"@context":["https://www.w3.org/ns/credentials/v2"],"credentialSubject":{"id":"did:ledger:testnet:ugzmhvhf6ydrqkj2jnog27upsa"}}';
const issue = (over: Record<string, unknown> = {}) => ({
  owner: G,
  vcId: 'vc-1',
  vcData: VC,
  issuer: G,
  issuerDid: DID,
  sourcePublicKey: G,
  ...over,
});
const batch = (vcs: unknown[], over: Record<string, unknown> = {}) => ({
  owner: G,
  issuer: G,
  issuerDid: DID,
  vcs,
  sourcePublicKey: G,
  ...over,
});
const entry = (vcId = 'vc-1', vcData = VC) => ({ vcId, vcData });

let env: VaultTestEnv;

/** The request line of `requestId`, once written (log lines are written when the response has finished). */
const requestLine = (requestId: string) =>
  vi.waitFor(
    () => {
      const line = env.logs.find((l) => l['requestId'] === requestId && l['msg'] === 'request');
      expect(line).toBeDefined();
      return line!;
    },
    { timeout: 20_000 },
  );
let stub: StubContractRoutes;
let key: string;

beforeAll(async () => {
  stub = stubContractRoutes();
  env = await startVaultTestEnv({
    chain: stubChain(),
    contractRoutes: stub.router,
    limits: {
      rateLimits: {
        standard: { read: 1000, write: 1000 },
        early: { read: 1000, write: 1000 },
        admin: { read: 1000, write: 1000 },
      },
    },
  });
  key = (await env.mintKey()).key;
});
afterAll(async () => {
  await env?.close();
});

describe('request validation → the spec codes', () => {
  const cases: {
    name: string;
    method?: string;
    path: string;
    body?: unknown;
    headers?: Record<string, string>;
    status: number;
    error: string;
    message?: RegExp;
  }[] = [
    {
      name: 'batch of 6',
      path: '/contracts/vc/batch-issue',
      body: batch([1, 2, 3, 4, 5, 6].map((i) => entry(`vc-${i}`))),
      status: 400,
      error: 'batch_too_large',
      message: /got 6/,
    },
    { name: 'empty batch', path: '/contracts/vc/batch-issue', body: batch([]), status: 400, error: 'batch_too_large' },
    {
      name: 'batch entry 2 vcId over 64',
      path: '/contracts/vc/batch-issue',
      body: batch([entry('a'), entry('b'), entry('c'.repeat(65))]),
      status: 400,
      error: 'vcs[2].vcId_too_long',
    },
    {
      name: 'batch entry 0 vcData over 10,000',
      path: '/contracts/vc/batch-issue',
      body: batch([entry('a', 'x'.repeat(10_001))]),
      status: 400,
      error: 'vcs[0].vcData_too_long',
    },
    {
      name: 'batch: the lowest index is named',
      path: '/contracts/vc/batch-issue',
      body: batch([entry('a'), entry('b', 'x'.repeat(10_001)), entry('c'.repeat(65))]),
      status: 400,
      error: 'vcs[1].vcData_too_long',
    },
    {
      name: 'batch too large wins over entry errors',
      path: '/contracts/vc/batch-issue',
      body: batch([1, 2, 3, 4, 5, 6].map(() => entry('c'.repeat(65)))),
      status: 400,
      error: 'batch_too_large',
    },
    {
      name: 'vcId over 64',
      path: '/contracts/vc/issue',
      body: issue({ vcId: 'v'.repeat(65) }),
      status: 400,
      error: 'vcId_too_long',
    },
    {
      name: 'vcData over 10,000',
      path: '/contracts/vc/issue',
      body: issue({ vcData: 'x'.repeat(10_001) }),
      status: 400,
      error: 'vcData_too_long',
    },
    {
      name: 'revoke: vcId over 64',
      path: '/contracts/vc/revoke',
      body: { owner: G, vcId: 'v'.repeat(65), sourcePublicKey: G },
      status: 400,
      error: 'vcId_too_long',
    },
    {
      name: 'list-vc-ids limit 201',
      path: '/contracts/vault/list-vc-ids',
      body: { owner: G, limit: 201 },
      status: 400,
      error: 'limit_too_large',
    },
    {
      name: 'denied issuers limit 500',
      path: `/contracts/vault/issuers/denied?owner=${G}&limit=500`,
      status: 400,
      error: 'limit_too_large',
    },
    {
      name: 'limit 0',
      path: '/contracts/vault/list-vc-ids',
      body: { owner: G, limit: 0 },
      status: 400,
      error: 'invalid_request',
      message: /limit/,
    },
    {
      name: 'negative offset',
      path: `/contracts/vault/issuers/denied?owner=${G}&offset=-1`,
      status: 400,
      error: 'invalid_request',
      message: /offset/,
    },
    // The contracts take u32 offsets: past it the request is wrong, not the chain unavailable.
    {
      name: 'list-vc-ids offset past u32',
      path: '/contracts/vault/list-vc-ids',
      body: { owner: G, offset: 4294967296 },
      status: 400,
      error: 'invalid_request',
      message: /offset/,
    },
    {
      name: 'denied issuers offset past u32',
      path: `/contracts/vault/issuers/denied?owner=${G}&offset=99999999999`,
      status: 400,
      error: 'invalid_request',
      message: /offset/,
    },
    {
      name: 'revoke date that is not in the calendar',
      path: '/contracts/vc/revoke',
      body: { owner: G, vcId: 'a', date: '2026-02-30T00:00:00Z', sourcePublicKey: G },
      status: 400,
      error: 'invalid_request',
      message: /date/,
    },
    {
      name: 'did:pkh issuerDid',
      path: '/contracts/vc/issue',
      body: issue({ issuerDid: 'did:pkh:eip155:1:0xab' }),
      status: 400,
      error: 'issuerDid_invalid',
    },
    {
      name: 'bare address issuerDid',
      path: '/contracts/vc/issue',
      body: issue({ issuerDid: G }),
      status: 400,
      error: 'issuerDid_invalid',
    },
    {
      name: 'didUri over 256',
      path: '/contracts/vault/create',
      body: { owner: G, didUri: `did:web:${'a'.repeat(260)}`, sourcePublicKey: G },
      status: 400,
      error: 'input_too_long',
    },
    {
      name: 'revoke date over 64',
      path: '/contracts/vc/revoke',
      body: { owner: G, vcId: 'a', date: `2026-07-15T09:30:00.000Z${' '.repeat(50)}`, sourcePublicKey: G },
      status: 400,
      error: 'input_too_long',
    },
    {
      name: 'removed holder field',
      path: '/contracts/vc/issue',
      body: issue({ holder: G }),
      status: 400,
      error: 'invalid_request',
      message: /unknown field "holder"/,
    },
    {
      name: 'fee override',
      path: '/contracts/vc/issue',
      body: issue({ fee: '1' }),
      status: 400,
      error: 'invalid_request',
      message: /unknown field "fee"/,
    },
    {
      name: 'missing field',
      path: '/contracts/vc/issue',
      body: issue({ issuer: undefined }),
      status: 400,
      error: 'invalid_request',
      message: /missing required field "issuer"/,
    },
    {
      name: 'bad owner pattern',
      path: '/contracts/vc/issue',
      body: issue({ owner: 'nope' }),
      status: 400,
      error: 'invalid_request',
      message: /body\/owner must match pattern/,
    },
    {
      name: 'submit with a prepare field',
      path: '/contracts/vc/issue',
      // A signedXdr of the envelope's shape (vault-api.yaml SignedTxXdr), so that the other field is the one failure.
      body: { signedXdr: `AAAAAg${'A'.repeat(200)}`, owner: G },
      status: 400,
      error: 'invalid_request',
      message: /^submit takes \{signedXdr\} alone: unknown field "owner" in body$/,
    },
    {
      name: 'submit: signedXdr not base64',
      path: '/contracts/vc/issue',
      body: { signedXdr: 'not xdr!' },
      status: 400,
      error: 'invalid_request',
      message: /signedXdr must match pattern/,
    },
    {
      name: 'body not an object',
      path: '/contracts/vc/issue',
      body: '[1,2]',
      status: 400,
      error: 'invalid_request',
      message: /must be object/,
    },
    { name: 'JSON scalar body', path: '/contracts/vault/verify-vc', body: '42', status: 400, error: 'invalid_request' },
    {
      name: 'unknown query parameter',
      path: `/contracts/vault/vc-count?owner=${G}&color=red`,
      status: 400,
      error: 'invalid_request',
      message: /color/,
    },
    {
      name: 'metadata path not an address',
      path: '/contracts/vault/not-an-address',
      status: 400,
      error: 'invalid_request',
      message: /params\/owner/,
    },
    {
      name: 'Idempotency-Key over 200',
      path: '/contracts/vault/revoke-vault',
      body: { owner: G, sourcePublicKey: G },
      headers: { 'idempotency-key': 'k'.repeat(201) },
      status: 400,
      error: 'invalid_request',
      message: /idempotency-key/,
    },
    {
      name: 'text/plain body',
      path: '/contracts/vault/verify-vc',
      body: 'owner=G',
      headers: { 'content-type': 'text/plain' },
      status: 400,
      error: 'invalid_request',
      message: /application\/json/,
    },
    { name: 'broken JSON', path: '/contracts/vc/issue', body: '{"owner": ', status: 400, error: 'invalid_json' },
    {
      name: 'body over 512 KiB',
      path: '/contracts/vc/issue',
      body: JSON.stringify({ owner: 'x'.repeat(600 * 1024) }),
      status: 413,
      error: 'payload_too_large',
      message: /524288/,
    },
    {
      name: 'malformed percent-encoding in the path',
      path: '/contracts/vault/%zz',
      status: 400,
      error: 'invalid_request',
      message: /^the path has a malformed percent-encoding/,
    },
    {
      name: 'valid prepare reaches the route',
      path: '/contracts/vault/revoke-vault',
      body: { owner: G, sourcePublicKey: G },
      status: 200,
      error: '',
    },
    {
      name: 'valid read reaches the route',
      path: '/contracts/vault/verify-vc',
      body: { owner: G, vcId: 'vc-1' },
      status: 200,
      error: '',
    },
  ];

  it.each(cases)('$name → $status $error', async (c) => {
    const res = await env.request(c.path, {
      key,
      method: c.method ?? (c.body === undefined ? 'GET' : 'POST'),
      body: c.body,
      headers: c.headers ?? {},
    });
    expect(res.status, JSON.stringify(res.body)).toBe(c.status);
    if (c.status === 200) return;
    expect(res.body).toEqual({ error: c.error, message: expect.any(String) });
    if (c.message) expect(res.body.message).toMatch(c.message);
  });

  it('reports only the failures of the branch the body chose', async () => {
    const res = await env.request('/contracts/vc/issue', { key, body: issue({ owner: 'nope' }) });
    expect(res.body.message).not.toMatch(/signedXdr/);
    expect(res.body.message).not.toMatch(/oneOf/);
  });
});

describe('routes', () => {
  it.each([
    ['GET', '/nope'],
    ['POST', '/contracts/vc/link'],
    ['GET', '/contracts/vault/issuers/allowed/count'],
  ])('%s %s → 404 not_found', async (method, path) => {
    const res = await env.request(path, { method, key });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not_found', message: expect.any(String) });
  });

  // A declared path with an undeclared method is 405 with Allow, in the error envelope.
  it.each([
    { method: 'GET', path: '/contracts/vault/verify-vc', allow: 'POST' },
    { method: 'GET', path: '/contracts/vault/create', allow: 'POST' },
    { method: 'HEAD', path: '/contracts/vault/create', allow: 'POST' },
    { method: 'DELETE', path: '/health', allow: 'GET, HEAD' },
    { method: 'PUT', path: '/admin/keys', allow: 'GET, HEAD, POST' },
  ])('$method $path → 405 method_not_allowed, Allow: $allow', async ({ method, path, allow }) => {
    const res = await env.request(path, { method, key });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe(allow);
    if (method !== 'HEAD')
      expect(res.body).toEqual({
        error: 'method_not_allowed',
        message: `${method} is not allowed on ${path}; this path accepts ${allow}`,
      });
  });

  it('OPTIONS on a declared path is 204 with Allow, keyless (no CORS headers outside the wallet-proof routes)', async () => {
    const res = await env.request('/contracts/vault/verify-vc', { method: 'OPTIONS' });
    expect([res.status, res.headers.get('allow'), res.headers.get('access-control-allow-origin')]).toEqual([
      204,
      'POST, OPTIONS',
      null,
    ]);
  });

  it('checks the key before the body: no key and a bad body → 401', async () => {
    const res = await env.request('/contracts/vc/issue', { body: issue({ owner: 'nope' }) });
    expect([res.status, res.body.error]).toEqual([401, 'missing_api_key']);
  });

  it('checks the key before reading the body: no key and text that is not JSON, or too much of it → 401', async () => {
    for (const body of ['{', JSON.stringify({ owner: 'x'.repeat(600 * 1024) })]) {
      const res = await env.request('/contracts/vc/issue', { body });
      expect([res.status, res.body.error]).toEqual([401, 'missing_api_key']);
    }
  });
});

describe('HEAD (vault-api.yaml "HEAD")', () => {
  const head = (path: string, o: { key?: string } = {}) =>
    env.request(path, { method: 'HEAD', ...(o.key ? { key: o.key } : {}) });

  it.each(['/health', '/config', '/metrics', '/ready'])(
    'HEAD %s answers the GET status and headers, no body',
    async (path) => {
      const get = await env.request(path);
      const res = await head(path);
      expect(res.status).toBe(get.status);
      expect(res.body).toBe('');
      expect(res.headers.get('content-type')).toBe(get.headers.get('content-type'));
      // The metrics grow between two requests; the other bodies keep their length.
      if (path !== '/metrics') expect(res.headers.get('content-length')).toBe(get.headers.get('content-length'));
      expect(res.headers.get('x-request-id')).toEqual(expect.any(String));
    },
  );

  it('a keyed GET route: HEAD needs the key and spends the read budget like the GET', async () => {
    const { key: own } = await env.mintKey();
    const path = `/contracts/vault/vc-count?owner=${G}`;
    const keyless = await head(path);
    expect([keyless.status, keyless.body]).toEqual([401, '']);
    const res = await head(path, { key: own });
    expect([res.status, res.body, res.headers.get('x-ratelimit-remaining')]).toEqual([200, '', '999']);
    const bad = await head(`/contracts/vault/issuers/denied?owner=${G}&limit=500`, { key: own });
    expect([bad.status, bad.body]).toEqual([400, '']);
  });

  it('HEAD on a declared path without a GET → 405 like any undeclared method; on an undeclared path → 404', async () => {
    const r = await head('/contracts/vc/issue', { key });
    expect([r.status, r.headers.get('allow')]).toEqual([405, 'POST']);
    expect((await head('/nope', { key })).status).toBe(404);
  });

  it('logs the request as HEAD on the GET route', async () => {
    await env.request('/config', { method: 'HEAD', headers: { 'x-request-id': 'head-log' } });
    expect(await requestLine('head-log')).toMatchObject({
      method: 'HEAD',
      route: '/config',
      status: 200,
    });
  });
});

describe('the front: one layer, its steps in their order (src/platform/app.ts)', () => {
  /** `http_requests_total` of one route, method and status, as /metrics says now. */
  const counted = async (route: string, method: string, status: string): Promise<number> => {
    const text = (await env.request('/metrics')).body as string;
    const family = parseExposition(text).get('http_requests_total');
    return (family?.samples ?? [])
      .filter((s) => s.labels['route'] === route && s.labels['method'] === method && s.labels['status'] === status)
      .reduce((sum, s) => sum + s.value, 0);
  };
  const logOf = requestLine;

  it('a HEAD of a legacy base path: rewritten, then routed as the GET, counted and logged as HEAD, id echoed', async () => {
    const before = await counted('/config', 'HEAD', '200');
    const res = await env.request('/api/v1/config', { method: 'HEAD', headers: { 'x-request-id': 'front-head' } });
    expect([res.status, res.headers.get('x-request-id'), res.headers.get('deprecation')]).toEqual([
      200,
      'front-head',
      '@1795305600',
    ]);
    expect(res.headers.get('link')).toBe('</config>; rel="successor-version"');
    expect(await logOf('front-head')).toMatchObject({ method: 'HEAD', route: '/config', status: 200 });
    expect(await counted('/config', 'HEAD', '200')).toBe(before + 1);
  });

  it('/metrics and /ready: answered in the front (id, counted, logged), before any key or rate budget', async () => {
    for (const [path, route] of [
      ['/metrics', '/metrics'],
      ['/METRICS/', '/metrics'],
      ['/api/ready', '/ready'],
    ] as const) {
      const before = await counted(route, 'GET', '200');
      const id = `front-probe-${path}`;
      const res = await env.request(path, { headers: { 'x-request-id': id } });
      expect([res.status, res.headers.get('x-request-id'), res.headers.get('x-ratelimit-limit')], path).toEqual([
        200,
        id,
        null,
      ]);
      expect(await logOf(id), path).toMatchObject({ method: 'GET', route, status: 200 });
      // The reading above was itself a /metrics request: counted once it had answered.
      expect(await counted(route, 'GET', '200'), path).toBe(before + (route === '/metrics' ? 2 : 1));
    }
  });

  it('a removed route answers 410 after the rewrite, with an id and without CORS headers (it never had them)', async () => {
    const headers = { origin: 'https://app.example.org', 'x-request-id': 'front-removed' };
    const res = await env.request('/api/contracts/fee-tiers', { headers });
    expect([res.status, res.body.error, res.headers.get('x-request-id'), res.headers.get('deprecation')]).toEqual([
      410,
      'route_removed',
      'front-removed',
      '@1795305600',
    ]);
    expect([res.headers.get('access-control-allow-origin'), res.headers.get('vary')]).toEqual([null, null]);
    expect(await logOf('front-removed')).toMatchObject({ method: 'GET', status: 410, error: 'route_removed' });
  });

  it('a CORS route keeps its headers on an error met in the front or on its route', async () => {
    const origin = env.deps.limits.authOrigins[0];
    const headers = { 'content-type': 'application/json', ...(origin ? { origin } : {}) };
    const res = await env.request('/api/auth/keys', { body: '{not json', headers });
    expect(res.status).toBe(400);
    expect(res.headers.get('vary')).toBe('Origin');
    expect(res.headers.get('deprecation')).toBe('@1795305600');
  });

  it('/docs, mounted after the front, still has its id and the legacy rewrite', async () => {
    const res = await env.request('/api/docs', { headers: { 'x-request-id': 'front-docs' } });
    expect([res.status, res.headers.get('x-request-id'), res.headers.get('deprecation')]).toEqual([
      200,
      'front-docs',
      '@1795305600',
    ]);
  });
});

describe('legacy base URLs (vault-api.yaml "Back-compat aliases and legacy base URLs")', () => {
  const deprecated = (res: { headers: Headers }) => [res.headers.get('deprecation'), res.headers.get('link')];

  it.each(['/api', '/api/v1'])('%s/config reads /config, marked deprecated with a link to /config', async (prefix) => {
    const canonical = await env.request('/config');
    const res = await env.request(`${prefix}/config`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(canonical.body);
    expect(deprecated(res)).toEqual(['@1795305600', '</config>; rel="successor-version"']);
    expect(deprecated(canonical)).toEqual([null, null]);
  });

  it('a write prepare under /api/v1 runs the canonical route with the same key, limits and validation', async () => {
    const before = stub.calls.get('/contracts/vault/revoke-vault') ?? 0;
    const res = await env.request('/api/v1/contracts/vault/revoke-vault', {
      key,
      body: { owner: G, sourcePublicKey: G },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ xdr: expect.any(String), network: env.passphrase, networkPassphrase: env.passphrase });
    expect(res.headers.get('x-writeratelimit-limit')).toBe('1000');
    expect(deprecated(res)).toEqual(['@1795305600', '</contracts/vault/revoke-vault>; rel="successor-version"']);
    expect(stub.calls.get('/contracts/vault/revoke-vault')).toBe(before + 1);
    const keyless = await env.request('/api/contracts/vault/revoke-vault', { body: { owner: G, sourcePublicKey: G } });
    expect([keyless.status, keyless.body.error, keyless.headers.get('deprecation')]).toEqual([
      401,
      'missing_api_key',
      '@1795305600',
    ]);
    const invalid = await env.request('/api/contracts/vc/issue', { key, body: issue({ vcId: 'v'.repeat(65) }) });
    expect([invalid.status, invalid.body.error]).toEqual([400, 'vcId_too_long']);
  });

  it('a query string is kept', async () => {
    const res = await env.request(`/api/contracts/vault/vc-count?owner=${G}`, { key });
    expect([res.status, res.body]).toEqual([200, { count: 1 }]);
    expect(res.headers.get('link')).toBe('</contracts/vault/vc-count>; rel="successor-version"');
  });

  it('an unknown path under a prefix → 404 not_found naming the canonical path', async () => {
    const res = await env.request('/api/nope', { key });
    expect([res.status, res.body]).toEqual([404, { error: 'not_found', message: 'no route GET /nope' }]);
    expect(res.headers.get('deprecation')).toBe('@1795305600');
  });

  // The rest of the path is the client's: a Link built from it could point at another host (`//evil…`).
  it.each([
    ['/api//evil.example/steal', 'no route GET //evil.example/steal'],
    ['/api/v1//evil.example/steal?x=1', 'no route GET //evil.example/steal'],
    ['/api/nope', 'no route GET /nope'],
    ['/api/contracts/vault/create/extra', 'no route GET /contracts/vault/create/extra'],
  ])('%s: a path the API does not have → 404 without a Link', async (path, message) => {
    const res = await env.request(path, { key });
    expect([res.status, res.body, res.headers.get('link')]).toEqual([404, { error: 'not_found', message }, null]);
    expect(res.headers.get('deprecation')).toBe('@1795305600');
  });

  it('a templated path links to itself as a same-origin path', async () => {
    const res = await env.request(`/api/contracts/vault/${G}`, { key });
    expect(res.headers.get('link')).toBe(`</contracts/vault/${G}>; rel="successor-version"`);
    const odd = await env.request('/api/contracts/vault/a%3Eb"c', { key });
    expect([odd.status, odd.headers.get('link')]).toEqual([
      400,
      '</contracts/vault/a%3Eb%22c>; rel="successor-version"',
    ]);
  });

  it('only whole segments are prefixes: /apiconfig and /api-v1/config are not stripped', async () => {
    for (const path of ['/apiconfig', '/api-v1/config', '/v1/config']) {
      const res = await env.request(path);
      expect([res.status, res.body.error, res.headers.get('deprecation')], path).toEqual([404, 'not_found', null]);
    }
  });

  it('logs and metrics report the canonical route', async () => {
    await env.request('/api/v1/config', { headers: { 'x-request-id': 'legacy-log' } });
    expect(await requestLine('legacy-log')).toMatchObject({
      route: '/config',
      status: 200,
    });
    const metrics = (await env.request('/metrics')).body as string;
    expect(metrics).not.toMatch(/route="\/api/);
  });

  it('an empty list turns them off', async () => {
    const off = await startVaultTestEnv({
      chain: stubChain(),
      contractRoutes: stubContractRoutes().router,
      legacyBasePaths: [],
    });
    try {
      const res = await off.request('/api/config');
      expect([res.status, res.body.error, res.headers.get('deprecation')]).toEqual([404, 'not_found', null]);
    } finally {
      await off.close();
    }
  });

  it('a prefix that would shadow an API path is refused at start', async () => {
    await expect(startVaultTestEnv({ chain: stubChain(), legacyBasePaths: ['/contracts'] })).rejects.toThrow(
      /\/contracts would shadow the API path/,
    );
    await expect(startVaultTestEnv({ chain: stubChain(), legacyBasePaths: ['/api/'] })).rejects.toThrow(
      /not a path prefix/,
    );
  });
});

describe('errors thrown by routes', () => {
  const revoke = () =>
    env.request('/contracts/vc/revoke', { key, body: { owner: G, vcId: 'vc-1', sourcePublicKey: G } });
  afterAll(() => {
    stub.failWith = undefined;
  });

  it('an unexpected error → 500 internal_error, details only in the log', async () => {
    stub.failWith = new Error('secret detail /var/lib/db password=hunter2');
    const res = await revoke();
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'internal_error', message: expect.stringMatching(/X-Request-ID/) });
    expect(JSON.stringify(res.body)).not.toMatch(/hunter2|secret/);
    const requestId = res.headers.get('x-request-id');
    expect(env.logs.find((l) => l['requestId'] === requestId && l['level'] === 'error')?.['detail']).toMatch(/hunter2/);
  });

  it('a ChainError → its status and code, with the chain words', async () => {
    stub.failWith = new ChainError(
      'trustline_missing',
      400,
      'fee payment failed: trustline entry is missing for account ' + G,
    );
    const res = await revoke();
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'trustline_missing',
      message: expect.stringMatching(/trustline entry is missing/),
    });
  });

  it('a ChainError chain_unavailable → 502', async () => {
    stub.failWith = new ChainError('chain_unavailable', 502, 'the ledger RPC did not answer');
    const res = await revoke();
    expect([res.status, res.body.error]).toEqual([502, 'chain_unavailable']);
  });

  it('an ApiError → its status and code', async () => {
    stub.failWith = new ApiError('vault_revoked', 'the vault is revoked; writes into it are blocked');
    const res = await revoke();
    expect([res.status, res.body.error]).toEqual([409, 'vault_revoked']);
  });
});

describe('X-Request-ID', () => {
  it('echoes the request id', async () => {
    const res = await env.request('/health', { headers: { 'x-request-id': 'trace-123' } });
    expect(res.headers.get('x-request-id')).toBe('trace-123');
  });

  it.each([
    ['a 500-character', 'r'.repeat(500)],
    ['a non-ASCII', 'trace-\u00e9t\u00e9'],
    ['an empty', ''],
  ])('replaces %s id with a fresh one and serves the request (it never fails one)', async (_n, id) => {
    const res = await env.request(`/contracts/vault/vc-count?owner=${G}`, { key, headers: { 'x-request-id': id } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
  });

  it('makes one when the request has none, also on errors', async () => {
    const res = await env.request('/nope');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('logs one line per request without key, body or query', async () => {
    const res = await env.request(`/contracts/vault/vc-count?owner=${G}`, {
      key,
      headers: { 'x-request-id': 'log-check' },
    });
    expect(res.status).toBe(200);
    const line = await requestLine('log-check');
    expect(line).toMatchObject({
      msg: 'request',
      service: 'vault-api-testnet',
      method: 'GET',
      route: '/contracts/vault/vc-count',
      status: 200,
    });
    expect(line?.['keyId']).toEqual(expect.any(String));
    expect(env.logs.filter((l) => l['requestId'] === 'log-check' && l['msg'] === 'request')).toHaveLength(1);
    expect(JSON.stringify(line)).not.toContain(key);
    expect(JSON.stringify(line)).not.toContain(G);
  });
});

describe('the spec declares every status the platform layer answers', () => {
  const model = vaultModel;
  const doc = model.document;
  // Mounted before route matching, so the validator never answers for them (no 400 on a bad X-Request-ID).
  const ops = [...model.operations.values()].filter((op) => !['/docs', '/metrics', '/ready'].includes(op.template));
  it.each(ops.map((op) => [op.method.toUpperCase(), op.template, op] as const))('%s %s', (method, _p, op) => {
    const declared = Object.keys(doc.paths[op.template]![op.method]!.responses ?? {});
    // X-Request-ID is validated on every path, except on a CORS preflight: it is answered before keys, limits
    // and request validation (app.ts), and its only refusal is 403 origin_not_allowed.
    const need = new Set(method === 'OPTIONS' ? ['403'] : ['400']);
    if (!op.public) ['401', '403', '429', '503'].forEach((s) => need.add(s)); // key, scope/role, limits, stores
    if (op.bucket === 'ip') ['403', '429', '503'].forEach((s) => need.add(s)); // origin, per-IP limit
    if (op.idempotent) ['409', '422'].forEach((s) => need.add(s));
    if (op.body) ['413', '415'].forEach((s) => need.add(s)); // body size, Content-Encoding
    expect([...need].filter((s) => !declared.includes(s))).toEqual([]);
  });
});
