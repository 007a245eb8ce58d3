// HEAD as GET: which paths of a description have a GET.
import { describe, expect, it } from 'vitest';
import { getPathMatchers } from './head.ts';

describe('getPathMatchers', () => {
  const paths = {
    '/health': { get: {} },
    '/contracts/vc/issue': { post: {} },
    '/contracts/vault/{owner}': { parameters: [], get: {} },
    '/1.0/identifiers/{did}': { get: {} },
    '/a.b': { get: {} },
  };
  const matches = (path: string) => getPathMatchers(paths).some((re) => re.test(path));

  it.each([
    ['/health', true],
    ['/health/', false],
    ['/contracts/vc/issue', false],
    ['/contracts/vault/GABC', true],
    ['/contracts/vault/GABC/x', false],
    ['/contracts/vault/', false],
    ['/1.0/identifiers/did:ledger:testnet:abc', true],
    ['/1x0/identifiers/did', false],
    ['/a.b', true],
    ['/aXb', false],
  ])('%s → %s', (path, want) => {
    expect(matches(path)).toBe(want);
  });
});
