// Consumer contract with the vault API, part 3: the read routes and the issuer registry (custom fees).
import { MatchersV3 } from '@pact-foundation/pact';
import { describe, expect, it } from 'vitest';
import { unwrap } from '../../../src/client/index.ts';
import { EXAMPLE, VAULT_PROVIDER, VAULT_SPEC, VAULT_STATES as S, injected, like, withInjected } from '../shared.ts';
import { PREPARED, consumerPact, expectApiError, keyHeader, vaultError } from './support.ts';

const { eachLike, fromProviderState, integer, regex, string, boolean } = MatchersV3;
const pact = consumerPact(VAULT_PROVIDER, VAULT_SPEC);

const vcOne = { vcId: 'vc-1' };
const ownerKey = keyHeader('ownerKey', EXAMPLE.ownerKey);
const strangerKey = keyHeader('strangerKey', EXAMPLE.strangerKey);
const ownerQuery = (name = 'owner', example: string = EXAMPLE.owner) => ({ owner: injected(name, example) });

describe('credentials', () => {
  it("POST /contracts/vault/list-vc-ids: a page of the owner's credential ids", () => {
    const body = { owner: EXAMPLE.owner, offset: 0, limit: 50 };
    return pact
      .interaction()
      .given(S.vaultWithCredential, vcOne)
      .uponReceiving('a request for the first page of credential ids')
      .withRequest('POST', '/contracts/vault/list-vc-ids', (b) =>
        b.headers(ownerKey).jsonBody(withInjected(body, { owner: 'owner' })),
      )
      .willRespondWith(200, (b) =>
        b
          .headers({ 'X-RateLimit-Limit': regex('^[0-9]+$', '60'), 'X-RateLimit-Remaining': regex('^[0-9]+$', '59') })
          .jsonBody({ result: eachLike(string('vc-1')), offset: 0, limit: 50 }),
      )
      .executeTest(async (mock) => {
        const page = unwrap(
          await pact.vault(mock.url, EXAMPLE.ownerKey).POST('/contracts/vault/list-vc-ids', { body }),
        );
        expect(page.result.length).toBeGreaterThan(0);
      });
  });

  it("POST /contracts/vault/list-vc-ids: 403 forbidden for another wallet's vault", () => {
    const body = { owner: EXAMPLE.owner };
    return pact
      .interaction()
      .given(S.vaultWithCredential, vcOne)
      .uponReceiving("a request for the credential ids of another wallet's vault")
      .withRequest('POST', '/contracts/vault/list-vc-ids', (b) =>
        b.headers(strangerKey).jsonBody(withInjected(body, { owner: 'owner' })),
      )
      .willRespondWith(403, (b) => b.jsonBody(vaultError('forbidden')))
      .executeTest(async (mock) => {
        expectApiError(
          await pact.vault(mock.url, EXAMPLE.strangerKey).POST('/contracts/vault/list-vc-ids', { body }),
          403,
          'forbidden',
        );
      });
  });

  it('POST /contracts/vault/list-vc-ids: 400 limit_too_large above 200', () => {
    const body = { owner: EXAMPLE.owner, limit: 500 };
    return pact
      .interaction()
      .given(S.vaultWithCredential, vcOne)
      .uponReceiving('a request for a page of 500 credential ids')
      .withRequest('POST', '/contracts/vault/list-vc-ids', (b) =>
        b.headers(ownerKey).jsonBody(withInjected(body, { owner: 'owner' })),
      )
      .willRespondWith(400, (b) => b.jsonBody(vaultError('limit_too_large')))
      .executeTest(async (mock) => {
        expectApiError(
          await pact.vault(mock.url, EXAMPLE.ownerKey).POST('/contracts/vault/list-vc-ids', { body }),
          400,
          'limit_too_large',
        );
      });
  });

  it('GET /contracts/vault/vc-count: the number of active credentials', () =>
    pact
      .interaction()
      .given(S.vaultWithCredential, vcOne)
      .uponReceiving('a request for the credential count')
      .withRequest('GET', '/contracts/vault/vc-count', (b) => b.headers(strangerKey).query(ownerQuery()))
      .willRespondWith(200, (b) => b.jsonBody({ count: integer(1) }))
      .executeTest(async (mock) => {
        const r = await pact
          .vault(mock.url, EXAMPLE.strangerKey)
          .GET('/contracts/vault/vc-count', { params: { query: { owner: EXAMPLE.owner } } });
        expect(unwrap(r).count).toBe(1);
      }));

  it('GET /contracts/vault/vc-count: 404 vault_not_found for an owner without a vault', () =>
    pact
      .interaction()
      .given(S.vaultWithCredential, vcOne)
      .uponReceiving('a request for the credential count of an owner without a vault')
      .withRequest('GET', '/contracts/vault/vc-count', (b) =>
        b.headers(strangerKey).query(ownerQuery('stranger', EXAMPLE.stranger)),
      )
      .willRespondWith(404, (b) => b.jsonBody(vaultError('vault_not_found')))
      .executeTest(async (mock) => {
        const r = await pact
          .vault(mock.url, EXAMPLE.strangerKey)
          .GET('/contracts/vault/vc-count', { params: { query: { owner: EXAMPLE.stranger } } });
        expectApiError(r, 404, 'vault_not_found');
      }));

  it('POST /contracts/vault/get-vc: the decrypted credential', () => {
    const body = { owner: EXAMPLE.owner, vcId: 'vc-1' };
    return pact
      .interaction()
      .given(S.vaultWithCredential, vcOne)
      .uponReceiving('a request for a credential')
      .withRequest('POST', '/contracts/vault/get-vc', (b) =>
        b.headers(ownerKey).jsonBody(withInjected(body, { owner: 'owner' })),
      )
      .willRespondWith(200, (b) =>
        b.jsonBody({
          result: {
            '@context': eachLike(string('https://www.w3.org/ns/credentials/v2')),
            type: eachLike(string('VerifiableCredential')),
            credentialSubject: { id: string(EXAMPLE.holderDid) },
          },
        }),
      )
      .executeTest(async (mock) => {
        const vc = unwrap(await pact.vault(mock.url, EXAMPLE.ownerKey).POST('/contracts/vault/get-vc', { body }));
        expect(vc.result['credentialSubject']).toHaveProperty('id');
      });
  });

  it('POST /contracts/vault/get-vc: 404 vc_not_found', () => {
    const body = { owner: EXAMPLE.owner, vcId: 'vc-404' };
    return pact
      .interaction()
      .given(S.vaultWithCredential, vcOne)
      .uponReceiving('a request for a credential the vault does not hold')
      .withRequest('POST', '/contracts/vault/get-vc', (b) =>
        b.headers(ownerKey).jsonBody(withInjected(body, { owner: 'owner' })),
      )
      .willRespondWith(404, (b) => b.jsonBody(vaultError('vc_not_found')))
      .executeTest(async (mock) => {
        expectApiError(
          await pact.vault(mock.url, EXAMPLE.ownerKey).POST('/contracts/vault/get-vc', { body }),
          404,
          'vc_not_found',
        );
      });
  });

  it('POST /contracts/vault/verify-vc: valid', () => {
    const body = { owner: EXAMPLE.owner, vcId: 'vc-1' };
    return pact
      .interaction()
      .given(S.vaultWithCredential, vcOne)
      .uponReceiving('a status check of a valid credential')
      .withRequest('POST', '/contracts/vault/verify-vc', (b) =>
        b.headers(strangerKey).jsonBody(withInjected(body, { owner: 'owner' })),
      )
      .willRespondWith(200, (b) => b.jsonBody({ status: 'valid' }))
      .executeTest(async (mock) => {
        expect(
          unwrap(await pact.vault(mock.url, EXAMPLE.strangerKey).POST('/contracts/vault/verify-vc', { body })),
        ).toEqual({ status: 'valid' });
      });
  });

  it('POST /contracts/vault/verify-vc: revoked, since when', () => {
    const body = { owner: EXAMPLE.owner, vcId: 'vc-1' };
    return pact
      .interaction()
      .given(S.revokedCredential, vcOne)
      .uponReceiving('a status check of a revoked credential')
      .withRequest('POST', '/contracts/vault/verify-vc', (b) =>
        b.headers(strangerKey).jsonBody(withInjected(body, { owner: 'owner' })),
      )
      .willRespondWith(200, (b) =>
        b.jsonBody({ status: 'revoked', since: like.isoDateTime('2026-07-15T09:30:00.000Z') }),
      )
      .executeTest(async (mock) => {
        const status = unwrap(
          await pact.vault(mock.url, EXAMPLE.strangerKey).POST('/contracts/vault/verify-vc', { body }),
        );
        expect(status.status).toBe('revoked');
        expect(Date.parse(status.since ?? '')).not.toBeNaN();
      });
  });
});

describe('issuer access and vault metadata', () => {
  it('GET /contracts/vault/issuers/denied: the denied issuers', () =>
    pact
      .interaction()
      .given(S.deniedIssuer, vcOne)
      .uponReceiving('a request for the denied issuers')
      .withRequest('GET', '/contracts/vault/issuers/denied', (b) => b.headers(strangerKey).query(ownerQuery()))
      .willRespondWith(200, (b) =>
        b.jsonBody({ issuers: eachLike(like.account(EXAMPLE.issuer)), offset: 0, limit: 50 }),
      )
      .executeTest(async (mock) => {
        const r = await pact
          .vault(mock.url, EXAMPLE.strangerKey)
          .GET('/contracts/vault/issuers/denied', { params: { query: { owner: EXAMPLE.owner } } });
        expect(unwrap(r).issuers.length).toBeGreaterThan(0);
      }));

  it('GET /contracts/vault/issuers/denied/count: how many issuers are denied', () =>
    pact
      .interaction()
      .given(S.deniedIssuer, vcOne)
      .uponReceiving('a request for the number of denied issuers')
      .withRequest('GET', '/contracts/vault/issuers/denied/count', (b) => b.headers(strangerKey).query(ownerQuery()))
      .willRespondWith(200, (b) => b.jsonBody({ count: integer(1) }))
      .executeTest(async (mock) => {
        const r = await pact
          .vault(mock.url, EXAMPLE.strangerKey)
          .GET('/contracts/vault/issuers/denied/count', { params: { query: { owner: EXAMPLE.owner } } });
        expect(unwrap(r).count).toBeGreaterThan(0);
      }));

  it("GET /contracts/vault/{owner}: the vault's metadata", () =>
    pact
      .interaction()
      .given(S.vaultWithCredential, vcOne)
      .uponReceiving('a request for vault metadata')
      .withRequest('GET', fromProviderState('/contracts/vault/${owner}', `/contracts/vault/${EXAMPLE.owner}`), (b) =>
        b.headers(strangerKey),
      )
      .willRespondWith(200, (b) =>
        b.jsonBody({
          owner: like.account(),
          vault_address: like.contract(EXAMPLE.vaultAddress),
          did_uri: string(EXAMPLE.holderDid),
          version: regex('^\\d+\\.\\d+\\.\\d+$', '0.4.0'),
          vc_count: integer(1),
          denied_issuer_count: integer(0),
        }),
      )
      .executeTest(async (mock) => {
        const r = await pact
          .vault(mock.url, EXAMPLE.strangerKey)
          .GET('/contracts/vault/{owner}', { params: { path: { owner: EXAMPLE.owner } } });
        expect(unwrap(r).vault_address).toMatch(/^C/);
      }));

  it('GET /contracts/vault/{owner}: 404 vault_not_found', () =>
    pact
      .interaction()
      .given(S.vaultWithCredential, vcOne)
      .uponReceiving('a request for the metadata of an owner without a vault')
      .withRequest(
        'GET',
        fromProviderState('/contracts/vault/${stranger}', `/contracts/vault/${EXAMPLE.stranger}`),
        (b) => b.headers(strangerKey),
      )
      .willRespondWith(404, (b) => b.jsonBody(vaultError('vault_not_found')))
      .executeTest(async (mock) => {
        const r = await pact
          .vault(mock.url, EXAMPLE.strangerKey)
          .GET('/contracts/vault/{owner}', { params: { path: { owner: EXAMPLE.stranger } } });
        expectApiError(r, 404, 'vault_not_found');
      }));

  it("GET /contracts/version?owner=…: the vault's contract version", () =>
    pact
      .interaction()
      .given(S.vaultWithCredential, vcOne)
      .uponReceiving('a request for the version of a vault')
      .withRequest('GET', '/contracts/version', (b) => b.headers(strangerKey).query(ownerQuery()))
      .willRespondWith(200, (b) => b.jsonBody({ version: regex('^\\d+\\.\\d+\\.\\d+$', '0.4.0') }))
      .executeTest(async (mock) => {
        const r = await pact
          .vault(mock.url, EXAMPLE.strangerKey)
          .GET('/contracts/version', { params: { query: { owner: EXAMPLE.owner } } });
        expect(unwrap(r)).toHaveProperty('version');
      }));

  it('GET /contracts/version: the factory id without an owner', () =>
    pact
      .interaction()
      .given(S.apiKey)
      .uponReceiving('a request for the version without an owner')
      .withRequest('GET', '/contracts/version', (b) => b.headers(keyHeader('key', EXAMPLE.key)))
      .willRespondWith(200, (b) =>
        b.jsonBody({
          factory_id: like.contract(),
          note: string("The factory has no version of its own; pass owner to read a vault's version."),
        }),
      )
      .executeTest(async (mock) => {
        expect(unwrap(await pact.vault(mock.url, EXAMPLE.key).GET('/contracts/version'))).toHaveProperty('factory_id');
      }));
});

describe('issuer registry (custom fees)', () => {
  const admin = keyHeader('adminKey', EXAMPLE.adminKey);
  const feeBody = {
    issuer: EXAMPLE.issuer,
    amount: '20000000',
    expiresAt: '2099-12-31T23:59:59.000Z',
    sourcePublicKey: EXAMPLE.factoryAdmin,
  };

  it('POST /contracts/issuer-registry: a custom fee to prepare', () =>
    pact
      .interaction()
      .given(S.adminKey)
      .uponReceiving('a custom fee to prepare')
      .withRequest('POST', '/contracts/issuer-registry', (b) =>
        b.headers(admin).jsonBody(withInjected(feeBody, { sourcePublicKey: 'factoryAdmin' })),
      )
      .willRespondWith(200, (b) => b.jsonBody(PREPARED))
      .executeTest(async (mock) => {
        expect(
          unwrap(await pact.vault(mock.url, EXAMPLE.adminKey).POST('/contracts/issuer-registry', { body: feeBody })),
        ).toHaveProperty('xdr');
      }));

  it('POST /contracts/issuer-registry: 403 admin_required for a standard key', () =>
    pact
      .interaction()
      .given(S.apiKey)
      .uponReceiving('a custom fee with a standard key')
      .withRequest('POST', '/contracts/issuer-registry', (b) =>
        b.headers(keyHeader('key', EXAMPLE.key)).jsonBody(feeBody),
      )
      .willRespondWith(403, (b) => b.jsonBody(vaultError('admin_required')))
      .executeTest(async (mock) => {
        expectApiError(
          await pact.vault(mock.url, EXAMPLE.key).POST('/contracts/issuer-registry', { body: feeBody }),
          403,
          'admin_required',
        );
      }));

  it('GET /contracts/issuer-registry/{issuer}: the fee an issuer pays', () =>
    pact
      .interaction()
      .given(S.apiKey)
      .uponReceiving("a request for an issuer's fee")
      .withRequest('GET', `/contracts/issuer-registry/${EXAMPLE.issuer}`, (b) =>
        b.headers(keyHeader('key', EXAMPLE.key)),
      )
      .willRespondWith(200, (b) =>
        b.jsonBody({
          issuer: like.account(EXAMPLE.issuer),
          enabled: boolean(true),
          amount: regex('^(0|[1-9][0-9]*)$', '50000000'),
          token: like.contract(),
          dest: regex('^[GC][A-Z2-7]{55}$', EXAMPLE.factoryAdmin),
        }),
      )
      .executeTest(async (mock) => {
        const r = await pact
          .vault(mock.url, EXAMPLE.key)
          .GET('/contracts/issuer-registry/{issuer}', { params: { path: { issuer: EXAMPLE.issuer } } });
        expect(BigInt(unwrap(r).amount)).toBeGreaterThan(0n);
      }));

  it('PATCH /contracts/issuer-registry/{issuer}: a fee change to prepare', () => {
    const body = { amount: '30000000', sourcePublicKey: EXAMPLE.factoryAdmin };
    return pact
      .interaction()
      .given(S.adminKey)
      .uponReceiving('a custom fee change to prepare')
      .withRequest('PATCH', `/contracts/issuer-registry/${EXAMPLE.issuer}`, (b) =>
        b.headers(admin).jsonBody(withInjected(body, { sourcePublicKey: 'factoryAdmin' })),
      )
      .willRespondWith(200, (b) => b.jsonBody(PREPARED))
      .executeTest(async (mock) => {
        const r = await pact
          .vault(mock.url, EXAMPLE.adminKey)
          .PATCH('/contracts/issuer-registry/{issuer}', { params: { path: { issuer: EXAMPLE.issuer } }, body });
        expect(unwrap(r)).toHaveProperty('xdr');
      });
  });

  it('DELETE /contracts/issuer-registry/{issuer}: a fee removal to prepare', () => {
    const body = { sourcePublicKey: EXAMPLE.factoryAdmin };
    return pact
      .interaction()
      .given(S.customFee)
      .uponReceiving('a custom fee removal to prepare')
      .withRequest(
        'DELETE',
        fromProviderState('/contracts/issuer-registry/${issuer}', `/contracts/issuer-registry/${EXAMPLE.issuer}`),
        (b) => b.headers(admin).jsonBody(withInjected(body, { sourcePublicKey: 'factoryAdmin' })),
      )
      .willRespondWith(200, (b) => b.jsonBody(PREPARED))
      .executeTest(async (mock) => {
        const r = await pact
          .vault(mock.url, EXAMPLE.adminKey)
          .DELETE('/contracts/issuer-registry/{issuer}', { params: { path: { issuer: EXAMPLE.issuer } }, body });
        expect(unwrap(r)).toHaveProperty('xdr');
      });
  });
});
