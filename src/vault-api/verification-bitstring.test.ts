// BitstringStatusListEntry (Bitstring Status List v1.0) and did:web issuers through POST /credentials/verify: a credential signed by
// digitalbazaar's libraries for a did:key issuer, whose list credential (signed by the same issuer) a local test
// host serves, verifies while its bit is clear and fails while it is set; a list by another issuer, a list that
// cannot be read, and a verifier that does not read the web all fail the check, never pass it; under a proof that
// does not verify the list is not read (status_unconfirmed).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { base64urlnopad } from '@scure/base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWebFetch } from './web-fetch.ts';
import { bitstringEntry, didKey, hostedKey, issueWith, type DidKey } from '../../test-support/digitalbazaar.ts';
import { startVaultTestEnv, type MintedKey, type VaultTestEnv } from '../../test-support/vault-api.ts';

type Json = Record<string, unknown>;
const V2 = 'https://www.w3.org/ns/credentials/v2';
const INDEX = 94_567;

let server: Server;
let base: string;
let host: string;
const lists = new Map<string, Json>();
/** Requests the test host answered, by path. */
const reads = new Map<string, number>();
let env: VaultTestEnv;
let offline: VaultTestEnv;
let key: MintedKey;
let offlineKey: MintedKey;
let issuer: DidKey;

/** A list of 131,072 bits, the given ones set, as §3.1 encodes it: GZIP, then multibase base64url. */
function encodedList(set: number[]): string {
  const bits = Buffer.alloc(131_072 / 8);
  for (const i of set) bits[i >> 3]! |= 0x80 >> (i & 7);
  return `u${base64urlnopad.encode(gzipSync(bits))}`;
}

async function publishList(
  path: string,
  by: DidKey,
  purpose: string,
  set: number[],
  extra: Json = {},
): Promise<string> {
  const url = `${base}${path}`;
  const list = await issueWith('eddsa-rdfc-2022', by, {
    '@context': [V2],
    id: url,
    type: ['VerifiableCredential', 'BitstringStatusListCredential'],
    ...extra,
    credentialSubject: {
      id: `${url}#list`,
      type: 'BitstringStatusList',
      statusPurpose: purpose,
      encodedList: encodedList(set),
    },
  });
  lists.set(path, list);
  return url;
}

async function credentialOn(listUrl: string, purpose = 'revocation'): Promise<Json> {
  return issueWith('eddsa-rdfc-2022', issuer, {
    '@context': [V2],
    type: ['VerifiableCredential'],
    credentialSubject: { id: 'did:example:holder' },
    credentialStatus: bitstringEntry(listUrl, INDEX, purpose),
  });
}

const verify = (e: VaultTestEnv, k: MintedKey, vc: unknown) =>
  e.request('/credentials/verify', {
    key: k.key,
    body: { verifiableCredential: vc, options: { checks: ['proof', 'credentialStatus'] } },
  });
const reasons = (body: { problemDetails: { reason: string; level: string }[] }) =>
  body.problemDetails.filter((p) => p.level === 'error').map((p) => p.reason);

beforeAll(async () => {
  server = createServer((req, res) => {
    reads.set(req.url ?? '', (reads.get(req.url ?? '') ?? 0) + 1);
    const list = lists.get(req.url ?? '');
    if (!list) {
      res.statusCode = 404;
      res.end();
      return;
    }
    res.setHeader('content-type', 'application/vc+ld+json');
    res.end(JSON.stringify(list));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  base = `http://${host}`;
  issuer = await didKey('Ed25519');
  // The cache off: a list is read again on each verification.
  env = await startVaultTestEnv({ fetchJson: createWebFetch({ testHosts: [host], cacheTtlMs: 1, cacheEntries: 1 }) });
  offline = await startVaultTestEnv({ simulator: env.simulator! });
  key = await env.mintKey({ role: 'early' });
  offlineKey = await offline.mintKey({ role: 'early' });
}, 120_000);
afterAll(async () => {
  await offline?.close();
  await env?.close();
  await new Promise((resolve) => server?.close(resolve));
});

describe('BitstringStatusListEntry', () => {
  it('verifies while its bit is clear, and fails revoked while it is set', async () => {
    const clear = await credentialOn(await publishList('/lists/clear', issuer, 'revocation', [INDEX + 1]));
    const ok = await verify(env, key, clear);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.results.credentialStatus).toEqual([expect.objectContaining({ verified: true, status: 'valid' })]);
    const set = await credentialOn(await publishList('/lists/set', issuer, 'revocation', [INDEX]));
    const revoked = await verify(env, key, set);
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(400);
    expect(reasons(revoked.body)).toEqual(['revoked']);
  });

  it('honours suspension: a set bit of a suspension list fails suspended', async () => {
    const vc = await credentialOn(await publishList('/lists/suspended', issuer, 'suspension', [INDEX]), 'suspension');
    const r = await verify(env, key, vc);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(reasons(r.body)).toEqual(['suspended']);
  });

  it('refuses a list by another issuer, a list for another purpose, and a list that cannot be read', async () => {
    const other = await didKey('Ed25519');
    const byOther = await credentialOn(await publishList('/lists/other', other, 'revocation', []));
    expect(reasons((await verify(env, key, byOther)).body)).toEqual(['status_list_invalid']);
    const purpose = await credentialOn(await publishList('/lists/purpose', issuer, 'suspension', []));
    expect(reasons((await verify(env, key, purpose)).body)).toEqual(['status_list_invalid']);
    const missing = await credentialOn(`${base}/lists/missing`);
    expect(reasons((await verify(env, key, missing)).body)).toEqual(['status_list_unavailable']);
  });

  it('is trusted only under a verified proof: a tampered credential gets status_unconfirmed, its list unread', async () => {
    const vc = await credentialOn(await publishList('/lists/unconfirmed', issuer, 'revocation', [INDEX]));
    const tampered = { ...vc, credentialSubject: { id: 'did:example:someone-else' } };
    const r = await verify(env, key, tampered);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(reasons(r.body)).toEqual(['signature_invalid', 'status_unconfirmed']);
    expect(r.body.results.credentialStatus).toEqual([expect.objectContaining({ verified: false })]);
    expect(reads.get('/lists/unconfirmed') ?? 0).toBe(0);
  });

  it('a list changed after its issuer signed it is refused', async () => {
    const url = await publishList('/lists/tampered', issuer, 'revocation', [INDEX]);
    const list = lists.get('/lists/tampered')!;
    (list['credentialSubject'] as Json)['encodedList'] = encodedList([]);
    expect(reasons((await verify(env, key, await credentialOn(url))).body)).toEqual(['status_list_invalid']);
  });

  /** Verified without a key, `vc` fails `status_list_unavailable`, with `words` in the answer. */
  async function expectKeylessUnavailable(vc: unknown, words: string): Promise<void> {
    const keyless = await env.request('/credentials/verify', { body: { verifiableCredential: vc } });
    expect(keyless.status, JSON.stringify(keyless.body)).toBe(400);
    expect(reasons(keyless.body)).toEqual(['status_list_unavailable']);
    expect(JSON.stringify(keyless.body)).toContain(words);
  }

  it('a keyless request gets the keyless RDF bounds for the list it makes the service read; a key lifts them', async () => {
    // 7,000 bytes of description: over the 6 KiB a keyless request may have verified with an RDF proof.
    const vc = await credentialOn(
      await publishList('/lists/large', issuer, 'revocation', [], { description: 'x'.repeat(7_000) }),
    );
    await expectKeylessUnavailable(vc, 'an API key lifts the limit');
    const keyed = await verify(env, key, vc);
    expect(keyed.status, JSON.stringify(keyed.body)).toBe(200);
    // A list of the usual size is read for a keyless request as for any other.
    const small = await credentialOn(await publishList('/lists/small', issuer, 'revocation', [INDEX]));
    const revoked = await env.request('/credentials/verify', { body: { verifiableCredential: small } });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(400);
    expect(reasons(revoked.body)).toEqual(['revoked']);
  });

  it('a keyless RDF body and the RDF list it makes the service read share one keyless RDF limit', async () => {
    // Each within 6 KiB alone, over it together: two canonicalizations at the limit would cost twice the bound.
    const url = await publishList('/lists/shared', issuer, 'revocation', [], { description: 'x'.repeat(3_000) });
    const onList = (suite: 'eddsa-rdfc-2022' | 'eddsa-jcs-2022') =>
      issueWith(suite, issuer, {
        '@context': [V2],
        type: ['VerifiableCredential'],
        description: 'y'.repeat(3_000),
        credentialSubject: { id: 'did:example:holder' },
        credentialStatus: bitstringEntry(url, INDEX),
      });
    const rdf = await onList('eddsa-rdfc-2022');
    await expectKeylessUnavailable(rdf, "of the request's own that is over 6144");
    const keyed = await verify(env, key, rdf);
    expect(keyed.status, JSON.stringify(keyed.body)).toBe(200);
    // A JCS body spends nothing of the RDF limit: the same list is read for it without a key.
    const jcs = await env.request('/credentials/verify', {
      body: { verifiableCredential: await onList('eddsa-jcs-2022') },
    });
    expect(jcs.status, JSON.stringify(jcs.body)).toBe(200);
  });

  it('a keyless request has one status list read; a second fails status_list_unavailable, a key reads both', async () => {
    const first = await publishList('/lists/first', issuer, 'revocation', []);
    const second = await publishList('/lists/second', issuer, 'suspension', []);
    const vc = await issueWith('eddsa-rdfc-2022', issuer, {
      '@context': [V2],
      type: ['VerifiableCredential'],
      credentialSubject: { id: 'did:example:holder' },
      credentialStatus: [bitstringEntry(first, INDEX, 'revocation'), bitstringEntry(second, INDEX, 'suspension')],
    });
    await expectKeylessUnavailable(vc, 'may have one status list read');
    const keyed = await verify(env, key, vc);
    expect(keyed.status, JSON.stringify(keyed.body)).toBe(200);
  });

  it('a service that does not read the web fails the check (status_list_unavailable), never passes it', async () => {
    const vc = await credentialOn(await publishList('/lists/offline', issuer, 'revocation', []));
    const r = await verify(offline, offlineKey, vc);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(reasons(r.body)).toEqual(['status_list_unavailable']);
  });
});

describe('did:web issuers (CV_WEB_FETCH)', () => {
  it('a credential by a did:web issuer whose document the test host serves verifies; by another key it does not', async () => {
    const did = `did:web:${encodeURIComponent(host)}`;
    const web = await hostedKey(did, 'P-384');
    const { '@context': _c, ...method } = web.document;
    lists.set('/.well-known/did.json', {
      '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'],
      id: did,
      verificationMethod: [method],
      assertionMethod: [web.vm],
    });
    const vc = await issueWith('ecdsa-rdfc-2019', web, {
      '@context': [V2],
      type: ['VerifiableCredential'],
      credentialSubject: { id: 'did:example:holder' },
    });
    const ok = await env.request('/credentials/verify', { key: key.key, body: { verifiableCredential: vc } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.results.issuerDid).toMatchObject({ outcome: 'not_applicable' });
    const impostor = await hostedKey(did, 'P-384');
    const forged = await issueWith('ecdsa-rdfc-2019', impostor, {
      '@context': [V2],
      type: ['VerifiableCredential'],
      credentialSubject: { id: 'did:example:holder' },
    });
    const bad = await env.request('/credentials/verify', {
      key: key.key,
      body: { verifiableCredential: forged, options: { checks: ['proof'] } },
    });
    expect(bad.status).toBe(400);
    expect(reasons(bad.body)).toEqual(['signature_invalid']);
    const off = await verify(offline, offlineKey, vc);
    expect(reasons(off.body)).toContain('did_method_not_supported');
  });
});
