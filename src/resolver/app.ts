// The did:ledger resolver and registry service (spec/did-resolver.yaml): Express 5 with
// express-openapi-validator on the spec (requests always, responses when asked), the error envelope
// everywhere, X-Request-ID, metrics and the request log, /metrics and /ready (before the per-IP limit:
// probes must not spend a client's budget), the per-IP limit, and the routes. HEAD on a GET operation is
// routed as that GET (src/openapi/head.ts); a request head Node cannot parse is answered in the envelope by
// the server (src/http/server.ts, which reads the envelope declared here). Stateless over the chain:
// what it keeps (the resolution cache, rate windows, proof nonces) sits behind the injected stores.
import { readFile } from 'node:fs/promises';
import express, { type RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { parse as parseYaml } from 'yaml';
import { MemoryNonceStore } from '../did/index.ts';
import { corruptBodyMessage, jsonBody, loneSurrogateMessage, unsupportedCodingMessage } from '../http/json-body.ts';
import { setErrorEnvelope } from '../http/server.ts';
import { ADDRESS_FORMATS } from '../openapi/formats.ts';
import { allowLookup } from '../openapi/allow.ts';
import { headAsGet } from '../openapi/head.ts';
import { collectionBounds } from '../openapi/collection-bounds.ts';
import { withCanonicalContentType } from '../openapi/content-type.ts';
import { pipeline } from '../openapi/pipeline.ts';
import { rememberCompiledRoutes } from '../openapi/route-cache.ts';
import {
  createMetrics, httpMetrics, metricsHandler, readiness, requestLog, type WriteMode,
} from '../observability/index.ts';
import { ResolverError, type ResolverAppDeps } from './context.ts';
import { BODY_LIMIT_BYTES, errorHandler, notFound } from './middleware/errors.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { requestId } from './middleware/request-id.ts';
import { proofRoutes } from './routes/proof.ts';
import { registryRoutes } from './routes/registry.ts';
import { resolveRoute } from './routes/resolve.ts';
import { serviceRoutes } from './routes/service.ts';
import { createRouteContext } from './routes/shared.ts';

export const SPEC_URL = new URL('../../spec/did-resolver.yaml', import.meta.url);

export { BODY_LIMIT_BYTES };

/** The `service` of this app's metric series and log lines. */
const SERVICE = 'resolver';

/**
 * Prepare or submit, on the registry's write routes (did-resolver.yaml "Writes: prepare and submit"):
 * `/v1/dids/stellar/submit` always submits; the others submit a body with `signedXdr`.
 */
function writeModeOf(req: express.Request): WriteMode | undefined {
  if (req.method !== 'POST' || !req.path.startsWith('/v1/dids/stellar')) return undefined;
  if (req.path === '/v1/dids/stellar/submit') return 'submit';
  const body: unknown = req.body;
  if (typeof body !== 'object' || body === null) return undefined;
  return 'signedXdr' in body ? 'submit' : 'prepare';
}

let specText: Promise<string> | undefined;

/** The spec as a plain object (a fresh copy per call: the validator annotates what it is given). */
export async function loadResolverSpec(): Promise<Record<string, unknown>> {
  specText ??= readFile(SPEC_URL, 'utf8');
  return parseYaml(await specText) as Record<string, unknown>;
}

/** The HTTP methods (upper case) of the description's operations that take a request body. */
function methodsWithBodies(paths: Record<string, Record<string, unknown>>): Set<string> {
  const methods = new Set<string>();
  for (const item of Object.values(paths)) {
    for (const [method, op] of Object.entries(item)) {
      if (typeof op === 'object' && op !== null && 'requestBody' in op) methods.add(method.toUpperCase());
    }
  }
  return methods;
}

export async function createResolverApp(given: ResolverAppDeps): Promise<express.Express> {
  const spec = await loadResolverSpec();
  // Without a registry from the process (tests of the app alone) the app keeps its own, so /metrics answers.
  const own = () => createMetrics({ service: SERVICE, domainOf: 'resolver' });
  const deps: ResolverAppDeps = given.metrics ? given : { ...given, metrics: own() };
  const metrics = deps.metrics!;
  metrics.buildInfo({
    version: String((spec['info'] as { version: unknown }).version),
    protocols: () =>
      Object.fromEntries(Object.entries(deps.networks).map(([n, net]) => [n, net?.chain.client.protocolVersion])),
  });
  const ctx = createRouteContext(deps);
  const nonceStore = deps.nonceStore ?? new MemoryNonceStore({ now: deps.now });
  const service = serviceRoutes(ctx, spec);
  const registry = registryRoutes(ctx);
  const proof = proofRoutes(ctx, nonceStore);

  const bodyMethods = methodsWithBodies(spec['paths'] as Record<string, Record<string, unknown>>);

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('trust proxy', deps.trustProxy ?? false);
  // A request head Node cannot parse (a 20 kB header) is answered in this envelope (src/http/server.ts).
  setErrorEnvelope(app, (code, message) => ({ code, message }));

  // Path-less middleware in a row run as one layer each time (src/openapi/pipeline.ts): same order, same effect.
  app.use(
    pipeline(
      // HEAD on every GET operation: answered as the GET, without the body (spec "Headers, limits and caching").
      headAsGet(spec['paths'] as Record<string, unknown>),
      requestId(),
      httpMetrics({ metrics, service: SERVICE, rateLimitBucketOf: () => 'ip', modeOf: writeModeOf }),
      // The one request line per request; without a logger (tests of the app alone) there is none.
      deps.logger ? [requestLog({ logger: deps.logger, service: SERVICE })] : [],
    ),
  );
  app.get('/metrics', metricsHandler(metrics));
  app.get('/ready', readiness(deps.readinessChecks ?? [], { ...(deps.logger ? { logger: deps.logger } : {}), ...(deps.draining ? { draining: deps.draining } : {}) }));
  rememberCompiledRoutes(); // the validator recompiles every path template per request otherwise
  // Oversized collections are refused before ajv runs (src/openapi/collection-bounds.ts): between the
  // validator's route matching, which names the operation, and its request validation.
  const bounds = collectionBounds(spec);
  const pieces = OpenApiValidator.middleware({
    apiSpec: (await loadResolverSpec()) as never,
    validateRequests: true,
    validateResponses: deps.validateResponses ? { allErrors: true } : false,
    // 'full': calendar-checked dates and strict URIs; the default 'fast' checks only their shape.
    ajvFormats: { mode: 'full' },
    // stellar-account, stellar-contract: whole StrKeys, checksum included (src/openapi/formats.ts).
    formats: ADDRESS_FORMATS,
    // The UI's static files are not API routes.
    ignorePaths: /^\/docs\/./,
  }) as unknown as RequestHandler[];
  const at = pieces.findIndex((m) => m.name === 'requestMiddleware');
  if (at < 0) throw new Error('express-openapi-validator has no requestMiddleware: check its version');
  // One compiled validator per route and kind of body, not per Content-Type string (src/openapi/content-type.ts).
  const validator = [...pieces.slice(0, at), bounds, withCanonicalContentType(pieces[at]!), ...pieces.slice(at + 1)];
  app.use(
    pipeline(
      rateLimit({ limiter: deps.rateLimiter, limit: deps.limits.rateLimit, windowMs: deps.limits.rateWindowMs, now: deps.now, ...(deps.log ? { log: deps.log } : {}) }),
      // Only the methods of the operations with a request body read one (POST): elsewhere it is ignored.
      jsonBody(
        // Every resolver operation with a body requires one (did-resolver.yaml `requestBody.required`).
        { limit: BODY_LIMIT_BYTES, takesBody: (req) => bodyMethods.has(req.method), needsBody: (req) => bodyMethods.has(req.method) },
        {
          missing: () => new ResolverError(400, 'invalid_request', 'the request needs a JSON body'),
          unsupported: (coding) => new ResolverError(415, 'unsupported_content_encoding', unsupportedCodingMessage(coding)),
          corrupt: (coding) => new ResolverError(400, 'invalid_body_encoding', corruptBodyMessage(coding)),
          loneSurrogate: (at) => new ResolverError(400, 'invalid_request', loneSurrogateMessage(at)),
        },
      ),
      validator,
    ),
  );

  // Resolution first: the router tries layers in order, and this is the hot path.
  app.get('/1.0/identifiers/:did', resolveRoute(ctx));
  app.get('/health', service.health);
  app.get('/openapi.json', service.openapi);
  app.get('/docs', service.docs);
  app.use('/docs', ...service.docsAssets());
  app.get('/v1/dids/stellar/:did', registry.getRecord);
  app.post('/v1/dids/stellar', registry.register);
  app.post('/v1/dids/stellar/submit', registry.submitAny);
  app.post('/v1/dids/stellar/:did/update', registry.update);
  app.post('/v1/dids/stellar/:did/transfer', registry.transfer);
  app.post('/v1/dids/stellar/:did/deactivate', registry.deactivate);
  app.post('/v1/proof/challenge', proof.challenge);
  app.post('/v1/proof/verify', proof.verify);

  app.use(notFound());
  app.use(errorHandler({ ...(deps.log ? { log: deps.log } : {}), allowOf: allowLookup(spec) }));
  return app;
}
