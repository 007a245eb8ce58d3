// The services' metrics on prom-client: HTTP requests and latency by route, status and write mode (prepare
// or submit), chain call latency, rate-limit rejections, cache hits and misses (with a derived hit ratio),
// the domain's counters (credentials issued, revoked and verified, DID writes, submits by outcome), build
// info, and prom-client's default process/Node.js metrics; the express middleware that records requests,
// and the `GET /metrics` handler. One registry per service, every series labelled with that service, so
// that several services in one process (`credential-vault start`) never show one series on two ports.
import { performance } from 'node:perf_hooks';
import type { Request, RequestHandler, Response } from 'express';
import { LRUCache } from 'lru-cache';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { routeTemplates, type RouteOf } from './route.ts';
import type { Clock } from '../domain.ts';

/** Seconds; from 5 ms (a cached resolution) to 10 s (a prepare against a slow RPC). */
export const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;
/** Seconds; up to a minute, because submit waits for the transaction to be final. */
export const CHAIN_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60] as const;

export interface MetricsOptions {
  /** A monotonic clock in milliseconds, for durations (default performance.now). */
  now?: Clock;
  /** The `service` label of every series (`vault-api-testnet`, `resolver`, …). */
  service?: string;
  /**
   * The process's families (`createProcessMetrics`), shown by this registry too. A process shows them on
   * one service's `/metrics` only: they describe the process, and a second port would show them twice.
   */
  processMetrics?: Registry;
  /**
   * Which service's domain families `/metrics` shows: the vault API's (credentials issued, revoked and
   * verified) or the resolver's (DID writes); submits and build info show on both. Default: all of them
   * (an app made alone, tests). The families of the other service still count, unseen.
   */
  domainOf?: ServiceKind;
}

/** The kinds of service with families of their own. */
export type ServiceKind = 'vault-api' | 'resolver';

export type CacheResult = 'hit' | 'miss';

/** Whether a request on a write route prepared or submitted (vault-api.yaml "Write routes"). */
export type WriteMode = 'prepare' | 'submit';

/** `verified` when no check failed, else `failed` (vault-api.yaml `VerifyCredentialResult`). */
export type VerificationResult = 'verified' | 'failed';

export type DidOperation = 'register' | 'update' | 'transfer' | 'deactivate';

/** What the services count in their own words: the domain's events, beside the HTTP traffic. */
export interface DomainMetrics {
  /** A submit's outcome on a write route: `success`, or the error code answered. */
  submitted(route: string, outcome: string): void;
  credentialsIssued(count: number): void;
  credentialsRevoked(count: number): void;
  /** One verification: its result and, when it failed, the first failure's reason (else `none`). */
  verified(result: VerificationResult, reason: string): void;
  didWritten(network: string, operation: DidOperation): void;
}

export interface BuildInfo {
  /** The API version (`info.version` of the service's spec). */
  version: string;
  /** Per network the service serves, the protocol version its RPC reports now (read at each scrape). */
  protocols: () => Readonly<Record<string, number | undefined>>;
}

export interface Metrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<'service' | 'route' | 'method' | 'status' | 'mode'>;
  readonly httpDuration: Histogram<'service' | 'route' | 'method' | 'mode'>;
  readonly chainCallDuration: Histogram<'network' | 'call'>;
  readonly chainCallErrors: Counter<'network' | 'call'>;
  readonly rateLimitRejections: Counter<'service' | 'bucket'>;
  readonly cacheRequests: Counter<'cache' | 'result'>;
  /** Runs `fn`, observing its duration (also when it fails; failures are counted apart). */
  timeChainCall<T>(network: string, call: string, fn: () => Promise<T>): Promise<T>;
  /** The same for a call already under way that began at `started` (a reading of `now`). */
  trackChainCall<T>(network: string, call: string, started: number, pending: PromiseLike<T>): Promise<T>;
  rateLimitRejected(service: string, bucket: string): void;
  cacheRequest(cache: string, result: CacheResult): void;
  readonly domain: DomainMetrics;
  /** Registers `credential_vault_build_info` (once per registry; later calls are ignored). */
  buildInfo(info: BuildInfo): void;
  /** The text exposition format 0.0.4. */
  expose(): Promise<string>;
  /** The clock the metrics time with (ms). */
  readonly now: Clock;
}

/**
 * prom-client's standard process_* and nodejs_* families, the names dashboards for Node services expect.
 * They describe the process: make them once per process (each collection starts its own event-loop delay
 * monitor and GC observer) and give them to one service's `createMetrics`.
 */
export function createProcessMetrics(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

export function createMetrics(options: MetricsOptions = {}): Metrics {
  const now = options.now ?? (() => performance.now());
  // The services' families in a registry per `createMetrics`, never prom-client's global one: tests and
  // `start` make several.
  const own = new Registry();
  const registers = [own];
  // A domain family of the other kind of service counts into no registry: a port never shows a family
  // that its service cannot move (the resolver's credentials issued, always 0).
  const shownOn = (kind: ServiceKind) => (options.domainOf === undefined || options.domainOf === kind ? registers : []);

  const { httpRequests, httpDuration, chainCallDuration, chainCallErrors, rateLimitRejections, cacheRequests } =
    requestFamilies(registers);
  const domain = domainFamilies(registers, shownOn);
  const buildInfo = buildInfoFamily(registers);
  // What `/metrics` shows: these families, then the process's when this service shows them; every series
  // labelled with the service.
  const registry = options.processMetrics ? Registry.merge([own, options.processMetrics]) : own;
  if (options.service !== undefined) registry.setDefaultLabels({ service: options.service });

  async function trackChainCall<T>(
    network: string,
    call: string,
    started: number,
    pending: PromiseLike<T>,
  ): Promise<T> {
    try {
      return await pending;
    } catch (err) {
      chainCallErrors.inc({ network, call });
      throw err;
    } finally {
      chainCallDuration.observe({ network, call }, (now() - started) / 1000);
    }
  }

  return {
    registry,
    httpRequests,
    httpDuration,
    chainCallDuration,
    chainCallErrors,
    rateLimitRejections,
    cacheRequests,
    now,
    timeChainCall<T>(network: string, call: string, fn: () => Promise<T>): Promise<T> {
      const started = now();
      let pending: Promise<T>;
      try {
        pending = fn();
      } catch (err) {
        pending = Promise.reject(err);
      }
      return trackChainCall(network, call, started, pending);
    },
    trackChainCall,
    rateLimitRejected: (service, bucket) => rateLimitRejections.inc({ service, bucket }),
    cacheRequest: (cache, result) => cacheRequests.inc({ cache, result }),
    domain,
    buildInfo,
    expose: () => registry.metrics(),
  };
}

type Registers = Registry[];

/** The families of requests, chain calls, rate limits and caches (registered in this order). */
function requestFamilies(registers: Registers) {
  const httpRequests = new Counter({
    name: 'http_requests_total',
    help:
      'HTTP requests answered, by service, route template, method, status (499: client went away first) and, ' +
      'on write routes, mode (prepare or submit).',
    labelNames: ['service', 'route', 'method', 'status', 'mode'] as const,
    registers,
  });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the request entering the app to the response being finished (mode: prepare or submit).',
    labelNames: ['service', 'route', 'method', 'mode'] as const,
    buckets: [...HTTP_BUCKETS],
    registers,
  });
  const chainCallDuration = new Histogram({
    name: 'chain_call_duration_seconds',
    help: 'Duration of typed chain calls (prepare, read, submit, ...), failures included.',
    labelNames: ['network', 'call'] as const,
    buckets: [...CHAIN_BUCKETS],
    registers,
  });
  const chainCallErrors = new Counter({
    name: 'chain_call_errors_total',
    help: 'Typed chain calls that failed (contract errors, RPC errors, timeouts).',
    labelNames: ['network', 'call'] as const,
    registers,
  });
  const rateLimitRejections = new Counter({
    name: 'rate_limit_rejections_total',
    help: 'Requests refused with 429 by a rate limit, by service and bucket.',
    labelNames: ['service', 'bucket'] as const,
    registers,
  });
  const cacheRequests = new Counter({
    name: 'cache_requests_total',
    help: 'Cache lookups by cache and result (hit or miss).',
    labelNames: ['cache', 'result'] as const,
    registers,
  });
  new Gauge({
    name: 'cache_hit_ratio',
    help: 'hits / (hits + misses) since the process started; for a window use rate() of cache_requests_total.',
    labelNames: ['cache'] as const,
    registers,
    async collect() {
      const totals = new Map<string, { hit: number; all: number }>();
      for (const { labels, value } of (await cacheRequests.get()).values) {
        const cache = String(labels.cache);
        const t = totals.get(cache) ?? { hit: 0, all: 0 };
        t.all += value;
        if (labels.result === 'hit') t.hit += value;
        totals.set(cache, t);
      }
      for (const [cache, t] of totals) this.set({ cache }, t.all === 0 ? 0 : t.hit / t.all);
    },
  });
  return { httpRequests, httpDuration, chainCallDuration, chainCallErrors, rateLimitRejections, cacheRequests };
}

/** The domain families; `shownOn` keeps each off the registry of the service that cannot move it. */
function domainFamilies(registers: Registers, shownOn: (kind: ServiceKind) => Registers): DomainMetrics {
  const submits = new Counter({
    name: 'credential_vault_submits_total',
    help: 'Signed transactions submitted on a write route, by route template and outcome (success, or the error code).',
    labelNames: ['route', 'outcome'] as const,
    registers,
  });
  const issued = new Counter({
    name: 'credential_vault_credentials_issued_total',
    help: 'Credentials issued (a batch counts each of its credentials).',
    registers: shownOn('vault-api'),
  });
  const revoked = new Counter({
    name: 'credential_vault_credentials_revoked_total',
    help: 'Credentials revoked.',
    registers: shownOn('vault-api'),
  });
  const verifications = new Counter({
    name: 'credential_vault_verifications_total',
    help: "POST /credentials/verify answers, by result (verified, failed) and the first failure's reason (or none).",
    labelNames: ['result', 'reason'] as const,
    registers: shownOn('vault-api'),
  });
  const didWrites = new Counter({
    name: 'credential_vault_did_writes_total',
    help: 'DID registry writes that succeeded, by network and operation (register, update, transfer, deactivate).',
    labelNames: ['network', 'operation'] as const,
    registers: shownOn('resolver'),
  });
  return {
    submitted: (route, outcome) => submits.inc({ route, outcome }),
    credentialsIssued: (count) => issued.inc(count),
    credentialsRevoked: (count) => revoked.inc(count),
    verified: (result, reason) => verifications.inc({ result, reason }),
    didWritten: (network, operation) => didWrites.inc({ network, operation }),
  };
}

/** `credential_vault_build_info`, and the function that gives it what to show. */
function buildInfoFamily(registers: Registers): (info: BuildInfo) => void {
  // Registered now (a merged registry takes the families that exist when it is made); filled once the app
  // tells its version and how to read its networks' protocols.
  let build: BuildInfo | undefined;
  const buildInfo = (info: BuildInfo) => {
    build ??= info;
  };
  new Gauge({
    name: 'credential_vault_build_info',
    help: 'Always 1: the API version, the Node.js version, and per network the protocol version its RPC reports now.',
    labelNames: ['version', 'node', 'network', 'protocol'] as const,
    registers,
    collect() {
      // Rebuilt at each scrape: a network upgrade replaces the series instead of adding one.
      this.reset();
      if (!build) return;
      for (const [network, protocol] of Object.entries(build.protocols())) {
        const labels = { version: build.version, node: process.versions.node, network };
        this.set({ ...labels, protocol: protocol === undefined ? 'unknown' : String(protocol) }, 1);
      }
    },
  });
  return buildInfo;
}

export interface HttpMetricsOptions {
  metrics: Metrics;
  /** `vault-api`, `resolver`, …. */
  service: string;
  /** The route template (e.g. the OpenAPI route matched); default: Express's matched route. */
  routeOf?: RouteOf;
  /**
   * The bucket a 429 was refused from, or undefined when a 429 is not a rate-limit rejection. Default:
   * `write` when the answer carries `X-WriteRateLimit-Limit`, else `read` (the resolver's per-IP limit
   * should pass `() => 'ip'`).
   */
  rateLimitBucketOf?: (req: Request, res: Response) => string | undefined;
  /** Whether a request prepared or submitted, on a write route; undefined elsewhere (no `mode` label). */
  modeOf?: (req: Request) => WriteMode | undefined;
}

export const defaultRateLimitBucket = (_req: Request, res: Response): string =>
  res.hasHeader('X-WriteRateLimit-Limit') ? 'write' : 'read';

/**
 * Records every request when its response is done: `http_requests_total`, `http_request_duration_seconds`,
 * and `rate_limit_rejections_total` for a 429. A request whose client went away before the answer was
 * finished is counted with status 499. Mount it first, so that its time covers the whole pipeline.
 */
export function httpMetrics(options: HttpMetricsOptions): RequestHandler {
  const { metrics, service, routeOf, modeOf } = options;
  const bucketOf = options.rateLimitBucketOf ?? defaultRateLimitBucket;
  const templateOf = routeTemplates(routeOf);
  const labelsOf = seriesLabels(service);
  return (req, res, next) => {
    const started = metrics.now();
    res.once('close', () => {
      const status = res.writableFinished ? res.statusCode : 499;
      const series = labelsOf(templateOf(req), req.method, modeOf?.(req), status);
      metrics.httpRequests.inc(series.request);
      metrics.httpDuration.observe(series.duration, (metrics.now() - started) / 1000);
      if (res.statusCode === 429) {
        const bucket = bucketOf(req, res);
        if (bucket) metrics.rateLimitRejected(service, bucket);
      }
    });
    next();
  };
}

/** The label sets of one series of `http_requests_total` and of `http_request_duration_seconds`. */
interface SeriesLabels {
  request: Record<'service' | 'route' | 'method' | 'status', string> & { mode?: string };
  duration: Record<'service' | 'route' | 'method', string> & { mode?: string };
}

/** Label sets one middleware remembers, the least recently used going first (routes × methods × statuses are few). */
const MAX_SERIES = 10_000;

/**
 * The label objects of a request's series, made once per route, method, mode and status and then reused: every
 * request is counted, and making and spreading two objects per request was most of what counting cost here.
 */
function seriesLabels(
  service: string,
): (route: string, method: string, mode: WriteMode | undefined, status: number) => SeriesLabels {
  const known = new LRUCache<string, SeriesLabels>({ max: MAX_SERIES });
  return (route, method, mode, status) => {
    const key = `${route} ${method} ${mode ?? ''} ${status}`;
    let series = known.get(key);
    if (series === undefined) {
      const duration = mode ? { service, route, method, mode } : { service, route, method };
      series = { request: { ...duration, status: String(status) }, duration };
      known.set(key, series);
    }
    return series;
  };
}

/** `GET /metrics`: the exposition, `text/plain; version=0.0.4`, never cached. */
export function metricsHandler(metrics: Metrics): RequestHandler {
  return (_req, res, next) => {
    metrics
      .expose()
      .then(
        (text) =>
          void res
            .status(200)
            .set('Content-Type', metrics.registry.contentType)
            .set('Cache-Control', 'no-store')
            .send(text),
        next,
      );
  };
}

/** The groups of typed calls in a `Chain` (src/chain) whose async functions are timed. */
const CHAIN_GROUPS = ['client', 'vault', 'factory', 'registry', 'token'] as const;

/**
 * The same chain with every async function of its groups timed as `chain_call_duration_seconds{network,
 * call: "<group>.<function>"}` (e.g. `vault.issue`, `client.submit`). Calls the chain makes internally
 * are not counted twice: only calls through the returned object are timed.
 */
export function instrumentChain<C extends { client: { network: string } }>(chain: C, metrics: Metrics): C {
  const network = chain.client.network;
  const out: Record<string, unknown> = { ...chain };
  for (const group of CHAIN_GROUPS) {
    const target = (chain as Record<string, unknown>)[group];
    if (typeof target === 'object' && target !== null) out[group] = timed(target, network, group, metrics);
  }
  return out as C;
}

function timed<T extends object>(target: T, network: string, group: string, metrics: Metrics): T {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(target, {
    get(t, prop) {
      const value = Reflect.get(t, prop, t) as unknown;
      if (typeof value !== 'function' || typeof prop !== 'string') return value;
      if (!wrapped.has(prop)) {
        const fn = value as (...args: unknown[]) => unknown;
        const call = `${group}.${prop}`;
        wrapped.set(prop, (...args: unknown[]) => {
          const started = metrics.now();
          const result = fn.apply(t, args);
          return isPromiseLike(result) ? metrics.trackChainCall(network, call, started, result) : result;
        });
      }
      return wrapped.get(prop);
    },
  });
}

const isPromiseLike = (v: unknown): v is PromiseLike<unknown> =>
  typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';

/**
 * The same cache with each `get` counted in `cache_requests_total{cache: name}`: a hit when `isHit(value)`
 * (default: not undefined), a failing lookup as a miss. Works with the stores' `Cache` and with any object
 * whose `get` answers a promise; other methods pass through unchanged.
 */
export function instrumentCache<C extends { get(...args: never[]): Promise<unknown> }>(
  cache: C,
  metrics: Metrics,
  name: string,
  isHit: (value: Awaited<ReturnType<C['get']>>) => boolean = (v) => v !== undefined,
): C {
  return new Proxy(cache, {
    get(t, prop) {
      const value = Reflect.get(t, prop, t) as unknown;
      if (typeof value !== 'function') return value;
      if (prop !== 'get') return (value as (...a: unknown[]) => unknown).bind(t);
      return async (...args: unknown[]) => {
        try {
          const v = (await (value as (...a: unknown[]) => Promise<unknown>).apply(t, args)) as Awaited<
            ReturnType<C['get']>
          >;
          metrics.cacheRequest(name, isHit(v) ? 'hit' : 'miss');
          return v;
        } catch (err) {
          metrics.cacheRequest(name, 'miss');
          throw err;
        }
      };
    },
  });
}
