// Sliding-window rate limits, the one implementation under both services: each service says which bucket a
// request draws from (its `plan`), what a refusal is in its own error codes, and what happens when the
// shared limiter cannot be reached. The vault API refuses (its limits meter on-chain work per key:
// vault-api.yaml "Rate limits"); the resolver admits (it is a public read service and its limit protects
// it, did-resolver.yaml "Headers, limits and caching").
import type { Request, RequestHandler } from 'express';
import type { Clock } from '../domain.ts';
import { clientKey } from './client-key.ts';
import { StoreUnavailableError, type RateLimiter } from '../stores/index.ts';

/**
 * The client a per-IP bucket is keyed by: the socket's peer unless the app trusts a proxy, an IPv6 address as its
 * network of `ipv6Prefix` bits and an IPv4-mapped one as IPv4 (src/platform/client-key.ts).
 */
export const clientIp = (req: Request, ipv6Prefix?: number): string =>
  clientKey(req.ip ?? req.socket.remoteAddress ?? 'unknown', ipv6Prefix);

/** Which bucket a request draws from, and how its answer is worded. */
export interface RatePlan {
  bucket: string;
  limit: number;
  /** `X-RateLimit` or `X-WriteRateLimit`: the prefix of the `-Limit` and `-Remaining` headers. */
  headerPrefix: string;
  /** The error thrown over the limit (`Retry-After` is set already). */
  refuse: (retryAfterSeconds: number) => Error;
}

export interface RateLimitOptions {
  limiter: RateLimiter;
  windowMs: number;
  now: Clock;
  /** The request's bucket, or undefined when it is not limited. */
  plan: (req: Request) => RatePlan | undefined;
  /** The limiter cannot be reached: `refuse` (503 through StoreUnavailableError) or `admit` (with full headers). */
  whenUnavailable: 'refuse' | 'admit';
  /** Event lines (the limiter unavailable, when admitting). */
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
      // Refusing, any failure of the limiter is its unavailability; admitting, only a store fault is (a
      // programming error stays a 500).
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
