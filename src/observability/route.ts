// The route template of a request, for log lines and metric labels. Never the raw URL: paths hold owner
// addresses and DIDs, and a label per address would also grow the metrics without bound.
import type { Request } from 'express';
import { LRUCache } from 'lru-cache';

/** What a request that matched no route is labelled with. */
export const UNMATCHED_ROUTE = 'unmatched';

/** The route template of a request, or undefined when the caller does not know it. */
export type RouteOf = (req: Request) => string | undefined;

/**
 * An Express path (`/contracts/vault/:owner`, `/files/*rest`) in the OpenAPI form the specs use
 * (`/contracts/vault/{owner}`). A path already in OpenAPI form is returned as is.
 */
export function toOpenApiPath(path: string): string {
  return path.replace(/[:*]([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

/**
 * The template of the route that answered: `routeOf(req)` when given and known (for example the OpenAPI
 * route express-openapi-validator matched), else Express's own `req.baseUrl + req.route.path`, else
 * `unmatched`. Read when the response finishes, after routing ran.
 */
export function routeTemplate(
  req: Request,
  routeOf?: RouteOf,
  convert: (path: string) => string = toOpenApiPath,
): string {
  const given = routeOf?.(req);
  if (given) return convert(given);
  const route = (req as Request & { route?: { path?: unknown } }).route;
  if (route && typeof route.path === 'string') return convert(`${req.baseUrl ?? ''}${route.path}`) || '/';
  return UNMATCHED_ROUTE;
}

/** Paths one `routeTemplates` remembers, the least recently used going first (an app has far fewer routes). */
const MAX_REMEMBERED_PATHS = 1_000;

/**
 * `routeTemplate` for one middleware, each path converted once: the log line and the metrics of every request
 * ask for their route's template, and an app's routes are few.
 */
export function routeTemplates(routeOf?: RouteOf): (req: Request) => string {
  const known = new LRUCache<string, string>({ max: MAX_REMEMBERED_PATHS });
  const convert = (path: string): string => {
    let template = known.get(path);
    if (template === undefined) {
      template = toOpenApiPath(path);
      known.set(path, template);
    }
    return template;
  };
  return (req) => routeTemplate(req, routeOf, convert);
}
