// Routes of the earlier line that this one removed (vault-api.yaml "Removed routes",
// `components.x-removed-routes`): any method on one of them is 410 `route_removed`, naming what replaces
// it. Answered before route matching: `GET /contracts/vault/get-vc-parent` would otherwise match the
// metadata route `/contracts/vault/{owner}` and fail its pattern (400), telling a client nothing useful.
import type { RequestHandler } from 'express';
import { VaultErrors } from '../context.ts';
import type { ApiModel } from '../../platform/operations.ts';

/** One removed route: its path (any method), what to use instead, and why, in a client's words. */
export interface RemovedRoute {
  path: string;
  replacement: string;
  reason: string;
}

/** The description's removed routes (`components.x-removed-routes`); throws when one is malformed. */
export function removedRoutesOf(model: ApiModel): RemovedRoute[] {
  const list = (model.extension('x-removed-routes') ?? []) as unknown[];
  return list.map((entry, i) => {
    const r = entry as Partial<Record<keyof RemovedRoute, unknown>>;
    if (
      typeof r.path !== 'string' ||
      !r.path.startsWith('/') ||
      typeof r.replacement !== 'string' ||
      typeof r.reason !== 'string'
    ) {
      throw new Error(`vault-api.yaml components.x-removed-routes[${i}] needs path, replacement and reason`);
    }
    if (model.routes.some((route) => route.template === r.path))
      throw new Error(`vault-api.yaml: ${r.path} is both a path and a removed route`);
    return { path: r.path, replacement: r.replacement, reason: r.reason };
  });
}

/** The answer's message: the route, why it is gone, and what to use. */
export const removedMessage = (method: string, r: RemovedRoute): string =>
  `${method} ${r.path} was removed (${r.reason}); use ${r.replacement}`;

/** 410 `route_removed` on any method of a removed path (one trailing slash ignored). Mount after the legacy base paths. */
export function removedRoutes(routes: readonly RemovedRoute[]): RequestHandler {
  const byPath = new Map(routes.map((r) => [r.path, r]));
  return (req, _res, next) => {
    // req.path is a getter that parses the URL (cached, but checked on every read): read once.
    const asked = req.path;
    const path = asked.length > 1 && asked.endsWith('/') ? asked.slice(0, -1) : asked;
    const removed = byPath.get(path);
    if (removed === undefined) return next();
    next(VaultErrors.routeRemoved(removedMessage(req.method, removed)));
  };
}
