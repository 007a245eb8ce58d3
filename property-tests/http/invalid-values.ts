// Invalid values for the bad-input properties, derived from a schema and a valid example value: fields of
// an example body with their schemas, values of the wrong JSON type, strings a pattern refuses, strings one
// character or a few hundred over their maximum, JSON text that does not parse, bad parameter values.
import fc from 'fast-check';
import { schemaOf, type Json } from './spec.ts';

/** A field of the example body with its schema. */
export interface Field {
  path: (string | number)[];
  schema: Json;
  value: unknown;
}

export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
export const typesOf = (s: Json): string[] =>
  Array.isArray(s['type']) ? (s['type'] as string[]) : typeof s['type'] === 'string' ? [s['type'] as string] : [];

/** Every field of `value` under `schema` (objects and arrays, 3 levels deep). */
export function fieldsOf(doc: Json, schema: Json, value: unknown, path: (string | number)[] = [], depth = 0): Field[] {
  const out: Field[] = [];
  if (depth > 3) return out;
  if (isObject(value)) {
    const props = (schema['properties'] ?? {}) as Json;
    for (const [k, v] of Object.entries(value)) {
      if (!(k in props)) continue;
      const s = schemaOf(doc, props[k]);
      out.push({ path: [...path, k], schema: s, value: v });
      out.push(...fieldsOf(doc, s, v, [...path, k], depth + 1));
    }
  } else if (Array.isArray(value) && schema['items']) {
    const s = schemaOf(doc, schema['items']);
    value.forEach((v, i) => {
      out.push({ path: [...path, i], schema: s, value: v });
      out.push(...fieldsOf(doc, s, v, [...path, i], depth + 1));
    });
  }
  return out;
}

/** The objects of the example (the body itself included) whose schema refuses unknown fields. */
export function closedObjects(doc: Json, schema: Json, value: unknown): { path: (string | number)[]; schema: Json }[] {
  const out =
    isObject(value) && schema['additionalProperties'] === false ? [{ path: [] as (string | number)[], schema }] : [];
  for (const f of fieldsOf(doc, schema, value)) {
    if (isObject(f.value) && f.schema['additionalProperties'] === false) out.push({ path: f.path, schema: f.schema });
  }
  return out;
}

export function setAt(root: unknown, path: (string | number)[], v: unknown): unknown {
  const copy = structuredClone(root) as Json;
  let at: any = copy;
  for (const k of path.slice(0, -1)) at = at[k];
  at[path[path.length - 1]!] = v;
  return copy;
}

export function deleteAt(root: unknown, path: (string | number)[]): unknown {
  const copy = structuredClone(root) as Json;
  let at: any = copy;
  for (const k of path.slice(0, -1)) at = at[k];
  const last = path[path.length - 1]!;
  if (Array.isArray(at)) at.splice(Number(last), 1);
  else delete at[last];
  return copy;
}

export const show = (path: (string | number)[]) =>
  path
    .map((p) => (typeof p === 'number' ? `[${p}]` : `.${p}`))
    .join('')
    .replace(/^\./, '') || '(body)';

/** A JSON value of a type the schema does not allow. */
export function wrongTypeValue(schema: Json): fc.Arbitrary<unknown> | undefined {
  const allowed = typesOf(schema);
  if (allowed.length === 0) return undefined;
  const candidates: [string, fc.Arbitrary<unknown>][] = [
    ['string', fc.constantFrom('x', 'not a number', '{}', 'true ')],
    ['number', fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.constant(1.5))],
    ['boolean', fc.boolean()],
    ['null', fc.constant(null)],
    ['array', fc.constantFrom([], ['x'], [1, 2])],
    ['object', fc.constantFrom({}, { a: 1 })],
  ];
  const wrong = candidates.filter(([t]) => !allowed.includes(t) && !(t === 'number' && allowed.includes('integer')));
  return wrong.length ? fc.oneof(...wrong.map(([, a]) => a)) : undefined;
}

/** A string the pattern refuses, made by editing a valid value (and a few classics). */
export function badPatternValue(pattern: string, valid: string): fc.Arbitrary<string> {
  const re = new RegExp(pattern, 'u');
  const edits: fc.Arbitrary<string> = fc.oneof(
    fc.nat({ max: Math.max(0, valid.length - 1) }).map((i) => valid.slice(0, i) + valid.slice(i + 1)),
    fc.constantFrom('!', 'é', ' ', 'Z', 'z', '0', ':', '/').map((c) => valid + c),
    fc
      .tuple(fc.nat({ max: Math.max(0, valid.length - 1) }), fc.constantFrom('!', '#', ' ', 'é', '.'))
      .map(([i, c]) => valid.slice(0, i) + c + valid.slice(i + 1)),
    fc.constant(valid.toLowerCase()),
    fc.constant(valid.toUpperCase()),
    fc.constantFrom(
      '',
      'G',
      'did:pkh:eip155:1:0xab',
      'did:ledger:devnet:aaaaaaaaaaaaaaaaaaaaaaaaaa',
      'CD4FWXJVWXKDA6QU36W7SMC7PVVM2F43RTJIXY7G4PSF3A2YH52YRHWZ',
      'a'.repeat(63),
      '<script>',
      '../../etc/passwd',
    ),
    fc.string({ maxLength: 40 }),
  );
  return edits.filter((s) => !re.test(s));
}

/** A string longer than `max` that keeps the rest of the field's rules when it can. */
export function overlongValue(schema: Json, valid: string, max: number): fc.Arbitrary<string> {
  return fc.integer({ min: 1, max: 300 }).map((extra) => {
    const n = max + extra;
    if (schema['format'] === 'date-time') return `2026-07-15T09:30:00.${'0'.repeat(Math.max(1, n - 21))}Z`;
    if (typeof schema['pattern'] === 'string') {
      const re = new RegExp(schema['pattern'] as string, 'u');
      for (const pad of ['a', '0', 'A']) {
        const s = valid + pad.repeat(Math.max(0, n - valid.length));
        if (re.test(s)) return s;
      }
    }
    return (valid + 'x'.repeat(n)).slice(0, n);
  });
}

const BROKEN_JSON = [
  '{',
  '}',
  '{"a":}',
  "{'owner': 'G'}",
  '{owner: 1}',
  'undefined',
  'NaN',
  '{"a":1,}',
  '[1,2',
  '{"a":"\\x"}',
  'nul',
  '\u0000',
  '{"a":1}}',
];

/** Text that JSON.parse refuses: the example cut short or spoiled, or a classic. */
export function brokenJsonText(valid: string): fc.Arbitrary<string> {
  return fc
    .oneof(
      fc.integer({ min: 1, max: Math.max(1, valid.length - 1) }).map((i) => valid.slice(0, i)),
      fc.constantFrom(...BROKEN_JSON),
      fc.constantFrom('}', ',', ']', 'x').map((c) => valid + c),
      fc.nat({ max: Math.max(0, valid.length - 1) }).map((i) => valid.slice(0, i) + '\u0001' + valid.slice(i)),
    )
    .filter((t) => {
      try {
        JSON.parse(t);
        return false;
      } catch {
        return true;
      }
    });
}

/** Values of a query or path parameter that break its schema. */
export function badParamValue(schema: Json, valid: string): fc.Arbitrary<string> {
  const types = typesOf(schema);
  if (types.includes('integer')) {
    const parts: fc.Arbitrary<string>[] = [fc.constantFrom('abc', '1.5', '', '1e3', '0x10', '--1', 'null')];
    // As big integers: a bound such as a u32's 4294967295 is past fc.integer's 32-bit range.
    if (typeof schema['minimum'] === 'number') {
      const min = BigInt(schema['minimum'] as number);
      parts.push(fc.bigInt({ min: min - 1000n, max: min - 1n }).map(String));
    }
    if (typeof schema['maximum'] === 'number') {
      const max = BigInt(schema['maximum'] as number);
      parts.push(fc.bigInt({ min: max + 1n, max: max + 100_000n }).map(String));
    }
    return fc.oneof(...parts);
  }
  if (typeof schema['pattern'] === 'string')
    return badPatternValue(schema['pattern'] as string, valid).filter((s) => s.length > 0);
  if (typeof schema['maxLength'] === 'number') return overlongValue(schema, valid, schema['maxLength'] as number);
  return fc.constant('\u00e9\u00e9');
}
