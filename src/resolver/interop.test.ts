// Universal Resolver interop (spec: resolveDid): the W3C DID Resolution media types answer the full
// resolution result, and DID URLs with a fragment are dereferenced. Responses are validated against the spec.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keypair } from '@stellar/stellar-sdk';
import { DID_CONTEXT, generateDid } from '../did/index.ts';
import { startHarness, type Harness, type RegisteredDid } from '../../test-support/resolver.ts';

let h: Harness;
let d: RegisteredDid;
beforeAll(async () => {
  h = await startHarness();
  d = await h.registerDid({
    assertionKeys: [Keypair.random()],
    services: [{ idSuffix: 'hub', serviceType: 'LinkedDomains', serviceEndpoint: 'https://issuer.example.org' }],
  });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

const PROFILE = 'application/ld+json;profile="https://w3id.org/did-resolution"';
const url = (didUrl: string) => `/1.0/identifiers/${didUrl.replace('#', '%23')}`;

describe('resolution-result media types', () => {
  it.each([
    ['application/did-resolution', 'application/did-resolution', undefined],
    [PROFILE, PROFILE, 'https://w3id.org/did-resolution/v1'],
    ['application/ld+json', PROFILE, 'https://w3id.org/did-resolution/v1'],
  ])('Accept %s → 200 %s, the full result with the JSON-LD document', async (accept, mediaType, resultContext) => {
    const r = await h.get(url(d.did), { accept });
    expect(r.status, r.text).toBe(200);
    // Express writes parameters after a `; `.
    expect(r.headers.get('content-type')).toBe(`${mediaType.replace(';', '; ')}; charset=utf-8`);
    expect(r.body['@context']).toBe(resultContext);
    expect(r.body.didDocument['@context']).toEqual(DID_CONTEXT);
    expect(r.body.didDocument.id).toBe(d.did);
    expect(r.body.didResolutionMetadata).toEqual({ contentType: 'application/did+ld+json' });
    expect(r.body.didDocumentMetadata.deactivated).toBe(false);
  });

  it('an unregistered DID is 404 notFound in the same media type', async () => {
    const r = await h.get(url(generateDid({ network: 'testnet' }).did), { accept: 'application/did-resolution' });
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toBe('application/did-resolution; charset=utf-8');
    expect(r.body.didResolutionMetadata.error).toBe('notFound');
  });

  it('another profile of application/ld+json is still 406', async () => {
    expect((await h.get(url(d.did), { accept: 'application/ld+json;profile="https://example.org/x"' })).status).toBe(
      406,
    );
  });
});

describe('DID URL dereferencing (fragments)', () => {
  const key = () => ({
    id: `${d.did}#assert-1`,
    type: 'Multikey',
    controller: d.did,
    publicKeyMultibase: d.record.assertionMethod[0]!.publicKeyMultibase,
  });

  it.each([
    ['application/did+json', undefined],
    ['application/json', undefined],
    ['application/did+ld+json', DID_CONTEXT],
  ])('Accept %s → the verification method alone', async (accept, context) => {
    const r = await h.get(url(`${d.did}#assert-1`), { accept });
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('content-type')).toBe(`${accept}; charset=utf-8`);
    expect(r.body).toEqual(context ? { '@context': context, ...key() } : key());
  });

  it('a service fragment dereferences to the service', async () => {
    const r = await h.get(url(`${d.did}#service-hub`), { accept: 'application/did+json' });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      id: `${d.did}#service-hub`,
      type: 'LinkedDomains',
      serviceEndpoint: 'https://issuer.example.org',
    });
  });

  it.each(['application/did-resolution', PROFILE])('Accept %s → the dereferencing result', async (accept) => {
    const r = await h.get(url(`${d.did}#assert-1`), { accept });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toMatchObject({
      dereferencingMetadata: { contentType: 'application/did+ld+json' },
      contentStream: { '@context': DID_CONTEXT, ...key() },
      contentMetadata: { versionId: '1', deactivated: false },
    });
  });

  it('the same with the DID itself URL-encoded', async () => {
    const r = await h.get(`/1.0/identifiers/${encodeURIComponent(`${d.did}#assert-1`)}`, {
      accept: 'application/did+json',
    });
    expect(r.status).toBe(200);
    expect(r.body.id).toBe(`${d.did}#assert-1`);
  });

  it.each([
    ['an unknown fragment', () => `${d.did}#assert-2`, 404, 'notFound'],
    ['an unregistered DID', () => `${generateDid({ network: 'testnet' }).did}#assert-1`, 404, 'notFound'],
    ['an invalid DID', () => 'did:ledger:testnet:nope#assert-1', 400, 'invalidDidUrl'],
  ])('%s → %i %s', async (_name, didUrl, status, error) => {
    for (const accept of ['application/did+json', 'application/did-resolution']) {
      const r = await h.get(url(didUrl()), { accept });
      expect(r.status, r.text).toBe(status);
      expect(r.headers.get('cache-control')).toBe('no-store');
      expect(r.body).toEqual({
        dereferencingMetadata: { error, message: expect.any(String) },
        contentStream: null,
        contentMetadata: {},
      });
    }
  });

  it('a deactivated DID is 410 with its metadata, and its DID alone still answers the tombstone', async () => {
    const x = await h.registerDid({ assertionKeys: [Keypair.random()] });
    const r = await h.prepareSignSubmit(
      `/v1/dids/stellar/${x.did}/deactivate`,
      { expectedVersion: 1, sourcePublicKey: x.controller.publicKey() },
      [x.controller],
    );
    expect(r.status, r.text).toBe(200);
    const gone = await h.get(url(`${x.did}#assert-1`), { accept: 'application/did-resolution' });
    expect(gone.status).toBe(410);
    expect(gone.body).toMatchObject({
      dereferencingMetadata: { error: 'notFound' },
      contentStream: null,
      contentMetadata: { deactivated: true },
    });
    const tombstone = await h.get(url(x.did), { accept: 'application/did-resolution' });
    expect(tombstone.status).toBe(410);
    expect(tombstone.body.didDocument).toEqual({ '@context': DID_CONTEXT, id: x.did });
  });
});

describe('application/did-url-dereferencing and Vary: Accept', () => {
  const DEREF = 'application/did-url-dereferencing';

  it('a DID URL with a fragment: the dereferencing result, in that media type', async () => {
    const r = await h.get(url(`${d.did}#assert-1`), { accept: DEREF });
    expect(r.status, r.text).toBe(200);
    expect(r.headers.get('content-type')).toBe(`${DEREF}; charset=utf-8`);
    expect(JSON.parse(r.text)).toMatchObject({
      dereferencingMetadata: { contentType: 'application/did+ld+json' },
      contentStream: { id: `${d.did}#assert-1` },
    });
  });

  it('a DID alone: the dereferencing result whose content is the document', async () => {
    const r = await h.get(url(d.did), { accept: DEREF });
    expect(r.status, r.text).toBe(200);
    const body = JSON.parse(r.text);
    expect(body.contentStream).toMatchObject({ '@context': DID_CONTEXT, id: d.did });
    expect(body.contentMetadata).toMatchObject({ versionId: '1', deactivated: false });
  });

  it.each([
    ['an unregistered DID', () => generateDid({ network: 'testnet' }).did, 404, 'notFound'],
    ['an invalid DID', () => 'did:ledger:testnet:nope', 400, 'invalidDidUrl'],
  ])('%s: a dereferencing failure (%i %s)', async (_name, did, status, error) => {
    const r = await h.get(url(did()), { accept: DEREF });
    expect(r.status).toBe(status);
    expect(JSON.parse(r.text)).toEqual({
      dereferencingMetadata: { error, message: expect.any(String) },
      contentStream: null,
      contentMetadata: {},
    });
  });

  // Adversarial review defect 6: negotiated answers are cacheable (max-age=30) and named no Vary.
  it.each([
    ['a resolution', () => url(d.did), 'application/did+json'],
    ['a resolution result', () => url(d.did), 'application/did-resolution'],
    ['a dereferenced key', () => url(`${d.did}#assert-1`), 'application/did+ld+json'],
    ['a failure', () => url(generateDid({ network: 'testnet' }).did), 'application/did+json'],
    ['an invalid DID', () => url('did:ledger:testnet:nope'), 'application/json'],
    ['nothing acceptable (406)', () => url(d.did), 'text/html'],
  ])('%s answers Vary: Accept', async (_name, path, accept) => {
    const r = await h.get(path(), { accept });
    expect(r.headers.get('vary')).toBe('Accept');
  });
});
