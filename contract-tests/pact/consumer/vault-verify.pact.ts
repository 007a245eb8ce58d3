// Consumer contract with the vault API, part 4: the W3C VC API verifier (VCALM 0.9), as a verifier calls it
// through the client package's verify API: POST /credentials/verify by the owner's key and keyless for a
// presented credential (400 with the result when it does not verify), POST /challenges,
// POST /presentations/verify, and the JSON-LD context of LedgerVaultStatusEntry.
import { MatchersV3 } from '@pact-foundation/pact';
import { describe, expect, it } from 'vitest';
import { createChallenge, failures, verifyCredential, verifyPresentation } from '../../../src/client/index.ts';
import { EXAMPLE, VAULT_PROVIDER, VAULT_SPEC, VAULT_STATES as S, withInjected } from '../shared.ts';
import { consumerPact, expectApiError, keyHeader, vaultError } from './support.ts';

const { eachLike, like, regex, string } = MatchersV3;
const pact = consumerPact(VAULT_PROVIDER, VAULT_SPEC);

const ownerKey = keyHeader('ownerKey', EXAMPLE.ownerKey);
const strangerKey = keyHeader('strangerKey', EXAMPLE.strangerKey);
/** A problem of the result: its W3C (or this service's) type and stable reason, any words. */
const problem = (type: string, title: string, reason: string) => ({
  type,
  title,
  detail: string('why, for humans'),
  level: 'error',
  reason,
});
const PROOF = {
  type: 'DataIntegrityProof',
  cryptosuite: 'eddsa-jcs-2022',
  created: '2026-07-01T09:12:44Z',
  proofPurpose: 'assertionMethod',
  '@context': ['https://www.w3.org/ns/credentials/v2'],
  proofValue: 'z4oey5q2M3XKaxup3tmzN4DRFTLVqpLMweBrSxMY2xHX5XTYVQeVbY8nQAVHMrXFkXJpmEcqdoDwLWxaqA3Q1geV6',
};

/** A credential whose proof names a DID no deployment registered: it can never verify. */
const UNVERIFIABLE = {
  '@context': ['https://www.w3.org/ns/credentials/v2'],
  id: 'urn:uuid:3f1c9a52-8d0e-4b7a-9c61-2f4e5d6a7b80',
  type: ['VerifiableCredential', 'UniversityDegreeCredential'],
  issuer: EXAMPLE.unregisteredDid,
  validFrom: '2026-07-01T00:00:00Z',
  credentialSubject: { id: EXAMPLE.holderDid },
  proof: { ...PROOF, verificationMethod: `${EXAMPLE.unregisteredDid}#assert-1` },
};

/**
 * A presentation proved by a key of a DID that no deployment registered, with the verifier's challenge, of a
 * credential that cannot verify either.
 */
const UNREGISTERED_HOLDER = {
  verifiablePresentation: {
    '@context': ['https://www.w3.org/ns/credentials/v2'],
    type: ['VerifiablePresentation'],
    holder: EXAMPLE.unregisteredDid,
    verifiableCredential: [UNVERIFIABLE],
    proof: {
      ...PROOF,
      proofPurpose: 'authentication',
      challenge: 'verifier-nonce-1',
      verificationMethod: `${EXAMPLE.unregisteredDid}#auth-1`,
    },
  },
  options: { challenge: 'verifier-nonce-1' },
};

describe('credential verification', () => {
  it("POST /credentials/verify: a signed credential in the owner's vault, by the owner's key, passes every check", () => {
    const body = { owner: EXAMPLE.owner, vcId: 'vc-1' };
    return pact
      .interaction()
      .given(S.signedCredential, { vcId: 'vc-1' })
      .uponReceiving("a verification of a signed credential by owner and vcId, with the owner's key")
      .withRequest('POST', '/credentials/verify', (b) =>
        b.headers(ownerKey).jsonBody(withInjected(body, { owner: 'owner' })),
      )
      .willRespondWith(200, (b) =>
        b.jsonBody({
          verified: true,
          problemDetails: [],
          results: {
            proof: eachLike({
              verified: true,
              input: like({ type: 'DataIntegrityProof', cryptosuite: 'eddsa-jcs-2022' }),
            }),
            credentialStatus: eachLike({
              verified: true,
              status: 'valid',
              input: like({ type: 'VaultReference', vcId: 'vc-1' }),
            }),
            issuerDid: { outcome: 'passed', input: string(EXAMPLE.issuerDid) },
            issuerAllowed: { outcome: 'passed', input: string(EXAMPLE.issuerDid) },
          },
        }),
      )
      .executeTest(async (mock) => {
        const r = await verifyCredential(pact.vault(mock.url, EXAMPLE.ownerKey), body);
        expect(r.verified).toBe(true);
        expect(r.results?.credentialStatus?.[0]?.status).toBe('valid');
      });
  });

  it('POST /credentials/verify: a presented credential without a key; 400 with the result and its problems', () =>
    pact
      .interaction()
      .uponReceiving('a keyless verification of a presented credential whose issuer DID is not registered')
      .withRequest('POST', '/credentials/verify', (b) =>
        b.jsonBody({ verifiableCredential: UNVERIFIABLE, options: { checks: ['proof'] } }),
      )
      .willRespondWith(400, (b) =>
        b.jsonBody({
          verified: false,
          problemDetails: eachLike(
            problem('https://w3id.org/security#PROOF_VERIFICATION_ERROR', 'PROOF_VERIFICATION_ERROR', 'did_not_found'),
          ),
          results: { proof: eachLike({ verified: false, input: like({ type: 'DataIntegrityProof' }) }) },
        }),
      )
      .executeTest(async (mock) => {
        const r = await verifyCredential(pact.vault(mock.url), {
          verifiableCredential: UNVERIFIABLE,
          options: { checks: ['proof'] },
        });
        expect(r.verified).toBe(false);
        expect(failures(r).map((p) => p.reason)).toContain('did_not_found');
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

  it("POST /credentials/verify: 403 forbidden by reference with another wallet's key (nothing of the credential told)", () => {
    const body = { owner: EXAMPLE.owner, vcId: 'vc-1' };
    return pact
      .interaction()
      .given(S.signedCredential, { vcId: 'vc-1' })
      .uponReceiving("a verification by owner and vcId with another wallet's key")
      .withRequest('POST', '/credentials/verify', (b) =>
        b.headers(strangerKey).jsonBody(withInjected(body, { owner: 'owner' })),
      )
      .willRespondWith(403, (b) => b.jsonBody(vaultError('forbidden')))
      .executeTest(async (mock) => {
        await expect(verifyCredential(pact.vault(mock.url, EXAMPLE.strangerKey), body)).rejects.toMatchObject({
          status: 403,
          code: 'forbidden',
        });
      });
  });
});

describe('presentations', () => {
  it('POST /challenges: a fresh challenge, keyless', () =>
    pact
      .interaction()
      .uponReceiving('a request for a presentation challenge')
      .withRequest('POST', '/challenges', (b) => b.jsonBody({}))
      .willRespondWith(200, (b) =>
        b.jsonBody({ challenge: regex('^cvc1_[A-Za-z0-9_-]{22}$', 'cvc1_5mBLvR1bbz4uSMo7c6o0hQ') }),
      )
      .executeTest(async (mock) => {
        expect(await createChallenge(pact.vault(mock.url))).toMatch(/^cvc1_/);
      }));

  it('POST /presentations/verify: a holder proof by a DID no deployment registered; 400, verified false', () => {
    const body = UNREGISTERED_HOLDER;
    return pact
      .interaction()
      .uponReceiving('a keyless verification of a presentation whose holder DID is not registered')
      .withRequest('POST', '/presentations/verify', (b) => b.jsonBody(body))
      .willRespondWith(400, (b) =>
        b.jsonBody({
          verified: false,
          problemDetails: eachLike(
            problem('https://w3id.org/security#PROOF_VERIFICATION_ERROR', 'PROOF_VERIFICATION_ERROR', 'did_not_found'),
          ),
          results: {
            presentation: {
              challenge: { verified: false, input: 'verifier-nonce-1' },
              holder: { verified: false, input: EXAMPLE.unregisteredDid },
              proof: eachLike({
                verified: false,
                input: like({ type: 'DataIntegrityProof', proofPurpose: 'authentication' }),
              }),
            },
            credentials: [
              like({
                verified: false,
                problemDetails: eachLike(
                  problem(
                    'https://w3id.org/security#PROOF_VERIFICATION_ERROR',
                    'PROOF_VERIFICATION_ERROR',
                    'did_not_found',
                  ),
                ),
              }),
            ],
          },
        }),
      )
      .executeTest(async (mock) => {
        const r = await verifyPresentation(pact.vault(mock.url), body);
        expect(r.verified).toBe(false);
        expect(r.results?.presentation?.holder?.verified).toBe(false);
        // failures() lists the presentation's errors, then those of each credential in it.
        const reasons = failures(r).map((p) => p.reason);
        expect(reasons[0]).toBe('did_not_found');
        expect(reasons.length).toBeGreaterThan(1);
      });
  });

  it('POST /presentations/verify: a presentation whose holder is not a DID cannot be verified at all; 400', () => {
    const body = {
      ...UNREGISTERED_HOLDER,
      verifiablePresentation: { ...UNREGISTERED_HOLDER.verifiablePresentation, holder: 'https://holder.example' },
    };
    return pact
      .interaction()
      .uponReceiving('a keyless verification of a presentation whose holder is not a DID')
      .withRequest('POST', '/presentations/verify', (b) => b.jsonBody(body))
      .willRespondWith(400, (b) =>
        b.jsonBody({
          verified: false,
          problemDetails: eachLike(
            problem(
              'https://www.w3.org/TR/vc-data-model#MALFORMED_VALUE_ERROR',
              'MALFORMED_VALUE_ERROR',
              'holder_invalid',
            ),
          ),
        }),
      )
      .executeTest(async (mock) => {
        const r = await verifyPresentation(pact.vault(mock.url), body);
        expect(r.verified).toBe(false);
        expect(failures(r).map((p) => p.reason)).toEqual(['holder_invalid']);
      });
  });

  it('GET /contexts/ledger-vault/v1: the JSON-LD context of LedgerVaultStatusEntry, keyless', () =>
    pact
      .interaction()
      .uponReceiving('a request for the LedgerVaultStatusEntry context')
      .withRequest('GET', '/contexts/ledger-vault/v1')
      .willRespondWith(200, (b) =>
        b
          .headers({
            'Content-Type': regex('^application/ld\\+json.*$', 'application/ld+json; charset=utf-8'),
            'Access-Control-Allow-Origin': '*',
          })
          .jsonBody({
            '@context': like({
              '@protected': true,
              LedgerVaultStatusEntry: like({ '@id': 'urn:credential-vault:vocab#LedgerVaultStatusEntry' }),
            }),
          }),
      )
      .executeTest(async (mock) => {
        const r = await pact.vault(mock.url).GET('/contexts/ledger-vault/v1');
        expect(r.response.status).toBe(200);
      }));
});
