// Consumer contract with the vault API, part 4: POST /credentials/verify (W3C VC API shape), keyed by
// reference and keyless for a presented credential, as a verifier calls it.
import { MatchersV3 } from '@pact-foundation/pact';
import { describe, expect, it } from 'vitest';
import { unwrap } from '../../../src/client/index.ts';
import { EXAMPLE, VAULT_PROVIDER, VAULT_SPEC, VAULT_STATES as S, withInjected } from '../shared.ts';
import { consumerPact, expectApiError, keyHeader, vaultError } from './support.ts';

const { eachLike, regex, string } = MatchersV3;
const pact = consumerPact(VAULT_PROVIDER, VAULT_SPEC);

const strangerKey = keyHeader('strangerKey', EXAMPLE.strangerKey);
const CHECKS = ['proof', 'issuerDid', 'status', 'issuerAllowed', 'validityPeriod'] as const;
const problem = (check: string, reason: string) => ({ check: string(check), reason: string(reason), message: string('why, for humans') });

/** A credential whose proof names a DID no deployment registered: it can never verify. */
const UNVERIFIABLE = {
  '@context': ['https://www.w3.org/ns/credentials/v2'],
  id: 'urn:uuid:3f1c9a52-8d0e-4b7a-9c61-2f4e5d6a7b80',
  type: ['VerifiableCredential', 'UniversityDegreeCredential'],
  issuer: EXAMPLE.unregisteredDid,
  validFrom: '2026-07-01T00:00:00Z',
  credentialSubject: { id: EXAMPLE.holderDid },
  proof: {
    type: 'DataIntegrityProof',
    cryptosuite: 'eddsa-jcs-2022',
    created: '2026-07-01T09:12:44Z',
    verificationMethod: `${EXAMPLE.unregisteredDid}#assert-1`,
    proofPurpose: 'assertionMethod',
    '@context': ['https://www.w3.org/ns/credentials/v2'],
    proofValue: 'z4oey5q2M3XKaxup3tmzN4DRFTLVqpLMweBrSxMY2xHX5XTYVQeVbY8nQAVHMrXFkXJpmEcqdoDwLWxaqA3Q1geV6',
  },
};

describe('credential verification', () => {
  it('POST /credentials/verify: a signed credential in a vault, by reference, passes every check', () => {
    const body = { owner: EXAMPLE.owner, vcId: 'vc-1' };
    return pact
      .interaction()
      .given(S.signedCredential, { vcId: 'vc-1' })
      .uponReceiving('a verification of a signed credential by owner and vcId')
      .withRequest('POST', '/credentials/verify', (b) => b.headers(strangerKey).jsonBody(withInjected(body, { owner: 'owner' })))
      .willRespondWith(200, (b) =>
        b.jsonBody({ verified: true, checks: CHECKS.map((check) => ({ check, status: 'passed' })), warnings: [], errors: [] }),
      )
      .executeTest(async (mock) => {
        const r = unwrap(await pact.vault(mock.url, EXAMPLE.strangerKey).POST('/credentials/verify', { body }));
        expect(r.verified).toBe(true);
        expect(r.checks.map((c) => c.check)).toEqual([...CHECKS]);
      });
  });

  it('POST /credentials/verify: a presented credential without a key; verified false with the reasons', () =>
    pact
      .interaction()
      .uponReceiving('a keyless verification of a presented credential whose issuer DID is not registered')
      .withRequest('POST', '/credentials/verify', (b) => b.jsonBody({ verifiableCredential: UNVERIFIABLE }))
      .willRespondWith(200, (b) =>
        b.jsonBody({
          verified: false,
          checks: eachLike({ check: string('proof'), status: regex('^(passed|failed|skipped)$', 'failed') }, 5),
          warnings: eachLike(problem('status', 'no_vault_reference')),
          errors: eachLike(problem('proof', 'did_not_found')),
        }),
      )
      .executeTest(async (mock) => {
        const r = unwrap(await pact.vault(mock.url).POST('/credentials/verify', { body: { verifiableCredential: UNVERIFIABLE } }));
        expect(r.verified).toBe(false);
        expect(r.errors.length).toBeGreaterThan(0);
      }));

  it('POST /credentials/verify: 401 missing_api_key by reference without a key', () => {
    const body = { owner: EXAMPLE.owner, vcId: 'vc-1' };
    return pact
      .interaction()
      .given(S.signedCredential, { vcId: 'vc-1' })
      .uponReceiving('a keyless verification by owner and vcId')
      .withRequest('POST', '/credentials/verify', (b) => b.jsonBody(withInjected(body, { owner: 'owner' })))
      .willRespondWith(401, (b) => b.jsonBody(vaultError('missing_api_key')))
      .executeTest(async (mock) => {
        expectApiError(await pact.vault(mock.url).POST('/credentials/verify', { body }), 401, 'missing_api_key');
      });
  });
});
