// The vault API as an Express 5 app over spec/vault-api.yaml, on the platform layer (src/platform/). Order
// of the pipeline, and why:
//
//   legacy base paths (/api/config → /config, before anything reads the URL) → HEAD as GET
//   → metrics + request log (their clocks cover everything, they see every answer) → request id
//   → /metrics, /ready (no key, no rate budget, no body) → /docs (assets are not operations)
//   → removed routes (410, before they can match a template) → CORS headers of /auth/*
//   → one Express route per path of the description (an undeclared path meets the 404 at the end), whose
//     chain is: route matching (an undeclared method → 405) → answer capture (idempotency) → response
//     validation → CORS preflight of /auth/* → API key → rate limit → scopes / admin role → JSON body
//     (512 KiB decoded; gzip, deflate, br) → request validation → Idempotency-Key
//     → the operation's handler (the route table below, keyed by operationId)
//   → 404 → errors as {error, message}
//
// The platform (src/platform/app.ts) builds that pipeline; this file gives it the pieces.
//
// Everything up to the scopes needs only the request line and the headers: a keyless caller learns nothing
// about a body (401 before a 400 invalid_json or a 413; docs/vault-api.md "Authentication"), every
// keyed request is counted before its body is read or anything costly runs, and a key without the
// operation's scope gets its 403 whatever it sent. The public routes (/health, /config, /auth/*) pass the
// key and scope checks untouched (/auth/* is counted per client IP) and have their bodies parsed as
// before. Response validation (tests) covers every answer after route matching, errors included, so a
// status the spec does not declare for an operation is caught. Only the wallet-proof routes speak CORS:
// their headers are set before anything can fail, so a page reads every answer; their preflight is
// answered from the origin allow-list alone, with no key, no rate budget, no request validation.
import type express from 'express';
import type { Router } from 'express';
import type { operations } from '../generated/vault-api.ts';
import { allowLookup } from '../openapi/allow.ts';
import { createMetrics, type WriteMode } from '../observability/index.ts';
import { createServiceApp, type RouteTable } from '../platform/app.ts';
import {
  corruptBodyMessage,
  jsonBody,
  loneSurrogateMessage,
  tooDeepMessage,
  unsupportedCodingMessage,
} from '../platform/body.ts';
import { errorCodeOf } from '../platform/errors.ts';
import { loadVaultSpec } from '../platform/spec.ts';
import { VaultErrors, peekAuth, type VaultAppDeps } from './context.ts';
import { authenticate } from './middleware/auth.ts';
import { corsHeaders, corsPreflight } from './middleware/cors.ts';
import { BODY_LIMIT_BYTES, errorHandler, notFoundError } from './middleware/errors.ts';
import { captureAnswers, idempotency } from './middleware/idempotency.ts';
import { legacyBasePaths, checkLegacyBasePaths, DEFAULT_LEGACY_BASE_PATHS } from './middleware/legacy-base-paths.ts';
import { indexOperations, operationOf, routeOf } from './middleware/openapi.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { removedRoutes, removedRoutesOf } from './middleware/removed-routes.ts';
import { requireScopes } from './middleware/scopes.ts';
import { strictIntegerQuery } from './middleware/strict-query.ts';
import { contractRoutes } from './routes/contracts.ts';
import { keyRoutes } from './routes/keys.ts';
import { createDocsRoutes, publicRoutes } from './routes/public.ts';

const keyIdOf = (req: express.Request): string | undefined => peekAuth(req)?.keyId;
const VERIFIES_DOCUMENTS: ReadonlySet<string> = new Set(['verifyCredential', 'verifyPresentation']);
/** The deepest a verification request body may nest (vault-api.yaml VerifyCredentialRequest, VerifyPresentationRequest). */
const MAX_VERIFIED_BODY_DEPTH = 64;
/** Operations a layer answers: the docs page (mounted before the routes), the CORS preflights of /auth/*. */
const ANSWERED_BY_LAYERS: readonly string[] = ['getDocs', 'preflightAuthChallenge', 'preflightCreateKeyFromProof'];

export interface VaultAppOptions {
  /**
   * Answers every contract operation in place of its handler (tests of the platform layer pass a stub
   * router; an operation it does not route meets the 404).
   */
  contractRoutes?: Router;
}

export async function createVaultApp(given: VaultAppDeps, options: VaultAppOptions = {}): Promise<express.Express> {
  const service = `vault-api-${given.profile.network}`;
  // Without a registry from the process (tests of the app alone) the app keeps its own, so /metrics answers;
  // the handlers count into the same one.
  const own = () => createMetrics({ service, domainOf: 'vault-api' });
  const deps: VaultAppDeps = given.metrics ? given : { ...given, metrics: own() };
  const metrics = deps.metrics!;
  const doc = loadVaultSpec();
  const index = indexOperations(doc);

  const removed = removedRoutesOf(doc);
  const prefixes = deps.legacyBasePaths ?? DEFAULT_LEGACY_BASE_PATHS;
  checkLegacyBasePaths(prefixes, Object.keys(doc.paths));
  metrics.buildInfo({
    version: String((doc['info'] as { version?: unknown } | undefined)?.version),
    protocols: () => ({ [deps.profile.network]: deps.chain.client.protocolVersion }),
  });
  // Prepare or submit, on the write routes (the operations that take an Idempotency-Key).
  const modeOf = (req: express.Request): WriteMode | undefined => {
    const body: unknown = req.body;
    if (!operationOf(index, req)?.idempotent || typeof body !== 'object' || body === null) return undefined;
    return 'signedXdr' in body ? 'submit' : 'prepare';
  };

  // Made once, shared by every route's chain.
  const preflight = corsPreflight(deps);
  const keys = authenticate(deps, index);
  const limits = rateLimit(deps, index);
  const scopes = requireScopes(index);
  // strict: false lets a JSON scalar through to request validation ("body must be object", 400
  // invalid_request); only text that is not JSON is `invalid_json`. Only operations with a request
  // body read one: a body elsewhere is ignored, whatever its Content-Encoding.
  const body = jsonBody(
    {
      limit: BODY_LIMIT_BYTES,
      strict: false,
      takesBody: (req) => (operationOf(index, req)?.bodyBranches.length ?? 0) > 0,
      // A presented credential or presentation whose JSON repeats a member name fails verification.
      findDuplicates: (req) => VERIFIES_DOCUMENTS.has(operationOf(index, req)?.operationId ?? ''),
      // …and nests at most so deep: it is canonicalized, hashed and may be answered back (returnCredential).
      maxDepth: MAX_VERIFIED_BODY_DEPTH,
    },
    {
      unsupported: (coding) => VaultErrors.unsupportedContentEncoding(unsupportedCodingMessage(coding)),
      corrupt: (coding) => VaultErrors.invalidBodyEncoding(corruptBodyMessage(coding)),
      loneSurrogate: (at) => VaultErrors.invalidJson(loneSurrogateMessage(at)),
      tooDeep: (depth, max) => VaultErrors.invalidJson(tooDeepMessage(depth, max)),
    },
  );
  const integers = strictIntegerQuery(index);
  const once = idempotency(deps, index);

  // The route table: each operation's handler, by operationId.
  const contracts = contractRoutes(deps);
  const stub = options.contractRoutes;
  const handlers: RouteTable<operations> = {
    ...publicRoutes(deps, doc),
    ...keyRoutes(deps),
    ...(stub ? Object.fromEntries(Object.keys(contracts).map((id) => [id, stub])) : contracts),
  };

  return createServiceApp({
    spec: doc,
    validator: {
      allErrors: true,
      validateResponses: deps.validateResponses === true,
      warm: deps.warmValidators === true,
    },
    // req.ip, the key of the /auth/* per-IP bucket: the forwarded client address only from trusted proxies.
    trustProxy: deps.trustProxy ?? false,
    headEnvelope: (error, message) => ({ error, message }),
    rewrite: [legacyBasePaths(prefixes, doc.paths)],
    metrics: { metrics, service, routeOf, modeOf },
    requestLog: deps.logger
      ? { logger: deps.logger, service, getKeyId: keyIdOf, routeOf, getErrorCode: errorCodeOf }
      : undefined,
    ready: {
      checks: deps.readinessChecks ?? [],
      ...(deps.logger ? { logger: deps.logger } : {}),
      ...(deps.draining ? { draining: deps.draining } : {}),
    },
    beforeRoutes: [
      // The docs assets are not operations.
      { path: '/docs', handlers: [createDocsRoutes(deps)] },
      // 410, before they can match a template.
      removedRoutes(removed),
      corsHeaders(deps),
    ],
    layers: (route) => [
      captureAnswers,
      ...(route.responses ? [route.responses] : []),
      preflight,
      keys,
      limits,
      scopes,
      body,
      integers,
      ...route.requests,
      once,
    ],
    handlers,
    answeredByLayers: ANSWERED_BY_LAYERS,
    notFound: notFoundError,
    errorHandler: errorHandler(deps, index, allowLookup(doc as unknown as Record<string, unknown>)),
  });
}
