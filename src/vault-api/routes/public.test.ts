// GET /, GET /health, GET /config, /docs (testnet) and its 404 on mainnet (vault-api.yaml tag Public).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVaultTestEnv, stubChain, type VaultTestEnv } from '../../../test-support/vault-api.ts';

let testnet: VaultTestEnv;
let mainnet: VaultTestEnv;

beforeAll(async () => {
  [testnet, mainnet] = await Promise.all([
    startVaultTestEnv({ chain: stubChain('testnet') }),
    startVaultTestEnv({ network: 'mainnet', chain: stubChain('mainnet') }),
  ]);
});
afterAll(async () => {
  await Promise.all([testnet?.close(), mainnet?.close()]);
});

describe('GET /health', () => {
  it('answers status, timestamp from the injected clock, service, the Node version', async () => {
    testnet.clock.advance(3_600_000);
    const before = testnet.clock.now();
    const res = await testnet.request('/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'ok',
      timestamp: expect.any(String),
      service: 'vault-api-testnet',
      node: process.versions.node,
    });
    const t = Date.parse(res.body.timestamp);
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThan(Date.now() + 3_600_000 + 1000);
    expect(t).toBeGreaterThan(Date.now() + 3_500_000);
  });
});

describe('GET /', () => {
  it.each(['testnet', 'mainnet'] as const)(
    '%s: JSON by default, linking its pages (no /docs on mainnet)',
    async (network) => {
      const env = network === 'testnet' ? testnet : mainnet;
      const res = await fetch(`${env.url}/`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.headers.get('vary')).toMatch(/Accept/);
      const body = (await res.json()) as { links: Record<string, string> };
      expect(body).toEqual({
        service: `vault-api-${network}`,
        title: 'Credential Vault API',
        links: {
          ...(network === 'testnet' ? { docs: '/docs' } : {}),
          openapi: '/openapi.json',
          health: '/health',
          ready: '/ready',
          metrics: '/metrics',
        },
        // An app alone: this process runs no other service.
        services: [],
      });
      for (const href of Object.values(body.links)) expect((await fetch(env.url + href)).status, href).toBe(200);
    },
  );

  it('HTML to a client that prefers it (a browser), with the same links; JSON to */* and to both equally', async () => {
    const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
    const page = await fetch(`${testnet.url}/`, { headers: { accept: browser } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await page.text();
    for (const href of ['/docs', '/openapi.json', '/health']) expect(html).toContain(`<a href="${href}">`);
    for (const accept of ['*/*', 'application/json, text/html', 'application/json'])
      expect((await fetch(`${testnet.url}/`, { headers: { accept } })).headers.get('content-type'), accept).toMatch(
        /^application\/json/,
      );
  });
});

describe('GET /config', () => {
  it.each(['testnet', 'mainnet'] as const)('%s: every field, svcContractId = factoryContractId', async (network) => {
    const env = network === 'testnet' ? testnet : mainnet;
    const res = await env.request('/config');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      rpcUrl: env.profile.rpcUrl,
      networkPassphrase: env.profile.networkPassphrase,
      networkType: network,
      protocolVersion: 28,
      factoryContractId: env.profile.factoryId,
      vaultWasmHash: env.profile.vaultWasmHash,
      didStellarRegistryId: env.profile.registryId,
      svcContractId: env.profile.factoryId,
    });
  });
});

describe('GET /config without response validation (the answer written from its text)', () => {
  it('is the validated answer byte for byte, and follows the protocol version when it moves', async () => {
    const chain = stubChain('testnet');
    const fast = await startVaultTestEnv({ chain, validateResponses: false });
    try {
      const [a, b] = await Promise.all([fetch(`${fast.url}/config`), fetch(`${testnet.url}/config`)]);
      const text = await a.text();
      expect(a.status).toBe(200);
      expect(text).toBe(await b.text());
      for (const name of ['content-type', 'content-length']) expect(a.headers.get(name)).toBe(b.headers.get(name));
      (chain.client as { protocolVersion?: number }).protocolVersion = 29;
      const moved = await fetch(`${fast.url}/config`);
      expect(await moved.text()).toBe(text.replace('"protocolVersion":28', '"protocolVersion":29'));
    } finally {
      await fast.close();
    }
  });
});

describe('GET /openapi.json', () => {
  it.each(['testnet', 'mainnet'] as const)('%s: the description, its servers naming this service', async (network) => {
    const env = network === 'testnet' ? testnet : mainnet;
    const res = await env.request('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.paths['/contracts/vc/issue']).toBeDefined();
    expect(res.body.paths['/openapi.json']).toBeDefined();
    expect(res.body.servers).toEqual([{ url: '/', description: `this service (${network})` }]);
  });
});

describe('/docs on testnet', () => {
  it('serves the Swagger UI page, with assets that resolve under /docs', async () => {
    const res = await testnet.request('/docs');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    const page = res.body as string;
    expect(page).toContain('<div id="swagger-ui">');
    const assets = [...page.matchAll(/(?:href|src)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.filter((a) => /^(https?:)?\/\//.test(a))).toEqual([]); // nothing from a CDN
    expect(assets).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/swagger-ui\.css$/),
        expect.stringMatching(/swagger-ui-init\.js$/),
      ]),
    );
    for (const asset of assets) {
      const url = new URL(asset, `${testnet.url}/docs`);
      expect(url.pathname.startsWith('/docs/'), url.pathname).toBe(true);
      const got = await fetch(url);
      expect(got.status, url.pathname).toBe(200);
      await got.arrayBuffer();
    }
  });

  it.each([
    ['/docs/', '/docs'],
    ['/api/docs/', '/api/docs'],
  ])('%s redirects to %s', async (path, target) => {
    const res = await fetch(testnet.url + path, { redirect: 'manual' });
    expect(res.status).toBe(301);
    expect(new URL(res.headers.get('location')!, testnet.url + path).pathname).toBe(target);
  });

  it('the init script loads ./openapi.json instead of inlining the description', async () => {
    const res = await testnet.request('/docs/swagger-ui-init.js');
    expect(res.status).toBe(200);
    expect(res.body).toContain('"swaggerUrl": "openapi.json"');
    expect(res.body).not.toContain('/contracts/vc/issue');
  });

  it('an unknown file under /docs → 404 not_found', async () => {
    const res = await testnet.request('/docs/nothing-here.js');
    expect([res.status, res.body.error]).toEqual([404, 'not_found']);
  });
});

describe('/docs on mainnet', () => {
  it.each([
    '/docs',
    '/docs/',
    '/docs/openapi.json',
    '/docs/swagger-ui.css',
    '/docs/swagger-ui-init.js',
    '/docs/index.html',
    '/docs/a/b',
  ])('%s → 404 not_found', async (path) => {
    const res = await mainnet.request(path);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'not_found', message: expect.any(String) });
  });

  it('/health and /config still answer', async () => {
    expect((await mainnet.request('/health')).status).toBe(200);
    expect((await mainnet.request('/config')).body.networkType).toBe('mainnet');
  });
});
