// Bad inputs that once found defects, as generators for every route of both specs: StrKeys
// whose checksum is wrong (the pattern still matches), every array field far over its `maxItems` and closed
// objects flooded with unknown fields, compressed bodies that do not decompress (and encodings nobody
// supports), methods a path does not declare, and the routes the vault document lists as removed. What the
// answer must be is decided elsewhere in parallel branches (400, 405, 410, 415); here each one only has to
// be a 4xx or 2xx in the service's envelope, of bounded size (see bad-input.test.ts `judge`).
import { gzipSync, deflateSync, brotliCompressSync } from 'node:zlib';
import { StrKey } from '@stellar/stellar-sdk';
import fc from 'fast-check';
import { fieldsOf, isObject, setAt, show } from './invalid-values.ts';
import {
  baseline,
  VAULT_BODY_LIMIT,
  RESOLVER_BODY_LIMIT,
  type Keys,
  type Mutation,
  type MutationKind,
  type RawRequest,
} from './mutations.ts';
import { fillPath, schemaOf, type Json, type SpecDoc, type SpecOperation } from './spec.ts';

const BASE32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

const isStrKey = (v: unknown): v is string =>
  typeof v === 'string' && (StrKey.isValidEd25519PublicKey(v) || StrKey.isValidContract(v));

/** A G…/C… address that still matches `^[GC][A-Z2-7]{55}$` but whose CRC16 checksum is wrong. */
export function badChecksum(valid: string): fc.Arbitrary<string> {
  return fc
    .oneof(
      // One character of the key or checksum changed.
      fc.tuple(fc.integer({ min: 1, max: valid.length - 1 }), fc.integer({ min: 1, max: 31 })).map(([i, d]) => {
        const c = BASE32[(BASE32.indexOf(valid[i]!) + d) % 32]!;
        return valid.slice(0, i) + c + valid.slice(i + 1);
      }),
      // Two neighbours swapped, and a known trap (the version byte and 55 × A).
      fc
        .integer({ min: 1, max: valid.length - 2 })
        .map((i) => valid.slice(0, i) + valid[i + 1] + valid[i] + valid.slice(i + 2)),
      fc.constant(valid[0] + 'A'.repeat(55)),
    )
    .filter(
      (s) =>
        s !== valid && /^[GC][A-Z2-7]{55}$/.test(s) && !StrKey.isValidEd25519PublicKey(s) && !StrKey.isValidContract(s),
    );
}

/** Encodings a body may claim. The first three are real (and the payload is then garbage); the rest nobody supports. */
const REAL_ENCODINGS = ['gzip', 'deflate', 'br'] as const;
const UNSUPPORTED_ENCODINGS = ['compress', 'zstd', 'x-gzip-bogus', 'identity, gzip', 'gzip, gzip', '*'];

/** The routes the vault spec lists as removed (components.x-removed-routes): 410 `route_removed` on any method. */
function removedVaultRoutes(doc: SpecDoc['doc']): string[] {
  const listed =
    (doc as { components?: { 'x-removed-routes'?: { path: string }[] } }).components?.['x-removed-routes'] ?? [];
  if (listed.length === 0) throw new Error('vault-api.yaml lists no components.x-removed-routes');
  return listed.map((r) => r.path);
}

/** Methods fetch can send besides a path's own: the usual ones, WebDAV ones Node parses, and an unknown token. */
const OTHER_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD', 'PROPFIND', 'SEARCH', 'FROB'];

const noServerError = { kind: 'noServerError' } as const;

/** The hostile kinds that apply to `op`. */
export function hostileKinds(spec: SpecDoc, op: SpecOperation, keys?: Keys): MutationKind[] {
  const { api, doc } = spec;
  const base = baseline(spec, op, keys);
  const limit = api === 'vault' ? VAULT_BODY_LIMIT : RESOLVER_BODY_LIMIT;
  const kinds: MutationKind[] = [];
  const add = (kind: string, arb: fc.Arbitrary<Omit<Mutation, 'kind'>>) =>
    kinds.push({ kind, arb: arb.map((m) => ({ kind, ...m })) });
  const withBody = (body: string | Uint8Array, headers: Record<string, string> = {}): RawRequest => ({
    ...base.req,
    body,
    headers: { ...base.req.headers, ...headers },
  });

  // StrKeys with a bad checksum: in the body, the query and the path.
  const pathValues = Object.fromEntries(
    op.params.filter((p) => p.in === 'path').map((p) => [p.name, String(p.example)]),
  );
  const query = base.query;
  const strKeySites: { where: string; make: (v: string) => RawRequest; valid: string }[] = [];
  if (op.body) {
    for (const f of fieldsOf(doc, op.body.schema, op.body.example)) {
      if (isStrKey(f.value))
        strKeySites.push({
          where: `body ${show(f.path)}`,
          valid: f.value,
          make: (v) => withBody(JSON.stringify(setAt(op.body!.example, f.path, v))),
        });
    }
  }
  for (const p of op.params) {
    if (!isStrKey(p.example)) continue;
    if (p.in === 'query') {
      strKeySites.push({
        where: `?${p.name}`,
        valid: p.example,
        make: (v) => ({
          ...base.req,
          path: fillPath(op.path, pathValues) + `?${new URLSearchParams({ ...query, [p.name]: v })}`,
        }),
      });
    } else if (p.in === 'path') {
      strKeySites.push({
        where: `{${p.name}}`,
        valid: p.example,
        make: (v) => ({
          ...base.req,
          path:
            fillPath(op.path, { ...pathValues, [p.name]: v }) +
            (Object.keys(query).length ? `?${new URLSearchParams(query)}` : ''),
        }),
      });
    }
  }
  if (strKeySites.length) {
    add(
      'badChecksumStrKey',
      fc.constantFrom(...strKeySites).chain((site) =>
        badChecksum(site.valid).map((v) => ({
          note: `${site.where} = ${v} (bad checksum)`,
          req: site.make(v),
          expect: noServerError,
        })),
      ),
    );
  }

  if (op.body) {
    const example = op.body.example;
    // Every array field of the body (those of the example, and the body's own array properties it leaves out).
    const arrays = fieldsOf(doc, op.body.schema, example).filter(
      (f) => Array.isArray(f.value) || f.schema['type'] === 'array',
    );
    for (const [name, s] of Object.entries((op.body.schema['properties'] ?? {}) as Json)) {
      const schema = schemaOf(doc, s);
      if (schema['type'] === 'array' && !(name in example)) arrays.push({ path: [name], schema, value: [] });
    }
    if (arrays.length) {
      add(
        'oversizedArray',
        fc
          .tuple(
            fc.constantFrom(...arrays),
            fc.integer({ min: 1, max: 60_000 }),
            fc.constantFrom<'example' | '{}' | '0' | 'str'>('example', '{}', '0', 'str'),
          )
          .map(([f, extra, itemKind]) => {
            const max = typeof f.schema['maxItems'] === 'number' ? (f.schema['maxItems'] as number) : 0;
            const sample = (f.value as unknown[])[0];
            const item =
              itemKind === 'example' && sample !== undefined
                ? sample
                : itemKind === '{}'
                  ? {}
                  : itemKind === '0'
                    ? 0
                    : 'x';
            const itemText = JSON.stringify(item);
            const marker = '"\u0000ITEMS\u0000"';
            const frame = JSON.stringify(setAt(example, f.path, '\u0000ITEMS\u0000'));
            // As many as asked, but within the body limit: the point is the collection, not a 413.
            const fit = Math.floor((limit - frame.length - 16) / (itemText.length + 1));
            const n = Math.max(max + 1, Math.min(max + extra, fit));
            const body = frame.replace(marker, `[${Array(n).fill(itemText).join(',')}]`);
            return {
              note: `${show(f.path)} with ${n} items of ${itemText.slice(0, 40)} (max ${max})`,
              req: withBody(body),
              expect: { kind: 'clientError' } as const,
            };
          }),
      );
    }

    const closed = [
      { path: [] as (string | number)[], value: example as unknown },
      ...fieldsOf(doc, op.body.schema, example).filter(
        (f) => isObject(f.value) && f.schema['additionalProperties'] === false,
      ),
    ];
    add(
      'unknownFieldFlood',
      fc
        .tuple(fc.constantFrom(...closed), fc.integer({ min: 11, max: 40_000 }), fc.boolean())
        .map(([o, n, longNames]) => {
          const target = (o.path.length ? o.value : example) as Json;
          const name = (i: number) => (longNames ? `${'n'.repeat(2000)}${i}` : `k${i}`);
          const budget = Math.floor((limit - JSON.stringify(example).length - 64) / (name(0).length + 8));
          const count = Math.min(n, Math.max(11, budget));
          const extra = Array.from({ length: count }, (_, i) => `${JSON.stringify(name(i))}:0`).join(',');
          const inner = `{${extra}${Object.keys(target).length ? ',' : ''}${JSON.stringify(target).slice(1)}`;
          const text = o.path.length
            ? JSON.stringify(setAt(example, o.path, '\u0000MARK\u0000')).replace('"\\u0000MARK\\u0000"', inner)
            : inner;
          return {
            note: `${count} unknown fields${longNames ? ' of 2,000-character names' : ''} in ${show(o.path)}`,
            req: withBody(text),
            expect: { kind: 'clientError' } as const,
          };
        }),
    );

    const text = JSON.stringify(example);
    add(
      'corruptEncoding',
      fc
        .tuple(
          fc.constantFrom(...REAL_ENCODINGS),
          fc.oneof(fc.uint8Array({ minLength: 0, maxLength: 200 }), fc.constant(new TextEncoder().encode('notgzip'))),
          fc.boolean(),
        )
        .map(([enc, garbage, truncatedReal]) => {
          // Garbage, or a real stream of this encoding cut short.
          const real =
            enc === 'gzip' ? gzipSync(text) : enc === 'deflate' ? deflateSync(text) : brotliCompressSync(text);
          const bytes = truncatedReal ? real.subarray(0, Math.max(1, Math.floor(real.length / 2))) : garbage;
          return {
            note: `Content-Encoding: ${enc} with ${truncatedReal ? 'a truncated stream' : `${bytes.length} bytes of garbage`}`,
            req: withBody(new Uint8Array(bytes), { 'content-encoding': enc }),
            expect: noServerError,
          };
        }),
    );
    add(
      'unsupportedEncoding',
      fc.constantFrom(...UNSUPPORTED_ENCODINGS).map((enc) => ({
        note: `Content-Encoding: ${enc}`,
        req: withBody(new TextEncoder().encode(text), { 'content-encoding': enc }),
        expect: noServerError,
      })),
    );
  }

  // Every method the path does not declare (the bad-input test's `undeclaredMethod` covers the plain ones).
  const other = OTHER_METHODS.filter((m) => !op.pathMethods.includes(m.toLowerCase() as never));
  add(
    'wrongMethod',
    fc.tuple(fc.constantFrom(...other), fc.boolean()).map(([m, withJson]) => {
      const headers = { ...base.req.headers };
      delete headers['content-type'];
      const body =
        withJson && m !== 'GET' && m !== 'HEAD'
          ? typeof base.req.body === 'string'
            ? base.req.body
            : '{}'
          : undefined;
      if (body !== undefined) headers['content-type'] = 'application/json';
      return {
        note: `${m} ${op.path}`,
        req: { method: m, path: base.req.path, headers, ...(body !== undefined ? { body } : {}) },
        expect: noServerError,
      };
    }),
  );

  if (api === 'vault') {
    add(
      'removedRoute',
      fc
        .tuple(
          fc.constantFrom(...removedVaultRoutes(doc)),
          fc.constantFrom('', '/api', '/api/v1'),
          fc.constantFrom('GET', 'POST', 'DELETE', 'HEAD'),
          fc.constantFrom(
            '',
            `?owner=${String(op.params.find((p) => p.name === 'owner')?.example ?? 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR')}`,
            '?x=1',
          ),
        )
        .map(([path, prefix, method, q]) => {
          const headers: Record<string, string> = {
            ...(base.req.headers['x-svc-key'] ? { 'x-svc-key': base.req.headers['x-svc-key'] } : {}),
          };
          const body = method === 'POST' ? '{}' : undefined;
          if (body) headers['content-type'] = 'application/json';
          return {
            note: `removed ${method} ${prefix}${path}${q}`,
            req: { method, path: `${prefix}${path}${q}`, headers, ...(body ? { body } : {}) },
            expect: { kind: 'error', status: 410, codes: ['route_removed'] } as const,
          };
        }),
    );
  }
  return kinds;
}
