// Observability as `credential-vault start` wires it (src/services.ts): one process, both vault APIs and the
// resolver, one logger and one metrics registry, readiness per app, graceful close. The RPC is reached
// through a proxy the tests can hold up or take down. The harness's own HTTP calls (the test's and the
// proxy's) each use a new connection: an idle keep-alive one can be closed by its server just as a busy
// process sends on it, and that race belongs to the client under test (src/chain/transport.ts), not to the harness.
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Keypair } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSimulator } from '../simulator/index.ts';
import { loadConfig } from './config/index.ts';
import { generateDid } from './did/index.ts';
import { parseExposition, request as rawRequest, type ParsedFamily } from '../test-support/observability.ts';
import { closedPort, multikey, sign } from '../test-support/resolver.ts';
import { startServices, type RunningServices } from './services.ts';

type Sim = Awaited<ReturnType<typeof startSimulator>>;
type Mode = { kind: 'up' } | { kind: 'down' } | { kind: 'hold'; method: string; release: Promise<void> };

/** The JSON-RPC method of a call's body. */
function rpcMethod(body: Buffer): unknown {
  try {
    return (JSON.parse(body.toString()) as { method?: unknown }).method;
  } catch {
    return undefined;
  }
}

/** Forwards to the simulator; `down` cuts every connection, `hold` keeps each call of `method` until `release` settles. */
async function rpcProxy(target: string) {
  let mode: Mode = { kind: 'up' };
  const arrivals: { method: string; arrived: () => void }[] = [];
  const server = http.createServer(async (req, res) => {
    if (mode.kind === 'down') return void req.socket.destroy();
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const method = rpcMethod(Buffer.concat(chunks));
    for (const a of arrivals.filter((x) => x.method === method)) arrivals.splice(arrivals.indexOf(a), 1)[0]!.arrived();
    if (mode.kind === 'hold' && mode.method === method) await mode.release;
    try {
      const type = req.headers['content-type'] ?? 'application/json';
      const r = await forward(target + (req.url ?? '/'), req.method ?? 'POST', type, Buffer.concat(chunks));
      res.writeHead(r.status, { 'content-type': r.type ?? 'application/json' });
      res.end(r.body);
    } catch {
      res.writeHead(502).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    set: (m: Mode) => void (mode = m),
    /** Settles when the next call of `method` reaches the proxy. */
    arrival: (method: string) => new Promise<void>((arrived) => arrivals.push({ method, arrived })),
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** One HTTP exchange on a connection of its own (no keep-alive pool). */
function forward(url: string, method: string, type: string, body: Buffer) {
  const headers = { 'content-type': type, 'content-length': String(body.length), connection: 'close' };
  return new Promise<{ status: number; type: string | undefined; body: Buffer }>((resolve, reject) => {
    const req = http.request(url, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body: Buffer.concat(chunks) }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

const profileArgs = (sim: Sim, rpcBase: string) =>
  (['testnet', 'mainnet'] as const).flatMap((n) => {
    const i = sim.networks[n];
    return [
      `--${n}-rpc-url`,
      `${rpcBase}/${n}/rpc`,
      `--${n}-passphrase`,
      i.passphrase,
      `--${n}-factory-id`,
      i.factoryId,
      `--${n}-registry-id`,
      i.registryId,
      `--${n}-vault-wasm-hash`,
      i.vaultWasmHash,
      `--${n}-simulation-account`,
      i.admin.publicKey,
    ];
  });

const portArgs = ['--testnet-port', '0', '--mainnet-port', '0', '--resolver-port', '0'];

let sim: Sim;
let proxy: Awaited<ReturnType<typeof rpcProxy>>;
let running: RunningServices;
let vaultUrl: string;
let resolverUrl: string;
let draining = false;
const lines: string[] = [];
const dataDir = mkdtempSync(path.join(tmpdir(), 'cv-observability-'));

/** The services over `rpc` (a proxy of the simulator), with data in `dir`; their log lines go to `log`. */
async function startStack(rpc: { url: string }, dir: string, log: string[]): Promise<RunningServices> {
  const { config } = loadConfig(
    [
      '--simulator',
      'false',
      '--data-dir',
      dir,
      ...portArgs,
      ...profileArgs(sim, rpc.url),
      '--rate-standard-read',
      '3',
      '--shutdown-timeout-ms',
      '10000',
      '--log-level',
      'info',
    ],
    {},
  );
  return startServices(config, { mode: 'start', logWrite: (l) => log.push(l), draining: () => draining });
}

beforeAll(async () => {
  sim = await startSimulator({ port: 0 });
  proxy = await rpcProxy(new URL(sim.url).origin);
  running = await startStack(proxy, dataDir, lines);
  vaultUrl = running.vault.testnet!.url;
  resolverUrl = running.resolverUrl!;
  // Every test starts from ready services: just after a start, a readiness check can time out behind the
  // resolver's catch-up (a first test that reads /ready would depend on how fast the host is).
  for (const base of [vaultUrl, resolverUrl])
    await vi.waitFor(async () => expect((await call(`${base}/ready`)).status).toBe(200), { timeout: 60_000 });
}, 120_000);

afterAll(async () => {
  await running?.close();
  await proxy?.close();
  await sim?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const fund = async () => {
  const kp = Keypair.random();
  const r = await fetch(`${sim.url}/testnet/friendbot?addr=${kp.publicKey()}`, { headers: { connection: 'close' } });
  if (!r.ok) throw new Error(`friendbot: ${r.status}`);
  return kp;
};

/** A standard key (3 reads a minute here) bound to the wallet, as `credential-vault keys create` makes it. */
const mintKey = (wallet: Keypair, services = running) =>
  services.stores.keys.create({
    walletAddress: wallet.publicKey(),
    network: 'testnet',
    role: 'standard',
    scopes: [],
    expiresAt: null,
  });

const call = async (
  url: string,
  init: { method?: string; key?: string; body?: unknown; headers?: Record<string, string> } = {},
) => {
  const headers: Record<string, string> = { connection: 'close', ...init.headers };
  if (init.key) headers['x-svc-key'] = init.key;
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  const r = await fetch(url, {
    method: init.method ?? (init.body === undefined ? 'GET' : 'POST'),
    headers,
    ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}),
  });
  const text = await r.text();
  return { status: r.status, headers: r.headers, text, json: () => JSON.parse(text) as Record<string, any> };
};

const scrape = async (base: string) => {
  const r = await call(`${base}/metrics`);
  expect(r.status).toBe(200);
  expect(r.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parseExposition(r.text);
};

const value = (f: Map<string, ParsedFamily>, family: string, labels: Record<string, string>, name = family) =>
  f.get(family)?.samples.find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
    ?.value ?? 0;

/** Every line that reports a request's outcome (a status), whatever its message: a second one is a duplicate. */
const requestLines = () =>
  lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.status !== undefined);

/** Registers a fresh DID through the resolver (prepare, then submit); returns it. */
async function registerDid(): Promise<string> {
  const controller = await fund();
  const { did } = generateDid({ network: 'testnet' });
  const record = {
    controller: controller.publicKey(),
    authentication: [{ publicKeyMultibase: multikey(Keypair.random()) }],
    assertionMethod: [],
    keyAgreement: [],
    services: [],
  };
  const prep = await call(`${resolverUrl}/v1/dids/stellar`, {
    body: { did, sourcePublicKey: controller.publicKey(), record },
  });
  expect(prep.status).toBe(200);
  const p = prep.json();
  const submitted = await call(`${resolverUrl}/v1/dids/stellar`, {
    body: { signedXdr: sign(p.xdr, p.networkPassphrase, [controller]) },
  });
  expect(submitted.status).toBe(200);
  return did;
}

/** A vault/create prepared with a fresh owner's key (nothing is submitted). */
async function prepareVault(): Promise<void> {
  const owner = await fund();
  const { key } = await mintKey(owner);
  const body = { owner: owner.publicKey(), didUri: 'did:ledger:testnet:o', sourcePublicKey: owner.publicKey() };
  expect((await call(`${vaultUrl}/contracts/vault/create`, { key, body })).status).toBe(200);
}

/**
 * Takes the RPC down until both services' /ready say so (503), then brings it back and waits until both are
 * ready again: the readiness lines of an outage are logged, and the next test finds the services as they were.
 */
async function rpcOutage(
  whileDown: (base: string, ready: Awaited<ReturnType<typeof call>>) => Promise<void> | void = () => {},
): Promise<void> {
  // Ready once first: a check down before that is the process starting, logged at warn (health.ts wasReady).
  for (const base of [vaultUrl, resolverUrl]) expect((await call(`${base}/ready`)).status).toBe(200);
  proxy.set({ kind: 'down' });
  try {
    for (const base of [vaultUrl, resolverUrl]) {
      const r = await call(`${base}/ready`);
      expect(r.status).toBe(503);
      await whileDown(base, r);
    }
  } finally {
    proxy.set({ kind: 'up' });
  }
  for (const base of [vaultUrl, resolverUrl])
    await vi.waitFor(async () => expect((await call(`${base}/ready`)).status).toBe(200), { timeout: 20_000 });
}

describe('GET /metrics', () => {
  it('counts a keyed request by route template and status, and times its chain call', async () => {
    const owner = await fund();
    const { key } = await mintKey(owner);
    // What earlier tests counted stays: each count is read as its growth from here.
    const before = await scrape(vaultUrl);
    const grew = (f: Map<string, ParsedFamily>, family: string, labels: Record<string, string>, name = family) =>
      value(f, family, labels, name) - value(before, family, labels, name);
    const prepared = await call(`${vaultUrl}/contracts/vault/create`, {
      key,
      body: {
        owner: owner.publicKey(),
        didUri: 'did:ledger:testnet:ugzmhvhf6ydrqkj2jnog27upsa',
        sourcePublicKey: owner.publicKey(),
      },
    });
    expect(prepared.status).toBe(200);
    const ghost = Keypair.random().publicKey();
    expect((await call(`${vaultUrl}/contracts/vault/${ghost}`, { key })).status).toBe(404);

    await vi.waitFor(
      async () => {
        const f = await scrape(vaultUrl);
        const service = 'vault-api-testnet';
        expect(
          grew(f, 'http_requests_total', { service, route: '/contracts/vault/create', method: 'POST', status: '200' }),
        ).toBe(1);
        expect(
          grew(f, 'http_requests_total', { service, route: '/contracts/vault/{owner}', method: 'GET', status: '404' }),
        ).toBe(1);
        expect(
          grew(
            f,
            'http_request_duration_seconds',
            { service, route: '/contracts/vault/create', method: 'POST' },
            'http_request_duration_seconds_count',
          ),
        ).toBe(1);
        expect(
          grew(
            f,
            'chain_call_duration_seconds',
            { network: 'testnet', call: 'factory.deploy' },
            'chain_call_duration_seconds_count',
          ),
        ).toBe(1);
        expect(
          grew(
            f,
            'chain_call_duration_seconds',
            { network: 'testnet', call: 'factory.deploy', le: '+Inf' },
            'chain_call_duration_seconds_bucket',
          ),
        ).toBe(1);
        // The vault that does not exist: the read failed, then the existence check answered.
        expect(
          grew(f, 'chain_call_errors_total', { network: 'testnet', call: 'vault.vaultDid' }),
        ).toBeGreaterThanOrEqual(1);
        // Never a concrete address as a label.
        expect(
          [...f.values()].flatMap((x) => x.samples).some((s) => Object.values(s.labels).some((v) => v.includes(ghost))),
        ).toBe(false);
      },
      { timeout: 20_000 },
    );
  });

  it('counts a 429 as a rate-limit rejection of the read bucket', async () => {
    const { key } = await mintKey(await fund());
    const before = value(await scrape(vaultUrl), 'rate_limit_rejections_total', {
      service: 'vault-api-testnet',
      bucket: 'read',
    });
    const statuses = [];
    for (let i = 0; i < 4; i++) statuses.push((await call(`${vaultUrl}/contracts/version`, { key })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
    await vi.waitFor(
      async () => {
        const f = await scrape(vaultUrl);
        expect(value(f, 'rate_limit_rejections_total', { service: 'vault-api-testnet', bucket: 'read' })).toBe(
          before + 1,
        );
        expect(
          value(f, 'http_requests_total', {
            service: 'vault-api-testnet',
            route: '/contracts/version',
            method: 'GET',
            status: '429',
          }),
        ).toBeGreaterThanOrEqual(1);
      },
      { timeout: 20_000 },
    );
  });

  it('counts resolution cache hits and misses, and derives the hit ratio', async () => {
    const did = await registerDid();

    const before = await scrape(resolverUrl);
    const hits = value(before, 'cache_requests_total', { cache: 'did_resolution', result: 'hit' });
    const misses = value(before, 'cache_requests_total', { cache: 'did_resolution', result: 'miss' });
    const path = `/1.0/identifiers/${encodeURIComponent(did)}`;
    expect((await call(resolverUrl + path)).status).toBe(200); // evicted by the registration: a miss
    expect((await call(resolverUrl + path)).status).toBe(200); // cached: a hit

    await vi.waitFor(
      async () => {
        const f = await scrape(resolverUrl);
        expect(value(f, 'cache_requests_total', { cache: 'did_resolution', result: 'hit' })).toBe(hits + 1);
        expect(value(f, 'cache_requests_total', { cache: 'did_resolution', result: 'miss' })).toBe(misses + 1);
        expect(value(f, 'cache_hit_ratio', { cache: 'did_resolution' })).toBeCloseTo(
          (hits + 1) / (hits + misses + 2),
          6,
        );
        expect(
          value(f, 'http_requests_total', {
            service: 'resolver',
            route: '/1.0/identifiers/{did}',
            method: 'GET',
            status: '200',
          }),
        ).toBeGreaterThanOrEqual(2);
        // The registration's chain calls, timed through the same registry.
        for (const c of ['registry.register', 'client.submit']) {
          expect(
            value(
              f,
              'chain_call_duration_seconds',
              { network: 'testnet', call: c },
              'chain_call_duration_seconds_count',
            ),
            c,
          ).toBeGreaterThanOrEqual(1);
        }
      },
      { timeout: 20_000 },
    );
  });

  // A scrape of every port counts each series once: each port shows its own service's series, and the
  // process's families (process_*, nodejs_*) on one port only.
  it('shows no series on two ports, each labelled with its own service', async () => {
    const mainnetUrl = running.vault.mainnet!.url;
    const ports = { 'vault-api-testnet': vaultUrl, 'vault-api-mainnet': mainnetUrl, resolver: resolverUrl };
    const seen = new Map<string, string>();
    const twice: string[] = [];
    const processOn = new Set<string>();
    for (const [service, base] of Object.entries(ports)) {
      const f = await scrape(base);
      for (const family of f.values()) {
        for (const s of family.samples) {
          expect(s.labels['service'], `${s.name} on ${service}`).toBe(service);
          const id = `${s.name}{${Object.entries(s.labels)
            .sort()
            .map(([k, v]) => `${k}=${v}`)
            .join(',')}}`;
          if (seen.has(id)) twice.push(`${id} on ${seen.get(id)} and ${service}`);
          seen.set(id, service);
          if (/^(process|nodejs)_/.test(s.name)) processOn.add(service);
        }
      }
      const build = f.get('credential_vault_build_info')!.samples;
      expect(build.length, service).toBeGreaterThan(0);
      const labels = { node: process.versions.node, protocol: expect.stringMatching(/^\d+$/) };
      for (const b of build) expect(b.labels, service).toMatchObject(labels);
    }
    expect(twice).toEqual([]);
    expect([...processOn]).toEqual(['vault-api-testnet']);
    // Nor a family its service never moves: no credentials on the resolver, no DID writes on a vault API.
    const families = async (base: string) => [...(await scrape(base)).keys()];
    const vaultFamilies = /^credential_vault_(credentials|verifications)_/;
    expect((await families(resolverUrl)).filter((n) => vaultFamilies.test(n))).toEqual([]);
    expect(await families(vaultUrl)).not.toContain('credential_vault_did_writes_total');
    expect(await families(vaultUrl)).toContain('credential_vault_credentials_issued_total');
  });

  it('tells prepare from submit and counts the domain: DID writes, submits, verifications', async () => {
    await prepareVault();
    await registerDid();
    const f = await scrape(vaultUrl);
    const create = { route: '/contracts/vault/create', method: 'POST', status: '200', mode: 'prepare' };
    expect(value(f, 'http_requests_total', create)).toBeGreaterThanOrEqual(1);
    // The registration above: one register submitted.
    const r = await scrape(resolverUrl);
    const route = '/v1/dids/stellar';
    const registered = { network: 'testnet', operation: 'register' };
    expect(value(r, 'credential_vault_did_writes_total', registered)).toBeGreaterThanOrEqual(1);
    expect(value(r, 'credential_vault_submits_total', { route, outcome: 'success' })).toBeGreaterThanOrEqual(1);
    const submitted = { route, method: 'POST', status: '200', mode: 'submit' };
    expect(value(r, 'http_requests_total', submitted)).toBeGreaterThanOrEqual(1);
    // A presented credential without a proof: verified false, reason of the first failure.
    const presented = {
      '@context': ['https://www.w3.org/ns/credentials/v2'],
      type: ['VerifiableCredential'],
      issuer: generateDid({ network: 'testnet' }).did,
      credentialSubject: { id: generateDid({ network: 'testnet' }).did },
    };
    const failed = (f: Map<string, ParsedFamily>, reason: string) =>
      value(f, 'credential_vault_verifications_total', { result: 'failed', reason });
    const answer = await call(`${vaultUrl}/credentials/verify`, { body: { verifiableCredential: presented } });
    expect(answer.status).toBe(400); // VCALM: a credential that does not verify is a 400 with the result
    const reason = answer.json().problemDetails.find((p: { level: string }) => p.level === 'error').reason as string;
    await vi.waitFor(
      async () => {
        expect(failed(await scrape(vaultUrl), reason)).toBe(failed(f, reason) + 1);
      },
      { timeout: 20_000 },
    );
  });

  it('needs no key and spends no rate budget', async () => {
    for (let i = 0; i < 5; i++) expect((await call(`${vaultUrl}/metrics`)).status).toBe(200);
    const r = await call(`${vaultUrl}/metrics`);
    expect(r.headers.get('x-ratelimit-limit')).toBeNull();
    expect(r.headers.get('x-request-id')).toBeTruthy();
  });
});

describe('request log', () => {
  it('writes exactly one line per request, with its id, route, status, latency and key id, never the key or the payload', async () => {
    const owner = await fund();
    const issuer = await fund();
    const { key, record } = await mintKey(issuer);
    const marker = 'PAYLOAD-MARKER-7f3a9c';
    const vcData = JSON.stringify({
      '@context': ['https://www.w3.org/ns/credentials/v2'],
      type: ['VerifiableCredential'],
      credentialSubject: { id: 'did:ledger:testnet:ugzmhvhf6ydrqkj2jnog27upsa', name: marker },
    });
    const r = await call(`${vaultUrl}/contracts/vc/issue`, {
      key,
      headers: { 'x-request-id': 'obs-log-1' },
      body: {
        owner: owner.publicKey(),
        vcId: 'vc-obs-1',
        vcData,
        issuer: issuer.publicKey(),
        issuerDid: 'did:ledger:testnet:ugzmhvhf6ydrqkj2jnog27upsa',
        sourcePublicKey: issuer.publicKey(),
      },
    });
    // The issuer DID is not registered: the body went through validation, auth, limits and a chain read.
    expect([r.status, r.json().error]).toEqual([400, 'issuerDid_not_found']);

    const ghost = Keypair.random().publicKey();
    const salt = 'c0ffee'.repeat(10) + 'beef';
    expect(
      (
        await call(`${vaultUrl}/contracts/vault/${ghost}?userSalt=${salt}`, {
          key,
          headers: { 'x-request-id': 'obs-log-2' },
        })
      ).status,
    ).toBe(404);

    await vi.waitFor(
      () => {
        const mine = requestLines().filter((l) => l.requestId === 'obs-log-1');
        expect(mine).toHaveLength(1);
        expect(mine[0]).toMatchObject({
          msg: 'request',
          level: 'info',
          service: 'vault-api-testnet',
          requestId: 'obs-log-1',
          method: 'POST',
          route: '/contracts/vc/issue',
          status: 400,
          keyId: record.keyId,
          error: 'issuerDid_not_found',
        });
        expect(typeof mine[0]!.ms).toBe('number');
        expect(typeof mine[0]!.time).toBe('string');
        const other = requestLines().filter((l) => l.requestId === 'obs-log-2');
        expect(other).toHaveLength(1);
        expect(other[0]).toMatchObject({
          route: '/contracts/vault/{owner}',
          status: 404,
          keyId: record.keyId,
          error: 'vault_not_found',
        });
      },
      { timeout: 20_000 },
    );
    const everything = lines.join('\n');
    expect(everything).not.toContain(key);
    expect(everything).not.toContain(marker);
    expect(everything).not.toContain(ghost);
    expect(everything).not.toContain(salt);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
  });

  it("logs the resolver's requests once, with the route template and never the DID", async () => {
    const { did } = generateDid({ network: 'testnet' });
    const r = await call(`${resolverUrl}/1.0/identifiers/${encodeURIComponent(did)}`, {
      headers: { 'x-request-id': 'obs-res-1' },
    });
    expect(r.status).toBe(404);
    await vi.waitFor(
      () => {
        const mine = requestLines().filter((l) => l.requestId === 'obs-res-1');
        expect(mine).toHaveLength(1);
        expect(mine[0]).toMatchObject({
          service: 'resolver',
          method: 'GET',
          route: '/1.0/identifiers/{did}',
          status: 404,
        });
      },
      { timeout: 20_000 },
    );
    expect(lines.join('\n')).not.toContain(did.split(':').pop()!);
  });
});

/**
 * `/ready` of a stack just started in this process, asked until no check ran out of its time. Such a stack
 * makes its validators in the background (the `warm` option of createServiceApp, src/platform/app.ts) while the simulator, the proxy
 * and the first stack share the same event loop: on a loaded machine its first answers can report every check
 * down with `timeout`, which says the process was busy, not which dependency is down. Every answer, those
 * included, must pass `each`. Stops asking once the test is over (timed out), so that it does not load later tests.
 */
async function answeredInTime(
  url: string,
  signal: AbortSignal,
  each: (r: Awaited<ReturnType<typeof call>>) => void = () => {},
) {
  // An answer that fails `each` fails the test at once; only a timed-out check is asked again.
  let failed: { error: unknown } | undefined;
  const r = await vi.waitFor(
    async () => {
      const answer = await call(url);
      try {
        each(answer);
      } catch (error) {
        failed = { error };
        return answer;
      }
      const checks = (answer.json().checks ?? []) as { reason?: string }[];
      if (checks.some((c) => c.reason === 'timeout') && !signal.aborted) throw new Error(`${url}: a check timed out`);
      return answer;
    },
    { timeout: 60_000, interval: 250 },
  );
  if (failed) throw failed.error;
  return r;
}

describe('GET /ready', () => {
  it("is 200 with every check up: the RPC and the vault API's stores; the resolver checks its RPCs", async () => {
    // A check can time out on a loaded host (2 s); the answer once all are up is what this test is about.
    const v = await vi.waitFor(
      async () => {
        const r = await call(`${vaultUrl}/ready`);
        expect(r.status, r.text).toBe(200);
        return r;
      },
      { timeout: 20_000 },
    );
    expect(v.json()).toEqual({
      status: 'ready',
      checks: [
        { name: 'rpc:testnet', status: 'up', ms: expect.any(Number) },
        { name: 'store:keys', status: 'up', ms: expect.any(Number) },
        { name: 'store:idempotency', status: 'up', ms: expect.any(Number) },
        { name: 'store:rate_limit', status: 'up', ms: expect.any(Number) },
      ],
    });
    const m = await call(`${running.vault.mainnet!.url}/ready`);
    expect(m.json().checks[0]).toMatchObject({ name: 'rpc:mainnet', status: 'up' });
    const r = await call(`${resolverUrl}/ready`);
    expect(r.status).toBe(200);
    expect(r.json().checks.map((c: { name: string }) => c.name)).toEqual(['rpc:testnet', 'rpc:mainnet']);
  });

  it('is 503 while the RPC is down, and ready again when it is back; liveness stays 200', async () => {
    await rpcOutage(async (base, r) => {
      const body = r.json();
      expect(body.status).toBe('not_ready');
      expect(body.checks.find((c: { name: string }) => c.name === 'rpc:testnet')).toMatchObject({
        status: 'down',
        reason: expect.stringMatching(/^(error|timeout)$/),
        detail: expect.stringMatching(/^(error \S+|no answer within \d+ ms)$/),
      });
      expect((await call(`${base}/health`)).status).toBe(200);
    });
    const logged = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.msg === 'readiness check down');
    expect(logged.some((l) => l.check === 'rpc:testnet')).toBe(true);
  });

  it('names its service on every log line: requests, readiness, warnings', async () => {
    await rpcOutage();
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed.length).toBeGreaterThan(5);
    const services = new Set(['vault-api-testnet', 'vault-api-mainnet', 'resolver', 'credential-vault']);
    expect(
      parsed.filter((l) => !services.has(String(l.service))),
      'lines without a service',
    ).toEqual([]);
    expect(
      parsed.filter((l) => l.msg === 'log'),
      'lines whose message says nothing',
    ).toEqual([]);
    const down = parsed.filter((l) => l.msg === 'readiness check down' && l.service === 'vault-api-testnet');
    expect(down.some((l) => typeof l.detail === 'string')).toBe(true);
  });

  it('is 503 at once while the process drains', async () => {
    draining = true;
    try {
      const r = await call(`${vaultUrl}/ready`);
      expect(r.status).toBe(503);
      const detail = 'the process is shutting down';
      const shutdown = { name: 'shutdown', status: 'down', ms: 0, reason: 'shutting_down', detail };
      expect(r.json()).toEqual({ status: 'not_ready', checks: [shutdown] });
      expect((await call(`${resolverUrl}/ready`)).status).toBe(503);
    } finally {
      draining = false;
    }
  });

  it('is 503 on the vault API when a configured store is down; the resolver stays ready (it degrades)', async ({
    signal,
  }) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cv-observability-redis-'));
    const deadRedis = `redis://127.0.0.1:${await closedPort()}`;
    // A proxy of its own: this stack's readiness probes never reach the proxy the other tests hold or count.
    const ownProxy = await rpcProxy(new URL(sim.url).origin);
    const { config } = loadConfig(
      [
        '--simulator',
        'false',
        '--data-dir',
        dir,
        ...portArgs,
        ...profileArgs(sim, ownProxy.url),
        '--redis-url',
        deadRedis,
        '--log-level',
        'silent',
      ],
      {},
    );
    const other = await startServices(config, { mode: 'start' });
    try {
      const v = await answeredInTime(`${other.vault.testnet!.url}/ready`, signal, (r) => {
        expect(r.status).toBe(503);
        const rateLimit = r.json().checks.find((c: { name: string }) => c.name === 'store:rate_limit');
        // Where it is, in the operator's words, credentials removed.
        expect(rateLimit).toMatchObject({ status: 'down' });
        // Down or silent, the detail says where: the Redis it asked.
        expect(rateLimit.detail).toMatch(/^(the rate_limit store is down|no answer within \d+ ms) /);
        expect(rateLimit.detail).toContain(`(Redis ${deadRedis} (key prefix credential-vault:))`);
      });
      const checks = Object.fromEntries(
        v.json().checks.map((c: { name: string; status: string }) => [c.name, c.status]),
      );
      expect(checks).toEqual({
        'rpc:testnet': 'up',
        'store:keys': 'up',
        'store:idempotency': 'up',
        'store:rate_limit': 'down',
      });
      expect((await answeredInTime(`${other.resolverUrl}/ready`, signal)).status).toBe(200);
    } finally {
      await other.close();
      await ownProxy.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('service names (docs/glossary.md "Service names")', () => {
  it('are one name per service in its log lines, its metric series, its /health and its GET /', async () => {
    const ports = {
      'vault-api-testnet': running.vault.testnet!.url,
      'vault-api-mainnet': running.vault.mainnet!.url,
      resolver: resolverUrl,
    };
    for (const [service, base] of Object.entries(ports)) {
      const before = lines.length;
      const health = await call(`${base}/health`);
      const index = await call(`${base}/`);
      const metrics = await scrape(base);
      // The request lines these two calls wrote.
      const logged = lines
        .slice(before)
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.route === '/health' || l.route === '/');
      const labelled = new Set(
        [...metrics.values()].flatMap((f) => f.samples.map((x) => x.labels['service'])).filter((x) => x !== undefined),
      );
      expect(
        {
          health: health.json().service,
          index: index.json().service,
          logs: [...new Set(logged.map((l) => l.service))],
          metrics: [...labelled],
        },
        base,
      ).toEqual({ health: service, index: service, logs: [service], metrics: [service] });
    }
  });

  it('GET / links its own pages and the other services of the process, at the host the request named', async () => {
    const port = (u: string) => new URL(u).port;
    const index = await call(`${resolverUrl}/`);
    expect(index.status).toBe(200);
    expect(index.json()).toEqual({
      service: 'resolver',
      title: expect.any(String),
      links: { docs: '/docs', openapi: '/openapi.json', health: '/health', ready: '/ready', metrics: '/metrics' },
      services: [
        { service: 'vault-api-testnet', url: `http://127.0.0.1:${port(vaultUrl)}/` },
        { service: 'vault-api-mainnet', url: `http://127.0.0.1:${port(running.vault.mainnet!.url)}/` },
      ],
    });
    const viaName = await rawRequest(Number(port(vaultUrl)), { headers: { host: `vault.example:${port(vaultUrl)}` } });
    expect((JSON.parse(viaName.body) as { services: unknown }).services).toEqual([
      { service: 'vault-api-mainnet', url: `http://vault.example:${port(running.vault.mainnet!.url)}/` },
      { service: 'resolver', url: `http://vault.example:${port(resolverUrl)}/` },
    ]);
    // Every link answers.
    for (const href of Object.values(index.json().links as Record<string, string>)) {
      const r = await call(`${resolverUrl}${href}`);
      expect(r.status, `${href}: ${r.text.slice(0, 500)}`).toBe(200);
    }
    for (const s of index.json().services as { url: string }[]) expect((await call(s.url)).status, s.url).toBe(200);
  });
});

describe('graceful shutdown', () => {
  // A stack of its own: the one the other tests share stays up.
  it('lets a slow request under way finish during close(), refusing new connections', async () => {
    const proxy = await rpcProxy(new URL(sim.url).origin);
    const dir = mkdtempSync(path.join(tmpdir(), 'cv-observability-close-'));
    const lines: string[] = [];
    const running = await startStack(proxy, dir, lines);
    try {
      await closesGracefully(proxy, running, lines);
    } finally {
      await running.close();
      await proxy.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

async function closesGracefully(
  proxy: Awaited<ReturnType<typeof rpcProxy>>,
  running: RunningServices,
  lines: string[],
): Promise<void> {
  const vaultUrl = running.vault.testnet!.url;
  const owner = await fund();
  const { key } = await mintKey(owner, running);
  // The request's simulation is held at the proxy until the checks below are done: it is under way for sure. The
  // stack's other calls (the resolver's catch-up after a start) pass, so close() waits for this request alone.
  let release = () => {};
  const method = 'simulateTransaction';
  proxy.set({ kind: 'hold', method, release: new Promise<void>((r) => (release = r)) });
  const arrived = proxy.arrival(method);
  const pending = call(`${vaultUrl}/contracts/vault/create`, {
    key,
    body: {
      owner: owner.publicKey(),
      didUri: 'did:ledger:testnet:ugzmhvhf6ydrqkj2jnog27upsa',
      sourcePublicKey: owner.publicKey(),
    },
  });
  await arrived; // the request is at the RPC
  let closed = false;
  // close() stops listening before it returns its promise (src/observability/shutdown.ts).
  const closing = running.close().then(() => (closed = true));
  const port = Number(new URL(vaultUrl).port);
  await expect(rawRequest(port, { path: '/health' })).rejects.toThrow(/ECONNREFUSED/);
  expect(closed).toBe(false);
  proxy.set({ kind: 'up' });
  release();
  const answer = await pending;
  expect(answer.status).toBe(200);
  expect(answer.json().xdr).toEqual(expect.any(String));
  await closing;
  const shut = lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.msg === 'http server closed');
  expect(shut.length).toBeGreaterThanOrEqual(3);
  expect(shut.every((l) => l.forced === false)).toBe(true);
}
