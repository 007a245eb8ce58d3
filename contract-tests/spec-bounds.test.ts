// Every collection and every string in both specs is bounded: an array has `maxItems`, an
// object that takes unknown keys has `maxProperties`, a string has `maxLength`, `pattern`, `enum`, `const`
// or `format`. The request validator and the pre-check in src/platform/bounds.ts read these bounds,
// and response validation holds the services to them; a schema added without one fails here.
import { describe, expect, it } from 'vitest';
import { loadSpec, type Json } from './helpers/spec.ts';

/** Keywords whose value is one schema, or a map or list of schemas. */
const ONE_SCHEMA = [
  'items',
  'not',
  'contains',
  'additionalProperties',
  'propertyNames',
  'unevaluatedProperties',
  'unevaluatedItems',
];
const SCHEMA_MAP = ['properties', 'patternProperties', 'schemas', '$defs'];
const SCHEMA_LIST = ['oneOf', 'anyOf', 'allOf', 'prefixItems'];

const typesOf = (s: Json): string[] => (Array.isArray(s.type) ? s.type : typeof s.type === 'string' ? [s.type] : []);

/** What is unbounded in one schema node (its own keywords only). */
function unboundedIn(s: Json): string[] {
  if (typeof s !== 'object' || s === null || typeof s.$ref === 'string') return [];
  const out: string[] = [];
  const types = typesOf(s);
  if (types.includes('array') && typeof s.maxItems !== 'number') out.push('array without maxItems');
  if (types.includes('object') && s.additionalProperties !== false && typeof s.maxProperties !== 'number')
    out.push('open object without maxProperties');
  const boundedString = ['maxLength', 'pattern', 'enum', 'const', 'format'].some((k) => s[k] !== undefined);
  if (types.includes('string') && !boundedString) out.push('string without maxLength, pattern, enum, const or format');
  return out;
}

/** Every schema of a spec with its location: component schemas, parameters, headers, bodies, responses. */
function* schemasOf(doc: Json): Generator<{ at: string; schema: Json }> {
  function* schema(node: Json, at: string): Generator<{ at: string; schema: Json }> {
    if (typeof node !== 'object' || node === null || Array.isArray(node)) return;
    yield { at, schema: node };
    for (const k of ONE_SCHEMA) if (typeof node[k] === 'object') yield* schema(node[k], `${at}/${k}`);
    for (const k of SCHEMA_MAP)
      for (const [name, sub] of Object.entries(node[k] ?? {})) yield* schema(sub, `${at}/${k}/${name}`);
    for (const k of SCHEMA_LIST)
      if (Array.isArray(node[k])) for (const [i, sub] of node[k].entries()) yield* schema(sub, `${at}/${k}/${i}`);
  }
  // Outside schemas, a `schema` key holds one (parameters, headers, media types); examples are data.
  function* document(node: Json, at: string): Generator<{ at: string; schema: Json }> {
    if (typeof node !== 'object' || node === null) return;
    for (const [k, v] of Object.entries(node)) {
      if (k === 'example' || k === 'examples' || k.startsWith('x-')) continue;
      if (k === 'schema') yield* schema(v, `${at}/schema`);
      else if (k === 'schemas' && at === '#/components')
        for (const [name, sub] of Object.entries(v as Json)) yield* schema(sub, `${at}/schemas/${name}`);
      else yield* document(v, `${at}/${k}`);
    }
  }
  yield* document(doc, '#');
}

describe.each([{ file: 'spec/vault-api.yaml' }, { file: 'spec/did-resolver.yaml' }])(
  '$file: every array, open object and string is bounded',
  ({ file }) => {
    const doc = loadSpec(file);
    const all = [...schemasOf(doc)];

    it('walks the whole spec (request bodies, parameters, responses and components)', () => {
      expect(all.length).toBeGreaterThan(100);
      expect(all.some((s) => s.at.includes('/requestBody/'))).toBe(true);
      expect(all.some((s) => s.at.includes('/parameters/'))).toBe(true);
      expect(all.some((s) => s.at.includes('/responses/'))).toBe(true);
    });

    it('has no unbounded array, open object or string', () => {
      const found = all.flatMap(({ at, schema }) => unboundedIn(schema).map((what) => `${at}: ${what}`));
      expect(found, found.join('\n')).toEqual([]);
    });
  },
);

describe('the bound check itself', () => {
  it.each<{ given: Json; want: string[] }>([
    { given: { type: 'array', items: { type: 'integer' } }, want: ['array without maxItems'] },
    { given: { type: 'array', maxItems: 3 }, want: [] },
    { given: { type: 'object', additionalProperties: true }, want: ['open object without maxProperties'] },
    { given: { type: 'object' }, want: ['open object without maxProperties'] },
    { given: { type: 'object', additionalProperties: false, properties: {} }, want: [] },
    { given: { type: 'object', maxProperties: 5 }, want: [] },
    { given: { type: 'string' }, want: ['string without maxLength, pattern, enum, const or format'] },
    { given: { type: ['string', 'null'], format: 'date-time' }, want: [] },
    { given: { type: 'string', enum: ['a'] }, want: [] },
    { given: { $ref: '#/components/schemas/X' }, want: [] },
  ])('$given → $want', ({ given, want }) => {
    expect(unboundedIn(given)).toEqual(want);
  });

  it('finds a schema nested in a request body, an array item, a oneOf branch and a parameter', () => {
    const doc = {
      paths: {
        '/x': {
          parameters: [{ name: 'q', in: 'query', schema: { type: 'string' } }],
          post: {
            requestBody: {
              content: {
                'application/json': {
                  schema: {
                    oneOf: [
                      {
                        type: 'object',
                        additionalProperties: false,
                        properties: { a: { type: 'array', maxItems: 1, items: { type: 'string' } } },
                      },
                    ],
                  },
                },
              },
            },
          },
        },
      },
    };
    const found = [...schemasOf(doc)].flatMap(({ at, schema }) => unboundedIn(schema).map((w) => `${at}: ${w}`));
    expect(found).toEqual([
      '#/paths//x/parameters/0/schema: string without maxLength, pattern, enum, const or format',
      '#/paths//x/post/requestBody/content/application/json/schema/oneOf/0/properties/a/items: string without maxLength, pattern, enum, const or format',
    ]);
  });
});
