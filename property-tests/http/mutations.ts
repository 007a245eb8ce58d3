// Invalid requests, generated from the specs: for one operation, a valid example request (path, query and
// body from the spec's examples, a working key) and the ways to break it — wrong types, overlong strings,
// bad patterns, unknown and missing fields, broken JSON, huge bodies, wrong content types, bad query and
// path parameters, bad headers, missing or garbage keys, undeclared methods — each with what the spec says
// the answer must be.
import fc from 'fast-check';
import {
  badParamValue,
  badPatternValue,
  brokenJsonText,
  closedObjects,
  deleteAt,
  fieldsOf,
  isObject,
  overlongValue,
  setAt,
  show,
  wrongTypeValue,
} from './invalid-values.ts';
import { fillPath, type ApiName, type Json, type Method, type SpecDoc, type SpecOperation } from './spec.ts';

/** One request as sent. `body` is raw: the mutations decide its bytes. */
export interface RawRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

/** What the answer must be. */
export type Expectation =
  | { kind: 'error'; status: number; codes: string[] }
  /** Any 4xx with the spec's error body. */
  | { kind: 'clientError' }
  /** No 5xx; an error answer must still be the spec's error body. */
  | { kind: 'noServerError' };

export interface Mutation {
  kind: string;
  /** One line for a counterexample. */
  note: string;
  req: RawRequest;
  expect: Expectation;
}

/** What the vault API needs to reach request validation: a standard key and an admin key. */
export interface Keys {
  standard: string;
  admin: string;
}

/** Bodies above the vault API's limit (vault-api.yaml "Errors": 512 KiB → 413), so above the resolver's 256 KiB too. */
export const VAULT_BODY_LIMIT = 512 * 1024;
/** The resolver's body limit (did-resolver.yaml "Errors": 256 KiB → 413 payload_too_large). */
export const RESOLVER_BODY_LIMIT = 256 * 1024;

const JSON_TYPE = 'application/json';
const NOT_JSON_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'application/xml',
  'multipart/form-data; boundary=xyz',
  'application/octet-stream',
  'text/json',
];
const ALL_METHODS: Method[] = ['get', 'post', 'put', 'patch', 'delete'];

/** A named-code table of vault-api.yaml ("Errors": request-validation failures mapped onto codes). */
function vaultOverlongCode(path: (string | number)[]): string {
  const p = path.map(String);
  if (p.length === 1 && p[0] === 'vcId') return 'vcId_too_long';
  if (p.length === 1 && p[0] === 'vcData') return 'vcData_too_long';
  if (p.length === 3 && p[0] === 'vcs' && (p[2] === 'vcId' || p[2] === 'vcData'))
    return `vcs[${p[1]}].${p[2]}_too_long`;
  if (p.length === 1 && (p[0] === 'didUri' || p[0] === 'date')) return 'input_too_long';
  return 'invalid_request';
}

/** The valid baseline request of an operation. */
export function baseline(
  spec: SpecDoc,
  op: SpecOperation,
  keys?: Keys,
): { req: RawRequest; body?: Json; query: Record<string, string> } {
  const pathValues: Record<string, string> = {};
  for (const p of op.params.filter((x) => x.in === 'path')) pathValues[p.name] = String(p.example);
  const query: Record<string, string> = {};
  for (const p of op.params.filter((x) => x.in === 'query' && x.required)) query[p.name] = String(p.example);
  const headers: Record<string, string> = {};
  if (spec.api === 'vault' && keys && op.auth !== 'none')
    headers['x-svc-key'] = op.auth === 'admin' ? keys.admin : keys.standard;
  let body: string | undefined;
  if (op.body) {
    body = JSON.stringify(op.body.example);
    headers['content-type'] = JSON_TYPE;
  }
  const req: RawRequest = {
    method: op.method.toUpperCase(),
    path: fillPath(op.path, pathValues) + qs(query),
    headers,
    ...(body !== undefined ? { body } : {}),
  };
  return { req, ...(op.body ? { body: op.body.example } : {}), query };
}

function qs(q: Record<string, string>): string {
  const entries = Object.entries(q);
  return entries.length ? `?${new URLSearchParams(entries).toString()}` : '';
}

/** The vault API's answer to a request-validation failure with `code` (or the resolver's: any 400 code it lists). */
function invalid(api: ApiName, vaultCode = 'invalid_request'): Expectation {
  return api === 'vault'
    ? { kind: 'error', status: 400, codes: [vaultCode] }
    : { kind: 'error', status: 400, codes: ['*'] };
}

export interface MutationKind {
  kind: string;
  arb: fc.Arbitrary<Mutation>;
}

/** Every way to break `op` that applies to it. */
export function mutationKinds(spec: SpecDoc, op: SpecOperation, keys?: Keys): MutationKind[] {
  const { api, doc } = spec;
  const base = baseline(spec, op, keys);
  const kinds: MutationKind[] = [];
  const add = (kind: string, arb: fc.Arbitrary<Omit<Mutation, 'kind'>>) =>
    kinds.push({ kind, arb: arb.map((m) => ({ kind, ...m })) });
  const withBody = (body: string, extra: Partial<RawRequest> = {}): RawRequest => ({
    ...base.req,
    body,
    ...extra,
    headers: { ...base.req.headers, ...extra.headers },
  });
  const isDocs = op.path === '/docs';
  const isResolution = api === 'resolver' && op.path.startsWith('/1.0/identifiers/');

  add(
    'baseline',
    fc.constant({ note: 'the spec example, unchanged', req: base.req, expect: { kind: 'noServerError' } }),
  );

  if (op.body) {
    const schema = op.body.schema;
    const example = op.body.example;
    const fields = fieldsOf(doc, schema, example);

    const typed = fields.map((f) => ({ f, wrong: wrongTypeValue(f.schema) })).filter((x) => x.wrong !== undefined);
    if (typed.length) {
      add(
        'wrongType',
        fc.constantFrom(...typed).chain(({ f, wrong }) =>
          wrong!.map((v) => ({
            note: `${show(f.path)} = ${JSON.stringify(v)}`,
            req: withBody(JSON.stringify(setAt(example, f.path, v))),
            expect: invalid(api),
          })),
        ),
      );
    }

    const long = fields.filter((f) => typeof f.value === 'string' && typeof f.schema['maxLength'] === 'number');
    if (long.length) {
      add(
        'overlong',
        fc.constantFrom(...long).chain((f) =>
          overlongValue(f.schema, f.value as string, f.schema['maxLength'] as number).map((v) => ({
            note: `${show(f.path)}: ${v.length} characters (max ${f.schema['maxLength']})`,
            req: withBody(JSON.stringify(setAt(example, f.path, v))),
            expect: invalid(api, vaultOverlongCode(f.path)),
          })),
        ),
      );
    }

    const patterned = fields.filter((f) => typeof f.value === 'string' && typeof f.schema['pattern'] === 'string');
    if (patterned.length) {
      add(
        'badPattern',
        fc.constantFrom(...patterned).chain((f) =>
          badPatternValue(f.schema['pattern'] as string, f.value as string).map((v) => ({
            note: `${show(f.path)} = ${JSON.stringify(v)}`,
            req: withBody(JSON.stringify(setAt(example, f.path, v))),
            expect: invalid(
              api,
              f.path.length === 1 && f.path[0] === 'issuerDid' ? 'issuerDid_invalid' : 'invalid_request',
            ),
          })),
        ),
      );
    }

    const sized = fields.filter(
      (f) =>
        Array.isArray(f.value) &&
        (typeof f.schema['maxItems'] === 'number' ||
          (typeof f.schema['minItems'] === 'number' && (f.schema['minItems'] as number) > 0)),
    );
    if (sized.length) {
      add(
        'arraySize',
        fc.tuple(fc.constantFrom(...sized), fc.boolean(), fc.integer({ min: 1, max: 4 })).map(([f, tooMany, extra]) => {
          const items = f.value as unknown[];
          const max = f.schema['maxItems'] as number | undefined;
          const min = (f.schema['minItems'] as number | undefined) ?? 0;
          // Over the maximum, or empty under a minimum (whichever the schema has, the coin decides when both).
          const n = max !== undefined && (tooMany || min === 0) ? max + extra : 0;
          // Copies of the example's items, numbered where they carry a vcId so that only the count is wrong.
          const value = Array.from({ length: n }, (_, i) => {
            const item = structuredClone(items[i % Math.max(1, items.length)]);
            if (isObject(item) && typeof item['vcId'] === 'string') item['vcId'] = `${item['vcId']}-${i}`;
            return item;
          });
          const code = f.path.length === 1 && f.path[0] === 'vcs' ? 'batch_too_large' : 'invalid_request';
          return {
            note: `${show(f.path)} with ${n} items`,
            req: withBody(JSON.stringify(setAt(example, f.path, value))),
            expect: invalid(api, code),
          };
        }),
      );
    }

    const closed = closedObjects(doc, schema, example);
    if (closed.length) {
      const names = fc.oneof(
        fc.constantFrom(
          'holder',
          'fee',
          'feeOverride',
          'role',
          'constructor',
          '__proto__',
          'vaultContractId',
          'signedXdr2',
        ),
        fc.stringMatching(/^[a-zA-Z_][a-zA-Z0-9_]{0,12}$/),
      );
      add(
        'unknownField',
        fc
          .tuple(fc.constantFrom(...closed), names, fc.jsonValue({ maxDepth: 1 }))
          .filter(([o, name]) => !(name in ((o.schema['properties'] ?? {}) as Json)))
          .map(([o, name, v]) => {
            // Written as text so that "__proto__" arrives as an own field, as a client would send it.
            const target = structuredClone(
              o.path.length ? (o.path.reduce<any>((at, k) => at[k], example) as Json) : example,
            );
            const inner = `{${JSON.stringify(name)}:${JSON.stringify(v ?? null)}${Object.keys(target).length ? ',' : ''}${JSON.stringify(target).slice(1)}`;
            const text = o.path.length
              ? JSON.stringify(setAt(example, o.path, '\u0000MARK\u0000')).replace('"\\u0000MARK\\u0000"', inner)
              : inner;
            return { note: `unknown field ${show([...o.path, name])}`, req: withBody(text), expect: invalid(api) };
          }),
      );
    }

    const free = fields.filter(
      (f) =>
        typeof f.value === 'string' &&
        f.schema['pattern'] === undefined &&
        f.schema['format'] === undefined &&
        f.schema['enum'] === undefined,
    );
    if (free.length) {
      add(
        'oddStrings',
        fc.constantFrom(...free).chain((f) =>
          fc
            .oneof(
              fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }),
              fc.constantFrom(
                '\ud800',
                '\u0000',
                '\u202e',
                '𝕍𝕔',
                '\r\n',
                '%00',
                '${x}',
                '{{7*7}}',
                '"; DROP TABLE keys; --',
              ),
            )
            .filter((v) => typeof f.schema['maxLength'] !== 'number' || v.length <= (f.schema['maxLength'] as number))
            .map((v) => ({
              note: `${show(f.path)} = ${JSON.stringify(v)}`,
              req: withBody(JSON.stringify(setAt(example, f.path, v))),
              // Often still valid by the schema: whatever the route then answers, never a 5xx.
              expect: { kind: 'noServerError' } as Expectation,
            })),
        ),
      );
    }

    add(
      'deepJson',
      fc
        .tuple(fc.integer({ min: 200, max: 60_000 }), fc.constantFrom('[', '{"a":'), fc.boolean())
        .map(([depth, open, asField]) => {
          const close = open === '[' ? ']' : '}';
          const deep = open.repeat(depth) + '1' + close.repeat(depth);
          const t = asField ? `{"deep":${deep},${JSON.stringify(example).slice(1)}` : deep;
          return {
            note: `${depth} levels of ${open} ${asField ? 'in an unknown field' : 'as the body'}`,
            req: withBody(t),
            expect:
              api === 'vault'
                ? { kind: 'error', status: 400, codes: ['invalid_request', 'invalid_json'] }
                : Buffer.byteLength(t) > RESOLVER_BODY_LIMIT
                  ? { kind: 'error', status: 413, codes: ['payload_too_large'] }
                  : invalid(api),
          };
        }),
    );

    const requiredFields: (string | number)[][] = [];
    for (const o of [
      { path: [] as (string | number)[], schema },
      ...fields.filter((f) => isObject(f.value)).map((f) => ({ path: f.path, schema: f.schema })),
    ]) {
      for (const r of (o.schema['required'] as string[] | undefined) ?? []) requiredFields.push([...o.path, r]);
    }
    if (requiredFields.length) {
      add(
        'missingRequired',
        fc.constantFrom(...requiredFields).map((p) => ({
          note: `without ${show(p)}`,
          req: withBody(JSON.stringify(deleteAt(example, p))),
          expect: invalid(api),
        })),
      );
    }

    const text = JSON.stringify(example);
    add(
      'brokenJson',
      brokenJsonText(text).map((t) => ({
        note: `body ${JSON.stringify(t.slice(0, 60))}${t.length > 60 ? '…' : ''}`,
        req: withBody(t),
        expect:
          api === 'vault'
            ? { kind: 'error', status: 400, codes: ['invalid_json'] }
            : { kind: 'error', status: 400, codes: ['invalid_request'] },
      })),
    );

    add(
      'hugeBody',
      fc.tuple(fc.integer({ min: 1, max: 256 * 1024 }), fc.boolean()).map(([extra, asField]) => {
        const pad = 'A'.repeat(VAULT_BODY_LIMIT + extra);
        const t = asField ? JSON.stringify({ ...example, padding: pad }) : JSON.stringify([pad]);
        return {
          note: `${t.length} bytes (${asField ? 'a padded field' : 'an array'})`,
          req: withBody(t),
          // Over both limits (vault 512 KiB, resolver 256 KiB): 413 payload_too_large from either.
          expect: { kind: 'error', status: 413, codes: ['payload_too_large'] },
        };
      }),
    );

    add(
      'wrongContentType',
      fc.constantFrom<string | null>(...NOT_JSON_TYPES, null).map((ct) => {
        const headers = { ...base.req.headers };
        delete headers['content-type'];
        if (ct !== null) headers['content-type'] = ct;
        return {
          note: `content-type ${ct ?? '(none)'}`,
          // A byte body: fetch adds no content-type of its own to it.
          req: { ...base.req, headers, body: new TextEncoder().encode(text) },
          expect: invalid(api),
        };
      }),
    );

    add(
      'notAnObject',
      fc
        .constantFrom('[]', '[1]', '42', '"text"', 'null', 'true', '[{}]')
        .map((t) => ({ note: `body ${t}`, req: withBody(t), expect: invalid(api) })),
    );

    if (op.body.submitBranch && Object.keys(example).some((k) => k !== 'signedXdr')) {
      add(
        'bothModes',
        fc
          .base64String({ minLength: 4, maxLength: 200 })
          .filter((s) => s.length > 0)
          .map((x) => ({
            note: 'prepare fields and signedXdr together',
            req: withBody(JSON.stringify({ ...example, signedXdr: x })),
            expect: invalid(api),
          })),
      );
    }
    if (op.body.submitBranch) {
      add(
        'garbageXdr',
        fc.uint8Array({ minLength: 1, maxLength: 300 }).map((bytes) => ({
          note: `signedXdr = ${bytes.length} random bytes`,
          req: withBody(JSON.stringify({ signedXdr: Buffer.from(bytes).toString('base64') })),
          expect: api === 'vault' ? { kind: 'error', status: 400, codes: ['tx_invalid'] } : invalid(api),
        })),
      );
    }
  }

  const queryParams = op.params.filter((p) => p.in === 'query');
  if (queryParams.length) {
    add(
      'badQuery',
      fc.constantFrom(...queryParams).chain((p) =>
        badParamValue(p.schema, String(p.example ?? '')).map((v) => {
          const n = Number(v);
          const code = p.name === 'limit' && /^\d+$/.test(v) && n > 200 ? 'limit_too_large' : 'invalid_request';
          return {
            note: `?${p.name}=${JSON.stringify(v)}`,
            req: { ...base.req, path: fillPath(op.path, pathValuesOf(op)) + qs({ ...base.query, [p.name]: v }) },
            expect: invalid(api, code),
          };
        }),
      ),
    );
    const required = queryParams.filter((p) => p.required);
    if (required.length) {
      add(
        'missingQuery',
        fc.constantFrom(...required).map((p) => {
          const q = { ...base.query };
          delete q[p.name];
          return {
            note: `without ?${p.name}`,
            req: { ...base.req, path: fillPath(op.path, pathValuesOf(op)) + qs(q) },
            expect: invalid(api),
          };
        }),
      );
    }
  }
  if (!isDocs) {
    add(
      'unknownQuery',
      fc
        .tuple(fc.stringMatching(/^[a-z][a-zA-Z0-9_]{0,10}$/), fc.stringMatching(/^[a-z0-9]{0,8}$/))
        .filter(([k]) => !op.params.some((p) => p.name === k))
        .map(([k, v]) => ({
          note: `unknown query parameter ${k}`,
          req: { ...base.req, path: fillPath(op.path, pathValuesOf(op)) + qs({ ...base.query, [k]: v }) },
          // Not an error by itself in OpenAPI: a route may ignore it or refuse it (400), never fail on it.
          expect: { kind: 'noServerError' },
        })),
    );
  }

  for (const p of op.params.filter((x) => x.in === 'path')) {
    add(
      'badPathParam',
      fc
        .oneof(
          badParamValue(p.schema, String(p.example)),
          fc.constantFrom('create', 'vc-count', 'list-vc-ids', 'issuers', '%00', ' '),
        )
        // Dot segments never reach the server: the URL parser resolves them (and %2E) before sending.
        .filter((v) => v.length > 0 && !/^(\.|%2e)+$/i.test(v))
        .map((v) => ({
          note: `{${p.name}} = ${JSON.stringify(v)}`,
          req: { ...base.req, path: fillPath(op.path, { ...pathValuesOf(op), [p.name]: v }) + qs(base.query) },
          expect:
            // A value that names a static sibling (`/contracts/vault/create`) is that path: another method there is 405.
            api === 'vault'
              ? { kind: 'error', status: 0, codes: ['invalid_request', 'not_found', 'method_not_allowed'] }
              : isResolution
                ? { kind: 'clientError' }
                : { kind: 'error', status: 0, codes: ['did_invalid', 'not_found', 'method_not_allowed'] },
        })),
    );
  }

  if (op.params.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key')) {
    add(
      'longIdempotencyKey',
      fc.integer({ min: 201, max: 1000 }).map((n) => ({
        note: `Idempotency-Key of ${n} characters`,
        req: { ...base.req, headers: { ...base.req.headers, 'idempotency-key': 'k'.repeat(n) } },
        expect: invalid(api),
      })),
    );
  }
  add(
    'oddRequestId',
    fc
      .oneof(
        fc.integer({ min: 129, max: 2000 }).map((n) => 'r'.repeat(n)),
        fc.constantFrom(' ', 'a b', '\t'),
      )
      .map((v) => ({
        note: `X-Request-ID ${JSON.stringify(v.slice(0, 20))}${v.length > 20 ? `… (${v.length})` : ''}`,
        req: { ...base.req, headers: { ...base.req.headers, 'x-request-id': v } },
        expect: { kind: 'noServerError' },
      })),
  );

  if (api === 'vault' && op.auth !== 'none' && keys) {
    const noKey = () => {
      const h = { ...base.req.headers };
      delete h['x-svc-key'];
      return h;
    };
    // Where the key is optional, a keyless request is served (or refused for what it asks, never a 5xx).
    const keyless = op.auth === 'optional' ? ({ kind: 'noServerError' } as const) : undefined;
    add(
      'missingKey',
      fc.constant({
        note: 'no key header',
        req: { ...base.req, headers: noKey() },
        expect: keyless ?? { kind: 'error', status: 401, codes: ['missing_api_key'] },
      }),
    );
    add(
      'garbageKey',
      fc
        .tuple(
          fc.oneof(
            fc.stringMatching(/^[0-9a-f]{64}$/),
            fc.stringMatching(/^[!-~]{1,200}$/),
            fc.stringMatching(/^[0-9a-f]{63}$/),
          ),
          fc.constantFrom('x-svc-key', 'x-api-key', 'bearer'),
        )
        // Hex is case-insensitive: the same key in capitals is the same key, not garbage.
        .filter(([k]) => ![keys.standard, keys.admin].includes(k.toLowerCase()))
        .map(([k, where]) => {
          const h = noKey();
          if (where === 'bearer') h['authorization'] = `Bearer ${k}`;
          else h[where] = k;
          return {
            note: `${where} ${JSON.stringify(k.slice(0, 20))}…`,
            req: { ...base.req, headers: h },
            expect: { kind: 'error', status: 401, codes: ['invalid_api_key'] },
          };
        }),
    );
    add(
      'otherAuthScheme',
      fc
        .constantFrom(
          `Basic ${Buffer.from(`user:${keys.standard}`).toString('base64')}`,
          `Token ${keys.standard}`,
          'Bearer',
          `bearer  ${keys.standard}x`,
        )
        .map((v) => {
          const h = noKey();
          h['authorization'] = v;
          return {
            note: `Authorization: ${v.slice(0, 16)}…`,
            req: { ...base.req, headers: h },
            expect: keyless ?? { kind: 'error', status: 401, codes: ['missing_api_key', 'invalid_api_key'] },
          };
        }),
    );
  }

  const undeclared = ALL_METHODS.filter((m) => !op.pathMethods.includes(m));
  if (undeclared.length) {
    add(
      'undeclaredMethod',
      fc.constantFrom(...undeclared).map((m) => {
        const headers = { ...base.req.headers };
        let body: string | undefined;
        if (m === 'get' || m === 'delete') delete headers['content-type'];
        else {
          headers['content-type'] = JSON_TYPE;
          body = base.req.body === undefined ? '{}' : (base.req.body as string);
        }
        return {
          note: `${m.toUpperCase()} ${op.path}`,
          req: { method: m.toUpperCase(), path: base.req.path, headers, ...(body !== undefined ? { body } : {}) },
          expect: { kind: 'error', status: 405, codes: ['method_not_allowed'] },
        };
      }),
    );
  }
  return kinds;
}

function pathValuesOf(op: SpecOperation): Record<string, string> {
  const v: Record<string, string> = {};
  for (const p of op.params.filter((x) => x.in === 'path')) v[p.name] = String(p.example);
  return v;
}
