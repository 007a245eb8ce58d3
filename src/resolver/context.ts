// What the resolver's app, routes and tests share: its dependencies and its error type.
import { ServiceError } from '../platform/failures.ts';
import type { Idleness } from '../platform/idle.ts';
import type { RegistryChain } from '../chain/index.ts';
import { RESOLVER_ERROR_STATUS, resolverErrorsOf, type ResolverErrorCode } from '../generated/did-resolver-errors.ts';
import type { Cache, DidIndexStore, RateLimiter, RegistrarJobStore } from '../stores/index.ts';
import type { NonceStore } from '../did/index.ts';
import type { Logger, Metrics, ReadinessCheck } from '../observability/index.ts';
import type { RelatedService } from '../services/index-page.ts';
import type { Clock, Network } from '../domain.ts';
import type { RecordViolation } from '../did/index.ts';
import { clip, RESOLVER_FAILURES_LISTED } from '../openapi/error-bounds.ts';

/** Bodies beyond this are refused with 413 `payload_too_large`; the largest valid body is a 128 KiB signedXdr. */
export const BODY_LIMIT_BYTES = 256 * 1024;

/** One ledger the resolver routes to, chosen by the network inside the DID. */
export interface ResolverNetwork {
  chain: RegistryChain;
  networkPassphrase: string;
  registryId: string;
  /**
   * Close time of a ledger, for the created/updated metadata. Default: read from the registry's events
   * with the chain's client (src/chain/ledger-time.ts).
   */
  ledgerCloseTime?: (sequence: number) => Promise<Date | undefined>;
}

export interface ResolverAppDeps {
  networks: Partial<Record<Network, ResolverNetwork>>;
  cache: Cache;
  rateLimiter: RateLimiter;
  limits: {
    /** Requests per IP per window (default 120 / 60 s). */
    rateLimit: number;
    rateWindowMs: number;
    /** Resolution cache lifetime (default 30 s). */
    cacheTtlMs: number;
    /** Prefix length of the IPv6 network one per-IP bucket counts (default 64; CV_IPV6_CLIENT_PREFIX). */
    ipv6ClientPrefix?: number;
  };
  now: Clock;
  validateResponses?: boolean;
  /**
   * Make every route's validator in the background while the process is idle (the started services give all
   * their apps the process's one; tests need not).
   */
  warmValidators?: Idleness;
  /**
   * Issued proof-of-control nonces. Default: in memory, per process — several instances behind one
   * address need a shared store, or a challenge issued by one is unknown to the others.
   */
  nonceStore?: NonceStore;
  /**
   * The Universal Registrar's jobs. Default: in memory, per process — several instances behind one address
   * need the shared store, or a job started on one is unknown to the others.
   */
  registrarJobs?: RegistrarJobStore;
  /** The reverse lookup of DIDs by controller. Default: in memory, per process (rebuilt from events at start). */
  didIndex?: DidIndexStore;
  /**
   * Express `trust proxy` for the per-IP limit: off by default (the socket's peer is the client). Behind a
   * reverse proxy set the hop count or the proxy's addresses, never `true` on a directly reachable port.
   */
  trustProxy?: boolean | number | string | string[];
  /**
   * Event lines (cache or limiter unavailable, faults). Request lines are `logger`'s alone.
   */
  log?: (entry: Record<string, unknown>) => void;
  /** Structured JSON logs: one line per request (src/observability `requestLog`). */
  logger?: Logger;
  /** The process's metrics: requests, latency, 429s; `GET /metrics` exposes them. */
  metrics?: Metrics;
  /** What `GET /ready` checks: each served network's RPC (and the stores, when chosen). */
  readinessChecks?: ReadinessCheck[];
  /** True once the process is shutting down: `GET /ready` answers 503 at once. */
  draining?: () => boolean;
  /** The other services of this process, each at its port, for `GET /` (read at each request). */
  relatedServices?: () => readonly RelatedService[];
}

/** The spec's stable error codes (did-resolver.yaml `components.x-error-codes`, generated). */
export type { ResolverErrorCode };

/** An error with the spec's stable `code`; rendered as `{code, message, details?}`. */
export class ResolverError extends ServiceError<ResolverErrorCode> {
  /** The status is the catalogue's for `code` (did-resolver.yaml `components.x-error-codes`). */
  constructor(
    code: ResolverErrorCode,
    message: string,
    details?: Record<string, unknown>,
    headers?: Record<string, string>,
  ) {
    super(RESOLVER_ERROR_STATUS[code], code, message, details, headers);
  }
}

/**
 * The error of each listed code with the status the spec gives it, and optional `details` and headers:
 * `ResolverErrors.didNotFound('…')`, `ResolverErrors.didInvalid('…', { did })`.
 */
export const ResolverErrors = resolverErrorsOf(
  (_status, code, message, details?: Record<string, unknown>, headers?: Record<string, string>) =>
    new ResolverError(code, message, details, headers),
);

/**
 * A record-rule failure: the first violation's code, the first violations in details and how many there
 * were (spec "Record rules", Error.details).
 */
export function recordError(violations: RecordViolation[]): ResolverError {
  const first = violations[0]!;
  const listed = violations
    .slice(0, RESOLVER_FAILURES_LISTED)
    .map((v) => ({ code: v.code, field: clip(v.field, 200), message: clip(v.message, 400) }));
  return new ResolverError(first.code, clip(first.message, 400), {
    field: clip(first.field, 200),
    violations: listed,
    count: violations.length,
  });
}

export function didInvalid(did: string, message: string): ResolverError {
  return ResolverErrors.didInvalid(clip(message, 400), { did: clip(did) });
}

/** `invalid_request` with the first failures and how many there were (spec Error.details). */
export function invalidRequest(message: string, errors: { path: string; message: string }[]): ResolverError {
  const listed = errors
    .slice(0, RESOLVER_FAILURES_LISTED)
    .map((e) => ({ path: clip(e.path, 200), message: clip(e.message, 400) }));
  return ResolverErrors.invalidRequest(clip(message, 400), {
    errors: listed,
    count: Math.max(1, errors.length),
  });
}
