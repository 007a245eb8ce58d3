// This repository's eddsa-jcs-2022 (src/did: signing, and verification with its incremental canonical hashing,
// jcs-hashing.ts) against the maintained implementation, @digitalbazaar/eddsa-jcs-2022-cryptosuite under
// @digitalbazaar/vc: for generated credentials, what either one signs the other verifies, and any one-byte change
// of the signed credential's JSON text that changes the credential fails in both. The issuer is a did:key, so no
// ledger is involved.
import fc from 'fast-check';
import serialize from 'canonicalize';
import { describe, expect, it } from 'vitest';
import { ed25519KeyPair, resolveDidKey, signCredential, verifyDataIntegrity } from '../src/did/index.ts';
import { didKey, didKeyOf, digitalbazaarVerifies, issueWith } from '../test-support/digitalbazaar.ts';
import { runParams } from './harness.ts';

type Json = Record<string, unknown>;
const V2 = 'https://www.w3.org/ns/credentials/v2';
const SEED = new Uint8Array(32).fill(7);
const OURS = didKeyOf(ed25519KeyPair(SEED).publicKeyMultibase);
// digitalbazaar's issue() dates its proof by the real clock.
const NOW = new Date(Date.now() + 60_000);

/** Claims under the VC 2.0 context's @vocab: JSON members with strings, numbers, booleans, arrays, objects. */
const claims = fc.dictionary(
  fc.string({ minLength: 1, maxLength: 8 }).filter((k) => !k.startsWith('@') && k !== 'id' && k !== 'type'),
  fc.jsonValue({ maxDepth: 2 }),
  { maxKeys: 5 },
);

const credentialOf = (subject: Json, issuer: string): Json => ({
  '@context': [V2],
  id: 'urn:uuid:0b7d2f4e-5a1c-4d3e-8f6a-9b0c1d2e3f4a',
  type: ['VerifiableCredential'],
  issuer,
  validFrom: '2025-01-01T00:00:00Z',
  credentialSubject: { id: 'did:example:subject', ...subject },
});

async function oursVerifies(credential: unknown): Promise<boolean> {
  const result = await verifyDataIntegrity({
    document: credential,
    resolve: async (did) => resolveDidKey(did),
    now: NOW,
  });
  return result.verified;
}

/** The signed credential's JSON text with one byte changed, when that still parses to another credential. */
function oneByteChanged(signed: Json, at: number, byte: number): Json | undefined {
  const text = Buffer.from(JSON.stringify(signed), 'utf8');
  const i = at % text.length;
  if (text[i] === byte) return undefined;
  text[i] = byte;
  let changed: unknown;
  try {
    changed = JSON.parse(text.toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof changed !== 'object' || changed === null || Array.isArray(changed)) return undefined;
  try {
    if (serialize(changed) === serialize(signed)) return undefined;
  } catch {
    return undefined;
  }
  return changed as Json;
}

describe('eddsa-jcs-2022: this repository and @digitalbazaar/eddsa-jcs-2022-cryptosuite agree', () => {
  it('what ours signs, digitalbazaar verifies; a one-byte change fails in both', async () => {
    let mutated = 0;
    await fc.assert(
      fc.asyncProperty(claims, fc.nat(), fc.integer({ min: 0x20, max: 0x7e }), async (subject, at, byte) => {
        const signed = (await signCredential({
          credential: credentialOf(subject, OURS.did),
          verificationMethod: OURS.vm,
          secretKey: SEED,
          created: '2025-06-01T00:00:00Z',
        })) as Json;
        expect(await digitalbazaarVerifies(signed, OURS)).toBe(true);
        expect(await oursVerifies(signed)).toBe(true);
        const changed = oneByteChanged(signed, at, byte);
        if (changed) {
          mutated++;
          expect(await oursVerifies(changed)).toBe(false);
          expect(await digitalbazaarVerifies(changed, OURS)).toBe(false);
        }
      }),
      runParams('eddsa-jcs-2022 ours → digitalbazaar', 40),
    );
    // Most changes leave a credential that parses: the property is not carried by the rest alone.
    expect(mutated).toBeGreaterThan(10);
  }, 120_000);

  it('what digitalbazaar signs, ours verifies; a one-byte change fails in both', async () => {
    let mutated = 0;
    const theirs = await didKey('Ed25519');
    await fc.assert(
      fc.asyncProperty(claims, fc.nat(), fc.integer({ min: 0x20, max: 0x7e }), async (subject, at, byte) => {
        const signed = await issueWith('eddsa-jcs-2022', theirs, credentialOf(subject, theirs.did));
        expect(await oursVerifies(signed)).toBe(true);
        const changed = oneByteChanged(signed, at, byte);
        if (changed) {
          mutated++;
          expect(await oursVerifies(changed)).toBe(false);
          expect(await digitalbazaarVerifies(changed, theirs)).toBe(false);
        }
      }),
      runParams('eddsa-jcs-2022 digitalbazaar → ours', 40),
    );
    expect(mutated).toBeGreaterThan(10);
  }, 120_000);
});
