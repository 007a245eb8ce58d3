// Test harness of the resolver: the RPC simulator over HTTP (both networks) behind a proxy that counts RPC
// calls, one chain per network, memory cache and limiter on an adjustable clock, the app on port 0, and
// helpers that fund accounts and drive the registry through the resolver with real SDK signatures.
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Keypair, Transaction, TransactionBuilder, authorizeEntry, inspectAuthEntry, xdr } from '@stellar/stellar-sdk';
import { startSimulator, type NetworkInfo, type RunningSimulator } from '../simulator/index.ts';
import { authOf, withAuth } from '../simulator/core/testing.ts';
import { createChain, type Chain } from '../src/chain/index.ts';
import { encodeMultikey, generateDid, type DidRecordInput, type DidService } from '../src/did/index.ts';
import { createMemoryCache, createMemoryRateLimiter } from '../src/stores/memory.ts';
import type { Cache, RateLimiter } from '../src/stores/index.ts';
import { createHttpServer } from '../src/http/server.ts';
import { createResolverApp } from '../src/resolver/app.ts';
import type { ResolverAppDeps, ResolverNetwork } from '../src/resolver/context.ts';
import type { Network } from '../src/domain.ts';

export interface TestClock {
  /** Added to the wall clock: tests jump ahead without waiting. */
  offsetMs: number;
  now(): number;
  advance(ms: number): void;
}

export function createClock(): TestClock {
  const clock: TestClock = {
    offsetMs: 0,
    now: () => Date.now() + clock.offsetMs,
    advance: (ms) => {
      clock.offsetMs += ms;
    },
  };
  return clock;
}

export interface HttpResponse {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body when it is JSON, else undefined. */
  body: any;
}

export interface Server {
  url: string;
  close(): Promise<void>;
}

export interface RegisteredDid {
  did: string;
  didId: string;
  network: Network;
  controller: Keypair;
  authKeys: Keypair[];
  record: DidRecordInput;
  txId: string;
}

export interface RegisterOptions {
  network?: Network;
  controller?: Keypair;
  authKeys?: Keypair[];
  assertionKeys?: Keypair[];
  keyAgreement?: boolean;
  services?: DidService[];
}

export interface Harness {
  sim: RunningSimulator;
  info: Record<Network, NetworkInfo>;
  /** The resolver's base URL. */
  url: string;
  clock: TestClock;
  chains: Record<Network, Chain>;
  deps: ResolverAppDeps;
  /** JSON-RPC calls the resolver made, by `network:method` (e.g. `testnet:getLedgerEntries`). */
  rpcCalls: Map<string, number>;
  rpcCount(filter?: { network?: Network; method?: string }): number;
  request(
    method: string,
    path: string,
    opts?: { body?: unknown; rawBody?: string; headers?: Record<string, string> },
  ): Promise<HttpResponse>;
  get(path: string, headers?: Record<string, string>): Promise<HttpResponse>;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<HttpResponse>;
  fund(publicKey: string, network?: Network): Promise<void>;
  /** A funded fresh account. */
  account(network?: Network): Promise<Keypair>;
  /** Prepare at `path` with `body`, sign with `signers`, submit at `submitPath` (default the same path). */
  prepareSignSubmit(path: string, body: unknown, signers: Keypair[], submitPath?: string): Promise<HttpResponse>;
  registerDid(opts?: RegisterOptions): Promise<RegisteredDid>;
  /** The network's latest ledger sequence, asked of the simulator directly (not counted). */
  latestLedger(network?: Network): Promise<number>;
  /** Another resolver app over the same simulator with other dependencies. */
  startApp(overrides?: Partial<ResolverAppDeps>): Promise<Server>;
  close(): Promise<void>;
}

export interface HarnessOptions {
  limits?: Partial<ResolverAppDeps['limits']>;
  validateResponses?: boolean;
  log?: (entry: Record<string, unknown>) => void;
}

export function multikey(kp: Keypair): string {
  return encodeMultikey('Ed25519', kp.rawPublicKey());
}

export function x25519Multikey(seed = Keypair.random()): string {
  return encodeMultikey('X25519', seed.rawPublicKey());
}

export function sign(xdr: string, passphrase: string, signers: Keypair[]): string {
  const tx = TransactionBuilder.fromXdr(xdr, passphrase);
  for (const kp of signers) tx.sign(kp);
  return tx.toXdr();
}

/**
 * Signs the address-credential authorization entries of a prepared transaction with `authSigners` (valid
 * until ledger `validUntil`), then the envelope with `source`: a fee payer other than the controller.
 */
export async function signWithAuth(
  xdrText: string,
  passphrase: string,
  source: Keypair,
  authSigners: Keypair[],
  validUntil: number,
): Promise<string> {
  const env = xdr.TransactionEnvelope.fromXdr(xdrText, 'base64');
  const signed: xdr.SorobanAuthorizationEntry[] = [];
  for (const entry of authOf(env)) {
    // every address credential type (legacy ADDRESS, and ADDRESS_V2 which simulation returns from Protocol 28)
    const info = inspectAuthEntry(entry);
    const signer = info.address === null ? undefined : authSigners.find((k) => k.publicKey() === info.address);
    signed.push(signer ? await authorizeEntry(entry, signer, validUntil, passphrase) : entry);
  }
  const tx = new Transaction(withAuth(env, signed), passphrase);
  tx.sign(source);
  return tx.toXdr();
}

export async function listen(handler: http.RequestListener): Promise<Server> {
  const server = createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A port nothing listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const s = await listen(() => {});
  const port = Number(new URL(s.url).port);
  await s.close();
  return port;
}

/** Forwards to `target`, counting JSON-RPC methods by `network:method` (network = first path segment). */
async function countingProxy(target: string, calls: Map<string, number>): Promise<Server> {
  return listen(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks);
    const network = (req.url ?? '').split('/')[1] ?? '';
    try {
      const msg = JSON.parse(body.toString('utf8')) as { method?: string } | { method?: string }[];
      for (const m of Array.isArray(msg) ? msg : [msg]) {
        const key = `${network}:${m.method}`;
        calls.set(key, (calls.get(key) ?? 0) + 1);
      }
    } catch {
      // not JSON-RPC: forwarded uncounted
    }
    try {
      const r = await fetch(target + (req.url ?? '/'), {
        method: req.method ?? 'POST',
        headers: { 'content-type': req.headers['content-type'] ?? 'application/json' },
        ...(req.method === 'GET' || req.method === 'HEAD' ? {} : { body }),
      });
      res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json' });
      res.end(Buffer.from(await r.arrayBuffer()));
    } catch {
      res.writeHead(502).end();
    }
  });
}

export function serve(app: http.RequestListener): Promise<Server> {
  return listen(app);
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const sim = await startSimulator({ port: 0 });
  const rpcCalls = new Map<string, number>();
  const proxy = await countingProxy(sim.url, rpcCalls);
  const clock = createClock();
  const info = sim.networks;
  const chains = {} as Record<Network, Chain>;
  const networks: Partial<Record<Network, ResolverNetwork>> = {};
  for (const n of ['testnet', 'mainnet'] as const) {
    const i = info[n];
    const rpcUrl = `${proxy.url}/${n}/rpc`;
    chains[n] = createChain({
      rpcUrl,
      networkPassphrase: i.passphrase,
      network: n,
      simulationAccount: i.admin.publicKey,
      factoryId: i.factoryId,
      registryId: i.registryId,
      feeTokenId: i.feeTokenId,
      allowHttp: true,
      timeouts: { rpcMs: 10_000, submitMs: 20_000, pollIntervalMs: 50 },
    });
    networks[n] = { chain: chains[n], networkPassphrase: i.passphrase, registryId: i.registryId };
  }
  const cache: Cache = createMemoryCache({ now: clock.now });
  const rateLimiter: RateLimiter = createMemoryRateLimiter({ now: clock.now });
  const deps: ResolverAppDeps = {
    networks,
    cache,
    rateLimiter,
    limits: { rateLimit: 100_000, rateWindowMs: 60_000, cacheTtlMs: 30_000, ...opts.limits },
    now: clock.now,
    validateResponses: opts.validateResponses ?? true,
    ...(opts.log ? { log: opts.log } : {}),
  };
  const servers: Server[] = [];
  const startApp = async (overrides: Partial<ResolverAppDeps> = {}): Promise<Server> => {
    const s = await serve(await createResolverApp({ ...deps, ...overrides }));
    servers.push(s);
    return s;
  };
  const main = await startApp();
  const url = main.url;

  const request: Harness['request'] = async (method, path, o = {}) => {
    const headers: Record<string, string> = { ...o.headers };
    let body: string | undefined = o.rawBody;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['content-type'] ??= 'application/json';
    }
    const r = await fetch(url + path, { method, headers, ...(body !== undefined ? { body } : {}) });
    const text = await r.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
    return { status: r.status, headers: r.headers, text, body: parsed };
  };
  const get: Harness['get'] = (path, headers) => request('GET', path, headers ? { headers } : {});
  const post: Harness['post'] = (path, body, headers) =>
    request('POST', path, { body, ...(headers ? { headers } : {}) });

  const fund = async (publicKey: string, network: Network = 'testnet') => {
    const r = await fetch(`${info[network].friendbotUrl}?addr=${publicKey}`);
    if (!r.ok) throw new Error(`friendbot ${network}: ${r.status} ${await r.text()}`);
  };
  const account = async (network: Network = 'testnet') => {
    const kp = Keypair.random();
    await fund(kp.publicKey(), network);
    return kp;
  };

  const prepareSignSubmit: Harness['prepareSignSubmit'] = async (path, body, signers, submitPath = path) => {
    const prep = await post(path, body);
    if (prep.status !== 200) return prep;
    const signed = sign(prep.body.xdr as string, prep.body.networkPassphrase as string, signers);
    return post(submitPath, { signedXdr: signed });
  };

  const registerDid: Harness['registerDid'] = async (o = {}) => {
    const network = o.network ?? 'testnet';
    const controller = o.controller ?? (await account(network));
    const authKeys = o.authKeys ?? [Keypair.random()];
    const { did, didId } = generateDid({ network });
    const record: DidRecordInput = {
      controller: controller.publicKey(),
      authentication: authKeys.map((k) => ({ publicKeyMultibase: multikey(k) })),
      assertionMethod: (o.assertionKeys ?? []).map((k) => ({ publicKeyMultibase: multikey(k) })),
      keyAgreement: o.keyAgreement ? [{ publicKeyMultibase: x25519Multikey() }] : [],
      services: o.services ?? [],
    };
    const r = await prepareSignSubmit('/v1/dids/stellar', { did, sourcePublicKey: controller.publicKey(), record }, [
      controller,
    ]);
    if (r.status !== 200) throw new Error(`register ${did}: ${r.status} ${r.text}`);
    return { did, didId, network, controller, authKeys, record, txId: r.body.txId as string };
  };

  const latestLedger = async (network: Network = 'testnet') => {
    const r = await fetch(info[network].rpcUrl!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getLatestLedger' }),
    });
    return ((await r.json()) as { result: { sequence: number } }).result.sequence;
  };

  return {
    sim,
    info,
    latestLedger,
    url,
    clock,
    chains,
    deps,
    rpcCalls,
    rpcCount: (f = {}) => {
      let total = 0;
      for (const [key, count] of rpcCalls) {
        const [n, m] = key.split(':');
        if ((f.network === undefined || f.network === n) && (f.method === undefined || f.method === m)) total += count;
      }
      return total;
    },
    request,
    get,
    post,
    fund,
    account,
    prepareSignSubmit,
    registerDid,
    startApp,
    async close() {
      for (const s of servers.splice(0)) await s.close();
      await proxy.close();
      await sim.close();
    },
  };
}
