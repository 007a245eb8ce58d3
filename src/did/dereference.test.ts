import { describe, expect, it } from 'vitest';
import { dereferenceFragment, methodsFor, parseDidUrl } from './dereference.ts';
import type { DidDocument } from './types.ts';

const DID = 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza';

describe('parseDidUrl', () => {
  it.each([
    { given: DID, want: { did: DID } },
    { given: `${DID}#assert-1`, want: { did: DID, fragment: 'assert-1' } },
    { given: `${DID}#`, want: { did: DID, fragment: '' } },
    { given: 'did:key:z6Mkr#z6Mkr', want: { did: 'did:key:z6Mkr', fragment: 'z6Mkr' } },
    { given: `${DID}/path?q=1#k`, want: { did: DID, fragment: 'k', pathAndQuery: '/path?q=1' } },
  ])('$given', ({ given, want }) => {
    expect(parseDidUrl(given)).toEqual({ didUrl: given, ...want });
  });

  it.each(['', 'did:', 'did:ledger', 'https://example.org#k', `${DID}#a b`, `${DID}x#<`, 42])('refuses %j', (given) => {
    expect(parseDidUrl(given)).toBeUndefined();
  });
});

const DOC: DidDocument = {
  id: DID,
  verificationMethod: [
    { id: `${DID}#auth-1`, type: 'Multikey', controller: DID, publicKeyMultibase: 'z6MkA' },
    { id: `${DID}#assert-1`, type: 'Multikey', controller: DID, publicKeyMultibase: 'z6MkB' },
  ],
  authentication: ['#auth-1'],
  assertionMethod: ['#assert-1'],
  service: [{ id: `${DID}#service-hub`, type: 'LinkedDomains', serviceEndpoint: 'https://hub.example' }],
};

describe('dereferenceFragment and methodsFor', () => {
  it.each([
    { fragment: 'assert-1', want: 'verificationMethod' },
    { fragment: 'service-hub', want: 'service' },
    { fragment: 'assert-2', want: undefined },
  ])('#$fragment → $want', ({ fragment, want }) => {
    expect(dereferenceFragment(DOC, fragment)?.kind).toBe(want);
  });

  it('resolves relative references of a relationship to absolute ids', () => {
    expect(methodsFor(DOC, 'assertionMethod').map((m) => m.id)).toEqual([`${DID}#assert-1`]);
    expect(methodsFor(DOC, 'keyAgreement')).toEqual([]);
  });
});
