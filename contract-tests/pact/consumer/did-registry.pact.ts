// Consumer contract with the did:ledger resolver, part 2: raw records, the prepare / submit mutations of
// the registry, and proof of control.
import { MatchersV3 } from '@pact-foundation/pact';
import { describe, expect, it } from 'vitest';
import { unwrap, type ResolverSchemas } from '../../../src/client/index.ts';
import {
  EXAMPLE,
  RESOLVER_PROVIDER,
  RESOLVER_SPEC,
  RESOLVER_STATES as S,
  injected,
  like,
  withInjected,
} from '../shared.ts';
import { consumerPact, expectApiError, resolverError } from './support.ts';

const { atLeastLike, eachLike, fromProviderState, integer, regex, string } = MatchersV3;
const pact = consumerPact(RESOLVER_PROVIDER, RESOLVER_SPEC);

const didPath = (suffix = '', name = 'did', example: string = EXAMPLE.did) =>
  fromProviderState(`/v1/dids/stellar/\${${name}}${suffix}`, `/v1/dids/stellar/${example}${suffix}`);

const PREPARED = {
  xdr: like.xdr(),
  network: regex('^(testnet|mainnet)$', 'testnet'),
  networkPassphrase: string(EXAMPLE.passphrase),
};
const SUBMITTED = { txId: like.txHash() };
const key = (multibase: string = EXAMPLE.multikey) => ({ publicKeyMultibase: multibase });

/** A record for `controller` with one authentication key. */
const recordOf = (controller: string): ResolverSchemas['DidRecordInput'] => ({
  controller,
  authentication: [key()],
  assertionMethod: [],
  keyAgreement: [],
  services: [],
});

describe('GET /v1/dids/stellar/{did}', () => {
  it('200: the raw on-chain record', () =>
    pact
      .interaction()
      .given(S.registeredDid)
      .uponReceiving('a request for the record of a registered DID')
      .withRequest('GET', didPath())
      .willRespondWith(200, (b) =>
        b.headers({ 'Cache-Control': 'no-store' }).jsonBody({
          did: like.did(),
          didId: regex('^[a-z2-7]{26}$', 'nohsyhu2pu7uaulcoocjljvxza'),
          record: {
            controller: like.account(),
            authentication: eachLike({ publicKeyMultibase: like.multikey() }),
            assertionMethod: atLeastLike({ publicKeyMultibase: like.multikey() }, 0, 1),
            keyAgreement: atLeastLike(
              {
                publicKeyMultibase: regex(
                  '^z6LS[1-9A-HJ-NP-Za-km-z]+$',
                  'z6LShs9GGnqk85isEBzzshkuVWrVKsRp24GnDuHk8QWkARMW',
                ),
              },
              0,
              1,
            ),
            services: atLeastLike(
              {
                idSuffix: string('linked-domain'),
                serviceType: string('LinkedDomains'),
                serviceEndpoint: string('https://issuer.example.org'),
              },
              0,
              1,
            ),
            version: integer(1),
            createdLedger: integer(1204877),
            updatedLedger: integer(1204877),
            deactivated: false,
          },
        }),
      )
      .executeTest(async (mock) => {
        const r = await pact
          .resolver(mock.url)
          .GET('/v1/dids/stellar/{did}', { params: { path: { did: EXAMPLE.did } } });
        expect(unwrap(r).record.version).toBeGreaterThan(0);
      }));

  it('404 did_not_found', () =>
    pact
      .interaction()
      .uponReceiving('a request for the record of an unregistered DID')
      .withRequest('GET', `/v1/dids/stellar/${encodeURIComponent(EXAMPLE.unregisteredDid)}`)
      .willRespondWith(404, (b) => b.jsonBody(resolverError('did_not_found')))
      .executeTest(async (mock) => {
        const r = await pact
          .resolver(mock.url)
          .GET('/v1/dids/stellar/{did}', { params: { path: { did: EXAMPLE.unregisteredDid } } });
        expectApiError(r, 404, 'did_not_found');
      }));

  it('400 did_invalid', () =>
    pact
      .interaction()
      .uponReceiving('a request for the record of a malformed DID')
      .withRequest('GET', `/v1/dids/stellar/${encodeURIComponent('did:ledger:public:nohsyhu2pu7uaulcoocjljvxza')}`)
      .willRespondWith(400, (b) => b.jsonBody(resolverError('did_invalid')))
      .executeTest(async (mock) => {
        const r = await pact
          .resolver(mock.url)
          .GET('/v1/dids/stellar/{did}', { params: { path: { did: 'did:ledger:public:nohsyhu2pu7uaulcoocjljvxza' } } });
        expectApiError(r, 400, 'did_invalid');
      }));
});

describe('POST /v1/dids/stellar (register)', () => {
  const body = { did: EXAMPLE.did, sourcePublicKey: EXAMPLE.owner, record: recordOf(EXAMPLE.owner) };
  const inject = { did: 'did', sourcePublicKey: 'account', 'record.controller': 'account' };

  it('prepare: the unsigned register transaction', () =>
    pact
      .interaction()
      .given(S.fundedAccount)
      .uponReceiving('a registration to prepare')
      .withRequest('POST', '/v1/dids/stellar', (b) => b.jsonBody(withInjected(body, inject)))
      .willRespondWith(200, (b) => b.jsonBody(PREPARED))
      .executeTest(async (mock) => {
        expect(unwrap(await pact.resolver(mock.url).POST('/v1/dids/stellar', { body }))).toHaveProperty('xdr');
      }));

  it('submit: the signed registration is final', () =>
    pact
      .interaction()
      .given(S.signedRegister)
      .uponReceiving('a signed registration')
      .withRequest('POST', '/v1/dids/stellar', (b) => b.jsonBody({ signedXdr: injected('signedXdr', EXAMPLE.xdr) }))
      .willRespondWith(200, (b) => b.jsonBody(SUBMITTED))
      .executeTest(async (mock) => {
        expect(
          unwrap(await pact.resolver(mock.url).POST('/v1/dids/stellar', { body: { signedXdr: EXAMPLE.xdr } })),
        ).toHaveProperty('txId');
      }));

  it('409 did_already_exists', () =>
    pact
      .interaction()
      .given(S.registeredDid)
      .uponReceiving('a registration of a registered DID')
      .withRequest('POST', '/v1/dids/stellar', (b) =>
        b.jsonBody(
          withInjected(body, { did: 'did', sourcePublicKey: 'controller', 'record.controller': 'controller' }),
        ),
      )
      .willRespondWith(409, (b) => b.jsonBody(resolverError('did_already_exists')))
      .executeTest(async (mock) => {
        expectApiError(await pact.resolver(mock.url).POST('/v1/dids/stellar', { body }), 409, 'did_already_exists');
      }));

  it('400 key_count_invalid: no authentication key', () => {
    const invalid = { ...body, record: { ...recordOf(EXAMPLE.owner), authentication: [] } };
    return pact
      .interaction()
      .uponReceiving('a registration without an authentication key')
      .withRequest('POST', '/v1/dids/stellar', (b) => b.jsonBody(invalid))
      .willRespondWith(400, (b) =>
        b.jsonBody({
          ...resolverError('key_count_invalid'),
          details: {
            field: 'authentication',
            violations: eachLike({
              code: 'key_count_invalid',
              field: 'authentication',
              message: string('authentication holds 1 to 3 keys, got 0'),
            }),
          },
        }),
      )
      .executeTest(async (mock) => {
        const err = expectApiError(
          await pact.resolver(mock.url).POST('/v1/dids/stellar', { body: invalid }),
          400,
          'key_count_invalid',
        );
        expect(err.details).toHaveProperty('field', 'authentication');
      });
  });
});

describe('POST /v1/dids/stellar/submit', () => {
  it('200: any signed registry transaction', () =>
    pact
      .interaction()
      .given(S.signedUpdate)
      .uponReceiving('a signed update sent to the generic submit route')
      .withRequest('POST', '/v1/dids/stellar/submit', (b) =>
        b.jsonBody({ signedXdr: injected('signedXdr', EXAMPLE.xdr) }),
      )
      .willRespondWith(200, (b) => b.jsonBody(SUBMITTED))
      .executeTest(async (mock) => {
        expect(
          unwrap(await pact.resolver(mock.url).POST('/v1/dids/stellar/submit', { body: { signedXdr: EXAMPLE.xdr } })),
        ).toHaveProperty('txId');
      }));

  it('400 invalid_request: not a transaction envelope', () =>
    pact
      .interaction()
      .uponReceiving('a submission that is not a transaction envelope')
      .withRequest('POST', '/v1/dids/stellar/submit', (b) => b.jsonBody({ signedXdr: 'AAAAAAAA' }))
      .willRespondWith(400, (b) => b.jsonBody(resolverError('invalid_request')))
      .executeTest(async (mock) => {
        expectApiError(
          await pact.resolver(mock.url).POST('/v1/dids/stellar/submit', { body: { signedXdr: 'AAAAAAAA' } }),
          400,
          'invalid_request',
        );
      }));
});

describe('POST /v1/dids/stellar/{did}/update | transfer | deactivate', () => {
  const update = { expectedVersion: 1, sourcePublicKey: EXAMPLE.owner, record: recordOf(EXAMPLE.owner) };
  const updateInject = { expectedVersion: 'version', sourcePublicKey: 'controller', 'record.controller': 'controller' };
  const params = { params: { path: { did: EXAMPLE.did } } };

  it('update, prepare: the unsigned update transaction', () =>
    pact
      .interaction()
      .given(S.registeredDid)
      .uponReceiving('an update to prepare')
      .withRequest('POST', didPath('/update'), (b) => b.jsonBody(withInjected(update, updateInject)))
      .willRespondWith(200, (b) => b.jsonBody(PREPARED))
      .executeTest(async (mock) => {
        expect(
          unwrap(await pact.resolver(mock.url).POST('/v1/dids/stellar/{did}/update', { ...params, body: update })),
        ).toHaveProperty('xdr');
      }));

  it('update, submit: the signed update is final', () =>
    pact
      .interaction()
      .given(S.signedUpdate)
      .uponReceiving('a signed update')
      .withRequest('POST', didPath('/update'), (b) => b.jsonBody({ signedXdr: injected('signedXdr', EXAMPLE.xdr) }))
      .willRespondWith(200, (b) => b.jsonBody(SUBMITTED))
      .executeTest(async (mock) => {
        const r = await pact
          .resolver(mock.url)
          .POST('/v1/dids/stellar/{did}/update', { ...params, body: { signedXdr: EXAMPLE.xdr } });
        expect(unwrap(r)).toHaveProperty('txId');
      }));

  it('update: 409 version_mismatch for a stale expectedVersion', () => {
    const stale = { ...update, expectedVersion: 7 };
    return pact
      .interaction()
      .given(S.registeredDid)
      .uponReceiving('an update at a stale version')
      .withRequest('POST', didPath('/update'), (b) =>
        b.jsonBody(withInjected(stale, { sourcePublicKey: 'controller', 'record.controller': 'controller' })),
      )
      .willRespondWith(409, (b) =>
        b.jsonBody({
          ...resolverError('version_mismatch'),
          details: { expectedVersion: integer(7), currentVersion: integer(1) },
        }),
      )
      .executeTest(async (mock) => {
        const err = expectApiError(
          await pact.resolver(mock.url).POST('/v1/dids/stellar/{did}/update', { ...params, body: stale }),
          409,
          'version_mismatch',
        );
        expect(err.details).toHaveProperty('currentVersion');
      });
  });

  it('update: 404 did_not_found', () =>
    pact
      .interaction()
      .given(S.fundedAccount)
      .uponReceiving('an update of an unregistered DID')
      .withRequest('POST', didPath('/update', 'did', EXAMPLE.unregisteredDid), (b) =>
        b.jsonBody(withInjected(update, { sourcePublicKey: 'account', 'record.controller': 'account' })),
      )
      .willRespondWith(404, (b) => b.jsonBody(resolverError('did_not_found')))
      .executeTest(async (mock) => {
        const r = await pact
          .resolver(mock.url)
          .POST('/v1/dids/stellar/{did}/update', { params: { path: { did: EXAMPLE.unregisteredDid } }, body: update });
        expectApiError(r, 404, 'did_not_found');
      }));

  it('transfer, prepare: the unsigned transfer_controller transaction', () => {
    const transfer = { expectedVersion: 1, newController: EXAMPLE.newOwner, sourcePublicKey: EXAMPLE.owner };
    return pact
      .interaction()
      .given(S.registeredDid)
      .uponReceiving('a controller transfer to prepare')
      .withRequest('POST', didPath('/transfer'), (b) =>
        b.jsonBody(withInjected(transfer, { expectedVersion: 'version', sourcePublicKey: 'controller' })),
      )
      .willRespondWith(200, (b) => b.jsonBody(PREPARED))
      .executeTest(async (mock) => {
        expect(
          unwrap(await pact.resolver(mock.url).POST('/v1/dids/stellar/{did}/transfer', { ...params, body: transfer })),
        ).toHaveProperty('xdr');
      });
  });

  const deactivate = { expectedVersion: 1, sourcePublicKey: EXAMPLE.owner };
  const deactivateInject = { expectedVersion: 'version', sourcePublicKey: 'controller' };

  it('deactivate, prepare: the unsigned deactivate transaction', () =>
    pact
      .interaction()
      .given(S.registeredDid)
      .uponReceiving('a deactivation to prepare')
      .withRequest('POST', didPath('/deactivate'), (b) => b.jsonBody(withInjected(deactivate, deactivateInject)))
      .willRespondWith(200, (b) => b.jsonBody(PREPARED))
      .executeTest(async (mock) => {
        expect(
          unwrap(
            await pact.resolver(mock.url).POST('/v1/dids/stellar/{did}/deactivate', { ...params, body: deactivate }),
          ),
        ).toHaveProperty('xdr');
      }));

  it('deactivate, submit: the signed deactivation is final', () =>
    pact
      .interaction()
      .given(S.signedDeactivate)
      .uponReceiving('a signed deactivation')
      .withRequest('POST', didPath('/deactivate'), (b) => b.jsonBody({ signedXdr: injected('signedXdr', EXAMPLE.xdr) }))
      .willRespondWith(200, (b) => b.jsonBody(SUBMITTED))
      .executeTest(async (mock) => {
        const r = await pact
          .resolver(mock.url)
          .POST('/v1/dids/stellar/{did}/deactivate', { ...params, body: { signedXdr: EXAMPLE.xdr } });
        expect(unwrap(r)).toHaveProperty('txId');
      }));

  it('deactivate: 409 did_deactivated for a deactivated DID', () =>
    pact
      .interaction()
      .given(S.deactivatedDid)
      .uponReceiving('a deactivation of a deactivated DID')
      .withRequest('POST', didPath('/deactivate'), (b) => b.jsonBody(withInjected(deactivate, deactivateInject)))
      .willRespondWith(409, (b) => b.jsonBody(resolverError('did_deactivated')))
      .executeTest(async (mock) => {
        expectApiError(
          await pact.resolver(mock.url).POST('/v1/dids/stellar/{did}/deactivate', { ...params, body: deactivate }),
          409,
          'did_deactivated',
        );
      }));
});

describe('proof of control', () => {
  const DOMAIN = 'vault.example.org';
  const challenge = {
    did: EXAMPLE.did,
    domain: DOMAIN,
    nonce: 'q8Vn2mZx4TkLp0RwYb7e1A',
    timestamp: '2025-06-02T09:30:00.000Z',
  };
  const signature = 'CtANcHG54l-vKqkyXaVbKKBX5VKGgFILIKc1O5W2PODovVbuAcbMDuls8VB_UAn6rZqNOTBmUVvjOMDdolo2DA';

  it('POST /v1/proof/challenge: a challenge to sign', () =>
    pact
      .interaction()
      .uponReceiving('a request for a proof-of-control challenge')
      .withRequest('POST', '/v1/proof/challenge', (b) => b.jsonBody({ did: EXAMPLE.did, domain: DOMAIN }))
      .willRespondWith(200, (b) =>
        b.headers({ 'Cache-Control': 'no-store' }).jsonBody({
          did: EXAMPLE.did,
          domain: DOMAIN,
          nonce: regex('^[A-Za-z0-9_-]{22,128}$', challenge.nonce),
          timestamp: like.isoDateTime(challenge.timestamp),
        }),
      )
      .executeTest(async (mock) => {
        const issued = unwrap(
          await pact.resolver(mock.url).POST('/v1/proof/challenge', { body: { did: EXAMPLE.did, domain: DOMAIN } }),
        );
        expect(issued.did).toBe(EXAMPLE.did);
      }));

  it('POST /v1/proof/challenge: 400 did_invalid for a non-canonical didId', () => {
    const did = 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxzb';
    return pact
      .interaction()
      .uponReceiving('a request for a challenge for a non-canonical DID')
      .withRequest('POST', '/v1/proof/challenge', (b) => b.jsonBody({ did, domain: DOMAIN }))
      .willRespondWith(400, (b) => b.jsonBody(resolverError('did_invalid')))
      .executeTest(async (mock) => {
        expectApiError(
          await pact.resolver(mock.url).POST('/v1/proof/challenge', { body: { did, domain: DOMAIN } }),
          400,
          'did_invalid',
        );
      });
  });

  const signed = { challenge, signature, domain: DOMAIN };
  const signedInject = {
    'challenge.did': 'did',
    'challenge.nonce': 'nonce',
    'challenge.timestamp': 'timestamp',
    signature: 'signature',
  };

  it('POST /v1/proof/verify: the controller proved control', () =>
    pact
      .interaction()
      .given(S.signedProof)
      .uponReceiving('a signed proof-of-control challenge')
      .withRequest('POST', '/v1/proof/verify', (b) => b.jsonBody(withInjected(signed, signedInject)))
      .willRespondWith(200, (b) =>
        b.jsonBody({
          verified: true,
          did: like.did(),
          verificationMethod: regex('^did:ledger:(mainnet|testnet):[a-z2-7]{26}#auth-[1-3]$', `${EXAMPLE.did}#auth-1`),
        }),
      )
      .executeTest(async (mock) => {
        expect(unwrap(await pact.resolver(mock.url).POST('/v1/proof/verify', { body: signed })).verified).toBe(true);
      }));

  it('POST /v1/proof/verify: 401 challenge_expired for an old challenge', () =>
    pact
      .interaction()
      .uponReceiving('a proof of control with a challenge from last year')
      .withRequest('POST', '/v1/proof/verify', (b) => b.jsonBody(signed))
      .willRespondWith(401, (b) => b.jsonBody(resolverError('challenge_expired')))
      .executeTest(async (mock) => {
        expectApiError(
          await pact.resolver(mock.url).POST('/v1/proof/verify', { body: signed }),
          401,
          'challenge_expired',
        );
      }));

  it('POST /v1/proof/verify: 409 did_deactivated', () =>
    pact
      .interaction()
      .given(S.signedProofDeactivated)
      .uponReceiving('a signed proof of control for a deactivated DID')
      .withRequest('POST', '/v1/proof/verify', (b) => b.jsonBody(withInjected(signed, signedInject)))
      .willRespondWith(409, (b) => b.jsonBody(resolverError('did_deactivated')))
      .executeTest(async (mock) => {
        expectApiError(
          await pact.resolver(mock.url).POST('/v1/proof/verify', { body: signed }),
          409,
          'did_deactivated',
        );
      }));
});
