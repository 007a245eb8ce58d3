// The hostile section's RDF cases (eddsa-rdfc-2022, the cryptosuite whose cost is canonicalization), filled to
// the keyless RDF limit (src/vault-api/keyless-rdf.ts KEYLESS_RDF_BODY_LIMIT_BYTES, 6 KiB as compact JSON; the
// bodies here are compact, so their bytes are what the limit counts): credentials signed by digitalbazaar's
// libraries with distinct values of one term (every value a quad to expand, canonicalize and hash; the costliest
// shape per byte, more than linear in their count), with many small objects (a blank node each), and with members
// nested 50 objects deep; and a poison graph (RDFC-1.0 §4.4): a ring of blank nodes all alike, which only the
// N-degree hashing can tell apart. The poison graph's proof need not verify: the verifier refuses the
// canonicalization before it checks any signature, by the keyless work bound (64 deep iterations), so the case
// expects 400 `canonicalization_limit`.
import { base58btcEncode } from '../../src/did/multikey.ts';
import { didKey, issueWith } from '../../test-support/digitalbazaar.ts';

type Json = Record<string, unknown>;
const V2 = 'https://www.w3.org/ns/credentials/v2';
/** The terms of the hostile RDF documents (an inline context). */
export const TERMS = {
  claim: 'https://example.org/hostile#claim',
  part: 'https://example.org/hostile#part',
  knows: { '@id': 'https://example.org/hostile#knows', '@type': '@id' },
};

export interface RdfcHostileCase {
  name: string;
  body: string;
  /** What the answer must be: verified, or refused for this reason. */
  expect: { verified: true } | { verified: false; reason: string };
}

/**
 * The body `make(n)` of the largest n up to `hi` that stays within `limit` bytes (a binary search; the hostile
 * section's cases are filled the same way).
 */
export async function largest(limit: number, make: (n: number) => Promise<string>, hi = 200_000): Promise<string> {
  let lo = 1;
  let best = await make(lo);
  while (lo <= hi) {
    const mid = Math.floor((lo + hi) / 2);
    const body = await make(mid);
    if (Buffer.byteLength(body) <= limit) [best, lo] = [body, mid + 1];
    else hi = mid - 1;
  }
  return best;
}

export async function rdfcHostileCases(limit: number, holder: string): Promise<RdfcHostileCase[]> {
  const issuer = await didKey('Ed25519');
  const credential = (subject: Json): Json => ({
    '@context': [V2, TERMS],
    type: ['VerifiableCredential'],
    issuer: issuer.did,
    credentialSubject: { id: holder, ...subject },
  });
  const signed = async (subject: Json) =>
    JSON.stringify({ verifiableCredential: await issueWith('eddsa-rdfc-2022', issuer, credential(subject)) });
  const values = (n: number) => signed({ claim: Array.from({ length: n }, (_, i) => i.toString(36)) });
  const objects = (n: number) => signed({ part: Array.from({ length: n }, (_, i) => ({ claim: i.toString(36) })) });
  const nested = (n: number) => {
    let deep: Json = { claim: 'leaf' };
    for (let i = 0; i < 50; i++) deep = { claim: i.toString(36), part: deep };
    return signed({ part: deep, claim: Array.from({ length: n }, (_, i) => i.toString(36)) });
  };
  const poison = async (n: number) => {
    const ring = Array.from({ length: n }, (_, i) => ({ id: `_:b${i}`, knows: [`_:b${(i + 1) % n}`] }));
    const vc = {
      ...credential({ knows: ['_:b0'] }),
      credentialSubject: [{ id: holder, knows: '_:b0' }, ...ring],
      proof: {
        type: 'DataIntegrityProof',
        cryptosuite: 'eddsa-rdfc-2022',
        created: new Date(Date.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z'),
        verificationMethod: issuer.vm,
        proofPurpose: 'assertionMethod',
        proofValue: `z${base58btcEncode(new Uint8Array(64))}`,
      },
    };
    return JSON.stringify({ verifiableCredential: vc });
  };
  return [
    {
      name: 'eddsa-rdfc-2022 credential: distinct values of one term',
      body: await largest(limit, values, 4_000),
      expect: { verified: true },
    },
    {
      name: 'eddsa-rdfc-2022 credential: many small objects (a blank node each)',
      body: await largest(limit, objects, 2_000),
      expect: { verified: true },
    },
    {
      name: 'eddsa-rdfc-2022 credential: members nested 50 objects deep, then distinct values',
      body: await largest(limit, nested, 2_000),
      expect: { verified: true },
    },
    {
      name: 'eddsa-rdfc-2022 credential: a poison graph (a ring of blank nodes all alike)',
      body: await largest(limit, poison, 1_000),
      expect: { verified: false, reason: 'canonicalization_limit' },
    },
  ];
}
