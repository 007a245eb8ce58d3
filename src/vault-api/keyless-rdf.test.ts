// The keyless limits of the RDF cryptosuites (keyless-rdf.ts; vault-api.yaml KeylessPayloadTooLarge): a keyless
// body whose credential or presentation carries an eddsa-rdfc-2022, ecdsa-rdfc-2019 or Ed25519Signature2020
// proof is refused past KEYLESS_RDF_BODY_LIMIT_BYTES with 413 `payload_too_large`, and verifies within it; with
// a key the same body verifies; a poison graph sent keyless is refused by rdf-canonize's work limit (its message
// names which limit fired), never by the time bound.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { base58btcEncode } from '../did/multikey.ts';
import { CANONICALIZATION_LIMITS, KEYLESS_CANONICALIZATION_LIMITS } from '../did/library-suites.ts';
import { didKey, issueWith, signPresentationWith, type DidKey } from '../../test-support/digitalbazaar.ts';
import { startVaultTestEnv, type MintedKey, type VaultTestEnv } from '../../test-support/vault-api.ts';
import { KEYLESS_RDF_BODY_LIMIT_BYTES, carriesRdfProof } from './keyless-rdf.ts';

type Json = Record<string, unknown>;
const V2 = 'https://www.w3.org/ns/credentials/v2';
const TERMS = {
  claim: 'https://example.org/keyless#claim',
  knows: { '@id': 'https://example.org/keyless#knows', '@type': '@id' },
};
const HOLDER = 'did:example:holder';

let env: VaultTestEnv;
let key: MintedKey;
let issuer: DidKey;

beforeAll(async () => {
  env = await startVaultTestEnv({ network: 'testnet' });
  key = await env.mintKey({ role: 'early' });
  issuer = await didKey('Ed25519');
}, 60_000);
afterAll(async () => {
  await env?.close();
});
// Each test starts a new keyless window (30 per minute per client IP).
beforeEach(() => {
  env?.clock.advance(61_000);
});

const unsigned = (subject: Json): Json => ({
  '@context': [V2, TERMS],
  type: ['VerifiableCredential'],
  issuer: issuer.did,
  credentialSubject: { id: HOLDER, ...subject },
});
const withValues = (n: number) =>
  issueWith('eddsa-rdfc-2022', issuer, unsigned({ claim: Array.from({ length: n }, (_, i) => i.toString(36)) }));
const credentialBody = (vc: Json) => ({ verifiableCredential: vc, options: { checks: ['proof'] } });
const size = (body: unknown) => Buffer.byteLength(JSON.stringify(body));

/** The credential with the most values whose request body is within `limit` bytes (a binary search). */
async function largestWithin(limit: number): Promise<Json> {
  let [lo, hi, best] = [1, 4_000, await withValues(1)];
  while (lo <= hi) {
    const mid = Math.floor((lo + hi) / 2);
    const vc = await withValues(mid);
    if (size(credentialBody(vc)) <= limit) [best, lo] = [vc, mid + 1];
    else hi = mid - 1;
  }
  return best;
}

const verifyCredential = (body: unknown, withKey = false) =>
  env.request('/credentials/verify', { body, ...(withKey ? { key: key.key } : {}) });

describe('keyless RDF bodies are bounded (keyless-rdf.ts)', () => {
  let atLimit: Json;
  let overLimit: Json;
  beforeAll(async () => {
    atLimit = await largestWithin(KEYLESS_RDF_BODY_LIMIT_BYTES);
    overLimit = await largestWithin(KEYLESS_RDF_BODY_LIMIT_BYTES + 512);
  }, 60_000);

  it('a keyless credential at the limit verifies', async () => {
    expect(size(credentialBody(atLimit))).toBeGreaterThan(KEYLESS_RDF_BODY_LIMIT_BYTES - 64);
    const r = await verifyCredential(credentialBody(atLimit));
    expect([r.status, r.body.verified], JSON.stringify(r.body).slice(0, 300)).toEqual([200, true]);
  });

  it('a keyless credential over the limit is 413, with a message that a key lifts the limit', async () => {
    expect(size(credentialBody(overLimit))).toBeGreaterThan(KEYLESS_RDF_BODY_LIMIT_BYTES);
    const r = await verifyCredential(credentialBody(overLimit));
    expect([r.status, r.body.error]).toEqual([413, 'payload_too_large']);
    expect(r.body.message).toContain(`may have ${KEYLESS_RDF_BODY_LIMIT_BYTES}; an API key lifts the limit`);
  });

  it('the same body with a key verifies', async () => {
    const r = await verifyCredential(credentialBody(overLimit), true);
    expect([r.status, r.body.verified], JSON.stringify(r.body).slice(0, 300)).toEqual([200, true]);
  });

  it('whitespace does not count: the body is measured as compact JSON', async () => {
    const padded = JSON.stringify(credentialBody(atLimit), null, 8);
    expect(Buffer.byteLength(padded)).toBeGreaterThan(KEYLESS_RDF_BODY_LIMIT_BYTES);
    const r = await env.request('/credentials/verify', { body: padded });
    expect([r.status, r.body.verified], JSON.stringify(r.body).slice(0, 300)).toEqual([200, true]);
  });

  it('a keyless JCS credential of the same size is not bounded by the RDF limit', async () => {
    const vc = await issueWith(
      'eddsa-jcs-2022',
      issuer,
      unsigned({ claim: Array.from({ length: 3_000 }, (_, i) => i.toString(36)) }),
    );
    expect(size(credentialBody(vc))).toBeGreaterThan(KEYLESS_RDF_BODY_LIMIT_BYTES + 512);
    const r = await verifyCredential(credentialBody(vc));
    expect([r.status, r.body.verified], JSON.stringify(r.body).slice(0, 300)).toEqual([200, true]);
  });

  it('a keyless presentation whose credential carries an RDF proof is bounded too; with a key it is read', async () => {
    const challenge = (await env.request('/challenges', { body: {} })).body.challenge as string;
    const vp = await signPresentationWith(
      'eddsa-jcs-2022',
      issuer,
      { '@context': [V2], type: ['VerifiablePresentation'], holder: issuer.did, verifiableCredential: [overLimit] },
      challenge,
    );
    const body = { verifiablePresentation: vp, options: { challenge } };
    const keyless = await env.request('/presentations/verify', { body });
    expect([keyless.status, keyless.body.error]).toEqual([413, 'payload_too_large']);
    const keyed = await env.request('/presentations/verify', { body, key: key.key });
    expect(keyed.body.error).toBeUndefined();
  });
});

describe('a keyless poison graph is refused by the work limit (library-suites.ts KEYLESS_CANONICALIZATION_LIMITS)', () => {
  /** A ring of n blank nodes all alike (RDFC-1.0 §4.4 "poison graphs"), its proof never reached. */
  const ring = (n: number): Json => ({
    ...unsigned({}),
    credentialSubject: [
      { id: HOLDER, knows: '_:b0' },
      ...Array.from({ length: n }, (_, i) => ({ id: `_:b${i}`, knows: [`_:b${(i + 1) % n}`] })),
    ],
    proof: {
      type: 'DataIntegrityProof',
      cryptosuite: 'eddsa-rdfc-2022',
      created: new Date(env.clock.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z'),
      verificationMethod: issuer.vm,
      proofPurpose: 'assertionMethod',
      proofValue: `z${base58btcEncode(new Uint8Array(64))}`,
    },
  });

  const limitDetail = (body: { problemDetails?: { reason: string; detail: string }[] }) =>
    body.problemDetails?.find((p) => p.reason === 'canonicalization_limit')?.detail;
  const keylessBound = KEYLESS_CANONICALIZATION_LIMITS.maxDeepIterations ?? 0;

  it('answers canonicalization_limit, stopped by the keyless work limit (its count), not the time limit', async () => {
    const vc = ring(keylessBound + 16);
    expect(size(credentialBody(vc))).toBeLessThanOrEqual(KEYLESS_RDF_BODY_LIMIT_BYTES);
    const r = await verifyCredential(credentialBody(vc));
    expect(r.status).toBe(400);
    expect(limitDetail(r.body), JSON.stringify(r.body).slice(0, 600)).toContain(
      `exceeds the work limit of ${keylessBound} deep iterations`,
    );
  });

  it('with a key a larger graph meets the keyed bound: a fixed count too, larger than the keyless one', async () => {
    const keyedBound = CANONICALIZATION_LIMITS.maxDeepIterations ?? 0;
    expect(keyedBound).toBeGreaterThan(keylessBound);
    const r = await verifyCredential(credentialBody(ring(keyedBound + 16)), true);
    expect(r.status).toBe(400);
    expect(limitDetail(r.body), JSON.stringify(r.body).slice(0, 600)).toContain(
      `exceeds the work limit of ${keyedBound} deep iterations`,
    );
  });

  it('blank nodes alike within the keyless bound still canonicalize: the credential verifies keyless', async () => {
    const vc = await issueWith(
      'eddsa-rdfc-2022',
      issuer,
      unsigned({ knows: [{ claim: 'same' }, { claim: 'same' }, { claim: 'same' }] }),
    );
    const r = await verifyCredential(credentialBody(vc));
    expect([r.status, r.body.verified], JSON.stringify(r.body).slice(0, 300)).toEqual([200, true]);
  });
});

describe('carriesRdfProof', () => {
  it('finds an RDF proof on the document or on a credential it presents, in a proof set too', () => {
    const rdfc = { type: 'DataIntegrityProof', cryptosuite: 'eddsa-rdfc-2022' };
    const jcs = { type: 'DataIntegrityProof', cryptosuite: 'eddsa-jcs-2022' };
    expect(carriesRdfProof({ proof: rdfc })).toBe(true);
    expect(carriesRdfProof({ proof: [jcs, { type: 'Ed25519Signature2020' }] })).toBe(true);
    expect(carriesRdfProof({ proof: { type: 'DataIntegrityProof', cryptosuite: 'ecdsa-rdfc-2019' } })).toBe(true);
    expect(carriesRdfProof({ proof: jcs, verifiableCredential: [{ proof: jcs }, { proof: [rdfc] }] })).toBe(true);
    expect(carriesRdfProof({ proof: jcs, verifiableCredential: { proof: jcs } })).toBe(false);
    expect(carriesRdfProof({ proof: { type: 'DataIntegrityProof', cryptosuite: 'ecdsa-jcs-2019' } })).toBe(false);
    expect(carriesRdfProof('not an object')).toBe(false);
  });
});
