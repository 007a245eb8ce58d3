// CORS for the wallet-proof key routes only (vault-api.yaml "Browsers (CORS)"): a web application on an
// allowed origin (`deps.limits.authOrigins`, `*` = any) calls GET /auth/challenge and POST /auth/keys from
// a browser. Every other route answers no CORS headers: keyed routes are for servers, and a browser page
// must never hold an API key.
import type { Request, RequestHandler } from 'express';
import { VaultErrors, type VaultAppDeps } from '../context.ts';

/** The routes a browser may call cross-origin, with the method each serves. */
export const CORS_ROUTES: Readonly<Record<string, 'GET' | 'POST'>> = { '/auth/challenge': 'GET', '/auth/keys': 'POST' };
/** How long a browser may cache a preflight answer (vault-api.yaml components.headers.Access-Control-Max-Age). */
export const PREFLIGHT_MAX_AGE_S = 600;
/** Request headers a page may send besides the CORS-safelisted ones. */
export const CORS_ALLOW_HEADERS = 'Content-Type, X-Request-ID';
/** Response headers a page may read besides the CORS-safelisted ones. */
export const CORS_EXPOSE_HEADERS = 'X-Request-ID, X-RateLimit-Limit, X-RateLimit-Remaining, Retry-After';

const norm = (o: string) => o.trim().replace(/\/+$/, '').toLowerCase();
const corsMethodOf = (path: string) => (Object.hasOwn(CORS_ROUTES, path) ? CORS_ROUTES[path] : undefined);

/**
 * The `Access-Control-Allow-Origin` value for `origin`: `*` when every origin is allowed (the routes use no
 * cookies or other credentials, so `*` is valid), the origin itself when it is listed, else undefined.
 */
export function allowedOriginValue(allowList: readonly string[], origin: string): string | undefined {
  const allowed = allowList.map(norm);
  if (allowed.includes('*')) return '*';
  return allowed.includes(norm(origin)) ? origin : undefined;
}

/** `Origin` must be allowed; requests without one (curl, servers) are allowed. */
export function checkOrigin(deps: Pick<VaultAppDeps, 'limits'>, req: Request): void {
  const origin = req.get('origin');
  if (origin === undefined || allowedOriginValue(deps.limits.authOrigins, origin) !== undefined) return;
  throw VaultErrors.originNotAllowed('this origin may not request API keys');
}

/**
 * On the two routes, every answer (errors included, so a page can read `challenge_invalid` or a 429's
 * `Retry-After`) varies by `Origin` and, for an allowed one, carries the CORS headers. Mounted before the
 * body parser, so even a body that is not JSON is answered readably.
 */
export function corsHeaders(deps: Pick<VaultAppDeps, 'limits'>): RequestHandler {
  return (req, res, next) => {
    if (corsMethodOf(req.path) === undefined) return next();
    res.vary('Origin');
    const origin = req.get('origin');
    const value = origin === undefined ? undefined : allowedOriginValue(deps.limits.authOrigins, origin);
    if (value !== undefined) {
      res.set('Access-Control-Allow-Origin', value);
      res.set('Access-Control-Expose-Headers', CORS_EXPOSE_HEADERS);
    }
    next();
  };
}

/**
 * Answers the preflight (OPTIONS) of the two routes from the allow-list alone: 204 with the CORS headers,
 * or 403 `origin_not_allowed` without them, so the browser refuses the actual request. Mounted after route
 * matching (the description declares these operations; response validation covers the answer) and before
 * keys, rate limits and request validation: a preflight has no key, costs nothing worth metering (and a 429
 * would reach the page as an opaque network error), and carries the actual request's query string, which is
 * not its own to validate.
 */
export function corsPreflight(deps: Pick<VaultAppDeps, 'limits'>): RequestHandler {
  return (req, res, next) => {
    // The method first: every keyed request passes here, and only an OPTIONS needs its path looked at.
    if (req.method !== 'OPTIONS') return next();
    const method = corsMethodOf(req.path);
    if (method === undefined) return next();
    checkOrigin(deps, req);
    res.set('Access-Control-Allow-Methods', `${method}, OPTIONS`);
    res.set('Access-Control-Allow-Headers', CORS_ALLOW_HEADERS);
    res.set('Access-Control-Max-Age', String(PREFLIGHT_MAX_AGE_S));
    res.status(204).end();
  };
}
