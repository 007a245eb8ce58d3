// Test harness of the vault API: the app on port 0 over HTTP, with the RPC simulator in-process (or a stub
// chain for tests of the platform layer alone), the embedded stores in a temporary data directory, a fresh
// keyring, an adjustable clock, and helpers to fund accounts, mint keys and sign transactions.
// Response validation is on: every answer is checked against spec/vault-api.yaml.
import { startSimulator, type NetworkInfo, type RunningSimulator } from '../simulator/index.ts';
import { simulatorProfile } from '../src/services/profiles.ts';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import express, { type Router } from 'express';
import { Keypair, StrKey, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { createChain, type Chain } from '../src/chain/index.ts';
import { createKeyring, type Keyring } from '../src/crypto/envelope.ts';
import { didIdToBytes, encodeMultikey, generateDid } from '../src/did/index.ts';
import { LRUCache } from 'lru-cache';
import {
  createStores,
  StoreUnavailableError,
  type ApiKeyRecord,
  type Stores,
  type StoresOptions,
} from '../src/stores/index.ts';
import { createLogger } from '../src/observability/index.ts';
import { createHttpServer } from '../src/http/server.ts';
import { createVaultApp } from '../src/vault-api/app.ts';
import type { NetworkProfileInfo, VaultAppDeps } from '../src/vault-api/context.ts';
import type { KeyRole } from '../src/domain.ts';

type Network = 'testnet' | 'mainnet';

/** A clock that follows the wall clock, shifted by hand (`advance`) to jump through windows and expiries. */
export interface TestClock {
  now(): number;
  advance(ms: number): void;
}

export function testClock(): TestClock {
  let offset = 0;
  return {
    now: () => Date.now() + offset,
    advance: (ms) => {
      offset += ms;
    },
  };
}

/** What the simulator says about one of its networks. */
export type SimNetworkInfo = NetworkInfo;

/** A running RPC simulator. */
export type TestSimulator = RunningSimulator;

/** Starts the RPC simulator on a free loopback port. */
export async function startTestSimulator(): Promise<TestSimulator> {
  return startSimulator({ port: 0 });
}

export interface VaultTestOptions {
  network?: Network;
  /** A simulator shared between environments (not closed by `close`); default: one of its own. */
  simulator?: TestSimulator;
  /** A stub chain instead of the simulator (tests of the platform layer); see `stubChain`. */
  chain?: Chain;
  limits?: Partial<VaultAppDeps['limits']>;
  clock?: TestClock;
  /** Wraps the stores, e.g. to make one of them fail. */
  stores?: (stores: Stores) => Stores;
  /** Where the stores keep things (default: the embedded ones in a fresh data directory), e.g. a shared database. */
  storesOptions?: Partial<Pick<StoresOptions, 'dataDir' | 'databaseUrl' | 'databaseSchema'>>;
  /** Verified keys kept in memory, as CV_KEY_CACHE_SIZE (default 1000; 0 = off). */
  keyCacheSize?: number;
  /** Replaces the contract routes (createVaultApp options). */
  contractRoutes?: Router;
  validateResponses?: boolean;
  /** VaultAppDeps.trustProxy. */
  trustProxy?: VaultAppDeps['trustProxy'];
  /** VaultAppDeps.legacyBasePaths (default: the app's, `/api` and `/api/v1`). */
  legacyBasePaths?: string[];
  /** VaultAppDeps.jsonLdContexts: contexts beside the bundled ones, as CV_JSONLD_CONTEXTS_DIR adds them. */
  jsonLdContexts?: ReadonlyMap<string, unknown>;
  /** VaultAppDeps.fetchJson: the web fetcher (src/vault-api/web-fetch.ts), as CV_WEB_FETCH turns it on. */
  fetchJson?: VaultAppDeps['fetchJson'];
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  method?: string;
  /** Sent as X-SVC-Key unless `keyHeader` says otherwise. */
  key?: string;
  keyHeader?: 'x-svc-key' | 'x-api-key' | 'bearer';
  /** JSON-encoded unless a string. */
  body?: unknown;
  headers?: Record<string, string>;
}

export interface MintedKey {
  key: string;
  record: ApiKeyRecord;
  /** The wallet's keypair, when the key is bound to one the harness made. */
  wallet?: Keypair;
}

export interface VaultTestEnv {
  url: string;
  network: Network;
  passphrase: string;
  profile: NetworkProfileInfo;
  deps: VaultAppDeps;
  stores: Stores;
  chain: Chain;
  clock: TestClock;
  dataDir: string;
  /** Every log line of the app. */
  logs: Record<string, unknown>[];
  simulator?: TestSimulator;
  /** The simulator's description of this network. */
  info?: SimNetworkInfo;
  request<T = any>(path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  /** A funded account (friendbot); needs the simulator. */
  fund(kp?: Keypair): Promise<Keypair>;
  /** A key as the operator CLI makes it; `wallet: null` for a wallet-less admin key. */
  mintKey(options?: {
    wallet?: Keypair | string | null;
    role?: KeyRole;
    scopes?: string[];
    expiresAt?: string | null;
  }): Promise<MintedKey>;
  /** Signs a transaction envelope (base64 XDR) with this network's passphrase, or the one given. */
  sign(envelope: string, signers: Keypair | Keypair[], passphrase?: string): string;
  close(): Promise<void>;
}

/** Contract ids and a template hash that look real (the spec's patterns), for a stub profile. */
const stubId = (n: number) => StrKey.encodeContract(Buffer.alloc(32, n));

const STUB_PASSPHRASES: Record<Network, string> = {
  testnet: 'Credential Vault Stub Testnet ; 2026',
  mainnet: 'Credential Vault Stub Mainnet ; 2026',
};

/** A funded account as getLedgerEntries answers it: master key weight 1, thresholds 0, no other signers. */
function stubAccountEntry(key: xdr.LedgerKeyAccountArm) {
  const accountId = key.account.accountId;
  const val = xdr.LedgerEntryData.account(
    new xdr.AccountEntry({
      accountId,
      balance: xdr.Int64.fromString('100000000000'),
      seqNum: xdr.Int64.fromString('4294967296'),
      numSubEntries: 0,
      inflationDest: null,
      flags: 0,
      homeDomain: '',
      thresholds: Buffer.from([1, 0, 0, 0]),
      signers: [],
      ext: xdr.AccountEntryExt.v0(),
    }),
  );
  return { key, val, lastModifiedLedgerSeq: 1 };
}

/**
 * A chain that is never reached except for account lookups: every account exists (funded, its own key
 * signs), except those in `missingAccounts`. Good for the platform layer; pass `overrides` for anything a
 * test route needs.
 */
export function stubChain(
  network: Network = 'testnet',
  overrides: Partial<Chain> = {},
  missingAccounts: ReadonlySet<string> = new Set(),
): Chain {
  const fail = (what: string) => () => {
    throw new Error(`stub chain: ${what} is not available`);
  };
  const client = {
    network,
    networkPassphrase: STUB_PASSPHRASES[network],
    rpcUrl: 'http://127.0.0.1:9/rpc',
    prepare: fail('prepare'),
    read: fail('read'),
    submit: fail('submit'),
    inspect: fail('inspect'),
    getLedgerEntries: async (keys: xdr.LedgerKey[]) => ({
      entries: keys
        .filter(
          (k): k is xdr.LedgerKeyAccountArm =>
            k.type === 'account' &&
            !missingAccounts.has(StrKey.encodeEd25519PublicKey(k.account.accountId.ed25519.value)),
        )
        .map(stubAccountEntry),
      latestLedger: 1,
    }),
    health: fail('health'),
    verifyNetwork: fail('verifyNetwork'),
    protocolVersion: 28,
  };
  return {
    client,
    vault: {},
    factory: { factoryId: stubId(2) },
    registry: {},
    token: {},
    vaultAddress: () => stubId(4),
    ...overrides,
  } as unknown as Chain;
}

/** Switches that make the stores fail as an unreachable backend does (StoreUnavailableError). */
export interface StoreFaults {
  down: { keys: boolean; idempotency: boolean; rateLimiter: boolean };
  /** Pass as `VaultTestOptions.stores`. */
  wrap(stores: Stores): Stores;
}

export function storeFaults(): StoreFaults {
  const down = { keys: false, idempotency: false, rateLimiter: false };
  const names = { keys: 'keys', idempotency: 'idempotency', rateLimiter: 'rate_limit' } as const;
  function guard<T extends object>(part: keyof typeof down, target: T): T {
    return new Proxy(target, {
      get(t, prop, receiver) {
        const v = Reflect.get(t, prop, receiver) as unknown;
        if (typeof v !== 'function' || prop === 'close') return v;
        return (...args: unknown[]) =>
          down[part]
            ? Promise.reject(new StoreUnavailableError(names[part], 'connect ECONNREFUSED 10.0.0.9:5432'))
            : (v as (...a: unknown[]) => unknown).apply(t, args);
      },
    });
  }
  return {
    down,
    wrap: (stores) => ({
      ...stores,
      keys: guard('keys', stores.keys),
      idempotency: guard('idempotency', stores.idempotency),
      rateLimiter: guard('rateLimiter', stores.rateLimiter),
      health: () => stores.health(),
      close: () => stores.close(),
    }),
  };
}

/** What a stub contract router counts and lets a test control. */
export interface StubContractRoutes {
  router: Router;
  /** Executions per route path. */
  calls: Map<string, number>;
  /** Held while set: write handlers wait for it (to keep a request in flight). */
  hold?: Promise<void>;
  /** Thrown by POST /contracts/vc/revoke when set. */
  failWith?: unknown;
}

/**
 * A few contract operations answering canned bodies that satisfy the spec, for tests of the platform layer:
 * POST /contracts/vault/revoke-vault (a write: prepare answer), POST /contracts/vc/revoke (a write that
 * throws `failWith`), POST /contracts/vault/verify-vc and GET /contracts/vault/vc-count (reads).
 */
export function stubContractRoutes(passphrase = STUB_PASSPHRASES.testnet): StubContractRoutes {
  const router = express.Router();
  const stub: StubContractRoutes = { router, calls: new Map() };
  const count = (p: string) => stub.calls.set(p, (stub.calls.get(p) ?? 0) + 1);
  router.post('/contracts/vault/revoke-vault', async (req, res) => {
    count(req.path);
    await stub.hold;
    const xdr = Buffer.from(`prepared ${stub.calls.get(req.path)}`).toString('base64');
    res.json({ xdr, network: passphrase, networkPassphrase: passphrase });
  });
  router.post('/contracts/vc/revoke', async (req, res) => {
    count(req.path);
    await stub.hold;
    if (stub.failWith !== undefined) throw stub.failWith;
    res.json({ tx_id: 'ab'.repeat(32), txId: 'ab'.repeat(32) });
  });
  router.post('/contracts/vault/verify-vc', (req, res) => {
    count(req.path);
    res.json({ status: 'valid' });
  });
  router.get('/contracts/vault/vc-count', (req, res) => {
    count(req.path);
    res.json({ count: 1 });
  });
  return stub;
}

function signWith(envelope: string, signers: Keypair | Keypair[], passphrase: string): string {
  const tx = TransactionBuilder.fromXdr(envelope, passphrase);
  for (const kp of Array.isArray(signers) ? signers : [signers]) tx.sign(kp);
  return tx.toXdr();
}

export async function startVaultTestEnv(options: VaultTestOptions = {}): Promise<VaultTestEnv> {
  const network = options.network ?? 'testnet';
  const clock = options.clock ?? testClock();
  const closers: (() => Promise<unknown>)[] = [];
  const close = async () => {
    for (const c of closers.reverse()) await c().catch(() => undefined);
  };
  try {
    let chain: Chain;
    let profile: NetworkProfileInfo;
    let simulator: TestSimulator | undefined;
    let info: SimNetworkInfo | undefined;
    if (options.chain) {
      chain = options.chain;
      profile = {
        network,
        rpcUrl: chain.client.rpcUrl,
        networkPassphrase: chain.client.networkPassphrase,
        factoryId: stubId(2),
        vaultWasmHash: 'ab'.repeat(32),
        registryId: stubId(3),
      };
    } else {
      simulator = options.simulator;
      if (!simulator) {
        const own = await startTestSimulator();
        closers.push(() => own.close());
        simulator = own;
      }
      info = simulator.networks[network];
      chain = createChain({
        rpcUrl: info.rpcUrl!,
        networkPassphrase: info.passphrase,
        network,
        simulationAccount: info.admin.publicKey,
        allowHttp: true,
        timeouts: { rpcMs: 5_000, submitMs: 20_000, pollIntervalMs: 100 },
        factoryId: info.factoryId,
        registryId: info.registryId,
        feeTokenId: info.feeTokenId,
      });
      await chain.client.verifyNetwork(); // as services.ts does at start: /config shows the protocol it read
      profile = simulatorProfile(info);
    }

    const dataDir = await mkdtemp(path.join(tmpdir(), 'cv-vault-api-'));
    closers.push(() => rm(dataDir, { recursive: true, force: true }));
    const keyCacheSize = options.keyCacheSize ?? 1000;
    const base = createStores({
      dataDir,
      ...options.storesOptions,
      now: clock.now,
      ...(keyCacheSize > 0 ? { keyCache: new LRUCache<string, ApiKeyRecord>({ max: keyCacheSize }) } : {}),
    });
    closers.push(() => base.close());
    const stores = options.stores ? options.stores(base) : base;
    const keyring: Keyring = createKeyring({ keys: [{ kid: 'test', key: randomBytes(32) }], activeKid: 'test' });
    const logs: Record<string, unknown>[] = [];
    const logger = createLogger({
      level: 'debug',
      write: (line) => logs.push(JSON.parse(line) as Record<string, unknown>),
    });
    const deps: VaultAppDeps = {
      profile,
      chain,
      stores,
      keyring,
      limits: {
        rateLimits: {
          standard: { read: 60, write: 20 },
          early: { read: 300, write: 100 },
          admin: { read: 200, write: 50 },
        },
        rateWindowMs: 60_000,
        keyTtlDays: 180,
        authOrigins: ['*'],
        ...options.limits,
      },
      now: clock.now,
      ...(options.trustProxy !== undefined ? { trustProxy: options.trustProxy } : {}),
      ...(options.legacyBasePaths !== undefined ? { legacyBasePaths: options.legacyBasePaths } : {}),
      ...(options.jsonLdContexts ? { jsonLdContexts: options.jsonLdContexts } : {}),
      ...(options.fetchJson ? { fetchJson: options.fetchJson } : {}),
      validateResponses: options.validateResponses ?? true,
      // The product's logger, writing into `logs`: request lines and event lines as production prints them.
      logger,
      log: logger.sink,
    };
    const app = await createVaultApp(deps, options.contractRoutes ? { contractRoutes: options.contractRoutes } : {});
    const server = createHttpServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        }),
    );
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    const env: VaultTestEnv = {
      url,
      network,
      passphrase: profile.networkPassphrase,
      profile,
      deps,
      stores,
      chain,
      clock,
      dataDir,
      logs,
      ...(simulator ? { simulator } : {}),
      ...(info ? { info } : {}),
      async request(p, o = {}) {
        const headers: Record<string, string> = { ...o.headers };
        if (o.key !== undefined) {
          if (o.keyHeader === 'bearer') headers['authorization'] = `Bearer ${o.key}`;
          else headers[o.keyHeader ?? 'x-svc-key'] = o.key;
        }
        let body: string | undefined;
        if (o.body !== undefined) {
          body = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
          headers['content-type'] ??= 'application/json';
        }
        const res = await fetch(url + p, {
          method: o.method ?? (body === undefined ? 'GET' : 'POST'),
          headers,
          ...(body !== undefined ? { body } : {}),
        });
        const text = await res.text();
        let parsed: unknown = text;
        if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
        return { status: res.status, headers: res.headers, body: parsed as any };
      },
      async fund(kp = Keypair.random()) {
        if (!info?.friendbotUrl) throw new Error('fund() needs the simulator');
        const res = await fetch(`${info.friendbotUrl}?addr=${kp.publicKey()}`);
        if (!res.ok) throw new Error(`friendbot: ${res.status} ${await res.text()}`);
        return kp;
      },
      async mintKey(o = {}) {
        const role = o.role ?? 'standard';
        const wallet = o.wallet === undefined ? Keypair.random() : o.wallet;
        const walletAddress = wallet === null ? null : typeof wallet === 'string' ? wallet : wallet.publicKey();
        const made = await stores.keys.create({
          walletAddress,
          network,
          role,
          scopes: o.scopes ?? [],
          expiresAt: o.expiresAt ?? null,
        });
        return { key: made.key, record: made.record, ...(wallet instanceof Keypair ? { wallet } : {}) };
      },
      sign: (envelope, signers, passphrase = profile.networkPassphrase) => signWith(envelope, signers, passphrase),
      close,
    };
    return env;
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * Registers a fresh did:ledger DID on `env`'s network, controlled by `controller`, whose key is both its
 * authentication and its assertionMethod key: an issuer's DID (docs/did-resolver.md "Record rules"). Needs the
 * simulator. Answers the DID.
 */
export async function registerIssuerDid(env: VaultTestEnv, controller: Keypair): Promise<string> {
  const d = generateDid({ network: env.network });
  const key = { publicKeyMultibase: encodeMultikey('Ed25519', controller.rawPublicKey()) };
  const prepared = await env.chain.registry.register({
    source: controller.publicKey(),
    didId: didIdToBytes(d.didId),
    record: {
      controller: controller.publicKey(),
      authentication: [key],
      assertionMethod: [key],
      keyAgreement: [],
      services: [],
    },
  });
  await env.chain.client.submit(env.sign(prepared.xdr, controller));
  return d.did;
}
