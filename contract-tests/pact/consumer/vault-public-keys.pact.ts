// Consumer contract with the vault API, part 1: the public routes, authentication failures and the key
// routes (wallet proof and operator), as the typed client calls them.
import { MatchersV3 } from '@pact-foundation/pact';
import { describe, expect, it } from 'vitest';
import { unwrap } from '../../../src/client/index.ts';
import {
  EXAMPLE,
  PATTERN,
  VAULT_PROVIDER,
  VAULT_SPEC,
  VAULT_STATES as S,
  injected,
  like,
  withInjected,
} from '../shared.ts';
import { consumerPact, expectApiError, keyHeader, vaultError } from './support.ts';

const { arrayContaining, fromProviderState, regex, string, nullValue } = MatchersV3;
const pact = consumerPact(VAULT_PROVIDER, VAULT_SPEC);

/** The scopes the key interactions ask for (the spec's example, so its mock answers them too). */
const SCOPES: ('credentials:read' | 'vault:write')[] = ['credentials:read', 'vault:write'];

/** What every key record carries whatever its wallet, role and scopes. */
const KEY_RECORD = {
  key_id: regex(PATTERN.keyId, EXAMPLE.keyId),
  role: regex('^(standard|early|admin)$', 'standard'),
  network: regex('^(testnet|mainnet)$', 'testnet'),
  created_at: like.isoDateTime(),
};

describe('public routes', () => {
  it('GET /health: the service is up', () =>
    pact
      .interaction()
      .uponReceiving('a liveness probe')
      .withRequest('GET', '/health')
      .willRespondWith(200, (b) =>
        b.jsonBody({
          status: 'ok',
          timestamp: like.isoDateTime(),
          service: string('vault-api-testnet'),
          node: like.nodeVersion(),
        }),
      )
      .executeTest(async (mock) => {
        const health = unwrap(await pact.vault(mock.url).GET('/health'));
        expect(health.status).toBe('ok');
      }));

  it('GET /config: the network and contract ids', () =>
    pact
      .interaction()
      .uponReceiving('a request for the public configuration')
      .withRequest('GET', '/config')
      .willRespondWith(200, (b) =>
        b.jsonBody({
          rpcUrl: string('http://127.0.0.1:8000/rpc'),
          networkPassphrase: string(EXAMPLE.passphrase),
          networkType: regex('^(testnet|mainnet)$', 'testnet'),
          factoryContractId: like.contract(),
          vaultWasmHash: like.txHash(),
          didStellarRegistryId: like.contract(),
          svcContractId: like.contract(),
          protocolVersion: MatchersV3.integer(28),
        }),
      )
      .executeTest(async (mock) => {
        const config = unwrap(await pact.vault(mock.url).GET('/config'));
        expect(config.factoryContractId).toMatch(/^C/);
        expect(config.protocolVersion).toBeGreaterThanOrEqual(26);
      }));

  it('GET /docs: the interactive documentation (testnet)', () =>
    pact
      .interaction()
      .uponReceiving('a request for the API documentation page')
      .withRequest('GET', '/docs', (b) => b.headers({ Accept: 'text/html' }))
      .willRespondWith(200, (b) =>
        b.headers({ 'Content-Type': regex(PATTERN.htmlMediaType, 'text/html; charset=utf-8') }),
      )
      .executeTest(async (mock) => {
        const page = await pact.vault(mock.url).GET('/docs', { headers: { Accept: 'text/html' }, parseAs: 'text' });
        expect(page.response.status).toBe(200);
      }));
});

describe('authentication', () => {
  const countQuery = { owner: EXAMPLE.owner };

  it('401 missing_api_key without a key', () =>
    pact
      .interaction()
      .uponReceiving('a read without an API key')
      .withRequest('GET', '/contracts/vault/vc-count', (b) => b.query(countQuery))
      .willRespondWith(401, (b) => b.jsonBody(vaultError('missing_api_key')))
      .executeTest(async (mock) => {
        expectApiError(
          await pact.vault(mock.url).GET('/contracts/vault/vc-count', { params: { query: countQuery } }),
          401,
          'missing_api_key',
        );
      }));

  it('401 invalid_api_key with a key the deployment never issued', () =>
    pact
      .interaction()
      .uponReceiving('a read with an unknown API key')
      .withRequest('GET', '/contracts/vault/vc-count', (b) =>
        b.query(countQuery).headers({ 'X-SVC-Key': EXAMPLE.unknownKey }),
      )
      .willRespondWith(401, (b) => b.jsonBody(vaultError('invalid_api_key')))
      .executeTest(async (mock) => {
        const vault = pact.vault(mock.url, EXAMPLE.unknownKey);
        expectApiError(
          await vault.GET('/contracts/vault/vc-count', { params: { query: countQuery } }),
          401,
          'invalid_api_key',
        );
      }));

  it("403 insufficient_scope for a key without the operation's scope", () => {
    const body = { owner: EXAMPLE.owner, didUri: EXAMPLE.holderDid, sourcePublicKey: EXAMPLE.owner };
    return pact
      .interaction()
      .given(S.apiKey, { scopes: ['credentials:read'] })
      .uponReceiving('a vault deployment with a read-only key')
      .withRequest('POST', '/contracts/vault/create', (b) =>
        b
          .headers(keyHeader('key', EXAMPLE.key))
          .jsonBody(withInjected(body, { owner: 'wallet', sourcePublicKey: 'wallet' })),
      )
      .willRespondWith(403, (b) => b.jsonBody(vaultError('insufficient_scope')))
      .executeTest(async (mock) => {
        expectApiError(
          await pact.vault(mock.url, EXAMPLE.key).POST('/contracts/vault/create', { body }),
          403,
          'insufficient_scope',
        );
      });
  });
});

describe('wallet-proof keys', () => {
  it('GET /auth/challenge: a challenge transaction to sign', () =>
    pact
      .interaction()
      .uponReceiving('a request for a wallet-proof challenge')
      .withRequest('GET', '/auth/challenge', (b) => b.query({ account: EXAMPLE.owner }))
      .willRespondWith(200, (b) =>
        b.jsonBody({
          transaction: like.xdr(),
          network_passphrase: string(EXAMPLE.passphrase),
          networkPassphrase: string(EXAMPLE.passphrase),
        }),
      )
      .executeTest(async (mock) => {
        const challenge = unwrap(
          await pact.vault(mock.url).GET('/auth/challenge', { params: { query: { account: EXAMPLE.owner } } }),
        );
        expect(challenge.transaction).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
      }));

  it('GET /auth/challenge: 400 invalid_request for an account that is not an address', () =>
    pact
      .interaction()
      .uponReceiving('a request for a challenge for a malformed account')
      .withRequest('GET', '/auth/challenge', (b) => b.query({ account: 'not-an-account' }))
      .willRespondWith(400, (b) => b.jsonBody(vaultError('invalid_request')))
      .executeTest(async (mock) => {
        const r = await pact
          .vault(mock.url)
          .GET('/auth/challenge', { params: { query: { account: 'not-an-account' } } });
        expectApiError(r, 400, 'invalid_request');
      }));

  it('POST /auth/keys: a signed challenge gets a standard key with the requested scopes', () => {
    const body = { transaction: EXAMPLE.xdr, scopes: SCOPES };
    return pact
      .interaction()
      .given(S.signedChallenge)
      .uponReceiving('a signed wallet-proof challenge')
      .withRequest('POST', '/auth/keys', (b) => b.jsonBody(withInjected(body, { transaction: 'transaction' })))
      .willRespondWith(201, (b) =>
        b.jsonBody({
          key: like.txHash(EXAMPLE.key),
          ...KEY_RECORD,
          wallet_address: injected('wallet', EXAMPLE.owner),
          role: 'standard',
          scopes: SCOPES,
          expires_at: like.isoDateTime('2026-12-28T12:00:00.000Z'),
        }),
      )
      .executeTest(async (mock) => {
        const created = unwrap(await pact.vault(mock.url).POST('/auth/keys', { body }));
        expect(created.key).toMatch(/^[0-9a-f]{64}$/);
        expect(created.scopes).toEqual(SCOPES);
      });
  });

  it('POST /auth/keys: 400 challenge_invalid for a challenge this service did not issue', () => {
    const body = { transaction: EXAMPLE.xdr };
    return pact
      .interaction()
      .uponReceiving('a challenge this service did not issue')
      .withRequest('POST', '/auth/keys', (b) => b.jsonBody(body))
      .willRespondWith(400, (b) => b.jsonBody(vaultError('challenge_invalid')))
      .executeTest(async (mock) => {
        expectApiError(await pact.vault(mock.url).POST('/auth/keys', { body }), 400, 'challenge_invalid');
      });
  });
});

describe('operator keys', () => {
  const admin = keyHeader('adminKey', EXAMPLE.adminKey);

  it('GET /admin/keys: the keys of this network', () =>
    pact
      .interaction()
      .given(S.adminKey)
      .uponReceiving('a request for the list of keys')
      .withRequest('GET', '/admin/keys', (b) => b.headers(admin))
      .willRespondWith(200, (b) =>
        // Among the keys, at least the operator's own: an admin key bound to a wallet, without expiry.
        b.jsonBody({
          keys: arrayContaining({
            ...KEY_RECORD,
            wallet_address: like.account(EXAMPLE.factoryAdmin),
            role: 'admin',
            scopes: [],
            expires_at: nullValue(),
          }),
        }),
      )
      .executeTest(async (mock) => {
        const list = unwrap(await pact.vault(mock.url, EXAMPLE.adminKey).GET('/admin/keys'));
        expect(list.keys.length).toBeGreaterThan(0);
      }));

  it('GET /admin/keys: 403 admin_required for a standard key', () =>
    pact
      .interaction()
      .given(S.apiKey)
      .uponReceiving('a request for the list of keys with a standard key')
      .withRequest('GET', '/admin/keys', (b) => b.headers(keyHeader('key', EXAMPLE.key)))
      .willRespondWith(403, (b) => b.jsonBody(vaultError('admin_required')))
      .executeTest(async (mock) => {
        expectApiError(await pact.vault(mock.url, EXAMPLE.key).GET('/admin/keys'), 403, 'admin_required');
      }));

  it('POST /admin/keys: a key for a wallet', () => {
    const body = {
      wallet_address: EXAMPLE.sponsor,
      role: 'standard' as const,
      scopes: SCOPES,
      expires_at: '2099-07-01T00:00:00.000Z',
    };
    return pact
      .interaction()
      .given(S.adminKey)
      .uponReceiving('an operator creating a key for a wallet')
      .withRequest('POST', '/admin/keys', (b) =>
        b.headers(admin).jsonBody(withInjected(body, { wallet_address: 'wallet' })),
      )
      .willRespondWith(201, (b) =>
        b.jsonBody({
          key: like.txHash(EXAMPLE.key),
          ...KEY_RECORD,
          wallet_address: injected('wallet', EXAMPLE.sponsor),
          role: 'standard',
          scopes: SCOPES,
          expires_at: like.isoDateTime('2099-07-01T00:00:00.000Z'),
        }),
      )
      .executeTest(async (mock) => {
        const created = unwrap(await pact.vault(mock.url, EXAMPLE.adminKey).POST('/admin/keys', { body }));
        expect(created.scopes).toEqual(SCOPES);
        expect(created.expires_at).not.toBeNull();
      });
  });

  it('POST /admin/keys: 409 key_exists for a wallet that holds a key', () => {
    const body = { wallet_address: EXAMPLE.owner };
    return pact
      .interaction()
      .given(S.walletWithKey)
      .uponReceiving('an operator creating a second key for a wallet')
      .withRequest('POST', '/admin/keys', (b) =>
        b.headers(admin).jsonBody(withInjected(body, { wallet_address: 'wallet' })),
      )
      .willRespondWith(409, (b) => b.jsonBody(vaultError('key_exists')))
      .executeTest(async (mock) => {
        expectApiError(await pact.vault(mock.url, EXAMPLE.adminKey).POST('/admin/keys', { body }), 409, 'key_exists');
      });
  });

  it('DELETE /admin/keys/{keyId}: the key stops working', () =>
    pact
      .interaction()
      .given(S.keyToRevoke)
      .uponReceiving('an operator revoking a key')
      .withRequest('DELETE', fromProviderState('/admin/keys/${keyId}', `/admin/keys/${EXAMPLE.keyId}`), (b) =>
        b.headers(admin),
      )
      .willRespondWith(204)
      .executeTest(async (mock) => {
        const r = await pact
          .vault(mock.url, EXAMPLE.adminKey)
          .DELETE('/admin/keys/{keyId}', { params: { path: { keyId: EXAMPLE.keyId } } });
        expect(r.response.status).toBe(204);
      }));

  it('DELETE /admin/keys/{keyId}: 404 key_not_found for an unknown key id', () =>
    pact
      .interaction()
      .given(S.adminKey)
      .uponReceiving('an operator revoking a key that does not exist')
      .withRequest('DELETE', '/admin/keys/0000000000000000', (b) => b.headers(admin))
      .willRespondWith(404, (b) => b.jsonBody(vaultError('key_not_found')))
      .executeTest(async (mock) => {
        const r = await pact
          .vault(mock.url, EXAMPLE.adminKey)
          .DELETE('/admin/keys/{keyId}', { params: { path: { keyId: '0000000000000000' } } });
        expectApiError(r, 404, 'key_not_found');
      }));
});
