// What the vault API's middleware and route modules share: dependencies, the caller's key, errors.
import type { Request } from 'express';
import { ServiceError } from '../platform/failures.ts';
import type { Idleness } from '../platform/idle.ts';
import type { ValidatorPool } from '../platform/validator.ts';
import { VAULT_ERROR_STATUS, vaultErrorsOf, type VaultErrorCode } from '../generated/vault-api-errors.ts';
import type { Chain } from '../chain/index.ts';
import type { Keyring } from '../crypto/envelope.ts';
import type { Stores } from '../stores/index.ts';
import type { Logger, Metrics, ReadinessCheck } from '../observability/index.ts';
import type { RelatedService } from '../services/index-page.ts';
import type { Clock, KeyRole, Network } from '../domain.ts';
import type { FetchJson } from './web-fetch.ts';

/** The public configuration of the network this process serves (GET /config). */
export interface NetworkProfileInfo {
  network: Network;
  rpcUrl: string;
  /** Published by GET /config instead of rpcUrl when set (config CV_TESTNET_PUBLIC_RPC_URL, …). */
  publicRpcUrl?: string;
  networkPassphrase: string;
  factoryId: string;
  vaultWasmHash: string;
  registryId: string;
  feeTokenId?: string;
}

export interface VaultAppDeps {
  profile: NetworkProfileInfo;
  chain: Chain;
  stores: Stores;
  keyring: Keyring;
  limits: {
    rateLimits: Record<KeyRole, { read: number; write: number }>;
    rateWindowMs: number;
    keyTtlDays: number;
    authOrigins: string[];
    /** Prefix length of the IPv6 network one per-IP bucket counts (default 64; CV_IPV6_CLIENT_PREFIX). */
    ipv6ClientPrefix?: number;
    /** Live presentation challenges one client may hold (default CHALLENGES_PER_CLIENT; CV_CHALLENGES_PER_CLIENT). */
    challengesPerClient?: number;
    /** Keyless verifications per window per client IP (default KEYLESS_IP_LIMIT; CV_KEYLESS_RATE_LIMIT). */
    keylessRateLimit?: number;
  };
  now: Clock;
  /**
   * Express `trust proxy`, for the per-IP limit of /auth/*: off by default (the socket's peer is the
   * client). Behind a reverse proxy set the hop count or the proxies' addresses, never `true` on a
   * directly reachable port (config CV_TRUST_PROXY).
   */
  trustProxy?: boolean | number | string | string[];
  /**
   * Legacy path prefixes removed before routing (`/api/config` ≡ `/config`), answered with `Deprecation` and
   * a `Link` to the canonical path (config CV_LEGACY_BASE_PATHS). Default `/api`, `/api/v1`; `[]` disables.
   */
  legacyBasePaths?: readonly string[];
  /** Validate every response against the spec (tests turn this on). */
  validateResponses?: boolean;
  /**
   * Make every route's validator in the background while the process is idle (the started services give all
   * their apps the process's one; tests need not).
   */
  warmValidators?: Idleness;
  /**
   * Path validators shared with the process's other vault API (the started services give both networks one:
   * their descriptions and options are the same); without it, the app makes its own.
   */
  validators?: ValidatorPool;
  /**
   * Event lines (idempotency release failures, 5xx details); request lines are `logger`'s alone.
   * Never the key or a payload.
   */
  log?: (entry: Record<string, unknown>) => void;
  /** Structured JSON logs: one line per request (src/observability `requestLog`). */
  logger?: Logger;
  /** The process's metrics: requests, latency, 429s; `GET /metrics` exposes them. */
  metrics?: Metrics;
  /** What `GET /ready` checks: the network's RPC and the stores this app uses. */
  readinessChecks?: ReadinessCheck[];
  /** True once the process is shutting down: `GET /ready` answers 503 at once. */
  draining?: () => boolean;
  /** The other services of this process, each at its port, for `GET /` (read at each request). */
  relatedServices?: () => readonly RelatedService[];
  /** JSON-LD contexts beside the bundled ones, by URL (config CV_JSONLD_CONTEXTS_DIR, read at start). */
  jsonLdContexts?: ReadonlyMap<string, unknown>;
  /** Reads the web for did:web and Bitstring Status List credentials (config CV_WEB_FETCH); absent: off. */
  fetchJson?: FetchJson;
}

/** The authenticated caller, set by the auth middleware on every keyed route. */
export interface AuthContext {
  keyId: string;
  wallet: string | null;
  role: KeyRole;
  scopes: string[];
}

/** The spec's stable error codes (vault-api.yaml `components.x-error-codes`, generated). */
export type { VaultErrorCode };

/** An error with the spec's stable `error` code; the error middleware renders `{error, message}`. */
export class ApiError extends ServiceError<VaultErrorCode> {
  /** The status is the catalogue's for `code` (vault-api.yaml `components.x-error-codes`). */
  constructor(code: VaultErrorCode, message: string, headers?: Record<string, string>) {
    super(VAULT_ERROR_STATUS[familyOf(code)], code, message, undefined, headers);
  }
}

/** A listed code, or the family it is one of (`vcs[3].vcId_too_long` → `vcs[i].vcId_too_long`). */
const familyOf = (code: string) => code.replace(/^vcs\[\d+\]\./, 'vcs[i].') as keyof typeof VAULT_ERROR_STATUS;

/** Whether `code` is one the spec lists (the `[i]` families by their concrete form, `vcs[3].vcId_too_long`). */
export function isVaultErrorCode(code: string): code is VaultErrorCode {
  return Object.hasOwn(VAULT_ERROR_STATUS, familyOf(code));
}

/** The error of each listed code with the status the spec gives it: `VaultErrors.vaultNotFound('…')`. */
export const VaultErrors = vaultErrorsOf(
  (_status, code, message, headers?: Record<string, string>) => new ApiError(code, message, headers),
);

const AUTH = Symbol('auth');
export function setAuth(req: Request, auth: AuthContext): void {
  (req as unknown as Record<symbol, AuthContext>)[AUTH] = auth;
}
/** The caller's key, or undefined on a keyless request (no exception: used on every request for logs). */
export function peekAuth(req: Request): AuthContext | undefined {
  return (req as unknown as Record<symbol, AuthContext | undefined>)[AUTH];
}
export function getAuth(req: Request): AuthContext {
  const auth = (req as unknown as Record<symbol, AuthContext | undefined>)[AUTH];
  if (!auth) throw VaultErrors.missingApiKey('an API key is required');
  return auth;
}
