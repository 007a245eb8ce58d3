// spec/vault-api.yaml's operations as the vault API's middleware need to know them (key, scope, rate-limit
// bucket, idempotency, body branches); the description itself is the platform's (src/platform/spec.ts).
import type { Request } from 'express';
import { resolveRef, type OpenApiDocument } from '../../platform/spec.ts';

export type { OpenApiDocument };

type Json = Record<string, unknown>;

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

const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'options'] as const;

const resolve = (doc: OpenApiDocument, node: unknown): Json => resolveRef(doc, node);

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
      const keyOptional =
        !isPublic &&
        Array.isArray(security) &&
        security.some((r) => typeof r === 'object' && r !== null && Object.keys(r).length === 0);
      const params = [...((item['parameters'] as unknown[]) ?? []), ...((op['parameters'] as unknown[]) ?? [])].map(
        (p) => resolve(doc, p),
      );
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
