import express from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import {
  createMetrics,
  createProcessMetrics,
  httpMetrics,
  instrumentCache,
  instrumentChain,
  metricsHandler,
  type Metrics,
} from './metrics.ts';
import { parseExposition, request, serve, type ParsedFamily, type Served } from '../../test-support/observability.ts';

const OWNER_A = 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR';
const OWNER_B = 'GBRPYHIL2CI3FNQ4BXLFMNDLFJUNPU2HY3ZMFSHONUCEOASW7QC7OX2H';

/** A clock that moves `stepMs` every time it is read: a request (start, end) lasts exactly one step. */
const steppingClock = (stepMs: number) => {
  let t = 0;
  return () => (t += stepMs);
};

const sample = (f: Map<string, ParsedFamily>, family: string, name: string, labels: Record<string, string>) =>
  f.get(family)?.samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    ?.value;

/** The process's families, made once for this file as a process makes them once. */
const processMetrics = createProcessMetrics();

describe('createMetrics', () => {
  it('exposes every family of ours and the standard process/Node.js ones, each with its type and help', async () => {
    const f = parseExposition(await createMetrics({ processMetrics }).expose());
    const types = Object.fromEntries([...f.values()].map((x) => [x.name, x.type]));
    expect(types).toMatchObject({
      http_requests_total: 'counter',
      http_request_duration_seconds: 'histogram',
      credential_vault_submits_total: 'counter',
      credential_vault_credentials_issued_total: 'counter',
      credential_vault_credentials_revoked_total: 'counter',
      credential_vault_verifications_total: 'counter',
      credential_vault_did_writes_total: 'counter',
      chain_call_duration_seconds: 'histogram',
      chain_call_errors_total: 'counter',
      rate_limit_rejections_total: 'counter',
      cache_requests_total: 'counter',
      cache_hit_ratio: 'gauge',
      process_resident_memory_bytes: 'gauge',
      process_cpu_user_seconds_total: 'counter',
      process_cpu_system_seconds_total: 'counter',
      process_start_time_seconds: 'gauge',
      nodejs_heap_size_total_bytes: 'gauge',
      nodejs_heap_size_used_bytes: 'gauge',
      nodejs_external_memory_bytes: 'gauge',
      nodejs_active_resources: 'gauge',
      nodejs_active_resources_total: 'gauge',
      nodejs_version_info: 'gauge',
    });
    for (const x of f.values()) expect(x.help).toBeTruthy();
  });

  it('shows the process families only when given them: one service of a process shows them', async () => {
    const f = parseExposition(await createMetrics({ service: 'resolver' }).expose());
    expect([...f.keys()].filter((n) => n.startsWith('process_') || n.startsWith('nodejs_'))).toEqual([]);
  });

  it('labels every series with its service, the process families included', async () => {
    const m = createMetrics({ service: 'vault-api-testnet', processMetrics: createProcessMetrics() });
    m.domain.credentialsIssued(3);
    m.domain.submitted('/contracts/vc/issue', 'success');
    const f = parseExposition(await m.expose());
    const samples = [...f.values()].flatMap((x) => x.samples);
    const unlabelled = samples.filter((s) => s.labels['service'] !== 'vault-api-testnet');
    expect(unlabelled.map((s) => s.name)).toEqual([]);
    const rss = 'process_resident_memory_bytes';
    expect(sample(f, rss, rss, { service: 'vault-api-testnet' })).toBeGreaterThan(0);
  });

  it('counts the domain: submits by outcome, credentials issued and revoked, verifications, DID writes', async () => {
    const m = createMetrics({ service: 'vault-api-testnet' });
    m.domain.submitted('/contracts/vc/issue', 'success');
    m.domain.submitted('/contracts/vc/issue', 'tx_failed');
    m.domain.submitted('/contracts/vc/issue', 'success');
    m.domain.credentialsIssued(1);
    m.domain.credentialsIssued(5);
    m.domain.credentialsRevoked(1);
    m.domain.verified('verified', 'none');
    m.domain.verified('failed', 'revoked');
    m.domain.didWritten('testnet', 'register');
    const f = parseExposition(await m.expose());
    const at = (family: string, labels: Record<string, string> = {}) => sample(f, family, family, labels);
    expect(at('credential_vault_submits_total', { route: '/contracts/vc/issue', outcome: 'success' })).toBe(2);
    expect(at('credential_vault_submits_total', { route: '/contracts/vc/issue', outcome: 'tx_failed' })).toBe(1);
    expect(at('credential_vault_credentials_issued_total')).toBe(6);
    expect(at('credential_vault_credentials_revoked_total')).toBe(1);
    expect(at('credential_vault_verifications_total', { result: 'verified', reason: 'none' })).toBe(1);
    expect(at('credential_vault_verifications_total', { result: 'failed', reason: 'revoked' })).toBe(1);
    expect(at('credential_vault_did_writes_total', { network: 'testnet', operation: 'register' })).toBe(1);
  });

  it('shows on each kind of service only the domain families it moves; submits and build info on both', async () => {
    const vaultOnly = [
      'credential_vault_credentials_issued_total',
      'credential_vault_credentials_revoked_total',
      'credential_vault_verifications_total',
    ];
    const resolverOnly = ['credential_vault_did_writes_total'];
    const both = ['credential_vault_submits_total', 'credential_vault_build_info'];
    const families = async (domainOf?: 'vault-api' | 'resolver') => {
      const m = createMetrics({ service: 'x', ...(domainOf ? { domainOf } : {}) });
      // Counted on either kind (a stray call is no error), shown only on its own.
      m.domain.credentialsIssued(1);
      m.domain.didWritten('testnet', 'register');
      return [...parseExposition(await m.expose()).keys()];
    };
    const vault = await families('vault-api');
    const resolver = await families('resolver');
    for (const name of [...vaultOnly, ...both]) expect(vault, name).toContain(name);
    for (const name of resolverOnly) expect(vault, name).not.toContain(name);
    for (const name of [...resolverOnly, ...both]) expect(resolver, name).toContain(name);
    for (const name of vaultOnly) expect(resolver, name).not.toContain(name);
    expect(await families()).toEqual(expect.arrayContaining([...vaultOnly, ...resolverOnly, ...both]));
  });

  it('reports build info per network, with the protocol read at each scrape', async () => {
    const m = createMetrics({ service: 'resolver' });
    let testnet: number | undefined = 28;
    m.buildInfo({ version: '1.2.3', protocols: () => ({ testnet, mainnet: undefined }) });
    m.buildInfo({ version: 'ignored', protocols: () => ({}) });
    const labels = { service: 'resolver', version: '1.2.3', node: process.versions.node };
    let f = parseExposition(await m.expose());
    const family = 'credential_vault_build_info';
    const info = (more: Record<string, string>) => sample(f, family, family, { ...labels, ...more });
    expect(info({ network: 'testnet', protocol: '28' })).toBe(1);
    expect(info({ network: 'mainnet', protocol: 'unknown' })).toBe(1);
    testnet = 29;
    f = parseExposition(await m.expose());
    const series = f.get('credential_vault_build_info')!.samples.filter((s) => s.labels['network'] === 'testnet');
    expect(series.map((s) => s.labels['protocol'])).toEqual(['29']);
  });

  it('reads the real process', async () => {
    const f = parseExposition(await createMetrics({ processMetrics }).expose());
    expect(sample(f, 'process_resident_memory_bytes', 'process_resident_memory_bytes', {})).toBeGreaterThan(1_000_000);
    expect(sample(f, 'nodejs_heap_size_used_bytes', 'nodejs_heap_size_used_bytes', {})).toBeGreaterThan(0);
    expect(sample(f, 'process_cpu_user_seconds_total', 'process_cpu_user_seconds_total', {})).toBeGreaterThan(0);
    const started = sample(f, 'process_start_time_seconds', 'process_start_time_seconds', {})!;
    expect(Math.abs(started - (Date.now() / 1000 - process.uptime()))).toBeLessThan(2);
    expect(sample(f, 'nodejs_version_info', 'nodejs_version_info', { version: process.version })).toBe(1);
  });

  it('timeChainCall observes the duration, also of a failing call, and counts failures', async () => {
    const m = createMetrics({ now: steppingClock(250) });
    await expect(m.timeChainCall('testnet', 'vault.issue', async () => 'ok')).resolves.toBe('ok');
    await expect(
      m.timeChainCall('testnet', 'vault.issue', async () => Promise.reject(new Error('rpc down'))),
    ).rejects.toThrow('rpc down');
    await expect(
      m.timeChainCall('testnet', 'vault.issue', () => {
        throw new Error('sync');
      }),
    ).rejects.toThrow('sync');
    const f = parseExposition(await m.expose());
    const labels = { network: 'testnet', call: 'vault.issue' };
    expect(sample(f, 'chain_call_duration_seconds', 'chain_call_duration_seconds_count', labels)).toBe(3);
    expect(sample(f, 'chain_call_duration_seconds', 'chain_call_duration_seconds_sum', labels)).toBe(0.75);
    expect(
      sample(f, 'chain_call_duration_seconds', 'chain_call_duration_seconds_bucket', { ...labels, le: '0.1' }),
    ).toBe(0);
    expect(
      sample(f, 'chain_call_duration_seconds', 'chain_call_duration_seconds_bucket', { ...labels, le: '0.25' }),
    ).toBe(3);
    expect(sample(f, 'chain_call_errors_total', 'chain_call_errors_total', labels)).toBe(2);
  });

  it('instrumentChain times the async calls of each group by <group>.<function>, and nothing else', async () => {
    const m = createMetrics({ now: steppingClock(100) });
    const vault = {
      secret: 'kept',
      issue: async (owner: string) => `issued for ${owner}`,
      fails: async () => Promise.reject(new Error('contract error #6')),
      pure: (x: number) => x * 2,
    };
    const chain = {
      client: { network: 'mainnet', submit: async () => 'tx' },
      vault,
      vaultAddress: (o: string) => `C${o}`,
    };
    const timed = instrumentChain(chain, m);
    expect(await timed.vault.issue(OWNER_A)).toBe(`issued for ${OWNER_A}`);
    await expect(timed.vault.fails()).rejects.toThrow('#6');
    expect(timed.vault.pure(2)).toBe(4);
    expect(timed.vault.secret).toBe('kept');
    expect(await timed.client.submit()).toBe('tx');
    expect(timed.vaultAddress('G')).toBe('CG');
    expect(chain.vault).toBe(vault);
    // Read through prom-client's registry API.
    const durations = (await m.chainCallDuration.get()).values;
    const of = (call: string, name: string) =>
      durations.find((v) => v.labels.call === call && v.metricName === name)?.value;
    expect(of('vault.issue', 'chain_call_duration_seconds_count')).toBe(1);
    expect(of('vault.issue', 'chain_call_duration_seconds_sum')).toBe(0.1);
    expect(of('client.submit', 'chain_call_duration_seconds_count')).toBe(1);
    expect(of('vault.pure', 'chain_call_duration_seconds_count')).toBeUndefined();
    expect((await m.chainCallErrors.get()).values).toEqual([
      { labels: { network: 'mainnet', call: 'vault.fails' }, value: 1 },
    ]);
  });

  it('instrumentCache counts hits and misses; the hit ratio gauge follows them', async () => {
    const m = createMetrics();
    class Store {
      readonly #data = new Map([['a', '1']]);
      async get(k: string) {
        if (k === 'boom') throw new Error('redis down');
        return this.#data.get(k);
      }
      async set(k: string, v: string) {
        this.#data.set(k, v);
      }
    }
    const cache = instrumentCache(new Store(), m, 'did_resolution');
    expect(await cache.get('a')).toBe('1');
    expect(await cache.get('b')).toBeUndefined();
    await cache.set('b', '2');
    expect(await cache.get('b')).toBe('2');
    await expect(cache.get('boom')).rejects.toThrow('redis down');
    const f = parseExposition(await m.expose());
    expect(sample(f, 'cache_requests_total', 'cache_requests_total', { cache: 'did_resolution', result: 'hit' })).toBe(
      2,
    );
    expect(sample(f, 'cache_requests_total', 'cache_requests_total', { cache: 'did_resolution', result: 'miss' })).toBe(
      2,
    );
    expect(sample(f, 'cache_hit_ratio', 'cache_hit_ratio', { cache: 'did_resolution' })).toBe(0.5);
  });
});

describe('httpMetrics and GET /metrics', () => {
  let served: Served | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  async function start(m: Metrics, options: { service?: string; rateLimitBucketOf?: () => string } = {}) {
    const app = express();
    app.use(
      httpMetrics({
        metrics: m,
        service: options.service ?? 'vault-api',
        ...(options.rateLimitBucketOf ? { rateLimitBucketOf: options.rateLimitBucketOf } : {}),
      }),
    );
    app.get('/metrics', metricsHandler(m));
    app.get('/contracts/vault/:owner', (_req, res) => void res.json({ ok: true }));
    app.post(
      '/contracts/vc/issue',
      (_req, res) =>
        void res
          .set('X-WriteRateLimit-Limit', '20')
          .set('Retry-After', '3')
          .status(429)
          .json({ error: 'write_rate_limit_exceeded' }),
    );
    app.get(
      '/contracts/vc/list-vc-ids',
      (_req, res) => void res.set('X-RateLimit-Limit', '60').status(429).json({ error: 'rate_limit_exceeded' }),
    );
    served = await serve(app);
    return served.port;
  }

  const scrape = async (port: number) => {
    const res = await request(port, { path: '/metrics' });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    return parseExposition(res.body);
  };

  it('tells prepare and submit apart on a write route (the mode label), and no other route has one', async () => {
    const m = createMetrics({ now: steppingClock(30) });
    const app = express();
    app.use(express.json());
    const modeOf = (req: express.Request) =>
      req.path !== '/contracts/vault/create' ? undefined : 'signedXdr' in req.body ? 'submit' : 'prepare';
    app.use(httpMetrics({ metrics: m, service: 'vault-api', modeOf }));
    app.get('/metrics', metricsHandler(m));
    app.post('/contracts/vault/create', (_req, res) => void res.json({}));
    app.get('/config', (_req, res) => void res.json({}));
    served = await serve(app);
    const headers = { 'content-type': 'application/json' };
    const post = (body: unknown) =>
      request(served!.port, { method: 'POST', path: '/contracts/vault/create', headers, body: JSON.stringify(body) });
    await post({ owner: OWNER_A });
    await post({ owner: OWNER_A });
    await post({ signedXdr: 'AAAA' });
    await request(served.port, { path: '/config' });
    const f = await scrape(served.port);
    const write = { service: 'vault-api', route: '/contracts/vault/create', method: 'POST', status: '200' };
    expect(sample(f, 'http_requests_total', 'http_requests_total', { ...write, mode: 'prepare' })).toBe(2);
    expect(sample(f, 'http_requests_total', 'http_requests_total', { ...write, mode: 'submit' })).toBe(1);
    const submitted = { route: '/contracts/vault/create', mode: 'submit' };
    expect(sample(f, 'http_request_duration_seconds', 'http_request_duration_seconds_count', submitted)).toBe(1);
    const config = f.get('http_requests_total')!.samples.find((x) => x.labels['route'] === '/config')!;
    expect(config.labels['mode']).toBeUndefined();
  });

  it('counts requests by route template, method and status, and times them', async () => {
    const m = createMetrics({ now: steppingClock(30) });
    const port = await start(m);
    for (const owner of [OWNER_A, OWNER_B, OWNER_A])
      expect((await request(port, { path: `/contracts/vault/${owner}` })).status).toBe(200);
    expect((await request(port, { path: `/nowhere/${OWNER_A}` })).status).toBe(404);
    const f = await scrape(port);
    const route = { service: 'vault-api', route: '/contracts/vault/{owner}', method: 'GET' };
    expect(sample(f, 'http_requests_total', 'http_requests_total', { ...route, status: '200' })).toBe(3);
    expect(
      sample(f, 'http_requests_total', 'http_requests_total', {
        service: 'vault-api',
        route: 'unmatched',
        method: 'GET',
        status: '404',
      }),
    ).toBe(1);
    expect(sample(f, 'http_request_duration_seconds', 'http_request_duration_seconds_count', route)).toBe(3);
    expect(sample(f, 'http_request_duration_seconds', 'http_request_duration_seconds_sum', route)).toBeCloseTo(
      0.09,
      10,
    );
    expect(
      sample(f, 'http_request_duration_seconds', 'http_request_duration_seconds_bucket', { ...route, le: '0.025' }),
    ).toBe(0);
    expect(
      sample(f, 'http_request_duration_seconds', 'http_request_duration_seconds_bucket', { ...route, le: '0.05' }),
    ).toBe(3);
    // No address ever becomes a label value.
    expect(
      [...f.values()].flatMap((x) => x.samples).some((s) => Object.values(s.labels).some((v) => v.includes(OWNER_A))),
    ).toBe(false);
  });

  it('keeps one series per route, method and status however often each comes back', async () => {
    const m = createMetrics({ now: steppingClock(30) });
    const app = express();
    app.use(httpMetrics({ metrics: m, service: 'vault-api' }));
    app.get('/metrics', metricsHandler(m));
    app.get('/contracts/vault/:owner', (req, res) => void res.status(req.query['fail'] ? 503 : 200).json({}));
    served = await serve(app);
    for (const path of ['', '?fail=1', '', '?fail=1', ''])
      await request(served.port, { path: `/contracts/vault/${OWNER_A}${path}` });
    const f = await scrape(served.port);
    const route = { service: 'vault-api', route: '/contracts/vault/{owner}', method: 'GET' };
    expect(sample(f, 'http_requests_total', 'http_requests_total', { ...route, status: '200' })).toBe(3);
    expect(sample(f, 'http_requests_total', 'http_requests_total', { ...route, status: '503' })).toBe(2);
    expect(sample(f, 'http_request_duration_seconds', 'http_request_duration_seconds_count', route)).toBe(5);
  });

  it('counts the scrape itself once it has finished', async () => {
    const m = createMetrics();
    const port = await start(m);
    await scrape(port);
    const f = await scrape(port);
    expect(sample(f, 'http_requests_total', 'http_requests_total', { route: '/metrics', status: '200' })).toBe(1);
  });

  it.each([
    {
      name: 'a write refused (X-WriteRateLimit-*)',
      method: 'POST',
      path: '/contracts/vc/issue',
      service: 'vault-api',
      bucket: 'write',
    },
    {
      name: 'a read refused (X-RateLimit-*)',
      method: 'GET',
      path: '/contracts/vc/list-vc-ids',
      service: 'vault-api',
      bucket: 'read',
    },
    {
      name: 'a bucket named by the app',
      method: 'GET',
      path: '/contracts/vc/list-vc-ids',
      service: 'resolver',
      bucket: 'ip',
    },
  ])('counts $name in rate_limit_rejections_total', async ({ method, path, service, bucket }) => {
    const m = createMetrics();
    const port = await start(m, { service, ...(bucket === 'ip' ? { rateLimitBucketOf: () => 'ip' } : {}) });
    expect((await request(port, { method, path })).status).toBe(429);
    expect((await request(port, { method, path })).status).toBe(429);
    const f = await scrape(port);
    expect(sample(f, 'rate_limit_rejections_total', 'rate_limit_rejections_total', { service, bucket })).toBe(2);
    expect(f.get('rate_limit_rejections_total')!.samples).toHaveLength(1);
  });
});

// The reader the tests above trust to prove /metrics well-formed must itself refuse malformed text.
describe('parseExposition (test reader)', () => {
  it.each([
    { name: 'a sample without value', text: 'x_total\n' },
    { name: 'an unquoted label value', text: 'x_total{a=b} 1\n' },
    { name: 'a bad value', text: 'x_total 1.2.3\n' },
    { name: 'a repeated label', text: 'x_total{a="1",a="2"} 1\n' },
    { name: 'an unknown type', text: '# TYPE x_total countr\n' },
    { name: 'TYPE after samples', text: 'x_total 1\n# TYPE x_total counter\n' },
  ])('rejects $name', ({ text }) => {
    expect(() => parseExposition(text)).toThrow();
  });

  it('reads escapes back as prom-client writes them', async () => {
    const m = createMetrics();
    m.cacheRequest('q"uote\\back\nline', 'hit');
    const f = parseExposition(await m.expose());
    expect(sample(f, 'cache_requests_total', 'cache_requests_total', { result: 'hit' })).toBe(1);
    expect(f.get('cache_requests_total')!.samples[0]!.labels.cache).toBe('q"uote\\back\nline');
  });
});
