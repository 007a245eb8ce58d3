// The bootstrap of both services: one Express 5 app over one description, in this order:
//
//   the front, one Express layer whose steps run as plain function calls (src/platform/front.ts), in order:
//     URL rewriting the app asks for (before anything reads the URL) → HEAD as GET (before the metrics and
//     the log: its `close` listener puts `HEAD` back before theirs read the method) → metrics and the
//     request log (their clocks cover everything, they see every answer) → request id → /metrics, /ready
//     (a direct path comparison; no key, no rate budget, no body) → the app's front steps
//   → the app's path-mounted layers before the routes
//   → one Express route per path of the description, whose chain is: route matching (an undeclared
//     method → the validator's 405), then per operation, attached for its method (Express picks it by
//     method: the path is matched once): the app's layers for that operation → the operation's handler
//   → the app's layers after the routes → 404 → the error envelope.
//
// The route table is keyed by the description's operationId: start-up fails when an operation has no
// handler (and is not answered by a layer the app names) or a handler names no operation.
import express, { type ErrorRequestHandler, type Request, type RequestHandler } from 'express';
import { setErrorEnvelope, type ErrorEnvelope as HeadEnvelope } from '../http/server.ts';
import { headAsGet } from '../openapi/head.ts';
import type { ReadinessCheck } from '../observability/health.ts';
import { httpMetrics, metricsHandler, readiness, requestLog } from '../observability/index.ts';
import type { RequestLogOptions } from '../observability/logging.ts';
import type { HttpMetricsOptions } from '../observability/metrics.ts';
import { exactGets, inSequence } from './front.ts';
import { requestIdMaxLength, requestIds } from './request-id.ts';
import type { OpenApiDocument } from './spec.ts';
import type { OkBody, OperationHandler } from './typed.ts';
import {
  firstMatchOnly,
  type OperationRoute,
  operationRoutes,
  type ValidatorOptions,
  warmRoutes,
} from './validator.ts';

/**
 * Handlers by operationId, each typed from its operation (`operations` of src/generated/*.ts); an operation
 * whose success is not JSON (an HTML page, a 204) may take a plain Express handler.
 */
export type RouteTable<Ops> = {
  [Id in keyof Ops]?: OperationHandler<Ops[Id]> | ([OkBody<Ops[Id]>] extends [never] ? RequestHandler : never);
};

/** Middleware mounted on the app, at a path or everywhere. */
export type Mount = RequestHandler | { path: string; handlers: RequestHandler[] };

export interface ServiceAppOptions<Ops> {
  spec: OpenApiDocument;
  validator: ValidatorOptions & {
    /** Make every route's validator instance in the background now (started services; tests make them lazily). */
    warm?: boolean;
  };
  /** Express's `trust proxy` (req.ip from forwarded addresses of trusted proxies only). */
  trustProxy?: boolean | string | number | string[];
  /** The service's error body, for a request head Node cannot parse (src/http/server.ts). */
  headEnvelope: HeadEnvelope;
  /** Before anything reads the URL (the vault API's legacy base paths). */
  rewrite?: RequestHandler[];
  metrics: HttpMetricsOptions;
  /** The one request line per request; none without a logger (tests of an app alone). */
  requestLog?: RequestLogOptions | undefined;
  ready: { checks: readonly ReadinessCheck[]; logger?: RequestLogOptions['logger']; draining?: () => boolean };
  /** Steps of the front after /metrics and /ready, run on every request. */
  front?: RequestHandler[];
  /** After the front, before the routes (layers mounted at a path). */
  beforeRoutes?: Mount[];
  /**
   * The layers of one operation of a route, between route matching and its handler, in order: only what
   * acts on that operation (a step that would pass every request of it untouched is better left out).
   */
  layers: (route: OperationRoute, operation: { operationId: string; method: Method }) => RequestHandler[];
  /** The handler of each operation, by operationId. */
  handlers: RouteTable<Ops>;
  /** Operations a layer answers before their handler would run (the app's own docs pages, CORS preflights). */
  answeredByLayers?: readonly string[];
  /** After the routes, before the 404. */
  afterRoutes?: Mount[];
  /** The error of a request no route answered. */
  notFound: (req: Request) => Error;
  errorHandler: ErrorRequestHandler;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type Method = (typeof METHODS)[number];

/** The operations of a description: operationId → its template and method. */
export function operationsOf(spec: OpenApiDocument): Map<string, { template: string; method: Method }> {
  const found = new Map<string, { template: string; method: Method }>();
  for (const [template, item] of Object.entries(spec.paths)) {
    for (const method of METHODS) {
      const id = (item[method] as { operationId?: unknown } | undefined)?.operationId;
      if (typeof id === 'string') found.set(id, { template, method });
    }
  }
  return found;
}

/** The operations the platform answers itself (GET /metrics, GET /ready). */
const PLATFORM_PATHS: ReadonlySet<string> = new Set(['/metrics', '/ready']);

/**
 * Refuses a route table that does not cover the description exactly: an operation without a handler, or a
 * handler (or an operation said to be answered by a layer) that names no operation.
 */
export function checkRouteTable(
  spec: OpenApiDocument,
  handlers: Record<string, unknown>,
  answeredByLayers: readonly string[] = [],
): void {
  const ops = operationsOf(spec);
  const served = new Set([...Object.keys(handlers), ...answeredByLayers]);
  const missing = [...ops]
    .filter(([id, { template }]) => !served.has(id) && !PLATFORM_PATHS.has(template))
    .map(([id]) => id);
  const unknown = [...served].filter((id) => !ops.has(id));
  const problems = [
    ...(missing.length > 0 ? [`operations without a handler: ${missing.join(', ')}`] : []),
    ...(unknown.length > 0 ? [`handlers of no operation in the description: ${unknown.join(', ')}`] : []),
  ];
  if (problems.length > 0) throw new Error(`the route table does not match ${spec.info.title}: ${problems.join('; ')}`);
}

function mount(app: express.Express, mounts: readonly Mount[] | undefined): void {
  for (const m of mounts ?? []) {
    if (typeof m === 'function') app.use(m);
    else app.use(m.path, ...m.handlers);
  }
}

export function createServiceApp<Ops>(o: ServiceAppOptions<Ops>): express.Express {
  const { spec } = o;
  checkRouteTable(spec, o.handlers, o.answeredByLayers);
  const routes = operationRoutes(spec, o.validator);
  // A failure here is met and reported again by the first request to that path.
  if (o.validator.warm) void warmRoutes(routes, o.ready.draining).catch(() => undefined);

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', o.trustProxy ?? false);
  setErrorEnvelope(app, o.headEnvelope);

  // One layer: these steps apply to every request, and each app-level layer would be one more path match.
  app.use(
    inSequence([
      // First: every later step, logs and metrics included, reads the canonical URL.
      ...(o.rewrite ?? []),
      // Before the metrics and the log: its `close` listener must run before theirs, to put `HEAD` back.
      headAsGet(spec.paths),
      // Their clocks start here and their `close` listeners see every answer, the probes' and errors' too.
      httpMetrics(o.metrics),
      // Before anything can answer, so every answer carries it; the request log reads it.
      requestIds({ maxLength: requestIdMaxLength(spec) }),
      ...(o.requestLog ? [requestLog(o.requestLog)] : []),
      // Probes: counted, logged and id'd, but before the app's steps (no key, no rate budget, no body).
      exactGets({
        '/metrics': metricsHandler(o.metrics.metrics),
        '/ready': readiness(o.ready.checks, {
          ...(o.ready.logger ? { logger: o.ready.logger } : {}),
          ...(o.ready.draining ? { draining: o.ready.draining } : {}),
        }),
      }),
      ...(o.front ?? []),
    ]),
  );
  mount(app, o.beforeRoutes);

  const ops = operationsOf(spec);
  // The table's handlers are typed from their operations; the validator has checked what they read.
  const handlers = o.handlers as Record<string, RequestHandler | undefined>;
  for (const route of routes) {
    const chain = app.route(route.expressPath).all(firstMatchOnly, ...route.match);
    for (const [operationId, { template, method }] of ops) {
      if (template !== route.template) continue;
      const handler = handlers[operationId];
      const layers = [...o.layers(route, { operationId, method }), ...(handler ? [handler] : [])];
      if (layers.length > 0) chain[method](...layers);
    }
  }

  mount(app, o.afterRoutes);
  app.use((req, _res, next) => next(o.notFound(req)));
  app.use(o.errorHandler);
  return app;
}
