// Per-IP rate limit (spec "Headers, limits and caching"): every route counts, every method but OPTIONS; every
// counted response carries X-RateLimit-Limit and X-RateLimit-Remaining, a 429 also Retry-After and
// `{code: rate_limited, message}`. An OPTIONS (204 with Allow, read from the description) reads nothing, no body,
// chain or store, and costs less than the 429 counting it would answer: it does not spend the client's budget, as
// the vault API's OPTIONS /auth/* do not (src/platform/operations.ts `bucketOf`).
// The client IP is `req.ip`: the socket's peer unless the app is told to trust a proxy (`trustProxy`).
// When the shared limiter (Redis) is unreachable the request is admitted: the resolver is a public read
// service and the limit protects it, it is not an authorization. The counting is the platform's
// (src/platform/rate-limit.ts).
import type { RequestHandler } from 'express';
import { clientIp, rateLimit as platformRateLimit } from '../../platform/rate-limit.ts';
import type { RateLimiter } from '../../stores/index.ts';
import type { Clock } from '../../domain.ts';
import { ResolverErrors } from '../context.ts';

export interface RateLimitOptions {
  limiter: RateLimiter;
  limit: number;
  windowMs: number;
  now: Clock;
  log?: (entry: Record<string, unknown>) => void;
  /** Prefix length of the IPv6 network one bucket counts (src/platform/client-key.ts). */
  ipv6Prefix?: number;
}

export function rateLimit({ limiter, limit, windowMs, now, log, ipv6Prefix }: RateLimitOptions): RequestHandler {
  const seconds = windowMs % 1000 === 0 ? `${windowMs / 1000} s` : `${windowMs} ms`;
  return platformRateLimit({
    limiter,
    windowMs,
    now,
    whenUnavailable: 'admit',
    ...(log ? { log } : {}),
    plan: (req) =>
      req.method === 'OPTIONS'
        ? undefined
        : {
            bucket: `resolver:ip:${clientIp(req, ipv6Prefix)}`,
            limit,
            headerPrefix: 'X-RateLimit',
            refuse: (retry) =>
              ResolverErrors.rateLimited(
                `Rate limit of ${limit} requests per ${seconds} exceeded; retry in ${retry} s`,
              ),
          },
  });
}
