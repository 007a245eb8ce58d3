// The pre-check of collection sizes: it refuses exactly the oversized collections the schema refuses, never a
// body the schema accepts, picks the prepare | submit branch the client meant, and is linear in the body.
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import YAML from 'yaml';
import { type Bounds, oversizedIn as oversized, UNKNOWN_KEYS_REPORTED } from './bounds.ts';
import { buildModel, type OpenApiDocument } from './operations.ts';

/** The request-body bounds of every operation of a description, by operationId (the model compiles them). */
function bodyBounds(doc: unknown): Map<string, Bounds> {
  const model = buildModel({ info: {}, components: {}, ...(doc as object) } as OpenApiDocument);
  return new Map([...model.operations].flatMap(([id, op]) => (op.body ? [[id, op.body.bounds] as const] : [])));
}

const oversizedIn = (bounds: Map<string, Bounds>, id: string, body: unknown) => {
  const b = bounds.get(id);
  return b && oversized(b, body);
};

const doc = {
  paths: {
    '/a': {
      post: {
        operationId: 'prepareOrSubmit',
        requestBody: {
          content: {
            'application/json': {
              schema: { oneOf: [{ $ref: '#/components/schemas/Prepare' }, { $ref: '#/components/schemas/Submit' }] },
            },
          },
        },
      },
    },
    '/b': { post: { operationId: 'open', requestBody: { $ref: '#/components/requestBodies/Open' } } },
  },
  components: {
    requestBodies: {
      Open: {
        content: {
          'application/json': {
            schema: { type: 'object', maxProperties: 3, additionalProperties: { type: 'array', maxItems: 2 } },
          },
        },
      },
    },
    schemas: {
      Prepare: {
        type: 'object',
        additionalProperties: false,
        required: ['vcs'],
        properties: {
          vcs: {
            type: 'array',
            maxItems: 5,
            items: {
              type: 'object',
              additionalProperties: false,
              properties: { tags: { type: 'array', maxItems: 2 } },
            },
          },
          scopes: { type: 'array', uniqueItems: true, maxItems: 6 },
          'a/b': { type: 'array', maxItems: 1 },
        },
      },
      Submit: {
        type: 'object',
        additionalProperties: false,
        required: ['signedXdr'],
        properties: { signedXdr: { type: 'string', maxLength: 10 } },
      },
    },
  },
};
const bounds = bodyBounds(doc);
const many = (n: number, item: unknown = {}) => Array.from({ length: n }, () => structuredClone(item));
const unknownKeys = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 0]));

describe('oversizedIn', () => {
  it.each<{ given: string; op: string; body: unknown; want: { path: string; keyword: string }[] | undefined }>([
    {
      given: 'within every bound',
      op: 'prepareOrSubmit',
      body: { vcs: many(5, { tags: [1, 2] }), scopes: many(6, 'x') },
      want: undefined,
    },
    {
      given: 'an array one over',
      op: 'prepareOrSubmit',
      body: { vcs: many(6) },
      want: [{ path: '/body/vcs', keyword: 'maxItems' }],
    },
    {
      given: '80,000 items',
      op: 'prepareOrSubmit',
      body: { vcs: many(80_000) },
      want: [{ path: '/body/vcs', keyword: 'maxItems' }],
    },
    {
      given: 'a nested array over',
      op: 'prepareOrSubmit',
      body: { vcs: [{}, { tags: [1, 2, 3] }] },
      want: [{ path: '/body/vcs/1/tags', keyword: 'maxItems' }],
    },
    {
      given: 'a key with a slash (JSON pointer)',
      op: 'prepareOrSubmit',
      body: { vcs: [], 'a/b': [1, 2] },
      want: [{ path: '/body/a~1b', keyword: 'maxItems' }],
    },
    {
      given: 'the submit branch, with a huge unknown array (neither branch fits)',
      op: 'prepareOrSubmit',
      body: { signedXdr: 'AAAA', vcs: many(1000) },
      want: [{ path: '/body/vcs', keyword: 'maxItems' }],
    },
    { given: 'a valid submit body', op: 'prepareOrSubmit', body: { signedXdr: 'AAAA' }, want: undefined },
    {
      given: `${UNKNOWN_KEYS_REPORTED} unknown keys (left to the validator)`,
      op: 'prepareOrSubmit',
      body: { vcs: [], ...unknownKeys(UNKNOWN_KEYS_REPORTED) },
      want: undefined,
    },
    {
      given: 'an open object over maxProperties',
      op: 'open',
      body: unknownKeys(4),
      want: [{ path: '/body', keyword: 'maxProperties' }],
    },
    {
      given: 'an open object with an oversized value',
      op: 'open',
      body: { x: [1, 2, 3] },
      want: [{ path: '/body/x', keyword: 'maxItems' }],
    },
    { given: 'not an object (left to the validator)', op: 'open', body: 42, want: undefined },
    { given: 'an operation without a body', op: 'unknown', body: { vcs: many(100) }, want: undefined },
  ])('$given', ({ op, body, want }) => {
    const got = oversizedIn(bounds, op, body)?.map(({ path, keyword }) => ({ path, keyword }));
    expect(got).toEqual(want);
  });

  it('names the first unknown keys of a closed object with thousands of them', () => {
    const got = oversizedIn(bounds, 'prepareOrSubmit', { vcs: [], ...unknownKeys(40_000) });
    expect(got).toHaveLength(UNKNOWN_KEYS_REPORTED);
    expect(got![0]).toEqual({
      path: '/body/k0',
      segments: ['body', 'k0'],
      message: 'must NOT have additional properties',
      keyword: 'additionalProperties',
    });
  });

  it('accepts every request example of both specs (it never refuses what the schema accepts)', () => {
    for (const file of ['spec/vault-api.yaml', 'spec/did-resolver.yaml']) {
      const spec = YAML.parse(readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8'));
      const all = bodyBounds(spec);
      let examples = 0;
      for (const item of Object.values(spec.paths as Record<string, Record<string, any>>)) {
        for (const op of Object.values(item)) {
          const media = op?.requestBody?.content?.['application/json'];
          for (const ex of [media?.example, ...Object.values(media?.examples ?? {}).map((e: any) => e.value)]) {
            if (ex === undefined) continue;
            examples++;
            expect(oversizedIn(all, op.operationId, ex), `${file} ${op.operationId}`).toBeUndefined();
          }
        }
      }
      expect(examples).toBeGreaterThan(5);
    }
  });
});
