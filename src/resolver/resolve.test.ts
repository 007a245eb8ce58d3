// GET /1.0/identifiers/{did} (spec: resolveDid): statuses 200/400/404/406/410/502, content negotiation,
// URL-encoded DIDs, created/updated from the ledgers, and the resolution cache on an injected clock.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keypair } from '@stellar/stellar-sdk';
import { createChain } from '../chain/index.ts';
import { DID_CONTEXT, generateDid } from '../did/index.ts';
import { createMemoryCache } from '../stores/memory.ts';
import {
  closedPort,
  multikey,
  sign,
  startHarness,
  type Harness,
  type RegisteredDid,
} from '../../test-support/resolver.ts';

let h: Harness;
let d: RegisteredDid;
beforeAll(async () => {
  h = await startHarness();
  d = await h.registerDid({
    assertionKeys: [Keypair.random()],
    keyAgreement: true,
    services: [
      { idSuffix: 'linked-domain', serviceType: 'LinkedDomains', serviceEndpoint: 'https://issuer.example.org' },
    ],
  });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

const LD = 'application/did+ld+json';
const JSON_REP = 'application/did+json';

describe('the resolution result (W3C DID Core 1.1, Multikey)', () => {
  it('200: verification methods, fragment references, services, no root controller, method metadata', async () => {
    const r = await h.get(`/1.0/identifiers/${d.did}`);
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('max-age=30');
    expect(r.body).toEqual({
      didDocument: {
        '@context': DID_CONTEXT,
        id: d.did,
        verificationMethod: [
          {
            id: `${d.did}#auth-1`,
            type: 'Multikey',
            controller: d.did,
            publicKeyMultibase: d.record.authentication[0]!.publicKeyMultibase,
          },
          {
            id: `${d.did}#assert-1`,
            type: 'Multikey',
            controller: d.did,
            publicKeyMultibase: d.record.assertionMethod[0]!.publicKeyMultibase,
          },
          {
            id: `${d.did}#keyagr-1`,
            type: 'Multikey',
            controller: d.did,
            publicKeyMultibase: d.record.keyAgreement[0]!.publicKeyMultibase,
          },
        ],
        authentication: ['#auth-1'],
        assertionMethod: ['#assert-1'],
        keyAgreement: ['#keyagr-1'],
        service: [
          {
            id: `${d.did}#service-linked-domain`,
            type: 'LinkedDomains',
            serviceEndpoint: 'https://issuer.example.org',
          },
        ],
      },
      didDocumentMetadata: {
        versionId: '1',
        created: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
        updated: expect.any(String),
        deactivated: false,
        method: { network: 'testnet', stellarAccount: d.controller.publicKey() },
      },
      didResolutionMetadata: { contentType: LD },
    });
    expect(r.body.didDocument.controller).toBeUndefined();
  });

  it('created and updated are the close times of the record ledgers (exact, from the RPC)', async () => {
    const raw = await h.get(`/v1/dids/stellar/${d.did}`);
    const rpc = await fetch(h.info.testnet.rpcUrl!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getTransaction', params: { hash: d.txId } }),
    }).then((x) => x.json() as Promise<{ result: { ledger: number; createdAt: string } }>);
    expect(rpc.result.ledger).toBe(raw.body.record.createdLedger);
    const closedAt = new Date(Number(rpc.result.createdAt) * 1000).toISOString().replace('.000Z', 'Z');
    const r = await h.get(`/1.0/identifiers/${d.did}`);
    expect(r.body.didDocumentMetadata.created).toBe(closedAt);
    expect(r.body.didDocumentMetadata.updated).toBe(closedAt);
  });
});

describe('content negotiation', () => {
  it.each([
    [undefined, LD, LD, true],
    ['*/*', LD, LD, true],
    ['application/*', LD, LD, true],
    [LD, LD, LD, true],
    [JSON_REP, JSON_REP, JSON_REP, false],
    ['application/json', 'application/json', JSON_REP, false],
    [`${LD};q=0.5, ${JSON_REP}`, JSON_REP, JSON_REP, false],
    [`text/html, ${JSON_REP};q=0.1`, JSON_REP, JSON_REP, false],
  ])('Accept %s → %s (document %s, @context %s)', async (accept, mediaType, representation, context) => {
    const r = await h.get(`/1.0/identifiers/${d.did}`, accept ? { accept } : {});
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe(`${mediaType}; charset=utf-8`);
    expect(r.body.didResolutionMetadata).toEqual({ contentType: representation });
    expect('@context' in r.body.didDocument).toBe(context);
  });

  it('406 representationNotSupported when nothing acceptable is offered', async () => {
    const r = await h.get(`/1.0/identifiers/${d.did}`, { accept: 'text/html' });
    expect(r.status).toBe(406);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(r.body).toEqual({
      didDocument: null,
      didDocumentMetadata: {},
      didResolutionMetadata: { error: 'representationNotSupported', message: expect.stringContaining('text/html') },
    });
  });
});

describe('DID in the path', () => {
  it('URL-encoded DIDs resolve (once and twice encoded)', async () => {
    const once = encodeURIComponent(d.did);
    expect(once).toContain('%3A');
    for (const path of [once, encodeURIComponent(once)]) {
      const r = await h.get(`/1.0/identifiers/${path}`);
      expect(r.status, path).toBe(200);
      expect(r.body.didDocument.id).toBe(d.did);
    }
  });

  it.each([
    ['not a did', 'not-a-did'],
    ['another method', 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp'],
    ['a network alias', `did:ledger:public:${d?.didId ?? 'nohsyhu2pu7uaulcoocjljvxza'}`],
    ['uppercase didId', 'did:ledger:testnet:NOHSYHU2PU7UAULCOOCJLJVXZA'],
    ['25 characters', 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxz'],
    ['non-canonical last character', 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxzb'],
    ['too long for the path parameter', `did:ledger:testnet:${'a'.repeat(600)}`],
  ])('400 invalidDid: %s', async (_name, did) => {
    const r = await h.get(`/1.0/identifiers/${encodeURIComponent(did)}`);
    expect(r.status).toBe(400);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.body).toEqual({
      didDocument: null,
      didDocumentMetadata: {},
      didResolutionMetadata: { error: 'invalidDid', message: expect.any(String) },
    });
  });

  it.each([
    {
      name: 'a valid DID with an unknown query parameter',
      did: () => d.did,
      query: '?x=1',
      error: 'invalidOptions',
      message: "Unknown query parameter 'x'",
    },
    {
      name: 'a valid, URL-encoded DID with one',
      did: () => encodeURIComponent(d.did),
      query: '?accept=x',
      error: 'invalidOptions',
      message: "Unknown query parameter 'accept'",
    },
    {
      name: 'an invalid DID with one',
      did: () => 'did:ledger:testnet:short',
      query: '?x=1',
      error: 'invalidDid',
      message: expect.stringContaining('did:ledger'),
    },
  ])('400 $error: $name', async ({ did, query, error, message }) => {
    const r = await h.get(`/1.0/identifiers/${did()}${query}`);
    expect(r.status).toBe(400);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('content-type')).toBe(`${LD}; charset=utf-8`);
    expect(r.body).toEqual({ didDocument: null, didDocumentMetadata: {}, didResolutionMetadata: { error, message } });
  });

  it('404 notFound for an unregistered DID, not cached: a registration right after resolves at once', async () => {
    const controller = await h.account();
    const { did } = generateDid({ network: 'testnet' });
    const r = await h.get(`/1.0/identifiers/${did}`, { accept: JSON_REP });
    expect(r.status).toBe(404);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(r.headers.get('content-type')).toBe(`${JSON_REP}; charset=utf-8`);
    expect(r.body).toEqual({
      didDocument: null,
      didDocumentMetadata: {},
      didResolutionMetadata: { error: 'notFound', message: `${did} is not registered` },
    });
    const record = {
      controller: controller.publicKey(),
      authentication: [{ publicKeyMultibase: multikey(Keypair.random()) }],
      assertionMethod: [],
      keyAgreement: [],
      services: [],
    };
    const reg = await h.prepareSignSubmit(
      '/v1/dids/stellar',
      { did, sourcePublicKey: controller.publicKey(), record },
      [controller],
    );
    expect(reg.status, reg.text).toBe(200);
    expect((await h.get(`/1.0/identifiers/${did}`)).status).toBe(200);
  });
});

describe('resolution cache', () => {
  const reads = () => h.rpcCount({ method: 'getLedgerEntries' }) + h.rpcCount({ method: 'getEvents' });

  it('a second resolution within the TTL costs no ledger read; after the TTL it reads again', async () => {
    const x = await h.registerDid();
    await h.get(`/1.0/identifiers/${x.did}`);
    const before = reads();
    for (const accept of [LD, JSON_REP, 'application/json']) {
      const r = await h.get(`/1.0/identifiers/${x.did}`, { accept });
      expect(r.status).toBe(200);
    }
    expect(reads()).toBe(before);
    h.clock.advance(29_000);
    await h.get(`/1.0/identifiers/${x.did}`);
    expect(reads()).toBe(before);
    h.clock.advance(1_001);
    await h.get(`/1.0/identifiers/${x.did}`);
    expect(h.rpcCount({ method: 'getLedgerEntries' }) + h.rpcCount({ method: 'getEvents' })).toBeGreaterThan(before);
  });

  it('a change made elsewhere shows after the TTL; a change through this resolver shows at once', async () => {
    const x = await h.registerDid();
    expect((await h.get(`/1.0/identifiers/${x.did}`)).body.didDocumentMetadata.versionId).toBe('1');
    // Another resolver instance with its own cache: its write cannot evict ours.
    const other = await h.startApp({ cache: createMemoryCache({ now: h.clock.now }) });
    const prep = await fetch(`${other.url}/v1/dids/stellar/${x.did}/update`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ expectedVersion: 1, sourcePublicKey: x.controller.publicKey(), record: x.record }),
    }).then((r) => r.json() as Promise<{ xdr: string; networkPassphrase: string }>);
    const sub = await fetch(`${other.url}/v1/dids/stellar/${x.did}/update`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ signedXdr: sign(prep.xdr, prep.networkPassphrase, [x.controller]) }),
    });
    expect(sub.status).toBe(200);
    expect((await h.get(`/1.0/identifiers/${x.did}`)).body.didDocumentMetadata.versionId).toBe('1');
    expect((await h.get(`/v1/dids/stellar/${x.did}`)).body.record.version).toBe(2);
    h.clock.advance(30_001);
    const after = await h.get(`/1.0/identifiers/${x.did}`);
    expect(after.body.didDocumentMetadata.versionId).toBe('2');
    expect(after.body.didDocumentMetadata.updated >= after.body.didDocumentMetadata.created).toBe(true);
    // Through this resolver: evicted by the submit.
    const r = await h.prepareSignSubmit(
      `/v1/dids/stellar/${x.did}/deactivate`,
      { expectedVersion: 2, sourcePublicKey: x.controller.publicKey() },
      [x.controller],
    );
    expect(r.status, r.text).toBe(200);
    const gone = await h.get(`/1.0/identifiers/${x.did}`);
    expect(gone.status).toBe(410);
    expect(gone.headers.get('cache-control')).toBe('max-age=30');
    // The tombstone is cached like any resolution.
    const before = reads();
    expect((await h.get(`/1.0/identifiers/${x.did}`, { accept: JSON_REP })).body.didDocument).toEqual({ id: x.did });
    expect(reads()).toBe(before);
  });
});

describe('the production path (no response validation)', () => {
  it('answers the same bytes from its serialized cache as the validated path builds', async () => {
    const prod = await h.startApp({ validateResponses: false, cache: createMemoryCache({ now: h.clock.now }) });
    const results = ['application/did-resolution', 'application/ld+json;profile="https://w3id.org/did-resolution"'];
    for (const accept of [LD, JSON_REP, 'application/json', ...results]) {
      const want = await h.get(`/1.0/identifiers/${d.did}`, { accept });
      for (let i = 0; i < 2; i++) {
        const r = await fetch(`${prod.url}/1.0/identifiers/${d.did}`, { headers: { accept } });
        expect(r.status).toBe(200);
        expect(r.headers.get('content-type')).toBe(want.headers.get('content-type'));
        expect(r.headers.get('cache-control')).toBe('max-age=30');
        expect(r.headers.get('vary')).toBe('Accept');
        const text = await r.text();
        expect(r.headers.get('content-length')).toBe(String(Buffer.byteLength(text)));
        expect(JSON.parse(text)).toEqual(want.body);
        // HEAD: the same headers, no body.
        const head = await fetch(`${prod.url}/1.0/identifiers/${d.did}`, { method: 'HEAD', headers: { accept } });
        expect(head.status).toBe(200);
        expect(head.headers.get('content-length')).toBe(r.headers.get('content-length'));
        expect(head.headers.get('content-type')).toBe(r.headers.get('content-type'));
        expect(await head.text()).toBe('');
      }
    }
  });
});

describe('ledger RPC unreachable', () => {
  it('502 internalError on resolution, ledger_unavailable on the /v1 routes', async () => {
    const port = await closedPort();
    const rpcUrl = `http://127.0.0.1:${port}/testnet/rpc`;
    const i = h.info.testnet;
    const chain = createChain({
      rpcUrl,
      networkPassphrase: i.passphrase,
      network: 'testnet',
      simulationAccount: i.admin.publicKey,
      factoryId: i.factoryId,
      registryId: i.registryId,
      allowHttp: true,
      timeouts: { rpcMs: 2_000 },
    });
    const down = await h.startApp({
      networks: { testnet: { chain, networkPassphrase: i.passphrase, registryId: i.registryId } },
      cache: createMemoryCache({ now: h.clock.now }),
    });
    const r = await fetch(`${down.url}/1.0/identifiers/${d.did}`);
    expect(r.status).toBe(502);
    expect(r.headers.get('cache-control')).toBe('no-store');
    const body = (await r.json()) as { didResolutionMetadata: { error: string; message: string } };
    expect(body).toEqual({
      didDocument: null,
      didDocumentMetadata: {},
      didResolutionMetadata: { error: 'internalError', message: expect.stringMatching(/^testnet RPC unreachable/) },
    });

    const raw = await fetch(`${down.url}/v1/dids/stellar/${d.did}`);
    expect(raw.status).toBe(502);
    expect(await raw.json()).toMatchObject({ code: 'ledger_unavailable' });
    const prep = await fetch(`${down.url}/v1/dids/stellar/${d.did}/deactivate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ expectedVersion: 1, sourcePublicKey: d.controller.publicKey() }),
    });
    expect(prep.status).toBe(502);
    expect(await prep.json()).toMatchObject({ code: 'ledger_unavailable' });

    // A network this deployment does not serve: the DID cannot be resolved here (invalidDid / did_invalid).
    const mainnetDid = `did:ledger:mainnet:${d.didId}`;
    const un = await fetch(`${down.url}/1.0/identifiers/${mainnetDid}`);
    expect(un.status).toBe(400);
    expect(await un.json()).toMatchObject({
      didResolutionMetadata: { error: 'invalidDid', message: expect.stringContaining('does not serve mainnet') },
    });
    const unRaw = await fetch(`${down.url}/v1/dids/stellar/${mainnetDid}`);
    expect(unRaw.status).toBe(400);
    expect(await unRaw.json()).toMatchObject({ code: 'did_invalid' });
  });
});
