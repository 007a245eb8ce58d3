// Per-IP rate limit (spec "Headers, limits and caching"): every route counts; every response carries
// X-RateLimit-Limit and X-RateLimit-Remaining, a 429 also Retry-After and `{code: rate_limited, message}`.
// The client IP is `req.ip`: the socket's peer unless the app is told to trust a proxy (`trustProxy`).
// When the shared limiter (Redis) is unreachable the request is admitted: the resolver is a public read
// service and the limit protects it, it is not an authorization.
import type { NextFunction, Request, Response } from 'express';
import { StoreUnavailableError, type RateLimiter } from '../../stores/index.ts';
import { sendError } from './errors.ts';
import type { Clock } from '../../domain.ts';

export interface RateLimitOptions {
  limiter: RateLimiter;
  limit: number;
  windowMs: number;
  now: Clock;
  log?: (entry: Record<string, unknown>) => void;
}

export function rateLimit({ limiter, limit, windowMs, now, log }: RateLimitOptions) {
  const limitHeader = String(limit);
  return async function rateLimitMiddleware(req: Request, res: Response, next: NextFunction): Promise<void> {
    const ip = req.ip ?? req.socket.remoteAddress ?? 'unknown';
    let hit;
    try {
      hit = await limiter.hit({ bucket: `resolver:ip:${ip}`, limit, windowMs, now: now() });
    } catch (err) {
      if (!(err instanceof StoreUnavailableError)) throw err;
      log?.({ event: 'rate_limit_unavailable', message: err.message });
      res.setHeader('X-RateLimit-Limit', limitHeader);
      res.setHeader('X-RateLimit-Remaining', limitHeader);
      return next();
    }
    res.setHeader('X-RateLimit-Limit', limitHeader);
    res.setHeader('X-RateLimit-Remaining', String(hit.remaining));
    if (!hit.allowed) {
      res.setHeader('Retry-After', String(hit.retryAfterSeconds));
      const seconds = windowMs % 1000 === 0 ? `${windowMs / 1000} s` : `${windowMs} ms`;
      sendError(res, 429, 'rate_limited', `Rate limit of ${limit} requests per ${seconds} exceeded; retry in ${hit.retryAfterSeconds} s`);
      return;
    }
    next();
  };
}
