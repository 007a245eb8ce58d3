// The service around the routes (spec "Headers, limits and caching", "Errors", tag "service"): X-Request-ID,
// the per-IP rate limit, the envelope for unknown routes, bad bodies and faults, /health, /openapi.json, /docs.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError, type Cache, type RateLimiter } from '../stores/index.ts';
import { createMemoryRateLimiter } from '../stores/memory.ts';
import { startHarness, type Harness, type Server } from './testing.ts';

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
    ['with a space', 'a b'],
  ])('generates a UUID when %s', async (_n, value) => {
    const r = await h.get('/health', value === undefined ? {} : { 'x-request-id': value });
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
  beforeAll(async () => {
    limited = await h.startApp({ limits: { rateLimit: 3, rateWindowMs: 60_000, cacheTtlMs: 30_000 }, rateLimiter: createMemoryRateLimiter({ now: h.clock.now }) });
  });

  it('counts every route; the 4th request in the window is 429 rate_limited with Retry-After', async () => {
    const seen: [number, string | null][] = [];
    for (const path of ['/health', '/openapi.json', '/nowhere']) {
      const r = await fetch(limited.url + path);
      seen.push([r.status, r.headers.get('x-ratelimit-remaining')]);
      expect(r.headers.get('x-ratelimit-limit')).toBe('3');
    }
    expect(seen).toEqual([[200, '2'], [200, '1'], [404, '0']]);
    const r = await fetch(`${limited.url}/health`);
    expect(r.status).toBe(429);
    expect(r.headers.get('x-ratelimit-limit')).toBe('3');
    expect(r.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(Number(r.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(await r.json()).toEqual({ code: 'rate_limited', message: expect.stringContaining('3 requests per 60 s') });
  });

  it('the window slides: after 60 s requests are admitted again', async () => {
    h.clock.advance(60_001);
    const r = await fetch(`${limited.url}/health`);
    expect(r.status).toBe(200);
    expect(r.headers.get('x-ratelimit-remaining')).toBe('2');
  });

  it('the client IP is the socket peer by default: X-Forwarded-For does not open a new bucket', async () => {
    const app = await h.startApp({ limits: { rateLimit: 1, rateWindowMs: 60_000, cacheTtlMs: 30_000 }, rateLimiter: createMemoryRateLimiter({ now: h.clock.now }) });
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

  it('an unreachable shared limiter admits the request', async () => {
    const down: RateLimiter = { hit: async () => { throw new StoreUnavailableError('rate_limit', 'connection refused'); }, close: async () => {} };
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

  it('404 not_found for a method a route does not have', async () => {
    const r = await h.request('DELETE', '/health');
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('not_found');
  });

  it('400 invalid_request for a body over the limit', async () => {
    const r = await h.post('/v1/dids/stellar/submit', { signedXdr: 'A'.repeat(300_000) });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('invalid_request');
  });

  it('500 internal_error for an unexpected fault, with the request id and nothing else', async () => {
    const broken: RateLimiter = { hit: async () => { throw new TypeError('secret internals at /srv/x.ts:42'); }, close: async () => {} };
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
      get: async () => { throw new StoreUnavailableError('cache', 'connection refused'); },
      set: async () => { throw new StoreUnavailableError('cache', 'connection refused'); },
      delete: async () => { throw new StoreUnavailableError('cache', 'connection refused'); },
      close: async () => {},
    };
    const d = await h.registerDid();
    const app = await h.startApp({ cache: down });
    const r = await fetch(`${app.url}/1.0/identifiers/${d.did}`);
    expect(r.status).toBe(200);
  });
});

describe('service routes', () => {
  it('/health: status, time and the configured networks with their registries', async () => {
    const r = await h.get('/health');
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      status: 'ok',
      timestamp: expect.any(String),
      service: 'did-resolver',
      networks: [
        { network: 'testnet', registryId: h.info.testnet.registryId },
        { network: 'mainnet', registryId: h.info.mainnet.registryId },
      ],
    });
  });

  it('/openapi.json: the OpenAPI 3.1 description as JSON', async () => {
    const r = await h.get('/openapi.json');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.body.openapi).toBe('3.1.0');
    expect(Object.keys(r.body.paths)).toEqual(expect.arrayContaining([
      '/health', '/docs', '/openapi.json', '/1.0/identifiers/{did}', '/v1/dids/stellar', '/v1/dids/stellar/submit',
      '/v1/dids/stellar/{did}', '/v1/dids/stellar/{did}/update', '/v1/dids/stellar/{did}/transfer',
      '/v1/dids/stellar/{did}/deactivate', '/v1/proof/challenge', '/v1/proof/verify',
    ]));
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
});
