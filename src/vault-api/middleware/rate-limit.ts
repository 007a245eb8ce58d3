// Rate limits (vault-api.yaml "Rate limits"; docs/vault-api.md "Rate limits"): a sliding window per API key
// with separate read and write buckets and per-role limits; the wallet-proof routes (/auth/*), which have no
// key yet, per client IP. /health and /config are never limited.
import type { Request, RequestHandler } from 'express';
import { ApiError, getAuth, peekAuth, type VaultAppDeps } from '../context.ts';
import { StoreUnavailableError } from '../../stores/index.ts';
import { operationOf, type OperationInfo } from './openapi.ts';

/** Requests per window per client IP on /auth/* (vault-api.yaml: 60 per minute). */
export const AUTH_IP_LIMIT = 60;
/** Requests per window per client IP of keyless callers where a key is optional (verifyCredential: 30 per minute). */
export const KEYLESS_IP_LIMIT = 30;

interface BucketPlan {
  bucket: string;
  limit: number;
  write: boolean;
}

function planFor(deps: VaultAppDeps, op: OperationInfo, req: Request): BucketPlan | undefined {
  const net = deps.profile.network;
  switch (op.bucket) {
    case 'none':
      return undefined;
    case 'ip':
      return { bucket: `vault:${net}:auth-ip:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`, limit: AUTH_IP_LIMIT, write: false };
    case 'read':
    case 'write': {
      if (op.keyOptional && !peekAuth(req)) {
        return { bucket: `vault:${net}:keyless-ip:${req.ip ?? req.socket.remoteAddress ?? 'unknown'}`, limit: KEYLESS_IP_LIMIT, write: false };
      }
      const auth = getAuth(req);
      const limit = deps.limits.rateLimits[auth.role][op.bucket];
      return { bucket: `vault:${net}:${op.bucket}:${auth.keyId}`, limit, write: op.bucket === 'write' };
    }
  }
}

/**
 * Counts the request in its bucket and sets the bucket's headers: X-RateLimit-* on reads (and /auth/*),
 * X-WriteRateLimit-* on writes; over the limit → 429 with Retry-After.
 *
 * Fail closed: when the rate-limit store cannot be reached the request is refused with 503
 * `rate_limit_unavailable`, reads and writes alike. Failing open would let one key run unmetered on-chain
 * simulations and submissions for as long as the store is down — exactly when the service is weakest.
 */
export function rateLimit(deps: VaultAppDeps, index: Map<string, OperationInfo>): RequestHandler {
  return async (req, res, next) => {
    const op = operationOf(index, req);
    const plan = op && planFor(deps, op, req);
    if (!plan) return next();
    let hit;
    try {
      hit = await deps.stores.rateLimiter.hit({ bucket: plan.bucket, limit: plan.limit, windowMs: deps.limits.rateWindowMs, now: deps.now() });
    } catch (err) {
      if (err instanceof StoreUnavailableError) throw err;
      throw new StoreUnavailableError('rate_limit', (err as Error)?.message ?? String(err), { cause: err });
    }
    const prefix = plan.write ? 'X-WriteRateLimit' : 'X-RateLimit';
    res.set(`${prefix}-Limit`, String(hit.limit));
    res.set(`${prefix}-Remaining`, String(Math.max(0, hit.remaining)));
    if (!hit.allowed) {
      res.set('Retry-After', String(Math.max(1, hit.retryAfterSeconds)));
      const seconds = Math.round(deps.limits.rateWindowMs / 1000);
      const per = seconds === 60 ? 'minute' : `${seconds} seconds`;
      throw plan.write
        ? new ApiError(429, 'write_rate_limit_exceeded', `write rate limit of ${plan.limit} requests per ${per} exceeded`)
        : new ApiError(429, 'rate_limit_exceeded', `read rate limit of ${plan.limit} requests per ${per} exceeded`);
    }
    next();
  };
}
