// `Allow` of a 405, from a description: declared paths only, path parameters held to their patterns.
import { describe, expect, it } from 'vitest';
import { allowLookup } from './allow.ts';

const doc = {
  paths: {
    '/health': { get: {} },
    '/contracts/vault/create': { post: {} },
    '/contracts/vault/{owner}': { parameters: [{ $ref: '#/components/parameters/Owner' }], get: {} },
    '/items/{id}': { get: { parameters: [{ in: 'path', name: 'id', schema: { type: 'string' } }] }, delete: {} },
  },
  components: {
    parameters: { Owner: { in: 'path', name: 'owner', schema: { $ref: '#/components/schemas/Account' } } },
    schemas: { Account: { type: 'string', pattern: '^G[A-Z2-7]{55}$' } },
  },
};
const G = `G${'A'.repeat(55)}`;

describe('allowLookup', () => {
  const allowOf = allowLookup(doc);
  it.each([
    { path: '/health', want: 'GET, HEAD' },
    { path: '/contracts/vault/create', want: 'POST' },
    { path: `/contracts/vault/${G}`, want: 'GET, HEAD' },
    // Looks like /contracts/vault/{owner}, but an owner is an account: not a declared path.
    { path: '/contracts/vault/open-to-all', want: undefined },
    { path: '/items/anything', want: 'GET, HEAD, DELETE' },
    { path: '/items/a/b', want: undefined },
    { path: '/nope', want: undefined },
    { path: '/items/%', want: undefined },
  ])('$path → $want', ({ path, want }) => {
    expect(allowOf(path)).toBe(want);
  });
});
