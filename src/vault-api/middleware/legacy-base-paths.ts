// Legacy path-prefixed base URLs (docs/vault-api.md "Older URLs that still work";
// vault-api.yaml "Back-compat aliases"). Clients configured with a base URL such as
// `https://host/api` or `https://host/api/v1` keep working: the prefix (CV_LEGACY_BASE_PATHS, default
// `/api,/api/v1`) is removed before anything else looks at the request, so `/api/config` is `/config` for
// routing, keys, limits, idempotency, logs and metrics (which report the canonical route). Every answer under
// a prefix, errors included, says that the URL is deprecated (`Deprecation: @1795305600`, RFC 9745:
// deprecated since 2026-11-22, this release); when the canonical path is one of the description's paths it
// also names it, `Link: </config>; rel="successor-version"`. Only then: the rest of the path is the
// client's, and `/api//evil.example/x` must not become a link to another host.
import type { RequestHandler } from 'express';
import type { ApiModel } from '../../platform/operations.ts';

/** The default prefixes (config CV_LEGACY_BASE_PATHS). */
export const DEFAULT_LEGACY_BASE_PATHS: readonly string[] = ['/api', '/api/v1'];

/** RFC 9745 `Deprecation` value: a structured-field date, the release that deprecated the prefixes (2026-11-22). */
export const LEGACY_DEPRECATION = '@1795305600';

/** One or more segments of unreserved characters, no trailing slash: `/api`, `/api/v1`. */
const PREFIX = /^(\/[A-Za-z0-9._~-]+)+$/;

/**
 * Checks the prefixes against the description's paths: a prefix must be well formed and must not be (or
 * start) a canonical path, else stripping it would change what a canonical URL means (`/contracts` would
 * turn `/contracts/version` into `/version`). Throws one error naming every bad prefix.
 */
export function checkLegacyBasePaths(prefixes: readonly string[], canonicalPaths: readonly string[]): void {
  const problems: string[] = [];
  for (const p of prefixes) {
    if (!PREFIX.test(p)) {
      problems.push(`${JSON.stringify(p)} is not a path prefix like /api or /api/v1`);
      continue;
    }
    const clash = canonicalPaths.find((c) => c === p || c.startsWith(`${p}/`) || p.startsWith(`${c}/`));
    if (clash) problems.push(`${p} would shadow the API path ${clash}`);
  }
  if (problems.length) throw new Error(`legacy base paths (CV_LEGACY_BASE_PATHS): ${problems.join('; ')}`);
}

/** The canonical path of `path` (undefined when no prefix applies): the longest matching prefix is removed. */
export function stripLegacyBasePath(path: string, prefixes: readonly string[]): string | undefined {
  for (const p of prefixes) {
    // `path` is `p` itself, or `p` then `/…` (checked without building `${p}/` per request).
    if (!path.startsWith(p)) continue;
    if (path.length === p.length) return '/';
    if (path.charCodeAt(p.length) === 0x2f) return path.slice(p.length);
  }
  return undefined;
}

/** Characters a Link target may hold as they are (RFC 3986 path characters); anything else is percent-encoded. */
const NOT_PATH_CHAR = /[^A-Za-z0-9\-._~!$&'()*+,;=:@%/]/g;

/**
 * The `Link` value naming `canonical`, or undefined when `canonical` is not one of the description's paths
 * (a path template's parameters match one non-empty segment, so a match is a same-origin path: never `//…`).
 */
export function successorLink(canonical: string, isPath: (path: string) => boolean): string | undefined {
  if (canonical.startsWith('//') || !isPath(canonical)) return undefined;
  const target = canonical.replace(NOT_PATH_CHAR, (c) => encodeURIComponent(c));
  return `<${target}>; rel="successor-version"`;
}

/**
 * Rewrites `req.url` and `req.originalUrl` (express-openapi-validator matches routes on the latter) to the
 * canonical path, keeping the query string. `model` holds the description's paths (for the `Link`). Mount it
 * first.
 */
export function legacyBasePaths(prefixes: readonly string[], model: ApiModel): RequestHandler {
  const longestFirst = [...prefixes].sort((a, b) => b.length - a.length);
  if (longestFirst.length === 0) return (_req, _res, next) => next();
  const isPath = (path: string) => model.routes.some((r) => r.fits(path));
  return (req, res, next) => {
    const q = req.url.indexOf('?');
    const path = q < 0 ? req.url : req.url.slice(0, q);
    const canonical = stripLegacyBasePath(path, longestFirst);
    if (canonical === undefined) return next();
    const url = canonical + (q < 0 ? '' : req.url.slice(q));
    req.url = url;
    req.originalUrl = url;
    res.set('Deprecation', LEGACY_DEPRECATION);
    const link = successorLink(canonical, isPath);
    if (link !== undefined) res.set('Link', link);
    next();
  };
}
