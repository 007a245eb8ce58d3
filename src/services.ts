// Wires the processes of `credential-vault start | serve | resolver`: the embedded simulator (or a real
// network's RPC), the stores, the encryption keyring, one vault API per network and the resolver, with one
// logger per process and one metrics registry per service (src/observability: each port's /metrics shows
// its own service's series, the process's families on the first service only), readiness checks per app,
// and a graceful close that lets requests under way finish.
import path from 'node:path';
import type express from 'express';
import { LRUCache } from 'lru-cache';
import { requireProfiles, type Config } from './config/index.ts';
import { publicUrl, redactUrls } from './config/redact.ts';
import { createChain, createRegistryChain, protocolRefusal, type Chain, type RegistryChain } from './chain/index.ts';
import { createStores, type ApiKeyRecord, type Stores } from './stores/index.ts';
import { lockLocalFiles } from './data-dir-lock.ts';
import { storeLines, storeLocations } from './store-locations.ts';
import { createClosers, listen, throttled, type Closers } from './services/lifecycle.ts';
import { listenFailure, type ListenTarget } from './services/listen-error.ts';
import { keyringFromConfig, loadOrCreateKeyring } from './crypto/keyfile.ts';
import { readContextsFolder } from './did/json-ld-folder.ts';
import { createWebFetch } from './vault-api/web-fetch.ts';
import {
  createLogger,
  withFields,
  createMetrics,
  createProcessMetrics,
  gracefulShutdown,
  instrumentCache,
  instrumentChain,
  rpcCheck,
  storeChecks,
  type Logger,
  type Metrics,
  type ServiceKind,
  type ReadinessCheck,
} from './observability/index.ts';
import type { NetworkProfileInfo } from './vault-api/context.ts';
import { type Clock, type Network, NETWORKS, PROCESS_SERVICE, RESOLVER_SERVICE, vaultServiceName } from './domain.ts';
import type { RelatedService } from './services/index-page.ts';
import { configuredProfiles, startEmbeddedSimulator, type ResolvedProfile } from './services/profiles.ts';
import { idleness, type Idleness } from './platform/idle.ts';
import { validatorPool } from './platform/validator.ts';

export type Mode = 'start' | 'serve' | 'resolver';

export interface RunningServices {
  vault: Partial<Record<Network, { url: string; profile: NetworkProfileInfo }>>;
  resolverUrl?: string;
  simulatorUrl?: string;
  stores: Stores;
  /** The process's logger, and each service's metrics registry by its `service` label. */
  logger: Logger;
  metrics: Record<string, Metrics>;
  describe(): string[];
  /** Closes the HTTP servers gracefully (in parallel), then the stores and the simulator. */
  close(): Promise<void>;
}

export interface StartOptions {
  mode: Mode;
  now?: Clock;
  validateResponses?: boolean;
  /** The apps' event lines (default: the process logger's). Request lines always go to the logger. */
  log?: (entry: Record<string, unknown>) => void;
  /** Where log lines go, one JSON object per call without its newline (default: stdout). */
  logWrite?: (line: string) => void;
  /** True once the process is shutting down (the CLI sets it on SIGTERM/SIGINT): `/ready` answers 503. */
  draining?: () => boolean;
}

/** What the steps of a start share: the settings, the process's logger and registries, and what closes it all. */
interface Wiring {
  config: Config;
  options: StartOptions;
  now: Clock;
  served: Network[];
  logger: Logger;
  metrics: Record<string, Metrics>;
  /** A new registry for `service`; the process's families go with the first one made (one port shows them). */
  metricsFor(service: string, domainOf: ServiceKind): Metrics;
  /** Given to every app: whether the process drains; its idleness, when apps warm validators (platform/idle.ts). */
  shared: { draining?: () => boolean; warmValidators: Idleness };
  /** Closes the servers first and together, then the rest in the reverse order of creation. */
  closers: Closers;
  /** The services of this process listening so far, each at its port: the other services of each `GET /`. */
  listening: RelatedService[];
}

/** The services of this process other than `self`, for its `GET /`. */
const othersThan = (w: Wiring, self: string) => () => w.listening.filter((s) => s.service !== self);

/** The networks a mode serves: `serve` its one, `resolver` the resolver's, `start` all. */
export function servedNetworks(config: Config, mode: Mode): Network[] {
  return mode === 'serve' ? [config.network] : mode === 'resolver' ? config.resolverNetworks : [...NETWORKS];
}

export async function startServices(config: Config, options: StartOptions): Promise<RunningServices> {
  const w = wiring(config, options);
  try {
    // Before anything reads or writes the data directory: a second process over it refuses here.
    const locks = lockLocalFiles(config, options.mode);
    w.closers.push(async () => locks.release());
    requireProfiles(config, w.served, { vaultApi: options.mode !== 'resolver' });
    const { profiles, simulatorUrl } = config.simulator
      ? await startEmbeddedSimulator(config, w.logger, w.closers)
      : { profiles: configuredProfiles(config, w.served), simulatorUrl: undefined };
    const chains = await connectChains(w, profiles);
    const stores = openStores(w);
    w.closers.push(() => stores.close());
    const vault = options.mode !== 'resolver' ? await startVaultApis(w, profiles, chains, stores) : {};
    const resolverUrl = options.mode !== 'serve' ? await startResolver(w, profiles, chains, stores) : undefined;
    return {
      vault,
      ...(resolverUrl ? { resolverUrl } : {}),
      ...(simulatorUrl ? { simulatorUrl } : {}),
      stores,
      logger: w.logger,
      metrics: w.metrics,
      describe: () => describeServices(config, { vault, chains: chains.chains, resolverUrl, simulatorUrl }),
      close: w.closers.close,
    };
  } catch (err) {
    await w.closers.close();
    throw err;
  }
}

function wiring(config: Config, options: StartOptions): Wiring {
  const logger = createLogger({ level: config.logLevel, ...(options.logWrite ? { write: options.logWrite } : {}) });
  const processMetrics = createProcessMetrics();
  const metrics: Record<string, Metrics> = {};
  return {
    config,
    options,
    now: options.now ?? Date.now,
    served: servedNetworks(config, options.mode),
    listening: [],
    logger,
    metrics,
    metricsFor: (service, domainOf) =>
      (metrics[service] = createMetrics({
        service,
        domainOf,
        ...(Object.keys(metrics).length === 0 ? { processMetrics } : {}),
      })),
    shared: { ...(options.draining ? { draining: options.draining } : {}), warmValidators: idleness() },
    closers: createClosers(),
  };
}

/** Listens for `app` and registers its graceful close; a port that cannot be taken names its setting. */
function serve(
  w: Wiring,
  app: express.Express,
  port: number,
  appLogger: Logger,
  what: Omit<ListenTarget, 'host' | 'port'>,
): Promise<string> {
  const host = w.config.host;
  return listen(app, host, port, (server) =>
    w.closers.pushHttp(() =>
      gracefulShutdown(server, { timeoutMs: w.config.shutdownTimeoutMs, logger: appLogger }).then(() => undefined),
    ),
  ).catch((e: unknown) => {
    throw listenFailure(e, { ...what, host, port });
  });
}

interface ServedChains {
  /** Bare chains: each app times the calls it makes with its own registry (instrumentChain). */
  chains: Record<Network, RegistryChain>;
  /** The vault APIs' chains, with the factory; every network a vault API serves has one (requireProfiles). */
  vaultChains: Partial<Record<Network, Chain>>;
  rpcChecks: Record<Network, ReadinessCheck>;
}

/** The chain settings of one network's profile. */
function chainSettings(config: Config, n: Network, p: ResolvedProfile) {
  return {
    rpcUrl: p.rpcUrl,
    // Errors name the RPC as GET /config shows it, and the setting an operator changes.
    rpcWhere: `${p.publicRpcUrl ?? publicUrl(p.rpcUrl)} (setting CV_${n.toUpperCase()}_RPC_URL / --${n}-rpc-url)`,
    networkPassphrase: p.networkPassphrase,
    network: n,
    simulationAccount: p.simulationAccount,
    registryId: p.registryId,
    ...(p.feeTokenId ? { feeTokenId: p.feeTokenId } : {}),
    allowHttp: p.rpcUrl.startsWith('http:'),
    timeouts: {
      rpcMs: config.rpcTimeoutMs,
      submitMs: config.submitTimeoutMs,
      pollIntervalMs: config.pollIntervalMs,
    },
    readCacheMs: config.readCacheMs,
    fastAssemble: config.fastAssemble,
    cacheEntries: config.chainCacheEntries,
    rpcTransport: config.rpcTransport,
  };
}

/** A chain client per served network, each checked to speak the profile's network at a protocol we decode. */
async function connectChains(w: Wiring, profiles: Record<Network, ResolvedProfile>): Promise<ServedChains> {
  const out: ServedChains = {
    chains: {} as Record<Network, RegistryChain>,
    vaultChains: {},
    rpcChecks: {} as Record<Network, ReadinessCheck>,
  };
  for (const n of w.served) {
    const p = profiles[n];
    const settings = chainSettings(w.config, n, p);
    // Every typed call the apps make is timed (by the app's registry); readiness probes use the bare
    // client, so that chain_call_duration_seconds describes the work done for requests only.
    let chain: RegistryChain;
    if (p.factoryId !== undefined) {
      const full = createChain({ ...settings, factoryId: p.factoryId });
      out.vaultChains[n] = full;
      chain = full;
    } else {
      chain = createRegistryChain(settings);
    }
    out.chains[n] = chain;
    out.rpcChecks[n] = rpcCheck(`rpc:${n}`, chain.client);
    await checkNetwork(n, p, chain);
  }
  return out;
}

/** Refuses a network whose RPC speaks another passphrase, or a protocol src/chain does not decode. */
async function checkNetwork(n: Network, p: ResolvedProfile, chain: RegistryChain): Promise<void> {
  // Refuse to serve a network whose RPC speaks another passphrase: every signature would be worthless.
  const setting = `CV_${n.toUpperCase()}_RPC_URL (--${n}-rpc-url)`;
  const check = await chain.client.verifyNetwork().catch((e: unknown) => {
    // The library's words ("Request failed with status code 404") name neither the URL nor what sets it.
    // The chain's words without their own "chain RPC unavailable at <url> (setting …)": this message names both.
    const why = redactUrls(e instanceof Error ? e.message : String(e)).replace(
      /^chain RPC unavailable(?: at .*? \(setting [^)]*\))?: /,
      '',
    );
    throw new Error(
      `refusing to start: the ${n} RPC at ${publicUrl(p.rpcUrl)} did not answer getNetwork (${why}); ` +
        `check that it is a Soroban RPC endpoint, or set ${setting}`,
    );
  });
  if (!check.ok) {
    throw new Error(
      `refusing to start: the ${n} RPC at ${publicUrl(p.rpcUrl)} serves the network "${check.actual}", ` +
        `but the ${n} profile expects "${check.expected}" ` +
        `(set CV_${n.toUpperCase()}_PASSPHRASE or point CV_${n.toUpperCase()}_RPC_URL at the right network)`,
    );
  }
  // An older protocol's simulation and results are not what src/chain decodes and checks (docs/protocol.md).
  const { protocolVersion } = check;
  const refusal = protocolRefusal({ network: n, rpcUrl: publicUrl(p.rpcUrl), protocolVersion });
  if (refusal) throw new Error(refusal);
}

function openStores(w: Wiring): Stores {
  const { config } = w;
  const processLogger = withFields(w.logger, { service: PROCESS_SERVICES[w.options.mode](config) });
  return createStores({
    dataDir: config.dataDir,
    ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
    ...(config.databaseSchema ? { databaseSchema: config.databaseSchema } : {}),
    ...(config.redisUrl ? { redisUrl: config.redisUrl, redisKeyPrefix: config.redisKeyPrefix } : {}),
    now: w.now,
    onError: throttled((suppressed, err) =>
      processLogger.warn('store connection error', { error: err, ...(suppressed ? { suppressed } : {}) }),
    ),
    // Verified keys answered from memory: one LRU per process, shared by its vault APIs (keys are per network).
    ...(config.keyCacheSize > 0 ? { keyCache: new LRUCache<string, ApiKeyRecord>({ max: config.keyCacheSize }) } : {}),
    challengeEntries: config.challengeStoreEntries,
  });
}

/** Every line names its service: an app's lines its own, the process's (stores, start-up) the process's role. */
const PROCESS_SERVICES: Record<Mode, (config: Config) => string> = {
  serve: (config) => vaultServiceName(config.network),
  resolver: () => RESOLVER_SERVICE,
  start: () => PROCESS_SERVICE,
};

/** The port of a network's vault API and the setting that names it. */
function vaultPort(config: Config, mode: Mode, n: Network): { port: number; setting: string } {
  if (mode === 'serve') return { port: config.port, setting: 'CV_PORT (--port)' };
  return n === 'testnet'
    ? { port: config.testnetPort, setting: 'CV_TESTNET_PORT (--testnet-port)' }
    : { port: config.mainnetPort, setting: 'CV_MAINNET_PORT (--mainnet-port)' };
}

/** One vault API per served network, listening. */
async function startVaultApis(
  w: Wiring,
  profiles: Record<Network, ResolvedProfile>,
  chains: ServedChains,
  stores: Stores,
): Promise<RunningServices['vault']> {
  const { config, options } = w;
  const keyring = config.encryptionKeys
    ? keyringFromConfig(config.encryptionKeys)
    : loadOrCreateKeyring({ dataDir: config.dataDir });
  const { createVaultApp } = await import('./vault-api/app.ts');
  const validators = validatorPool();
  // Read once at start: a context folder that cannot be read stops the start, not a verification.
  const jsonLdContexts = config.jsonLdContextsDir ? await readContextsFolder(config.jsonLdContextsDir) : undefined;
  const fetchJson = config.webFetch
    ? createWebFetch({ testHosts: config.webFetchTestHosts, cacheTtlMs: config.resolverCacheTtlMs })
    : undefined;
  const vault: RunningServices['vault'] = {};
  for (const n of w.served) {
    const { simulationAccount: _sim, factoryId, vaultWasmHash, ...rest } = profiles[n];
    const chain = chains.vaultChains[n];
    // requireProfiles asked for both wherever a vault API runs, and the simulator's profiles have them.
    if (factoryId === undefined || vaultWasmHash === undefined || chain === undefined)
      throw new Error(`${n}: the vault API needs the factory id and the vault template hash`);
    const profile = { ...rest, factoryId, vaultWasmHash };
    const service = vaultServiceName(n);
    const appMetrics = w.metricsFor(service, 'vault-api');
    const appLogger = withFields(w.logger, { service });
    const app = await createVaultApp({
      profile,
      chain: instrumentChain(chain, appMetrics),
      stores,
      keyring,
      limits: {
        rateLimits: config.rateLimits,
        rateWindowMs: config.rateWindowMs,
        keyTtlDays: config.keyTtlDays,
        authOrigins: config.authOrigins,
        ipv6ClientPrefix: config.ipv6ClientPrefix,
        challengesPerClient: config.challengesPerClient,
        keylessRateLimit: config.keylessRateLimit,
      },
      now: w.now,
      trustProxy: config.trustProxy,
      legacyBasePaths: config.legacyBasePaths,
      ...(jsonLdContexts ? { jsonLdContexts } : {}),
      ...(fetchJson ? { fetchJson } : {}),
      ...(options.validateResponses ? { validateResponses: true } : {}),
      validators, // One instance per path for both networks (docs/benchmarks.md "Demo start, before and after").
      log: options.log ?? appLogger.sink,
      logger: appLogger,
      metrics: appMetrics,
      // Every request needs its key, and writes the idempotency records and rate windows: none can be missing.
      readinessChecks: [
        chains.rpcChecks[n],
        ...storeChecks(stores, ['keys', 'idempotency', 'rate_limit'], storeLocations(config)),
      ],
      ...w.shared,
      relatedServices: othersThan(w, service),
    });
    const { port, setting } = vaultPort(config, options.mode, n);
    const url = await serve(w, app, port, appLogger, { service: `the ${n} vault API`, setting });
    w.listening.push({ service, port: Number(new URL(url).port || 80) });
    vault[n] = { url, profile };
  }
  return vault;
}

/** The DID resolver over the served networks, listening; its URL. */
async function startResolver(
  w: Wiring,
  profiles: Record<Network, ResolvedProfile>,
  chains: ServedChains,
  stores: Stores,
): Promise<string> {
  const { config, options } = w;
  const { createResolverApp } = await import('./resolver/app.ts');
  const resolverMetrics = w.metricsFor(RESOLVER_SERVICE, 'resolver');
  const resolverLogger = withFields(w.logger, { service: RESOLVER_SERVICE });
  const app = await createResolverApp({
    networks: Object.fromEntries(
      w.served.map((n) => {
        const { networkPassphrase, registryId } = profiles[n];
        return [n, { chain: instrumentChain(chains.chains[n], resolverMetrics), networkPassphrase, registryId }];
      }),
    ),
    // Proof-of-control nonces shared across instances when Redis is configured (else per process).
    ...(stores.nonces ? { nonceStore: stores.nonces } : {}),
    // Registrar jobs and the reverse lookup in the records backend: every instance sees every job.
    registrarJobs: stores.registrarJobs,
    didIndex: stores.didIndex,
    cache: instrumentCache(stores.cache, resolverMetrics, 'did_resolution'),
    rateLimiter: stores.rateLimiter,
    limits: {
      rateLimit: config.resolverRateLimit,
      rateWindowMs: config.resolverRateWindowMs,
      cacheTtlMs: config.resolverCacheTtlMs,
      ipv6ClientPrefix: config.ipv6ClientPrefix,
    },
    now: w.now,
    trustProxy: config.trustProxy,
    ...(options.validateResponses ? { validateResponses: true } : {}),
    log: options.log ?? resolverLogger.sink,
    logger: resolverLogger,
    metrics: resolverMetrics,
    // The RPCs only, not the stores: the resolver's per-IP limit fails open and its cache is an
    // optimisation, so with Redis down it still answers every request (from the ledger). Failing
    // readiness then would take every instance (they share the Redis) out of rotation at once and turn
    // a degradation into an outage. The outage still shows: in the log (cache_unavailable,
    // rate_limit_unavailable) and in the /ready of the vault APIs, which cannot work without that store.
    readinessChecks: w.served.map((n) => chains.rpcChecks[n]),
    ...w.shared,
    relatedServices: othersThan(w, RESOLVER_SERVICE),
  });
  const what = { service: 'the DID resolver', setting: 'CV_RESOLVER_PORT (--resolver-port)' };
  const url = await serve(w, app, config.resolverPort, resolverLogger, what);
  w.listening.push({ service: RESOLVER_SERVICE, port: Number(new URL(url).port || 80) });
  return url;
}

/** The start banner: one line per running part. */
export function describeServices(
  config: Config,
  s: {
    vault: RunningServices['vault'];
    chains: Record<Network, RegistryChain>;
    resolverUrl: string | undefined;
    simulatorUrl: string | undefined;
  },
): string[] {
  const { vault, chains, resolverUrl, simulatorUrl } = s;
  return [
    `runtime           Node ${process.versions.node}`,
    ...(simulatorUrl
      ? [
          `chain simulator   ${simulatorUrl}  Protocol ${config.simulatorProtocol}, ` +
            (config.ledgerCloseMs ? `a ledger every ${config.ledgerCloseMs} ms ` : 'every transaction at once ') +
            '(RPC: /testnet/rpc, /mainnet/rpc; friendbot: /testnet/friendbot?addr=G…)',
        ]
      : []),
    ...Object.entries(vault).map(
      ([n, v]) =>
        `vault API ${n.padEnd(8)}${v.url}  (docs: ${n === 'testnet' ? `${v.url}/docs` : 'off on mainnet'}; chain Protocol ${chains[n as Network].client.protocolVersion})`,
    ),
    ...(resolverUrl ? [`DID resolver      ${resolverUrl}  (docs: ${resolverUrl}/docs)`] : []),
    ...storeLines(config, Object.keys(vault).length > 0),
    `data directory    ${path.resolve(config.dataDir)}`,
  ];
}
