// The service around the routes (spec "Headers, limits and caching", "Errors", tag "service"): X-Request-ID,
// the per-IP rate limit, the envelope for unknown routes, bad bodies and faults, /health, /openapi.json, /docs.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { StoreUnavailableError, type Cache, type RateLimiter } from '../stores/index.ts';
import { createMemoryRateLimiter } from '../stores/memory.ts';
import { startHarness, type Harness, type Server } from '../../test-support/resolver.ts';

let h: Harness;
const logs: Record<string, unknown>[] = [];
beforeAll(async () => {
  h = await startHarness({ log: (e) => logs.push(e) });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('X-Request-ID', () => {
  it('echoes a valid client value', async () => {
    const r = await h.get('/health', { 'x-request-id': 'abc-123_XYZ.~!' });
    expect(r.headers.get('x-request-id')).toBe('abc-123_XYZ.~!');
  });

  it.each([
    ['absent', undefined],
    ['longer than 128', 'a'.repeat(129)],
    ['500 characters long', 'a'.repeat(500)],
    ['not ASCII', 'trace-\u00e9t\u00e9'],
    ['with a space', 'a b'],
  ])('generates a UUID when %s', async (_n, value) => {
    const r = await h.get('/health', value === undefined ? {} : { 'x-request-id': value });
    expect(r.status).toBe(200);
    expect(r.headers.get('x-request-id')).toMatch(UUID);
  });

  it('is on error responses too', async () => {
    const r = await h.get('/nowhere', { 'x-request-id': 'err-1' });
    expect(r.status).toBe(404);
    expect(r.headers.get('x-request-id')).toBe('err-1');
  });
});

describe('per-IP rate limit', () => {
  let limited: Server;
  // A fresh window for each test: one test's requests are not another's (the tests run in a random order).
  beforeEach(async () => {
    limited = await h.startApp({
      limits: { rateLimit: 3, rateWindowMs: 60_000, cacheTtlMs: 30_000 },
      rateLimiter: createMemoryRateLimiter({ now: h.clock.now }),
    });
  });

  it('counts every route; the 4th request in the window is 429 rate_limited with Retry-After', async () => {
    const seen: [number, string | null][] = [];
    for (const path of ['/health', '/openapi.json', '/nowhere']) {
      const r = await fetch(limited.url + path);
      seen.push([r.status, r.headers.get('x-ratelimit-remaining')]);
      expect(r.headers.get('x-ratelimit-limit')).toBe('3');
    }
    expect(seen).toEqual([
      [200, '2'],
      [200, '1'],
      [404, '0'],
    ]);
    const r = await fetch(`${limited.url}/health`);
    expect(r.status).toBe(429);
    expect(r.headers.get('x-ratelimit-limit')).toBe('3');
    expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(r.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(await r.json()).toEqual({ code: 'rate_limited', message: expect.stringContaining('3 requests per 60 s') });
  });

  it('OPTIONS is not counted: after more OPTIONS than the limit (preflights too), a GET still has its whole budget', async () => {
    // A browser's CORS preflight: an OPTIONS with Origin and Access-Control-Request-Method.
    const preflight = { origin: 'https://wallet.example', 'access-control-request-method': 'GET' };
    const asked: [string, Record<string, string>][] = [
      ['/health', {}],
      ['/1.0/identifiers/did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza', preflight],
      ['/v1/dids/stellar', {}],
      ['/health', preflight],
      ['/nowhere', {}],
    ];
    for (const [path, headers] of asked) {
      const r = await fetch(limited.url + path, { method: 'OPTIONS', headers });
      expect(r.status, `OPTIONS ${path}`).toBe(path === '/nowhere' ? 404 : 204);
      expect(r.headers.get('x-ratelimit-remaining'), `OPTIONS ${path}`).toBeNull();
    }
    const r = await fetch(`${limited.url}/health`);
    expect(r.status).toBe(200);
    expect(r.headers.get('x-ratelimit-remaining')).toBe('2');
  });

  it('the window slides: after 60 s requests are admitted again', async () => {
    for (let i = 0; i < 3; i++) expect((await fetch(`${limited.url}/health`)).status).toBe(200);
    expect((await fetch(`${limited.url}/health`)).status).toBe(429);
    h.clock.advance(60_001);
    const r = await fetch(`${limited.url}/health`);
    expect(r.status).toBe(200);
    expect(r.headers.get('x-ratelimit-remaining')).toBe('2');
  });

  it('the client IP is the socket peer by default: X-Forwarded-For does not open a new bucket', async () => {
    const app = await h.startApp({
      limits: { rateLimit: 1, rateWindowMs: 60_000, cacheTtlMs: 30_000 },
      rateLimiter: createMemoryRateLimiter({ now: h.clock.now }),
    });
    expect((await fetch(`${app.url}/health`, { headers: { 'x-forwarded-for': '203.0.113.1' } })).status).toBe(200);
    expect((await fetch(`${app.url}/health`, { headers: { 'x-forwarded-for': '203.0.113.2' } })).status).toBe(429);
  });

  it('behind a trusted proxy, each forwarded client IP has its own window', async () => {
    const app = await h.startApp({
      limits: { rateLimit: 1, rateWindowMs: 60_000, cacheTtlMs: 30_000 },
      rateLimiter: createMemoryRateLimiter({ now: h.clock.now }),
      trustProxy: 'loopback',
    });
    const from = (ip: string) => fetch(`${app.url}/health`, { headers: { 'x-forwarded-for': ip } });
    expect((await from('203.0.113.1')).status).toBe(200);
    expect((await from('203.0.113.2')).status).toBe(200);
    expect((await from('203.0.113.1')).status).toBe(429);
  });

  it.each([
    {
      given: 'two addresses of one /64',
      first: '2001:db8:9:1::1',
      second: '2001:db8:9:1:ffff::2',
      prefix: undefined,
      want: 429,
    },
    {
      given: 'an IPv4 address and its IPv4-mapped form',
      first: '198.51.100.9',
      second: '::ffff:198.51.100.9',
      prefix: undefined,
      want: 429,
    },
    { given: 'two /64s', first: '2001:db8:9:1::1', second: '2001:db8:9:2::1', prefix: undefined, want: 200 },
    {
      given: 'two addresses of one /64 with the prefix at 128',
      first: '2001:db8:9:1::1',
      second: '2001:db8:9:1::2',
      prefix: 128,
      want: 200,
    },
  ])('behind a trusted proxy, $given: the second request → $want', async ({ first, second, prefix, want }) => {
    const app = await h.startApp({
      limits: {
        rateLimit: 1,
        rateWindowMs: 60_000,
        cacheTtlMs: 30_000,
        ...(prefix ? { ipv6ClientPrefix: prefix } : {}),
      },
      rateLimiter: createMemoryRateLimiter({ now: h.clock.now }),
      trustProxy: 'loopback',
    });
    const from = (ip: string) => fetch(`${app.url}/health`, { headers: { 'x-forwarded-for': ip } });
    expect((await from(first)).status).toBe(200);
    expect((await from(second)).status).toBe(want);
  });

  it('an unreachable shared limiter admits the request', async () => {
    const down: RateLimiter = {
      hit: async () => {
        throw new StoreUnavailableError('rate_limit', 'connection refused');
      },
      close: async () => {},
    };
    const app = await h.startApp({ rateLimiter: down });
    const r = await fetch(`${app.url}/health`);
    expect(r.status).toBe(200);
    expect(r.headers.get('x-ratelimit-limit')).toBeTruthy();
  });
});

describe('the error envelope', () => {
  it('404 not_found for an unknown route', async () => {
    const r = await h.get('/v2/anything');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ code: 'not_found', message: expect.any(String) });
  });

  it('405 method_not_allowed with Allow for a method a route does not have', async () => {
    const r = await h.request('DELETE', '/health');
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, HEAD');
    expect(r.body).toEqual({
      code: 'method_not_allowed',
      message: 'DELETE is not allowed on /health; this path accepts GET, HEAD',
    });
    const post = await h.request('GET', '/v1/dids/stellar/submit');
    expect([post.status, post.headers.get('allow'), post.body.code]).toEqual([405, 'POST', 'method_not_allowed']);
  });

  it('a POST where no operation takes one is 405 or 404, whatever its body: the body is read only by a route that takes one', async () => {
    for (const [path, body] of [
      ['/health', undefined],
      ['/1.0/identifiers/did:ledger:testnet:aaaaaaaaaaaaaaaaaaaaaaaaaa', undefined],
      ['/health', '{not json'],
    ] as const) {
      const r = await h.request(
        'POST',
        path,
        body === undefined ? {} : { rawBody: body, headers: { 'content-type': 'application/json' } },
      );
      expect([path, r.status, r.headers.get('allow'), r.body.code]).toEqual([
        path,
        405,
        'GET, HEAD',
        'method_not_allowed',
      ]);
    }
    const nowhere = await h.request('POST', '/v2/nowhere', {
      rawBody: '{not json',
      headers: { 'content-type': 'application/json' },
    });
    expect([nowhere.status, nowhere.body.code]).toEqual([404, 'not_found']);
  });

  it('OPTIONS on a route is 204 with Allow', async () => {
    const r = await h.request('OPTIONS', '/health');
    expect([r.status, r.headers.get('allow')]).toEqual([204, 'GET, HEAD, OPTIONS']);
  });

  it.each([
    ['/v1/dids/stellar/submit', 300_000],
    ['/v1/dids/stellar', 3_000_000],
  ])('413 payload_too_large for a body over the limit (%s, %i bytes), naming the limit', async (path, size) => {
    const r = await h.post(path, { signedXdr: 'A'.repeat(size) });
    expect(r.status).toBe(413);
    expect(r.body).toEqual({ code: 'payload_too_large', message: 'the request body exceeds 262144 bytes (256 KiB)' });
  });

  it.each([
    ['null', 'null'],
    ['42', 'a number'],
    ['"did"', 'a string'],
    ['true', 'a boolean'],
  ])('400 invalid_request for the JSON %s: the body must be a JSON object', async (rawBody, kind) => {
    const r = await h.request('POST', '/v1/dids/stellar', { rawBody, headers: { 'content-type': 'application/json' } });
    expect([r.status, r.body.code, r.body.message]).toEqual([
      400,
      'invalid_request',
      `the body must be a JSON object, got ${kind}`,
    ]);
  });

  it('400 invalid_request for text that is not JSON says so', async () => {
    const r = await h.request('POST', '/v1/dids/stellar', {
      rawBody: '{"did": ',
      headers: { 'content-type': 'application/json' },
    });
    expect([r.status, r.body.code]).toEqual([400, 'invalid_request']);
    expect(r.body.message).toMatch(/^body is not valid JSON: /);
  });

  it('400 invalid_request for a body without Content-Type or of another type: it must be application/json', async () => {
    const none = await fetch(`${h.url}/v1/proof/challenge`, { method: 'POST', body: new TextEncoder().encode('{}') });
    const noneBody = (await none.json()) as { code: string; message: string };
    expect([none.status, noneBody.code]).toEqual([400, 'invalid_request']);
    expect(noneBody.message).toBe(
      'the body must be JSON sent with Content-Type: application/json; the request has no Content-Type',
    );
    expect(noneBody.message).not.toMatch(/undefined/);
    const text = await h.request('POST', '/v1/proof/challenge', {
      rawBody: '{}',
      headers: { 'content-type': 'text/plain' },
    });
    expect([text.status, text.body.code, text.body.message]).toEqual([
      400,
      'invalid_request',
      'the body must be JSON sent with Content-Type: application/json, not text/plain',
    ]);
  });

  it.each(['/v1/dids/stellar/%', '/v1/dids/stellar/%zz/update'])(
    '400 invalid_request for a malformed percent-encoding in the path (%s)',
    async (path) => {
      const r = await h.request(
        path.endsWith('/update') ? 'POST' : 'GET',
        path,
        path.endsWith('/update') ? { body: {} } : {},
      );
      expect([r.status, r.body.code]).toEqual([400, 'invalid_request']);
      expect(r.body.message).toBe(
        'the path has a malformed percent-encoding: every % must be followed by two hexadecimal digits (write a literal % as %25)',
      );
    },
  );

  it('431 headers_too_large in the envelope for a request head over the limit', async () => {
    const r = await h.get(`/health?q=${'a'.repeat(20_000)}`);
    expect(r.status).toBe(431);
    expect(r.body).toEqual({ code: 'headers_too_large', message: expect.stringMatching(/exceed 16384 bytes/) });
  });

  it('500 internal_error for an unexpected fault, with the request id and nothing else', async () => {
    const broken: RateLimiter = {
      hit: async () => {
        throw new TypeError('secret internals at /srv/x.ts:42');
      },
      close: async () => {},
    };
    const app = await h.startApp({ rateLimiter: broken });
    const r = await fetch(`${app.url}/health`, { headers: { 'x-request-id': 'fault-1' } });
    expect(r.status).toBe(500);
    const body = (await r.json()) as { code: string; message: string };
    expect(body).toEqual({ code: 'internal_error', message: 'Internal error (request fault-1)' });
    expect(JSON.stringify(body)).not.toContain('secret');
    expect(logs.some((e) => e.event === 'internal_error' && e.requestId === 'fault-1')).toBe(true);
  });

  it('an unreachable cache degrades to uncached resolution', async () => {
    const down: Cache = {
      get: async () => {
        throw new StoreUnavailableError('cache', 'connection refused');
      },
      set: async () => {
        throw new StoreUnavailableError('cache', 'connection refused');
      },
      delete: async () => {
        throw new StoreUnavailableError('cache', 'connection refused');
      },
      close: async () => {},
    };
    const d = await h.registerDid();
    const app = await h.startApp({ cache: down });
    const r = await fetch(`${app.url}/1.0/identifiers/${d.did}`);
    expect(r.status).toBe(200);
  });
});

describe('HEAD on the GET routes (spec "Headers, limits and caching")', () => {
  it.each(['/health', '/openapi.json', '/docs'])('HEAD %s: the GET status and headers, no body', async (path) => {
    const get = await h.get(path);
    const head = await h.request('HEAD', path);
    expect([head.status, head.text]).toEqual([get.status, '']);
    expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
    expect(head.headers.get('x-ratelimit-limit')).toBe(get.headers.get('x-ratelimit-limit'));
  });

  it('HEAD /1.0/identifiers/{did} and /v1/dids/stellar/{did}: status and headers of the GET, no body', async () => {
    const d = await h.registerDid();
    for (const path of [`/1.0/identifiers/${d.did}`, `/v1/dids/stellar/${d.did}`]) {
      const get = await h.get(path);
      const head = await h.request('HEAD', path);
      expect([head.status, head.text], path).toEqual([200, '']);
      for (const name of ['content-type', 'cache-control', 'content-length'])
        expect(head.headers.get(name), `${path} ${name}`).toBe(get.headers.get(name));
    }
    const unknown = await h.request('HEAD', '/1.0/identifiers/did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza');
    expect([unknown.status, unknown.text]).toEqual([404, '']);
  });

  it('HEAD on a route without a GET → 405 with Allow; on no route → 404', async () => {
    const r = await h.request('HEAD', '/v1/proof/challenge');
    expect([r.status, r.headers.get('allow')]).toEqual([405, 'POST']);
    expect((await h.request('HEAD', '/v1/nothing')).status).toBe(404);
  });

  it('HEAD counts in the per-IP window like the GET', async () => {
    const app = await h.startApp({
      limits: { rateLimit: 1, rateWindowMs: 60_000, cacheTtlMs: 30_000 },
      rateLimiter: createMemoryRateLimiter({ now: h.clock.now }),
    });
    expect((await fetch(`${app.url}/health`, { method: 'HEAD' })).status).toBe(200);
    expect((await fetch(`${app.url}/health`, { method: 'HEAD' })).status).toBe(429);
  });
});

describe('service routes', () => {
  it('/health: status, time, the Node version and the configured networks with their registries', async () => {
    const r = await h.get('/health');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      status: 'ok',
      timestamp: expect.any(String),
      service: 'resolver',
      node: process.versions.node,
      networks: [
        { network: 'testnet', registryId: h.info.testnet.registryId },
        { network: 'mainnet', registryId: h.info.mainnet.registryId },
      ],
    });
  });

  it('/: an index of its pages as JSON, or as HTML to a client that prefers it', async () => {
    const r = await h.get('/');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      service: 'resolver',
      title: 'did:ledger Registry and Resolver API',
      links: { docs: '/docs', openapi: '/openapi.json', health: '/health', ready: '/ready', metrics: '/metrics' },
      services: [],
    });
    const page = await fetch(`${h.url}/`, { headers: { accept: 'text/html,*/*;q=0.8' } });
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain('<a href="/openapi.json">');
  });

  it('/openapi.json: the OpenAPI 3.1 description as JSON', async () => {
    const r = await h.get('/openapi.json');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.body.openapi).toBe('3.1.0');
    // Relative: "Try it out" goes to the port the page came from, whatever --resolver-port is.
    expect(r.body.servers).toEqual([{ url: '/', description: 'this service' }]);
    expect(Object.keys(r.body.paths)).toEqual(
      expect.arrayContaining([
        '/health',
        '/docs',
        '/openapi.json',
        '/1.0/identifiers/{did}',
        '/v1/dids/stellar',
        '/v1/dids/stellar/submit',
        '/v1/dids/stellar/{did}',
        '/v1/dids/stellar/{did}/update',
        '/v1/dids/stellar/{did}/transfer',
        '/v1/dids/stellar/{did}/deactivate',
        '/v1/proof/challenge',
        '/v1/proof/verify',
      ]),
    );
  });

  it('/docs: Swagger UI served from this process, reading openapi.json', async () => {
    const r = await h.get('/docs');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    expect(r.text).toContain('swagger-ui');
    expect(r.text).toContain('src="docs/swagger-ui-bundle.js"');
    expect(r.text).not.toMatch(/https?:\/\/(?!www\.w3\.org)[^"']*\.js/);
    const init = await h.get('/docs/swagger-ui-init.js');
    expect(init.status).toBe(200);
    expect(init.text).toContain('"swaggerUrl": "openapi.json"');
    const css = await h.get('/docs/swagger-ui.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toMatch(/^text\/css/);
  });

  it('/docs/ redirects to /docs, where the relative links resolve', async () => {
    const r = await fetch(`${h.url}/docs/`, { redirect: 'manual' });
    expect(r.status).toBe(301);
    expect(new URL(r.headers.get('location')!, `${h.url}/docs/`).pathname).toBe('/docs');
  });
});
