// Wires the processes of `credential-vault start | serve | resolver`: the embedded simulator (or a real
// network's RPC), the stores, the encryption keyring, one vault API per network and the resolver, with one
// logger per process and one metrics registry per service (src/observability: each port's /metrics shows
// its own service's series, the process's families on the first service only), readiness checks per app,
// and a graceful close that lets requests under way finish.
import type http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import type express from 'express';
import { LRUCache } from 'lru-cache';
import { requireProfiles, type Config } from './config/index.ts';
import { publicUrl } from './config/redact.ts';
import { createChain, createRegistryChain, protocolRefusal, type Chain, type RegistryChain } from './chain/index.ts';
import { createStores, type ApiKeyRecord, type Stores } from './stores/index.ts';
import { lockLocalFiles, stateFileOf } from './data-dir-lock.ts';
import { createHttpServer } from './http/server.ts';
import { listenFailure, type ListenTarget } from './http/listen-error.ts';
import { keyringFromConfig, loadOrCreateKeyring } from './crypto/keyfile.ts';
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
import { type Clock, type Network, NETWORKS } from './domain.ts';

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

/** A served network's settings; factoryId and vaultWasmHash only where a vault API runs (requireProfiles). */
interface ResolvedProfile extends Omit<NetworkProfileInfo, 'factoryId' | 'vaultWasmHash'> {
  factoryId?: string;
  vaultWasmHash?: string;
  simulationAccount: string;
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

export async function startServices(config: Config, options: StartOptions): Promise<RunningServices> {
  const now = options.now ?? Date.now;
  const served: Network[] =
    options.mode === 'serve' ? [config.network] : options.mode === 'resolver' ? config.resolverNetworks : [...NETWORKS];
  const logger = createLogger({ level: config.logLevel, ...(options.logWrite ? { write: options.logWrite } : {}) });
  // One registry per service; the process's families go with the first one made (one port shows them).
  const processMetrics = createProcessMetrics();
  const metrics: Record<string, Metrics> = {};
  const metricsFor = (service: string, domainOf: ServiceKind): Metrics =>
    (metrics[service] = createMetrics({
      service,
      domainOf,
      ...(Object.keys(metrics).length === 0 ? { processMetrics } : {}),
    }));
  // Every line names its service: an app's lines its own, the process's (stores, start-up) the process's role.
  const roles = { serve: `vault-api-${config.network}`, resolver: 'resolver', start: 'credential-vault' } as const;
  const processService = roles[options.mode];
  const processLogger = withFields(logger, { service: processService });
  const draining = options.draining ? { draining: options.draining } : {};
  // The servers close first and together (each lets its requests finish, which still need the stores and
  // the chain); then the rest, in the reverse order of creation.
  const httpClosers: (() => Promise<void>)[] = [];
  const closers: (() => Promise<void>)[] = [];
  const close = async () => {
    await Promise.all(httpClosers.splice(0).map((c) => c().catch(() => undefined)));
    for (const c of closers.splice(0).reverse()) await c().catch(() => undefined);
  };
  type Served = Omit<ListenTarget, 'host' | 'port'>;
  const serve = (app: express.Express, host: string, port: number, appLogger: Logger, what: Served) =>
    listen(app, host, port, (server) =>
      httpClosers.push(() =>
        gracefulShutdown(server, { timeoutMs: config.shutdownTimeoutMs, logger: appLogger }).then(() => undefined),
      ),
    ).catch((e: unknown) => {
      throw listenFailure(e, { ...what, host, port });
    });
  try {
    // Before anything reads or writes the data directory: a second process over it refuses here.
    const locks = lockLocalFiles(config, options.mode);
    closers.push(async () => locks.release());
    const profiles = {} as Record<Network, ResolvedProfile>;
    let simulatorUrl: string | undefined;
    requireProfiles(config, served, { vaultApi: options.mode !== 'resolver' });
    if (config.simulator) {
      const { startSimulator } = await import('../simulator/index.ts');
      const simulatorLogger = withFields(logger, { service: 'simulator' });
      const sim = await startSimulator({
        port: config.simulatorPort,
        protocol: config.simulatorProtocol,
        ledgerCloseMs: config.ledgerCloseMs,
        host: config.host,
        stateFile: stateFileOf(config),
        // A JSON line that names its service, as every other line of the process (not a bare stderr line).
        onCloseError: (error: unknown) => simulatorLogger.error('ledger close failed', { error }),
      }).catch((e: unknown) => {
        const what = { service: 'the chain simulator', setting: 'CV_SIMULATOR_PORT (--simulator-port)' };
        throw listenFailure(e, { ...what, host: config.host, port: config.simulatorPort });
      });
      closers.push(() => sim.close());
      simulatorUrl = sim.url;
      for (const n of NETWORKS) {
        const info = sim.networks[n];
        profiles[n] = {
          network: n,
          rpcUrl: info.rpcUrl!,
          networkPassphrase: info.passphrase,
          factoryId: info.factoryId,
          vaultWasmHash: info.vaultWasmHash,
          registryId: info.registryId,
          feeTokenId: info.feeTokenId,
          simulationAccount: info.admin.publicKey,
        };
      }
    } else {
      for (const n of served) {
        const p = config.networks[n];
        profiles[n] = {
          network: n,
          rpcUrl: p.rpcUrl!,
          ...(p.publicRpcUrl ? { publicRpcUrl: p.publicRpcUrl } : {}),
          networkPassphrase: p.passphrase!,
          ...(p.factoryId ? { factoryId: p.factoryId } : {}),
          ...(p.vaultWasmHash ? { vaultWasmHash: p.vaultWasmHash } : {}),
          registryId: p.registryId!,
          ...(p.feeTokenId ? { feeTokenId: p.feeTokenId } : {}),
          simulationAccount: p.simulationAccount!,
        };
      }
    }

    // Bare chains: each app times the calls it makes with its own registry (instrumentChain below).
    const chains = {} as Record<Network, RegistryChain>;
    // The vault APIs' chains, with the factory; every network a vault API serves has one (requireProfiles).
    const vaultChains: Partial<Record<Network, Chain>> = {};
    const rpcChecks = {} as Record<Network, ReadinessCheck>;
    for (const n of served) {
      const p = profiles[n];
      const settings = {
        rpcUrl: p.rpcUrl,
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
      // Every typed call the apps make is timed (by the app's registry); readiness probes use the bare
      // client, so that chain_call_duration_seconds describes the work done for requests only.
      let chain: RegistryChain;
      if (p.factoryId !== undefined) {
        const full = createChain({ ...settings, factoryId: p.factoryId });
        vaultChains[n] = full;
        chain = full;
      } else {
        chain = createRegistryChain(settings);
      }
      chains[n] = chain;
      rpcChecks[n] = rpcCheck(`rpc:${n}`, chain.client);
      // Refuse to serve a network whose RPC speaks another passphrase: every signature would be worthless.
      const check = await chains[n].client.verifyNetwork();
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

    const stores = createStores({
      dataDir: config.dataDir,
      ...(config.databaseUrl ? { databaseUrl: config.databaseUrl } : {}),
      ...(config.databaseSchema ? { databaseSchema: config.databaseSchema } : {}),
      ...(config.redisUrl ? { redisUrl: config.redisUrl, redisKeyPrefix: config.redisKeyPrefix } : {}),
      now,
      onError: throttled((suppressed, err) =>
        processLogger.warn('store connection error', { error: err, ...(suppressed ? { suppressed } : {}) }),
      ),
      // Verified keys answered from memory: one LRU per process, shared by its vault APIs (keys are per network).
      ...(config.keyCacheSize > 0
        ? { keyCache: new LRUCache<string, ApiKeyRecord>({ max: config.keyCacheSize }) }
        : {}),
    });
    closers.push(() => stores.close());

    const vault: RunningServices['vault'] = {};
    if (options.mode !== 'resolver') {
      const keyring = config.encryptionKeys
        ? keyringFromConfig(config.encryptionKeys)
        : loadOrCreateKeyring({ dataDir: config.dataDir });
      const { createVaultApp } = await import('./vault-api/app.ts');
      for (const n of served) {
        const { simulationAccount: _sim, factoryId, vaultWasmHash, ...rest } = profiles[n];
        const chain = vaultChains[n];
        // requireProfiles asked for both wherever a vault API runs, and the simulator's profiles have them.
        if (factoryId === undefined || vaultWasmHash === undefined || chain === undefined)
          throw new Error(`${n}: the vault API needs the factory id and the vault template hash`);
        const profile = { ...rest, factoryId, vaultWasmHash };
        const appMetrics = metricsFor(`vault-api-${n}`, 'vault-api');
        const appLogger = withFields(logger, { service: `vault-api-${n}` });
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
          },
          now,
          trustProxy: config.trustProxy,
          legacyBasePaths: config.legacyBasePaths,
          ...(options.validateResponses ? { validateResponses: true } : {}),
          warmValidators: true,
          log: options.log ?? appLogger.sink,
          logger: appLogger,
          metrics: appMetrics,
          // Every request needs its key, and writes need the idempotency records and rate windows: the
          // API cannot serve without any of them.
          readinessChecks: [rpcChecks[n], ...storeChecks(stores, ['keys', 'idempotency', 'rate_limit'])],
          ...draining,
        });
        const port = options.mode === 'serve' ? config.port : n === 'testnet' ? config.testnetPort : config.mainnetPort;
        const setting =
          options.mode === 'serve'
            ? 'CV_PORT (--port)'
            : n === 'testnet'
              ? 'CV_TESTNET_PORT (--testnet-port)'
              : 'CV_MAINNET_PORT (--mainnet-port)';
        const url = await serve(app, config.host, port, appLogger, { service: `the ${n} vault API`, setting });
        vault[n] = { url, profile };
      }
    }

    let resolverUrl: string | undefined;
    if (options.mode !== 'serve') {
      const { createResolverApp } = await import('./resolver/app.ts');
      const resolverMetrics = metricsFor('resolver', 'resolver');
      const resolverLogger = withFields(logger, { service: 'resolver' });
      const app = await createResolverApp({
        networks: Object.fromEntries(
          served.map((n) => {
            const { networkPassphrase, registryId } = profiles[n];
            return [n, { chain: instrumentChain(chains[n], resolverMetrics), networkPassphrase, registryId }];
          }),
        ),
        // Proof-of-control nonces shared across instances when Redis is configured (else per process).
        ...(stores.nonces ? { nonceStore: stores.nonces } : {}),
        cache: instrumentCache(stores.cache, resolverMetrics, 'did_resolution'),
        rateLimiter: stores.rateLimiter,
        limits: {
          rateLimit: config.resolverRateLimit,
          rateWindowMs: config.resolverRateWindowMs,
          cacheTtlMs: config.resolverCacheTtlMs,
          ipv6ClientPrefix: config.ipv6ClientPrefix,
        },
        now,
        trustProxy: config.trustProxy,
        ...(options.validateResponses ? { validateResponses: true } : {}),
        warmValidators: true,
        log: options.log ?? resolverLogger.sink,
        logger: resolverLogger,
        metrics: resolverMetrics,
        // The RPCs only, not the stores: the resolver's per-IP limit fails open and its cache is an
        // optimisation, so with Redis down it still answers every request (from the ledger). Failing
        // readiness then would take every instance (they share the Redis) out of rotation at once and turn
        // a degradation into an outage. The outage still shows: in the log (cache_unavailable,
        // rate_limit_unavailable) and in the /ready of the vault APIs, which cannot work without that store.
        readinessChecks: served.map((n) => rpcChecks[n]),
        ...draining,
      });
      const what = { service: 'the DID resolver', setting: 'CV_RESOLVER_PORT (--resolver-port)' };
      resolverUrl = await serve(app, config.host, config.resolverPort, resolverLogger, what);
    }

    return {
      vault,
      ...(resolverUrl ? { resolverUrl } : {}),
      ...(simulatorUrl ? { simulatorUrl } : {}),
      stores,
      logger,
      metrics,
      describe: () => [
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
        `data directory    ${path.resolve(config.dataDir)}`,
      ],
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}

/**
 * Listen; `onListening` registers the server's graceful close. A request head Node cannot parse (over the
 * header size limit, or not HTTP) is answered in the app's error envelope (src/http/server.ts).
 */
function listen(
  app: express.Express,
  host: string,
  port: number,
  onListening: (server: http.Server) => void,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const server = createHttpServer(app);
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      onListening(server);
      const addr = server.address() as AddressInfo;
      resolve(`http://${host.includes(':') ? `[${host}]` : host}:${addr.port}`);
    });
  });
}

/** At most one call per `everyMs` (a backend retrying every second would flood the log), with the count skipped. */
function throttled(fn: (suppressed: number, err: Error) => void, everyMs = 10_000): (err: Error) => void {
  let last = -Infinity;
  let suppressed = 0;
  return (err) => {
    const t = Date.now();
    if (t - last < everyMs) {
      suppressed++;
      return;
    }
    last = t;
    fn(suppressed, err);
    suppressed = 0;
  };
}
