// The front of both services' pipelines: the steps every request passes before the routes, run one after the
// other as plain function calls inside a single Express layer. Each app-level layer is a path match on every
// request, and these steps apply to every path anyway; the order of the steps, and why, is the caller's
// (src/platform/app.ts). The platform's own GET /metrics and GET /ready are found by comparing the path,
// and only then handed to an Express router of their own (so they match as any Express route would: any
// case, one trailing slash, HEAD as GET, `req.route` set for the logs and metrics).
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';

/**
 * `steps` run in order as one middleware, with Express's own rules between them: `next(err)` skips the rest
 * and hands the error on, `next('route')` is no error (at app level it moves on), a step that throws or
 * returns a promise that rejects is an error, and a step that neither answers nor calls `next` ends there.
 */
export function inSequence(steps: readonly RequestHandler[]): RequestHandler {
  const list = [...steps];
  return function front(req: Request, res: Response, next: NextFunction): void {
    let i = 0;
    const step = (err?: unknown): void => {
      // As Express's router: a falsy value is no error.
      if (err && err !== 'route') return next(err);
      if (i === list.length) return next();
      const handler = list[i++]!;
      try {
        const ret = handler(req, res, step) as unknown;
        if (isThenable(ret)) ret.then(undefined, (error: unknown) => next(error || new Error('Rejected promise')));
      } catch (error) {
        next(error);
      }
    };
    step();
  };
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/**
 * GET (and so HEAD) of a few exact paths, each answered by its handler: one string comparison per request
 * (a path that cannot be one of them goes on at once), then an Express router for the few that may be.
 */
export function exactGets(handlers: Readonly<Record<string, RequestHandler>>): RequestHandler {
  const router = express.Router();
  const candidates = new Set<string>();
  for (const [path, handler] of Object.entries(handlers)) {
    if (!/^\/[a-z0-9/_-]*[a-z0-9_-]$/.test(path)) throw new Error(`exactGets: ${path} is not a plain lower-case path`);
    router.get(path, handler);
    // Express's matching of a plain path: case-insensitive, one trailing slash allowed.
    candidates.add(path);
    candidates.add(`${path}/`);
  }
  return function exactGet(req, res, next) {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (!candidates.has(req.path.toLowerCase())) return next();
    router(req, res, next);
  };
}
