// Consecutive path-less middleware of an app as one Express layer, shared by both apps.
import type { NextFunction, Request, RequestHandler, Response } from 'express';

/**
 * `app.use(pipeline(a, b, c))` runs `a`, `b`, `c` exactly as `app.use(a); app.use(b); app.use(c)` would,
 * for request handlers mounted without a path: in order, each when the one before calls `next()` (or
 * `next('route')`, which a path-less layer treats the same), `req.params` reset to `{}` before each as
 * the router does for a path-less layer, a synchronous throw or a rejected promise passed on as an error,
 * and any error (or `'router'`) handed to the app's router at once, which skips the rest as it would skip
 * the separate layers (they are not error handlers). What it saves is the router's work between them
 * (matching, params, path checks, its bookkeeping), about as much per layer as a small middleware costs:
 * the apps mount some twenty of them in front of every route. Error handlers (four parameters) cannot
 * be pipelined: they run only on an error, and stay separate layers.
 */
export function pipeline(...handlers: (RequestHandler | readonly RequestHandler[])[]): RequestHandler {
  const fns = handlers.flat() as RequestHandler[];
  for (const fn of fns) {
    if (typeof fn !== 'function' || fn.length > 3) throw new TypeError('pipeline: only request handlers (req, res, next)');
  }
  return function pipelined(req: Request, res: Response, done: NextFunction): void {
    const run: Run = { fns, i: 0, req, res, done, next: undefined as unknown as NextFunction };
    // One bound function per request carries the run through every step.
    run.next = step.bind(undefined, run) as NextFunction;
    run.next();
  };
}

interface Run {
  readonly fns: readonly RequestHandler[];
  i: number;
  readonly req: Request;
  readonly res: Response;
  readonly done: NextFunction;
  next: NextFunction;
}

function step(run: Run, err?: unknown): void {
  // As the router: 'route' and falsy values continue; anything else is an error (or 'router').
  if (err && err !== 'route') return run.done(err);
  if (run.i >= run.fns.length) return run.done();
  const fn = run.fns[run.i++]!;
  run.req.params = {};
  try {
    const ret = fn(run.req, run.res, run.next) as unknown;
    if (ret !== null && typeof ret === 'object' && typeof (ret as { then?: unknown }).then === 'function') {
      (ret as Promise<unknown>).then(undefined, (error: unknown) => run.next(error || new Error('Rejected promise')));
    }
  } catch (error) {
    run.next(error);
  }
}
