// The one reading of a description: every operation with what the platform needs to serve it. No other module
// walks `paths` or follows a `$ref`.
import { readFileSync } from 'node:fs';
import type { oas31 } from 'openapi3-ts';
import YAML from 'yaml';
import { type Bounds, compileBounds, isObject, type Json } from './bounds.ts';

export type OpenApiDocument = oas31.OpenAPIObject & {
  info: oas31.InfoObject & Record<string, unknown>;
  paths: oas31.PathsObject;
  components: oas31.ComponentsObject;
};

export const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
export type Method = (typeof METHODS)[number];

/** Which rate-limit bucket an operation draws from (vault-api.yaml "Rate limits"). */
export type Bucket = 'read' | 'write' | 'ip' | 'none';

/** One branch of a request body: prepare fields, or `{signedXdr}` alone. */
export interface BodyBranch {
  mode: 'prepare' | 'submit';
  required: ReadonlySet<string>;
  /** Its properties. */
  fields: ReadonlyMap<string, oas31.SchemaObject>;
}

export interface Parameter {
  name: string;
  required: boolean;
  schema: oas31.SchemaObject;
  source: oas31.ParameterObject;
}

export interface Operation {
  operationId: string;
  method: Method;
  /** `/contracts/vault/{owner}`. */
  template: string;
  /** `security: []`: no key. */
  public: boolean;
  /** The security requirements include `{}` (keyless callers are limited per client IP). */
  keyOptional: boolean;
  /** `x-required-scope`, `x-required-role`. */
  scope?: string;
  role?: string;
  bucket: Bucket;
  /** Declares the `Idempotency-Key` header. */
  idempotent: boolean;
  body?: { required: boolean; branches: readonly BodyBranch[]; bounds: Bounds };
  parameters: { path: readonly Parameter[]; query: readonly Parameter[]; header: readonly Parameter[] };
  /** For what the model does not carry (examples: scripts/mock-front.ts). */
  source: oas31.OperationObject;
}

/** One path of the description as one Express route. */
export interface PathRoute {
  template: string;
  /** `/contracts/vault/:owner`. */
  expressPath: string;
  /** The declared methods (HEAD wherever GET), as `Allow` lists them. */
  allow: string;
  /** A path, as sent or percent-decoded, is the template with each parameter fitting its pattern. */
  matches(path: string): boolean;
  /** A path has the template's shape (each parameter one non-empty segment). */
  fits(path: string): boolean;
  operations: readonly Operation[];
}

export interface ApiModel {
  document: OpenApiDocument;
  title: string;
  version: string;
  operations: ReadonlyMap<string, Operation>;
  /** Most specific first (a literal segment before a parameter). */
  routes: readonly PathRoute[];
  /** `components.headers.X-Request-ID.schema.maxLength`. */
  requestIdMaxLength: number;
  /** A `components` extension (`x-removed-routes`, `x-error-codes`). */
  extension(name: `x-${string}`): unknown;
  /** `route` alone for the validator: its components, and HEAD declared as its GET. */
  validatorDocument(route: PathRoute): OpenApiDocument;
}

/** Follows local `$ref`s (`#/components/…`) to the node they name; `{}` when there is none. */
export function resolve<T = Json>(doc: OpenApiDocument, node: unknown): T {
  let current = node;
  for (let hops = 0; isObject(current) && typeof current['$ref'] === 'string' && hops < 20; hops++) {
    const ref = current['$ref'];
    if (!ref.startsWith('#/')) throw new Error(`external $ref ${ref} is not supported`);
    const parts = ref
      .slice(2)
      .split('/')
      .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
    current = parts.reduce<unknown>((at, part) => (isObject(at) ? at[part] : undefined), doc);
  }
  return (isObject(current) ? current : {}) as T;
}

/** `{owner}` → `:owner`. */
export const toExpressPath = (template: string): string => template.replace(/\{([^}/]+)\}/g, ':$1');

/** Most specific first: a parameter after every literal (`:` read as `~`), a route before those it prefixes. */
export function compareRoutes(a: string, b: string): number {
  const e1 = a.replace(/\/:/g, '/~');
  const e2 = b.replace(/\/:/g, '/~');
  if (e1.startsWith(e2)) return -1;
  if (e2.startsWith(e1)) return 1;
  return e1 > e2 ? 1 : -1;
}

/** A path percent-decoded; `''` (no path) when its encoding is malformed. */
function decoded(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return '';
  }
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The template as an anchored expression, each parameter its schema's pattern (anchors removed) or one segment. */
function templateMatcher(template: string, pathParams: ReadonlyMap<string, Parameter>): RegExp {
  const source = template
    .split(/(\{[^}/]+\})/)
    .map((part) => {
      const name = /^\{([^}/]+)\}$/.exec(part)?.[1];
      if (name === undefined) return escapeRegExp(part);
      const pattern = pathParams.get(name)?.schema.pattern;
      return typeof pattern === 'string' ? `(?:${pattern.replace(/^\^/, '').replace(/\$$/, '')})` : '[^/]+';
    })
    .join('');
  return new RegExp(`^${source}$`);
}

function parametersOf(doc: OpenApiDocument, item: oas31.PathItemObject, op: oas31.OperationObject) {
  const all = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p) => resolve<oas31.ParameterObject>(doc, p));
  const of = (where: string): Parameter[] =>
    all
      .filter((p) => p.in === where)
      .map((p) => ({
        name: p.name,
        required: p.required === true,
        schema: resolve<oas31.SchemaObject>(doc, p.schema),
        source: p,
      }));
  return { path: of('path'), query: of('query'), header: of('header') };
}

function bodyOf(doc: OpenApiDocument, op: oas31.OperationObject, seen: Map<unknown, Bounds>): Operation['body'] {
  if (!op.requestBody) return undefined;
  const body = resolve<oas31.RequestBodyObject>(doc, op.requestBody);
  const media = body.content?.['application/json'];
  if (!media) return undefined;
  const schema = resolve<oas31.SchemaObject>(doc, media.schema);
  const branches = (schema.oneOf ?? [schema]).map((v): BodyBranch => {
    const s = resolve<oas31.SchemaObject>(doc, v);
    const required = new Set(s.required ?? []);
    return {
      mode: required.has('signedXdr') ? 'submit' : 'prepare',
      required,
      fields: new Map(Object.entries(s.properties ?? {}).map(([k, v]) => [k, resolve<oas31.SchemaObject>(doc, v)])),
    };
  });
  return { required: body.required === true, branches, bounds: compileBounds((n) => resolve(doc, n), schema, seen) };
}

/** vault-api.yaml "Rate limits": reads are GET and tag `Reads`; `/auth/*` is per client IP, its preflights free. */
function bucketOf(method: Method, template: string, tags: readonly string[], isPublic: boolean): Bucket {
  if (isPublic) return template.startsWith('/auth/') && method !== 'options' ? 'ip' : 'none';
  return method === 'get' || tags.includes('Reads') ? 'read' : 'write';
}

function operationOf(
  doc: OpenApiDocument,
  template: string,
  method: Method,
  item: oas31.PathItemObject,
  seen: Map<unknown, Bounds>,
): Operation {
  const op = item[method] as oas31.OperationObject & { 'x-required-scope'?: unknown; 'x-required-role'?: unknown };
  if (typeof op.operationId !== 'string') throw new Error(`${method.toUpperCase()} ${template} has no operationId`);
  const security = op.security ?? doc.security;
  const isPublic = Array.isArray(security) && security.length === 0;
  const keyOptional = !isPublic && Array.isArray(security) && security.some((r) => Object.keys(r).length === 0);
  const parameters = parametersOf(doc, item, op);
  const body = bodyOf(doc, op, seen);
  return {
    operationId: op.operationId,
    method,
    template,
    public: isPublic,
    keyOptional,
    ...(typeof op['x-required-scope'] === 'string' ? { scope: op['x-required-scope'] } : {}),
    ...(typeof op['x-required-role'] === 'string' ? { role: op['x-required-role'] } : {}),
    bucket: bucketOf(method, template, op.tags ?? [], isPublic),
    idempotent: parameters.header.some((p) => p.name.toLowerCase() === 'idempotency-key'),
    ...(body ? { body } : {}),
    parameters,
    source: op,
  };
}

function routeOf(doc: OpenApiDocument, template: string, seen: Map<unknown, Bounds>): PathRoute | undefined {
  const item = doc.paths[template] ?? {};
  const operations = METHODS.filter((m) => item[m] !== undefined).map((m) => operationOf(doc, template, m, item, seen));
  if (operations.length === 0) return undefined;
  const methods = operations.map((o) => o.method.toUpperCase());
  if (methods.includes('GET') && !methods.includes('HEAD')) methods.splice(methods.indexOf('GET') + 1, 0, 'HEAD');
  const pathParams = new Map(operations.flatMap((o) => o.parameters.path).map((p) => [p.name, p]));
  const matcher = templateMatcher(template, pathParams);
  const shape = templateMatcher(template, new Map());
  return {
    template,
    expressPath: toExpressPath(template),
    allow: methods.join(', '),
    matches: (path) => matcher.test(path) || matcher.test(decoded(path)),
    fits: (path) => shape.test(path),
    operations,
  };
}

/** The components (`#/components/<kind>/<name>`) reachable from `node`, followed through the components. */
function reachableComponents(doc: OpenApiDocument, node: unknown): Record<string, Json> {
  const picked: Record<string, Json> = {};
  const stack: unknown[] = [node];
  while (stack.length > 0) {
    const at = stack.pop();
    if (typeof at !== 'object' || at === null) continue;
    stack.push(...Object.values(at));
    const [, kind, name] = /^#\/components\/([^/]+)\/([^/]+)$/.exec(String((at as Json)['$ref'])) ?? [];
    if (kind === undefined || name === undefined || Object.hasOwn(picked[kind] ?? {}, name)) continue;
    const target = ((doc.components as Json)[kind] as Json | undefined)?.[name];
    (picked[kind] ??= {})[name] = target;
    stack.push(target);
  }
  return picked;
}

function validatorDocument(doc: OpenApiDocument, route: PathRoute): OpenApiDocument {
  const item = { ...doc.paths[route.template] };
  if (item.get && !item.head) item.head = item.get;
  const whole = Object.entries(doc.components).filter(([kind]) => kind === 'securitySchemes' || kind.startsWith('x-'));
  const components = { ...reachableComponents(doc, item), ...Object.fromEntries(whole) };
  return structuredClone({ ...doc, components, paths: { [route.template]: item } });
}

/** Builds the model of `doc`; throws on what the platform cannot serve (an operation without an id). */
export function buildModel(doc: OpenApiDocument): ApiModel {
  const seen = new Map<unknown, Bounds>();
  const routes = Object.keys(doc.paths)
    .map((t) => routeOf(doc, t, seen))
    .filter((r): r is PathRoute => r !== undefined)
    .sort((a, b) => compareRoutes(a.expressPath, b.expressPath));
  const operations = new Map(routes.flatMap((r) => r.operations).map((o) => [o.operationId, o]));
  const requestId = resolve<oas31.HeaderObject>(doc, doc.components?.headers?.['X-Request-ID']);
  const max = resolve<oas31.SchemaObject>(doc, requestId.schema).maxLength;
  return {
    document: doc,
    title: String(doc.info.title),
    version: String(doc.info.version),
    operations,
    routes,
    get requestIdMaxLength() {
      // A bound that is not a positive integer would make requestIds' pattern a literal that refuses every id.
      if (max === undefined || !Number.isInteger(max) || max < 1)
        throw new Error('the description declares no components.headers.X-Request-ID maxLength of 1 or more');
      return max;
    },
    extension: (name) => (doc.components as Json)[name],
    validatorDocument: (route) => validatorDocument(doc, route),
  };
}

/** The model of `spec/<name>.yaml`; each description's module (vault-model.ts, resolver-model.ts) holds its one. */
export function loadModel(name: 'vault-api' | 'did-resolver'): ApiModel {
  return buildModel(YAML.parse(readFileSync(new URL(`../../spec/${name}.yaml`, import.meta.url), 'utf8')));
}
