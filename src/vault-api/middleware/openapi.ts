// spec/vault-api.yaml at run time: the parsed description, an index of its operations (what the auth,
// scope, rate-limit and idempotency middleware need to know about each one), and the pieces of
// express-openapi-validator, taken apart so the platform middleware can run between them.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Request, RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import YAML from 'yaml';
import { ADDRESS_FORMATS } from '../../openapi/formats.ts';
import { collectionBounds } from '../../openapi/collection-bounds.ts';
import { withCanonicalContentType } from '../../openapi/content-type.ts';
import { rememberCompiledRoutes } from '../../openapi/route-cache.ts';

export { rememberCompiledRoutes } from '../../openapi/route-cache.ts';

export const VAULT_SPEC_PATH = fileURLToPath(new URL('../../../spec/vault-api.yaml', import.meta.url));

type Json = Record<string, unknown>;

/** The parsed description (OpenAPI 3.1). */
export interface OpenApiDocument extends Json {
  openapi: string;
  paths: Record<string, Json>;
  components: Json;
}

/** Which rate-limit bucket an operation draws from (vault-api.yaml "Rate limits"). */
export type Bucket = 'read' | 'write' | 'ip' | 'none';

/** One branch of a request body: prepare fields, or `{signedXdr}` alone. */
export interface BodyBranch {
  mode: 'prepare' | 'submit';
  properties: ReadonlySet<string>;
  required: ReadonlySet<string>;
}

/** What the platform layer needs to know about one operation of the description. */
export interface OperationInfo {
  operationId: string;
  method: string;
  path: string;
  /** `security: []`: no key. */
  public: boolean;
  /** The security requirements include `{}`: a key is optional (keyless callers are limited per client IP). */
  keyOptional: boolean;
  /** `x-required-scope`. */
  scope?: string;
  /** `x-required-role`. */
  role?: string;
  bucket: Bucket;
  /** Declares the `Idempotency-Key` header. */
  idempotent: boolean;
  /** The request body's schema branches (one for a plain body, two for prepare | submit). */
  bodyBranches: BodyBranch[];
  /** Query parameters declared as integers: they must be written as plain decimal digits. */
  integerQuery: string[];
}

let cachedSpec: OpenApiDocument | undefined;

/** The description, parsed once per process. Callers must not mutate it. */
export function loadVaultSpec(): OpenApiDocument {
  cachedSpec ??= YAML.parse(readFileSync(VAULT_SPEC_PATH, 'utf8')) as OpenApiDocument;
  return cachedSpec;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'options'] as const;

function resolve(doc: OpenApiDocument, node: unknown): Json {
  let current = node as Json;
  for (let hops = 0; typeof current?.['$ref'] === 'string' && hops < 10; hops++) {
    const ref = current['$ref'] as string;
    if (!ref.startsWith('#/')) throw new Error(`external $ref ${ref} is not supported`);
    current = ref
      .slice(2)
      .split('/')
      .reduce<unknown>((at, part) => (at as Json | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc) as Json;
  }
  return current ?? {};
}

function bodyBranches(doc: OpenApiDocument, op: Json): BodyBranch[] {
  if (!op['requestBody']) return [];
  const body = resolve(doc, op['requestBody']);
  const media = (body['content'] as Json | undefined)?.['application/json'] as Json | undefined;
  if (!media) return [];
  const schema = resolve(doc, media['schema']);
  const variants = Array.isArray(schema['oneOf']) ? (schema['oneOf'] as unknown[]) : [schema];
  return variants.map((v) => {
    const s = resolve(doc, v);
    const required = new Set((s['required'] as string[] | undefined) ?? []);
    return {
      mode: required.has('signedXdr') ? 'submit' : 'prepare',
      properties: new Set(Object.keys((s['properties'] as Json | undefined) ?? {})),
      required,
    };
  });
}

/**
 * The bucket of an operation. Reads: GET and the POST reads (tag `Reads`); writes: every other POST,
 * PATCH and DELETE (prepare, submit, key administration). Public operations are not limited per key;
 * the wallet-proof routes (`/auth/*`) are limited per client IP, their CORS preflights (OPTIONS) not at all.
 */
function bucketOf(method: string, path: string, op: Json, isPublic: boolean): Bucket {
  if (isPublic) return path.startsWith('/auth/') && method !== 'options' ? 'ip' : 'none';
  const tags = (op['tags'] as string[] | undefined) ?? [];
  return method === 'get' || tags.includes('Reads') ? 'read' : 'write';
}

/** Every operation of the description by operationId. */
export function indexOperations(doc: OpenApiDocument): Map<string, OperationInfo> {
  const index = new Map<string, OperationInfo>();
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method] as Json | undefined;
      if (!op) continue;
      const security = (op['security'] ?? doc['security']) as unknown[] | undefined;
      const isPublic = Array.isArray(security) && security.length === 0;
      const keyOptional = !isPublic && Array.isArray(security) && security.some((r) => typeof r === 'object' && r !== null && Object.keys(r).length === 0);
      const params = [...((item['parameters'] as unknown[]) ?? []), ...((op['parameters'] as unknown[]) ?? [])].map((p) => resolve(doc, p));
      const info: OperationInfo = {
        operationId: op['operationId'] as string,
        method: method.toUpperCase(),
        path,
        public: isPublic,
        keyOptional,
        bucket: bucketOf(method, path, op, isPublic),
        idempotent: params.some((p) => p['in'] === 'header' && String(p['name']).toLowerCase() === 'idempotency-key'),
        bodyBranches: bodyBranches(doc, op),
        integerQuery: params
          .filter((p) => p['in'] === 'query' && resolve(doc, p['schema'])['type'] === 'integer')
          .map((p) => String(p['name'])),
      };
      if (typeof op['x-required-scope'] === 'string') info.scope = op['x-required-scope'];
      if (typeof op['x-required-role'] === 'string') info.role = op['x-required-role'];
      index.set(info.operationId, info);
    }
  }
  return index;
}

interface OpenApiMetadata {
  openApiRoute?: string;
  schema?: { operationId?: string };
}

/** The operation the validator matched for this request (undefined before the metadata middleware). */
export function operationOf(index: Map<string, OperationInfo>, req: Request): OperationInfo | undefined {
  const id = (req as Request & { openapi?: OpenApiMetadata }).openapi?.schema?.operationId;
  return id === undefined ? undefined : index.get(id);
}

/** The description's route template of this request, for logs (never the concrete path). */
export function routeOf(req: Request): string | undefined {
  return (req as Request & { openapi?: OpenApiMetadata }).openapi?.openApiRoute;
}

export interface ValidatorPieces {
  /** Route matching: sets `req.openapi`; undeclared path → 404, undeclared method → 405. */
  route: RequestHandler[];
  /** Request validation (parameters, headers, body): oversized collections first, then the full check. */
  requests: RequestHandler[];
  /** Response validation, when asked for. */
  responses?: RequestHandler;
}

/**
 * express-openapi-validator's middleware, by name. It installs them as one array (route matching,
 * security, request validation, response validation); taking them apart lets authentication, rate limits
 * and scopes run after route matching and before request validation, and lets response validation cover
 * every answer sent after route matching, errors included.
 */
export function validatorPieces(doc: OpenApiDocument, options: { validateResponses: boolean }): ValidatorPieces {
  rememberCompiledRoutes();
  // Compiled before the validator sees the description: it annotates what it is given.
  const bounds = collectionBounds(doc);
  const all = OpenApiValidator.middleware({
    apiSpec: doc as never,
    validateApiSpec: true,
    // allErrors: the error mapping picks the most specific code among all failures of the body's branch.
    // That costs ajv a pass over every item, so `bounds` first refuses any collection over its spec bound
    // (src/openapi/collection-bounds.ts): what reaches ajv is at most 512 KiB of small collections.
    validateRequests: { allErrors: true, allowUnknownQueryParameters: false },
    validateResponses: options.validateResponses ? { allErrors: true } : false,
    validateSecurity: false,
    // 'full': calendar-checked dates (no 2026-02-30); the default 'fast' checks only their shape.
    ajvFormats: { mode: 'full' },
    // stellar-account, stellar-contract: whole StrKeys, checksum included (src/openapi/formats.ts).
    formats: ADDRESS_FORMATS,
    fileUploader: false,
    ignoreUndocumented: false,
  }) as unknown as RequestHandler[];
  const named = (name: string): RequestHandler => {
    const found = all.find((m) => m.name === name);
    if (!found) throw new Error(`express-openapi-validator has no ${name}: check its version`);
    return found;
  };
  return {
    route: [named('pathParamsMiddleware'), named('metadataMiddleware')],
    // One compiled validator per route and kind of body, not per Content-Type string (src/openapi/content-type.ts).
    requests: [bounds, withCanonicalContentType(named('requestMiddleware'))],
    ...(options.validateResponses ? { responses: named('responseMiddleware') } : {}),
  };
}
