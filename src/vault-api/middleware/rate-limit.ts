// Rate limits (vault-api.yaml "Rate limits"; docs/vault-api.md "Rate limits"): a sliding window per API key
// with separate read and write buckets and per-role limits; the wallet-proof routes (/auth/*), which have no key yet, per client IP; a
// keyless caller where a key is optional, per client IP too. /health and /config are never limited. The
// counting is the platform's (src/platform/rate-limit.ts); this says which bucket and in which words.
//
// Fail closed: when the rate-limit store cannot be reached the request is refused with 503
// `rate_limit_unavailable`, reads and writes alike. Failing open would let one key run unmetered on-chain
// simulations and submissions for as long as the store is down — exactly when the service is weakest.
import type { Request, RequestHandler } from 'express';
import { clientIp, rateLimit as platformRateLimit, windowWords, type RatePlan } from '../../platform/rate-limit.ts';
import { VaultErrors, getAuth, peekAuth, type VaultAppDeps } from '../context.ts';
import { operationOf } from '../../platform/app.ts';
import type { Operation } from '../../platform/operations.ts';

/** Requests per window per client IP on /auth/* (vault-api.yaml: 60 per minute). */
export const AUTH_IP_LIMIT = 60;
/** Default requests per window per client IP of keyless callers where a key is optional (CV_KEYLESS_RATE_LIMIT). */
export const KEYLESS_IP_LIMIT = 30;

function planFor(deps: VaultAppDeps, op: Operation, req: Request): RatePlan | undefined {
  const net = deps.profile.network;
  const per = windowWords(deps.limits.rateWindowMs);
  const client = () => clientIp(req, deps.limits.ipv6ClientPrefix);
  const read = (bucket: string, limit: number): RatePlan => ({
    bucket,
    limit,
    headerPrefix: 'X-RateLimit',
    refuse: () => VaultErrors.rateLimitExceeded(`read rate limit of ${limit} requests per ${per} exceeded`),
  });
  switch (op.bucket) {
    case 'none':
      return undefined;
    case 'ip':
      return read(`vault:${net}:auth-ip:${client()}`, AUTH_IP_LIMIT);
    case 'read':
    case 'write': {
      if (op.keyOptional && !peekAuth(req))
        return read(`vault:${net}:keyless-ip:${client()}`, deps.limits.keylessRateLimit ?? KEYLESS_IP_LIMIT);
      const auth = getAuth(req);
      const limit = deps.limits.rateLimits[auth.role][op.bucket];
      if (op.bucket === 'read') return read(`vault:${net}:read:${auth.keyId}`, limit);
      return {
        bucket: `vault:${net}:write:${auth.keyId}`,
        limit,
        headerPrefix: 'X-WriteRateLimit',
        refuse: () => VaultErrors.writeRateLimitExceeded(`write rate limit of ${limit} requests per ${per} exceeded`),
      };
    }
  }
}

/**
 * Counts the request in its bucket and sets the bucket's headers: X-RateLimit-* on reads (and /auth/*),
 * X-WriteRateLimit-* on writes; over the limit → 429 with Retry-After.
 */
export function rateLimit(deps: VaultAppDeps): RequestHandler {
  return platformRateLimit({
    limiter: deps.stores.rateLimiter,
    windowMs: deps.limits.rateWindowMs,
    now: deps.now,
    whenUnavailable: 'refuse',
    plan: (req) => {
      const op = operationOf(req);
      return op && planFor(deps, op, req);
    },
  });
}
