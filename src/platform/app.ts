// The bootstrap of both services: one Express app over one operation model, one Express route per path, most
// specific first. A handler that passes a request on leaves the routes (`next('router')`), so no less specific
// route runs it.
import express, { type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import { type HeadEnvelope, setErrorEnvelope } from '../http/server.ts';
import type { ReadinessCheck } from '../observability/health.ts';
import { httpMetrics, metricsHandler, readiness, requestLog } from '../observability/index.ts';
import type { RequestLogOptions } from '../observability/logging.ts';
import type { HttpMetricsOptions } from '../observability/metrics.ts';
import { oversizedIn } from './bounds.ts';
import { type FailureItem, failureItem, RequestFailure } from './failures.ts';
import type { Idleness } from './idle.ts';
import type { ApiModel, Operation, PathRoute } from './operations.ts';
import { requestIds } from './request-id.ts';
import type { OkBody, OperationHandler } from './typed.ts';
import { type ValidatorOptions, type ValidatorPool, validatorPool } from './validator.ts';

/** Handlers by operationId; an operation whose success is not JSON (a page, a 204) may take a plain handler. */
export type RouteTable<Ops> = {
  [Id in keyof Ops]?: OperationHandler<Ops[Id]> | ([OkBody<Ops[Id]>] extends [never] ? RequestHandler : never);
};

type Mount = { path: string; handlers: RequestHandler[] };

export interface ServiceAppOptions<Ops> {
  model: ApiModel;
  validator: ValidatorOptions & {
    /** Make every path's validator in the background while idle (started services; tests make them on use). */
    warm?: Idleness;
    /** Validators shared with the process's other apps of this description (the two vault APIs). */
    pool?: ValidatorPool;
  };
  trustProxy?: boolean | string | number | string[];
  headEnvelope: HeadEnvelope;
  /** Before anything reads the URL (the vault API's legacy base paths). */
  rewrite?: RequestHandler[];
  metrics: HttpMetricsOptions;
  requestLog?: RequestLogOptions | undefined;
  ready: { checks: readonly ReadinessCheck[]; logger?: RequestLogOptions['logger']; draining?: () => boolean };
  /** Steps after /metrics and /ready, on every request. */
  front?: RequestHandler[];
  beforeRoutes?: Mount[];
  /** An operation's layers before its handler; `validate` is its request validation. */
  layers: (operation: Operation, validate: RequestHandler[]) => RequestHandler[];
  handlers: RouteTable<Ops>;
  /** Operations a layer answers before their handler would run (docs pages, CORS preflights). */
  answeredByLayers?: readonly string[];
  afterRoutes?: Mount[];
  notFound: (req: Request) => Error;
  errorHandler: ErrorRequestHandler;
}

/** Answered by the platform itself. */
const PLATFORM_PATHS: ReadonlySet<string> = new Set(['/metrics', '/ready']);

/** Refuses a route table that does not cover the model exactly. */
export function checkRouteTable(
  model: ApiModel,
  handlers: Record<string, unknown>,
  answeredByLayers: readonly string[] = [],
): void {
  const served = new Set([...Object.keys(handlers), ...answeredByLayers]);
  const missing = [...model.operations.values()]
    .filter((op) => !served.has(op.operationId) && !PLATFORM_PATHS.has(op.template))
    .map((op) => op.operationId);
  const unknown = [...served].filter((id) => !model.operations.has(id));
  const problems = [
    ...(missing.length > 0 ? [`operations without a handler: ${missing.join(', ')}`] : []),
    ...(unknown.length > 0 ? [`handlers of no operation in the description: ${unknown.join(', ')}`] : []),
  ];
  if (problems.length > 0) throw new Error(`the route table does not match ${model.title}: ${problems.join('; ')}`);
}

const OPERATION = Symbol('operation');

/** Undefined before the routes, or when none matched. */
export function operationOf(req: Request): Operation | undefined {
  return (req as unknown as Record<symbol, Operation | undefined>)[OPERATION];
}

/** For logs and metrics (never the concrete path). */
export const routeOf = (req: Request): string | undefined => operationOf(req)?.template;

/** 405 or OPTIONS 204 with `Allow` (a declared OPTIONS goes on); a parameter that fails its pattern goes on to the
 *  routes after it, a 404 when none matches. */
function methodGate(route: PathRoute): RequestHandler {
  const declared = new Set(route.allow.split(', '));
  const optionsAllow = declared.has('OPTIONS') ? route.allow : `${route.allow}, OPTIONS`;
  const hasParameters = route.template.includes('{');
  return function methodGate(req, res, next) {
    if (req.method !== 'OPTIONS' && declared.has(req.method)) return next();
    if (hasParameters && !route.matches(req.path)) return next('route');
    if (req.method === 'OPTIONS') {
      res.set('Allow', optionsAllow);
      return declared.has('OPTIONS') ? next() : void res.status(204).end();
    }
    const message = `${req.method} is not allowed on ${req.path}; this path accepts ${route.allow}`;
    next(new RequestFailure({ status: 405, kind: 'method_not_allowed', message, items: [], allow: route.allow }));
  };
}

const invalid = (message: string, items: FailureItem[]) =>
  new RequestFailure({ status: 400, kind: 'invalid', message, items });

/** Before the validator: oversized collections (src/platform/bounds.ts), and integer query parameters not written
 * in decimal digits (the validator coerces with Number(), which reads `0x10`, `1e1`, `+5` and `1.0` as integers). */
function checksBeforeValidator(op: Operation): RequestHandler[] {
  const bounds = op.body?.bounds;
  const integers = op.parameters.query.filter((p) => p.schema.type === 'integer').map((p) => p.name);
  const checks: RequestHandler[] = [];
  if (bounds)
    checks.push(function collectionBounds(req, _res, next) {
      const found = req.body === undefined ? undefined : oversizedIn(bounds, req.body);
      next(found && invalid(`request${found[0]!.path} ${found[0]!.message}`, found));
    });
  if (integers.length > 0)
    checks.push(function decimalQuery(req, _res, next) {
      const q = req.originalUrl.indexOf('?');
      const query = new URLSearchParams(q < 0 ? '' : req.originalUrl.slice(q + 1));
      for (const name of integers)
        for (const value of query.getAll(name))
          if (!/^[0-9]+$/.test(value)) {
            const message = `must be a whole number written in decimal digits, got ${JSON.stringify(value.slice(0, 40))}`;
            const item = failureItem({ path: `/query/${name}`, message, errorCode: 'type.openapi.validation' });
            return next(invalid(`query.${name} ${message}`, [item]));
          }
      next();
    });
  return checks;
}

function routes<Ops>(o: ServiceAppOptions<Ops>): express.Router {
  const router = express.Router();
  const pool = o.validator.pool ?? validatorPool();
  const validators = o.model.routes.map((route) => pool.of(o.model, route, o.validator));
  if (o.validator.warm) warm(validators, o.validator.warm, o.ready.draining);
  const handlers = o.handlers as Record<string, RequestHandler | undefined>;
  o.model.routes.forEach((route, i) => {
    const chain = router.route(route.expressPath).all(methodGate(route));
    for (const op of route.operations) {
      const handler = handlers[op.operationId];
      const layers = o.layers(op, [...checksBeforeValidator(op), validators[i]!.validate]);
      chain[op.method](
        (req, _res, next) => {
          (req as unknown as Record<symbol, Operation>)[OPERATION] = op;
          next();
        },
        ...layers,
        ...(handler ? [handler] : []),
        (_req, _res, next) => next('router'),
      );
    }
  });
  return router;
}

/** One validator (~0.1 s of CPU) a step while idle; none once draining, or a stop in start-up waits for all. */
function warm(validators: readonly { make(): void }[], idle: Idleness, draining?: () => boolean): void {
  let i = 0;
  idle.whenIdle(() => {
    if (i === validators.length || draining?.()) return false;
    validators[i++]!.make();
    return true;
  });
}

/** Every request's steps before the routes. */
function front<Ops>(o: ServiceAppOptions<Ops>): express.Router {
  const router = express.Router();
  // First: every later step, logs and metrics included, reads the canonical URL.
  for (const step of o.rewrite ?? []) router.use(step);
  // Their clocks start here and their `close` listeners see every answer, the probes' and errors' too.
  router.use(httpMetrics(o.metrics));
  // Before anything can answer, so every answer carries it; the request log reads it.
  router.use(requestIds({ maxLength: o.model.requestIdMaxLength }));
  if (o.requestLog) router.use(requestLog(o.requestLog));
  // A probe holds the warm-up off only while in flight: a prober polling often would otherwise hold it off for good.
  const idle = o.validator.warm;
  if (idle)
    router.use((req, res, next) => {
      idle.track(res, !((req.method === 'GET' || req.method === 'HEAD') && PLATFORM_PATHS.has(req.path)));
      next();
    });
  // Probes: counted, logged and id'd, but before the app's steps (no key, no rate budget). Only GET and HEAD
  // reach their router: another method goes on to the path's route (405, OPTIONS 204), not Express's OPTIONS.
  const probes = express.Router().get('/metrics', metricsHandler(o.metrics.metrics));
  probes.get('/ready', readiness(o.ready.checks, o.ready));
  router.use((req, res, next) => (req.method === 'GET' || req.method === 'HEAD' ? probes(req, res, next) : next()));
  for (const step of o.front ?? []) router.use(step);
  return router;
}

export function createServiceApp<Ops>(o: ServiceAppOptions<Ops>): express.Express {
  checkRouteTable(o.model, o.handlers, o.answeredByLayers);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', o.trustProxy ?? false);
  setErrorEnvelope(app, o.headEnvelope);
  app.use(front(o));
  for (const m of o.beforeRoutes ?? []) app.use(m.path, ...m.handlers);
  app.use(routes(o));
  for (const m of o.afterRoutes ?? []) app.use(m.path, ...m.handlers);
  app.use((req, _res, next) => next(o.notFound(req)));
  app.use(o.errorHandler);
  return app;
}
