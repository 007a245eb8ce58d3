// The vault API as an Express 5 app over spec/vault-api.yaml, on the platform layer (src/platform/). Order
// of the pipeline, and why:
//
//   the front, an Express router (src/platform/app.ts):
//     legacy base paths (/api/config → /config, before anything reads the URL)
//     → metrics + request log (their clocks cover everything, they see every answer) → request id
//     → /metrics, /ready (no key, no rate budget, no body) → removed routes (410, before they can match a
//     template) → CORS headers of /auth/*
//   → /docs (assets are not operations; no removed route or CORS route lies under /docs, so the two steps
//     above pass its requests untouched)
//   → one Express route per path of the description (an undeclared path meets the 404 at the end), whose
//     chain is the method gate (an undeclared method → 405, OPTIONS → 204, both with `Allow`), then for the
//     operation matched, only the steps that act on it: answer capture (operations with an Idempotency-Key)
//     → CORS preflight (the OPTIONS of /auth/*) → API key → rate limit → scopes / admin role → JSON body
//     (operations with a body; 512 KiB decoded; gzip, deflate, br) → strict integer query (operations with
//     integer query parameters) → request (and response) validation → Idempotency-Key (operations that take one)
//     → the operation's handler (the route table below, keyed by operationId)
//   → 404 → errors as {error, message}
import type express from 'express';
import type { Router } from 'express';
import type { operations } from '../generated/vault-api.ts';
import { createMetrics, type WriteMode } from '../observability/index.ts';
import { createServiceApp, operationOf, routeOf, type RouteTable } from '../platform/app.ts';
import {
  corruptBodyMessage,
  jsonBody,
  loneSurrogateMessage,
  tooDeepMessage,
  unsupportedCodingMessage,
} from '../platform/body.ts';
import { errorCodeOf } from '../platform/errors.ts';
import type { Operation } from '../platform/operations.ts';
import { vaultModel } from '../platform/vault-model.ts';
import { VaultErrors, peekAuth, type VaultAppDeps } from './context.ts';
import { authenticate } from './middleware/auth.ts';
import { CORS_ROUTES, corsHeaders, corsPreflight } from './middleware/cors.ts';
import { BODY_LIMIT_BYTES, KEYLESS_BODY_LIMIT_BYTES, errorHandler, notFoundError } from './middleware/errors.ts';
import { captureAnswers, idempotency } from './middleware/idempotency.ts';
import { legacyBasePaths, checkLegacyBasePaths, DEFAULT_LEGACY_BASE_PATHS } from './middleware/legacy-base-paths.ts';
import { rateLimit } from './middleware/rate-limit.ts';
import { removedRoutes, removedRoutesOf } from './middleware/removed-routes.ts';
import { requireScopes } from './middleware/scopes.ts';
import { contractRoutes } from './routes/contracts.ts';
import { keyRoutes } from './routes/keys.ts';
import { createDocsRoutes, publicRoutes } from './routes/public.ts';
import { vaultServiceName } from '../domain.ts';

/** Keyless callers of the verification routes get a smaller body: its cost is bounded per request. */
const bodyLimitOf = (req: express.Request): number =>
  operationOf(req)?.keyOptional && !peekAuth(req) ? KEYLESS_BODY_LIMIT_BYTES : BODY_LIMIT_BYTES;
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

/** Prepare or submit, on the write routes (the operations that take an Idempotency-Key). */
function modeOf(req: express.Request): WriteMode | undefined {
  const body: unknown = req.body;
  if (!operationOf(req)?.idempotent || typeof body !== 'object' || body === null) return undefined;
  return 'signedXdr' in body ? 'submit' : 'prepare';
}

/**
 * The JSON body reader. strict: false lets a JSON scalar through to request validation ("body must be
 * object", 400 invalid_request); only text that is not JSON is `invalid_json`. Mounted only on operations
 * with a request body: a body elsewhere is ignored, whatever its Content-Encoding.
 */
function bodyReader(): express.RequestHandler {
  return jsonBody(
    {
      limit: bodyLimitOf,
      strict: false,
      // A presented credential or presentation whose JSON repeats a member name fails verification.
      findDuplicates: (req) => VERIFIES_DOCUMENTS.has(operationOf(req)?.operationId ?? ''),
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
}

type Layers = (op: Operation, validate: express.RequestHandler[]) => express.RequestHandler[];

/**
 * The layers of each operation, each made once and shared by every route's chain. A step is left out where
 * it would pass every request untouched: the answer capture and the Idempotency-Key where the operation
 * takes no key, the preflight off the OPTIONS of /auth/*, and the body where the operation has none.
 */
function operationLayers(deps: VaultAppDeps): Layers {
  const preflight = corsPreflight(deps);
  const keys = authenticate(deps);
  const limits = rateLimit(deps);
  const scopes = requireScopes();
  const body = bodyReader();
  const once = idempotency(deps);
  return (op, validate) => [
    ...(op.idempotent ? [captureAnswers] : []),
    ...(op.method === 'options' && Object.hasOwn(CORS_ROUTES, op.template) ? [preflight] : []),
    keys,
    limits,
    scopes,
    ...(op.body ? [body] : []),
    ...validate,
    ...(op.idempotent ? [once] : []),
  ];
}

export async function createVaultApp(given: VaultAppDeps, options: VaultAppOptions = {}): Promise<express.Express> {
  const service = vaultServiceName(given.profile.network);
  // Without a registry from the process (tests of the app alone) the app keeps its own, so /metrics answers;
  // the handlers count into the same one.
  const own = () => createMetrics({ service, domainOf: 'vault-api' });
  const deps: VaultAppDeps = given.metrics ? given : { ...given, metrics: own() };
  const metrics = deps.metrics!;
  const model = vaultModel;

  const removed = removedRoutesOf(model);
  const prefixes = deps.legacyBasePaths ?? DEFAULT_LEGACY_BASE_PATHS;
  checkLegacyBasePaths(
    prefixes,
    model.routes.map((r) => r.template),
  );
  metrics.buildInfo({
    version: model.version,
    protocols: () => ({ [deps.profile.network]: deps.chain.client.protocolVersion }),
  });
  // The route table: each operation's handler, by operationId.
  const contracts = contractRoutes(deps);
  const stub = options.contractRoutes;
  const handlers: RouteTable<operations> = {
    ...publicRoutes(deps, model.document),
    ...keyRoutes(deps),
    ...(stub ? Object.fromEntries(Object.keys(contracts).map((id) => [id, stub])) : contracts),
  };

  return createServiceApp({
    model,
    validator: {
      allErrors: true,
      validateResponses: deps.validateResponses === true,
      ...(deps.warmValidators ? { warm: deps.warmValidators } : {}),
      ...(deps.validators ? { pool: deps.validators } : {}),
    },
    // req.ip, the key of the /auth/* per-IP bucket: the forwarded client address only from trusted proxies.
    trustProxy: deps.trustProxy ?? false,
    headEnvelope: (error, message) => ({ error, message }),
    rewrite: [legacyBasePaths(prefixes, model)],
    metrics: { metrics, service, routeOf, modeOf },
    requestLog: deps.logger
      ? { logger: deps.logger, service, getKeyId: keyIdOf, routeOf, getErrorCode: errorCodeOf }
      : undefined,
    ready: {
      checks: deps.readinessChecks ?? [],
      ...(deps.logger ? { logger: deps.logger } : {}),
      ...(deps.draining ? { draining: deps.draining } : {}),
    },
    front: [
      // 410, before they can match a template.
      removedRoutes(removed),
      corsHeaders(deps),
    ],
    // The docs assets are not operations.
    beforeRoutes: [{ path: '/docs', handlers: [createDocsRoutes(deps)] }],
    layers: operationLayers(deps),
    handlers,
    answeredByLayers: ANSWERED_BY_LAYERS,
    notFound: notFoundError,
    errorHandler: errorHandler(deps),
  });
}
