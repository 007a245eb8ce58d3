// Consumer contract with the did:ledger resolver, part 1: the service routes and DID resolution, as
// `resolveDid` of the typed client sees it (resolution failures are results, not exceptions).
import { MatchersV3 } from '@pact-foundation/pact';
import { describe, expect, it } from 'vitest';
import { dereferenceDidUrl, resolveDid, unwrap } from '../../../src/client/index.ts';
import { EXAMPLE, PATTERN, RESOLVER_PROVIDER, RESOLVER_SPEC, RESOLVER_STATES as S, injected, like } from '../shared.ts';
import { consumerPact } from './support.ts';

const { eachLike, fromProviderState, nullValue, regex, string } = MatchersV3;
const pact = consumerPact(RESOLVER_PROVIDER, RESOLVER_SPEC);

const DID_JSON = 'application/did+json';
const DID_LD_JSON = 'application/did+ld+json';
const DID_RESOLUTION_LD = 'application/ld+json;profile="https://w3id.org/did-resolution"';
// openapi-fetch sends the DID of a path URL-encoded (`did%3Aledger%3A…`), which the spec allows.
const resolvePath = (name: string, example: string) =>
  fromProviderState(`/1.0/identifiers/\${${name}}`, `/1.0/identifiers/${example}`);

/** `didDocumentMetadata` of a registered DID. */
const documentMetadata = (deactivated: boolean) => ({
  versionId: regex('^[1-9][0-9]*$', deactivated ? '2' : '1'),
  created: like.isoDateTime('2025-05-30T14:02:11Z'),
  updated: like.isoDateTime('2025-05-31T08:47:36Z'),
  deactivated,
  method: { network: regex('^(testnet|mainnet)$', 'testnet'), stellarAccount: like.account() },
});

/** The document's keys and relationships (either representation). */
const documentBody = {
  id: injected('did', EXAMPLE.did),
  verificationMethod: eachLike({
    id: string(`${EXAMPLE.did}#auth-1`),
    type: 'Multikey',
    controller: like.did(),
    publicKeyMultibase: regex('^z6(Mk|LS)[1-9A-HJ-NP-Za-km-z]+$', EXAMPLE.multikey),
  }),
  authentication: eachLike(regex('^#auth-[1-3]$', '#auth-1')),
};

const failure = (error: string, message: string) => ({
  didDocument: nullValue(),
  didDocumentMetadata: {},
  didResolutionMetadata: { error, message: string(message) },
});

describe('service routes', () => {
  it('GET /health: up, with the configured networks', () =>
    pact
      .interaction()
      .uponReceiving('a liveness probe of the resolver')
      .withRequest('GET', '/health')
      .willRespondWith(200, (b) =>
        b.jsonBody({
          status: 'ok',
          timestamp: like.isoDateTime(),
          service: 'resolver',
          node: like.nodeVersion(),
          networks: eachLike({ network: regex('^(testnet|mainnet)$', 'testnet'), registryId: like.contract() }),
        }),
      )
      .executeTest(async (mock) => {
        const health = unwrap(await pact.resolver(mock.url).GET('/health'));
        expect(health.networks.length).toBeGreaterThan(0);
      }));

  it('GET /openapi.json: the description', () =>
    pact
      .interaction()
      .uponReceiving('a request for the OpenAPI description')
      .withRequest('GET', '/openapi.json')
      .willRespondWith(200, (b) =>
        b.jsonBody({
          openapi: regex('^3\\.1\\.\\d+$', '3.1.0'),
          info: { title: string('did:ledger Registry and Resolver API'), version: string('1.0.0') },
          paths: {},
        }),
      )
      .executeTest(async (mock) => {
        expect(unwrap(await pact.resolver(mock.url).GET('/openapi.json')).openapi).toMatch(/^3\.1/);
      }));

  it('GET /docs: the interactive documentation', () =>
    pact
      .interaction()
      .uponReceiving('a request for the resolver documentation page')
      .withRequest('GET', '/docs', (b) => b.headers({ Accept: 'text/html' }))
      .willRespondWith(200, (b) =>
        b.headers({ 'Content-Type': regex(PATTERN.htmlMediaType, 'text/html; charset=utf-8') }),
      )
      .executeTest(async (mock) => {
        const page = await pact.resolver(mock.url).GET('/docs', { headers: { Accept: 'text/html' }, parseAs: 'text' });
        expect(page.response.status).toBe(200);
      }));
});

describe('GET /1.0/identifiers/{did}', () => {
  it('200: an active DID as application/did+ld+json (the default representation)', () =>
    pact
      .interaction()
      .given(S.registeredDid)
      .uponReceiving('a resolution of an active DID as JSON-LD')
      .withRequest('GET', resolvePath('did', EXAMPLE.did), (b) => b.headers({ Accept: DID_LD_JSON }))
      .willRespondWith(200, (b) =>
        b
          .headers({
            'Content-Type': regex('^application/did\\+ld\\+json(;.*)?$', DID_LD_JSON),
            'Cache-Control': 'max-age=30',
          })
          .jsonBody({
            didDocument: {
              '@context': ['https://www.w3.org/ns/did/v1.1', 'https://w3id.org/security/multikey/v1'],
              ...documentBody,
            },
            didDocumentMetadata: documentMetadata(false),
            didResolutionMetadata: { contentType: DID_LD_JSON },
          }),
      )
      .executeTest(async (mock) => {
        const { status, result } = await resolveDid(pact.resolver(mock.url), EXAMPLE.did, { accept: DID_LD_JSON });
        expect(status).toBe(200);
        expect(result.didDocument).toHaveProperty('@context');
      }));

  it('200: an active DID as application/did+json', () =>
    pact
      .interaction()
      .given(S.registeredDid)
      .uponReceiving('a resolution of an active DID as plain JSON')
      .withRequest('GET', resolvePath('did', EXAMPLE.did), (b) => b.headers({ Accept: DID_JSON }))
      .willRespondWith(200, (b) =>
        b
          .headers({ 'Content-Type': regex(PATTERN.didJsonMediaType, DID_JSON), 'Cache-Control': 'max-age=30' })
          .jsonBody({
            didDocument: documentBody,
            didDocumentMetadata: documentMetadata(false),
            didResolutionMetadata: { contentType: DID_JSON },
          }),
      )
      .executeTest(async (mock) => {
        const { status, result } = await resolveDid(pact.resolver(mock.url), EXAMPLE.did, { accept: DID_JSON });
        expect(status).toBe(200);
        expect(result.didDocument).not.toHaveProperty('@context');
      }));

  it('410: a deactivated DID resolves to its tombstone', () =>
    pact
      .interaction()
      .given(S.deactivatedDid)
      .uponReceiving('a resolution of a deactivated DID')
      .withRequest('GET', resolvePath('did', EXAMPLE.did), (b) => b.headers({ Accept: DID_JSON }))
      .willRespondWith(410, (b) =>
        b.headers({ 'Content-Type': regex(PATTERN.didJsonMediaType, DID_JSON) }).jsonBody({
          didDocument: { id: injected('did', EXAMPLE.did) },
          didDocumentMetadata: documentMetadata(true),
          didResolutionMetadata: { contentType: DID_JSON },
        }),
      )
      .executeTest(async (mock) => {
        const { status, result } = await resolveDid(pact.resolver(mock.url), EXAMPLE.did, { accept: DID_JSON });
        expect(status).toBe(410);
        expect(result.didDocumentMetadata).toHaveProperty('deactivated', true);
      }));

  it('404 notFound: a DID nobody registered', () =>
    pact
      .interaction()
      .uponReceiving('a resolution of an unregistered DID')
      .withRequest('GET', `/1.0/identifiers/${encodeURIComponent(EXAMPLE.unregisteredDid)}`, (b) =>
        b.headers({ Accept: DID_JSON }),
      )
      .willRespondWith(404, (b) =>
        b
          .headers({ 'Content-Type': regex(PATTERN.didJsonMediaType, DID_JSON), 'Cache-Control': 'no-store' })
          .jsonBody(failure('notFound', `${EXAMPLE.unregisteredDid} is not registered`)),
      )
      .executeTest(async (mock) => {
        const { status, result } = await resolveDid(pact.resolver(mock.url), EXAMPLE.unregisteredDid, {
          accept: DID_JSON,
        });
        expect(status).toBe(404);
        expect(result.didResolutionMetadata).toHaveProperty('error', 'notFound');
      }));

  it('400 invalidDid: not a did:ledger DID', () => {
    const did = 'did:ledger:public:nohsyhu2pu7uaulcoocjljvxza';
    return pact
      .interaction()
      .uponReceiving('a resolution of a DID of an unknown network')
      .withRequest('GET', `/1.0/identifiers/${encodeURIComponent(did)}`, (b) => b.headers({ Accept: DID_JSON }))
      .willRespondWith(400, (b) =>
        b
          .headers({ 'Content-Type': regex(PATTERN.didJsonMediaType, DID_JSON) })
          .jsonBody(failure('invalidDid', 'expected did:ledger:(mainnet|testnet):<26 characters of [a-z2-7]>')),
      )
      .executeTest(async (mock) => {
        const { status, result } = await resolveDid(pact.resolver(mock.url), did, { accept: DID_JSON });
        expect(status).toBe(400);
        expect(result.didResolutionMetadata).toHaveProperty('error', 'invalidDid');
      });
  });

  it('406 representationNotSupported: no acceptable media type', () =>
    pact
      .interaction()
      .uponReceiving('a resolution asking for HTML')
      .withRequest('GET', `/1.0/identifiers/${encodeURIComponent(EXAMPLE.unregisteredDid)}`, (b) =>
        b.headers({ Accept: 'text/html' }),
      )
      .willRespondWith(406, (b) =>
        b
          .headers({ 'Content-Type': regex(PATTERN.jsonMediaType, 'application/json') })
          .jsonBody(
            failure(
              'representationNotSupported',
              'Accept text/html: available are application/did+ld+json, application/did+json, application/json',
            ),
          ),
      )
      .executeTest(async (mock) => {
        const { status, result } = await resolveDid(pact.resolver(mock.url), EXAMPLE.unregisteredDid, {
          accept: 'text/html',
        });
        expect(status).toBe(406);
        expect(result.didResolutionMetadata).toHaveProperty('error', 'representationNotSupported');
      }));

  it('200: a Universal Resolver client asks for the resolution result (ld+json, DID Resolution profile)', () =>
    pact
      .interaction()
      .given(S.registeredDid)
      .uponReceiving('a resolution asked for as application/ld+json with the DID Resolution profile')
      .withRequest('GET', resolvePath('did', EXAMPLE.did), (b) => b.headers({ Accept: DID_RESOLUTION_LD }))
      .willRespondWith(200, (b) =>
        b
          .headers({
            'Content-Type': regex(
              '^application/ld\\+json; ?profile="https://w3id.org/did-resolution"(;.*)?$',
              DID_RESOLUTION_LD,
            ),
          })
          .jsonBody({
            '@context': 'https://w3id.org/did-resolution/v1',
            didDocument: {
              '@context': ['https://www.w3.org/ns/did/v1.1', 'https://w3id.org/security/multikey/v1'],
              ...documentBody,
            },
            didDocumentMetadata: documentMetadata(false),
            didResolutionMetadata: { contentType: DID_LD_JSON },
          }),
      )
      .executeTest(async (mock) => {
        const { status, result } = await resolveDid(pact.resolver(mock.url), EXAMPLE.did, {
          accept: DID_RESOLUTION_LD,
        });
        expect(status).toBe(200);
        expect(result.didResolutionMetadata).toEqual({ contentType: DID_LD_JSON });
      }));

  it('200: a DID URL with a fragment dereferences to that verification method', () =>
    pact
      .interaction()
      .given(S.registeredDid)
      .uponReceiving('a dereferencing of a DID URL naming an authentication key')
      .withRequest(
        'GET',
        fromProviderState('/1.0/identifiers/${did}%23auth-1', `/1.0/identifiers/${EXAMPLE.did}%23auth-1`),
        (b) => b.headers({ Accept: DID_JSON }),
      )
      .willRespondWith(200, (b) =>
        b.headers({ 'Content-Type': regex(PATTERN.didJsonMediaType, DID_JSON) }).jsonBody({
          id: regex('^did:ledger:(testnet|mainnet):[a-z2-7]{26}#auth-1$', `${EXAMPLE.did}#auth-1`),
          type: 'Multikey',
          controller: like.did(),
          publicKeyMultibase: regex('^z6Mk[1-9A-HJ-NP-Za-km-z]+$', EXAMPLE.multikey),
        }),
      )
      .executeTest(async (mock) => {
        const { status, body } = await dereferenceDidUrl(pact.resolver(mock.url), `${EXAMPLE.did}#auth-1`, {
          accept: DID_JSON,
        });
        expect(status).toBe(200);
        expect(body).toHaveProperty('type', 'Multikey');
      }));
});
