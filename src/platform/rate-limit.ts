// Sliding-window rate limits of both services. When the limiter cannot be reached the vault API refuses (its
// limits meter on-chain work, vault-api.yaml "Rate limits"); the resolver admits (did-resolver.yaml "Headers,
// limits and caching").
import type { Request, RequestHandler } from 'express';
import type { Clock } from '../domain.ts';
import { clientKey } from './client-key.ts';
import { StoreUnavailableError, type RateLimiter } from '../stores/index.ts';

/** The key of a per-IP bucket: the socket's peer unless the app trusts a proxy. */
export const clientIp = (req: Request, ipv6Prefix?: number): string =>
  clientKey(req.ip ?? req.socket.remoteAddress ?? 'unknown', ipv6Prefix);

export interface RatePlan {
  bucket: string;
  limit: number;
  /** `X-RateLimit` or `X-WriteRateLimit`. */
  headerPrefix: string;
  /** `Retry-After` is set already. */
  refuse: (retryAfterSeconds: number) => Error;
}

export interface RateLimitOptions {
  limiter: RateLimiter;
  windowMs: number;
  now: Clock;
  /** Undefined when the request is not limited. */
  plan: (req: Request) => RatePlan | undefined;
  /** `refuse` (503 through StoreUnavailableError) or `admit` (with full headers). */
  whenUnavailable: 'refuse' | 'admit';
  log?: (entry: Record<string, unknown>) => void;
}

/** `60 seconds` → `minute`; other windows in seconds or milliseconds. */
export function windowWords(windowMs: number): string {
  if (windowMs === 60_000) return 'minute';
  return windowMs % 1000 === 0 ? `${windowMs / 1000} seconds` : `${windowMs} ms`;
}

export function rateLimit({ limiter, windowMs, now, plan, whenUnavailable, log }: RateLimitOptions): RequestHandler {
  return async function rateLimited(req, res, next) {
    const p = plan(req);
    if (!p) return next();
    let hit;
    try {
      hit = await limiter.hit({ bucket: p.bucket, limit: p.limit, windowMs, now: now() });
    } catch (err) {
      // Admitting, only a store fault is unavailability: a programming error stays a 500.
      if (whenUnavailable === 'refuse') {
        if (err instanceof StoreUnavailableError) throw err;
        throw new StoreUnavailableError('rate_limit', (err as Error)?.message ?? String(err), { cause: err });
      }
      if (!(err instanceof StoreUnavailableError)) throw err;
      log?.({ event: 'rate_limit_unavailable', message: err.message });
      res.setHeader(`${p.headerPrefix}-Limit`, String(p.limit));
      res.setHeader(`${p.headerPrefix}-Remaining`, String(p.limit));
      return next();
    }
    res.setHeader(`${p.headerPrefix}-Limit`, String(hit.limit));
    res.setHeader(`${p.headerPrefix}-Remaining`, String(Math.max(0, hit.remaining)));
    if (!hit.allowed) {
      const retry = Math.max(1, hit.retryAfterSeconds);
      res.setHeader('Retry-After', String(retry));
      throw p.refuse(retry);
    }
    next();
  };
}
