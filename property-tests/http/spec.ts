// Both OpenAPI descriptions as the HTTP-level properties read them: every operation (so a route added to a
// spec is covered without touching the tests), a valid example request per operation, the machine-readable
// error codes (`components.x-error-codes`), and the checks that an error answer is the spec's error body.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

export type Json = Record<string, unknown>;
export type ApiName = 'vault' | 'resolver';

const SPEC_FILES: Record<ApiName, string> = {
  vault: fileURLToPath(new URL('../../spec/vault-api.yaml', import.meta.url)),
  resolver: fileURLToPath(new URL('../../spec/did-resolver.yaml', import.meta.url)),
};

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
export type Method = (typeof METHODS)[number];

export interface SpecDoc {
  api: ApiName;
  doc: Json;
  operations: SpecOperation[];
  /** `components.x-error-codes`: code → status, and the patterned codes (`vcs[i].vcId_too_long`). */
  errorCodes: ErrorCodeTable;
}

export interface ErrorCodeTable {
  exact: Map<string, number>;
  patterns: { re: RegExp; status: number; code: string }[];
}

export interface SpecParam {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Json;
  example?: unknown;
}

export interface SpecOperation {
  api: ApiName;
  method: Method;
  /** Path template as in the spec (`/contracts/vault/{owner}`). */
  path: string;
  operationId: string;
  /**
   * `none` (security: []), `key`, `optional` (the requirements include `{}`: keyless callers are served,
   * limited per IP), or `admin` (`x-required-role: admin`).
   */
  auth: 'none' | 'key' | 'optional' | 'admin';
  params: SpecParam[];
  /** The JSON request body: its schema (the prepare branch of a prepare | submit body) and an example. */
  body?: { schema: Json; example: Json; submitBranch: boolean; required: boolean };
  /** The path declares these methods (for "undeclared method" requests). */
  pathMethods: Method[];
}

const cache = new Map<ApiName, SpecDoc>();

export function loadSpec(api: ApiName): SpecDoc {
  const hit = cache.get(api);
  if (hit) return hit;
  const doc = YAML.parse(readFileSync(SPEC_FILES[api], 'utf8')) as Json;
  const spec: SpecDoc = { api, doc, operations: operationsOf(api, doc), errorCodes: errorCodesOf(doc) };
  cache.set(api, spec);
  return spec;
}

/** Follows local `$ref`s. */
export function deref(doc: Json, node: unknown): Json {
  let cur = node as Json | undefined;
  for (let hops = 0; cur && typeof cur['$ref'] === 'string' && hops < 20; hops++) {
    const ref = cur['$ref'] as string;
    if (!ref.startsWith('#/')) throw new Error(`external $ref ${ref}`);
    cur = ref
      .slice(2)
      .split('/')
      .reduce<unknown>((at, part) => (at as Json | undefined)?.[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc) as
      | Json
      | undefined;
  }
  if (!cur) throw new Error(`unresolvable ${JSON.stringify(node)}`);
  return cur;
}

/** A schema with `$ref` and single-entry `allOf` folded in (enough for these specs' property schemas). */
export function schemaOf(doc: Json, node: unknown): Json {
  const s = deref(doc, node);
  const allOf = s['allOf'] as unknown[] | undefined;
  if (Array.isArray(allOf) && allOf.length > 0) {
    const merged: Json = {};
    for (const part of allOf) Object.assign(merged, schemaOf(doc, part));
    const { allOf: _a, ...rest } = s;
    return { ...merged, ...rest };
  }
  return s;
}

function exampleOf(doc: Json, holder: Json, preferred = 'prepare'): unknown {
  if ('example' in holder) return holder['example'];
  const examples = holder['examples'];
  if (Array.isArray(examples)) return examples[0];
  if (examples && typeof examples === 'object') {
    const map = examples as Record<string, unknown>;
    const name = preferred in map ? preferred : Object.keys(map)[0];
    if (name === undefined) return undefined;
    return deref(doc, map[name])['value'];
  }
  return undefined;
}

function operationsOf(api: ApiName, doc: Json): SpecOperation[] {
  const out: SpecOperation[] = [];
  const paths = doc['paths'] as Record<string, Json>;
  for (const [path, item] of Object.entries(paths)) {
    const pathMethods = METHODS.filter((m) => item[m]);
    for (const method of pathMethods) {
      const op = item[method] as Json;
      const security = (op['security'] ?? doc['security']) as unknown[] | undefined;
      const isPublic = !Array.isArray(security) || security.length === 0;
      const optional =
        !isPublic && security.some((r) => typeof r === 'object' && r !== null && Object.keys(r).length === 0);
      const auth = isPublic ? 'none' : op['x-required-role'] === 'admin' ? 'admin' : optional ? 'optional' : 'key';
      const rawParams = [...((item['parameters'] as unknown[]) ?? []), ...((op['parameters'] as unknown[]) ?? [])];
      const params = rawParams.map((p): SpecParam => {
        const d = deref(doc, p);
        const schema = schemaOf(doc, d['schema'] ?? {});
        const example = exampleOf(doc, d) ?? exampleOf(doc, schema);
        return {
          name: d['name'] as string,
          in: d['in'] as SpecParam['in'],
          required: d['required'] === true,
          schema,
          ...(example !== undefined ? { example } : {}),
        };
      });
      let body: SpecOperation['body'];
      if (op['requestBody']) {
        const rb = deref(doc, op['requestBody']);
        const media = (rb['content'] as Json | undefined)?.['application/json'] as Json | undefined;
        if (media) {
          const top = schemaOf(doc, media['schema']);
          const branches = Array.isArray(top['oneOf'])
            ? (top['oneOf'] as unknown[]).map((b) => schemaOf(doc, b))
            : [top];
          const isSubmit = (b: Json) =>
            ((b['required'] as string[] | undefined) ?? []).includes('signedXdr') &&
            Object.keys((b['properties'] as Json) ?? {}).length === 1;
          const prepare = branches.find((b) => !isSubmit(b)) ?? branches[0]!;
          const example = exampleOf(doc, media) ?? exampleOf(doc, prepare);
          if (example === undefined || typeof example !== 'object' || example === null) {
            throw new Error(
              `${api} ${method.toUpperCase()} ${path}: the request body has no example; the bad-input properties need one to mutate`,
            );
          }
          body = {
            schema: prepare,
            example: example as Json,
            submitBranch: branches.some(isSubmit),
            required: rb['required'] === true,
          };
        }
      }
      out.push({
        api,
        method,
        path,
        operationId: op['operationId'] as string,
        auth,
        params,
        ...(body ? { body } : {}),
        pathMethods,
      });
    }
  }
  return out;
}

function errorCodesOf(doc: Json): ErrorCodeTable {
  const rows = ((doc['components'] as Json)['x-error-codes'] ?? []) as {
    code: string;
    status: number;
    pattern?: string;
  }[];
  const table: ErrorCodeTable = { exact: new Map(), patterns: [] };
  for (const r of rows) {
    if (r.pattern) table.patterns.push({ re: new RegExp(r.pattern), status: r.status, code: r.code });
    else table.exact.set(r.code, r.status);
  }
  return table;
}

/** The status `x-error-codes` gives a code, or undefined when the code is not listed. */
export function statusOfCode(table: ErrorCodeTable, code: string): number | undefined {
  return table.exact.get(code) ?? table.patterns.find((p) => p.re.test(code))?.status;
}

/** An HTTP answer as the properties see it. */
export interface Answer {
  status: number;
  headers: Headers;
  contentType: string;
  text: string;
  /** Parsed JSON when the answer is JSON, else undefined. */
  body: unknown;
}

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Problems with an error answer of the vault API: `{error, message}` exactly, `error` listed in
 * `x-error-codes` with this status. Empty when it conforms.
 */
export function vaultErrorProblems(table: ErrorCodeTable, a: Answer): string[] {
  const problems: string[] = [];
  if (!a.contentType.includes('application/json'))
    problems.push(`content-type ${a.contentType || '(none)'}, expected application/json`);
  const b = a.body;
  if (!isObject(b)) return [...problems, 'the body is not a JSON object'];
  const keys = Object.keys(b).sort().join(',');
  if (keys !== 'error,message') problems.push(`body keys {${keys}}, expected {error, message}`);
  if (typeof b['error'] !== 'string' || typeof b['message'] !== 'string')
    return [...problems, 'error and message must be strings'];
  const listed = statusOfCode(table, b['error']);
  if (listed === undefined) problems.push(`error "${b['error']}" is not in components.x-error-codes`);
  else if (listed !== a.status)
    problems.push(`error "${b['error']}" is listed with status ${listed}, answered ${a.status}`);
  return problems;
}

/** Problems with an error answer of the resolver: `{code, message, details?}`, `code` listed with this status. */
export function resolverErrorProblems(table: ErrorCodeTable, a: Answer): string[] {
  const problems: string[] = [];
  if (!a.contentType.includes('json')) problems.push(`content-type ${a.contentType || '(none)'}, expected JSON`);
  const b = a.body;
  if (!isObject(b)) return [...problems, 'the body is not a JSON object'];
  const extra = Object.keys(b).filter((k) => !['code', 'message', 'details'].includes(k));
  if (extra.length) problems.push(`unexpected body keys ${extra.join(', ')}`);
  if (typeof b['code'] !== 'string' || typeof b['message'] !== 'string')
    return [...problems, 'code and message must be strings'];
  if ('details' in b && !isObject(b['details'])) problems.push('details must be an object');
  const listed = statusOfCode(table, b['code']);
  if (listed === undefined) problems.push(`code "${b['code']}" is not in components.x-error-codes`);
  else if (listed !== a.status)
    problems.push(`code "${b['code']}" is listed with status ${listed}, answered ${a.status}`);
  return problems;
}

/** `didResolutionMetadata.error` → the status did-resolver.yaml gives it on /1.0/identifiers. */
export const RESOLUTION_ERROR_STATUS: Record<string, number> = {
  invalidDid: 400,
  invalidOptions: 400,
  notFound: 404,
  representationNotSupported: 406,
  internalError: 502,
};

/** Problems with a failed resolution: a resolution result whose `didResolutionMetadata.error` fits the status. */
export function resolutionFailureProblems(a: Answer): string[] {
  const b = a.body;
  if (!isObject(b)) return ['the body is not a JSON object'];
  const problems: string[] = [];
  const keys = Object.keys(b).sort().join(',');
  if (keys !== 'didDocument,didDocumentMetadata,didResolutionMetadata')
    problems.push(`body keys {${keys}}, expected a resolution result`);
  const meta = b['didResolutionMetadata'];
  if (!isObject(meta) || typeof meta['error'] !== 'string') return [...problems, 'didResolutionMetadata.error missing'];
  const want = RESOLUTION_ERROR_STATUS[meta['error']];
  if (want === undefined) problems.push(`didResolutionMetadata.error "${meta['error']}" is not one the spec lists`);
  else if (want !== a.status)
    problems.push(`didResolutionMetadata.error "${meta['error']}" answered with ${a.status}, the spec says ${want}`);
  if (b['didDocument'] !== null) problems.push('didDocument must be null');
  return problems;
}

/** Sends one request and reads the answer whatever its type. */
export async function send(
  base: string,
  req: { method: string; path: string; headers?: Record<string, string>; body?: string | Uint8Array },
): Promise<Answer> {
  const res = await fetch(base + req.path, {
    method: req.method,
    headers: req.headers ?? {},
    ...(req.body !== undefined ? { body: typeof req.body === 'string' ? req.body : Buffer.from(req.body) } : {}),
  });
  const text = await res.text();
  const contentType = res.headers.get('content-type') ?? '';
  let body: unknown;
  if (contentType.includes('json') && text) {
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
  }
  return { status: res.status, headers: res.headers, contentType, text, body };
}

/** Fills `{name}` path segments. */
export function fillPath(template: string, values: Record<string, string>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const v = values[name];
    if (v === undefined) throw new Error(`no value for path parameter ${name} of ${template}`);
    return encodeURIComponent(v);
  });
}
