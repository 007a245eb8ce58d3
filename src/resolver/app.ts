// The did:ledger resolver and registry service (spec/did-resolver.yaml): Express 5 with
// express-openapi-validator on the spec (requests always, responses when asked), the error envelope
// everywhere, X-Request-ID, metrics and the request log, /metrics and /ready (before the per-IP limit:
// probes must not spend a client's budget), the per-IP limit, and the routes. HEAD on a GET operation is
// routed as that GET (src/platform/app.ts); a request head Node cannot parse is answered in the envelope by
// the server (src/http/server.ts, which reads the envelope declared here). Stateless over the chain:
// what it keeps (the resolution cache, rate windows, proof nonces) sits behind the injected stores.
import type express from 'express';
import { MemoryNonceStore } from '../did/index.ts';
import type { operations } from '../generated/did-resolver.ts';
import { createMetrics, type WriteMode } from '../observability/index.ts';
import { createServiceApp, type RouteTable } from '../platform/app.ts';
import { corruptBodyMessage, jsonBody, loneSurrogateMessage, unsupportedCodingMessage } from '../platform/body.ts';
import type { ApiModel } from '../platform/operations.ts';
import { resolverModel } from '../platform/resolver-model.ts';
import { BODY_LIMIT_BYTES, ResolverErrors, type ResolverAppDeps } from './context.ts';
import { errorHandler, notFoundError } from './error-codes.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { proofRoutes } from './routes/proof.ts';
import { registryRoutes } from './routes/registry.ts';
import { resolveRoute } from './routes/resolve.ts';
import { serviceRoutes } from './routes/service.ts';
import { createRouteContext } from './routes/shared.ts';
import { didIndexRoutes } from './did-index/route.ts';
import { registrarRoutes } from './registrar/routes.ts';
import { RESOLVER_SERVICE } from '../domain.ts';

/** The `service` of this app's metric series and log lines (and of its /health). */
const SERVICE = RESOLVER_SERVICE;

/**
 * Prepare or submit, on the registry's write routes (did-resolver.yaml "Writes: prepare and submit"):
 * `/v1/dids/stellar/submit` always submits; the others submit a body with `signedXdr`.
 */
export function writeModeOf(req: express.Request): WriteMode | undefined {
  if (req.method !== 'POST' || !req.path.startsWith('/v1/dids/stellar')) return undefined;
  if (req.path === '/v1/dids/stellar/submit') return 'submit';
  const body: unknown = req.body;
  if (typeof body !== 'object' || body === null) return undefined;
  return 'signedXdr' in body ? 'submit' : 'prepare';
}

/**
 * The body reader: only operations with a request body read one, and each requires it (did-resolver.yaml
 * `requestBody.required`); elsewhere a body is ignored.
 */
function bodyReader(): express.RequestHandler {
  return jsonBody(
    { limit: BODY_LIMIT_BYTES },
    {
      missing: () => ResolverErrors.invalidRequest('the request needs a JSON body'),
      unsupported: (coding) => ResolverErrors.unsupportedContentEncoding(unsupportedCodingMessage(coding)),
      corrupt: (coding) => ResolverErrors.invalidBodyEncoding(corruptBodyMessage(coding)),
      loneSurrogate: (at) => ResolverErrors.invalidRequest(loneSurrogateMessage(at)),
    },
  );
}

/** The app's dependencies with a metrics registry: the process's, else the app's own (tests of the app alone). */
function withMetrics(given: ResolverAppDeps, model: ApiModel): ResolverAppDeps {
  const deps: ResolverAppDeps = given.metrics
    ? given
    : { ...given, metrics: createMetrics({ service: SERVICE, domainOf: 'resolver' }) };
  deps.metrics!.buildInfo({
    version: model.version,
    protocols: () =>
      Object.fromEntries(Object.entries(deps.networks).map(([n, net]) => [n, net?.chain.client.protocolVersion])),
  });
  return deps;
}

/**
 * The route table, each operation's handler by operationId, and the docs UI's static files (not operations
 * of the description).
 */
export function resolverRoutes(
  deps: ResolverAppDeps,
  model: ApiModel,
): { handlers: RouteTable<operations>; docsAssets: express.RequestHandler[] } {
  const ctx = createRouteContext(deps);
  const service = serviceRoutes(ctx, model.document);
  const registry = registryRoutes(ctx);
  const proof = proofRoutes(ctx, deps.nonceStore ?? new MemoryNonceStore({ now: deps.now }));
  const registrar = registrarRoutes(ctx, deps.registrarJobs ? { jobs: deps.registrarJobs } : {});
  const didIndex = didIndexRoutes(ctx, deps.didIndex);
  ctx.recordRead = didIndex.remember;
  // With a kept index (the started services), caught up at start in the background; the first lookup waits for
  // it (one catch-up per network at a time). Without one, the first lookup builds it.
  if (deps.didIndex) void didIndex.catchUpAll();
  const handlers: RouteTable<operations> = {
    resolveDid: resolveRoute(ctx),
    getIndex: service.index,
    getHealth: service.health,
    getOpenApi: service.openapi,
    // The UI page is HTML, answered by the UI's own handler.
    getDocs: (req, res, next) => void service.docs(req, res, next),
    getDidRecord: registry.getRecord,
    registerDid: registry.register,
    submitDidTransaction: registry.submitAny,
    updateDid: registry.update,
    transferDidController: registry.transfer,
    deactivateDid: registry.deactivate,
    listDidsByController: didIndex.list,
    registrarCreate: registrar.create,
    registrarUpdate: registrar.update,
    registrarDeactivate: registrar.deactivate,
    createProofChallenge: proof.challenge,
    verifyProof: proof.verify,
  };
  return { handlers, docsAssets: service.docsAssets() };
}

/**
 * The per-IP limit, a step of the front after /metrics and /ready: every path counts (an undeclared one too), every
 * method but OPTIONS.
 */
function perIpLimit(deps: ResolverAppDeps): express.RequestHandler {
  return rateLimit({
    limiter: deps.rateLimiter,
    limit: deps.limits.rateLimit,
    windowMs: deps.limits.rateWindowMs,
    now: deps.now,
    ...(deps.log ? { log: deps.log } : {}),
    ...(deps.limits.ipv6ClientPrefix ? { ipv6Prefix: deps.limits.ipv6ClientPrefix } : {}),
  });
}

export async function createResolverApp(given: ResolverAppDeps): Promise<express.Express> {
  const model = resolverModel;
  const deps = withMetrics(given, model);
  const { handlers, docsAssets } = resolverRoutes(deps, model);
  const body = bodyReader();
  return createServiceApp({
    model,
    validator: {
      allErrors: false,
      validateResponses: deps.validateResponses === true,
      ...(deps.warmValidators ? { warm: deps.warmValidators } : {}),
    },
    trustProxy: deps.trustProxy ?? false,
    headEnvelope: (code, message) => ({ code, message }),
    metrics: { metrics: deps.metrics!, service: SERVICE, rateLimitBucketOf: () => 'ip', modeOf: writeModeOf },
    requestLog: deps.logger ? { logger: deps.logger, service: SERVICE } : undefined,
    ready: {
      checks: deps.readinessChecks ?? [],
      ...(deps.logger ? { logger: deps.logger } : {}),
      ...(deps.draining ? { draining: deps.draining } : {}),
    },
    // Probes (above) do not spend a client's budget.
    front: [perIpLimit(deps)],
    // The body (read after route matching, so that an unknown path is a 404 and an undeclared method a 405
    // whatever the body), oversized collections and request validation, then response validation when asked.
    layers: (op, validate) => [...(op.body ? [body] : []), ...validate],
    handlers,
    afterRoutes: [{ path: '/docs', handlers: docsAssets }],
    notFound: notFoundError,
    errorHandler: errorHandler({ ...(deps.log ? { log: deps.log } : {}) }),
  });
}
