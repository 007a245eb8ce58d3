import { describe, expect, it } from 'vitest';
import { resolveDidKey } from './did-key.ts';
import { verificationKey } from './data-integrity.ts';
import { encodeMultikey } from './multikey.ts';

// The did:key Method v0.7, §3.1.2 example key (also the eddsa-jcs-2022 test vectors' key).
const KEY = 'z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2';
const DID = `did:key:${KEY}`;

describe('resolveDidKey', () => {
  it('answers one Multikey that every relationship references', () => {
    const r = resolveDidKey(DID);
    expect(r.didResolutionMetadata.error).toBeUndefined();
    const vm = { id: `${DID}#${KEY}`, type: 'Multikey', controller: DID, publicKeyMultibase: KEY };
    expect(r.didDocument).toMatchObject({
      id: DID,
      verificationMethod: [vm],
      authentication: [vm.id],
      assertionMethod: [vm.id],
    });
  });

  it.each([
    ['an X25519 key', `did:key:${encodeMultikey('X25519', new Uint8Array(32))}`],
    ['text that is no key', 'did:key:z6Mk0OIl'],
    ['a key of the wrong length', `did:key:z6Mk${'1'.repeat(10)}`],
    ['another method', 'did:web:example.com'],
  ])('invalidDid for %s', (_name, did) => {
    expect(resolveDidKey(did).didResolutionMetadata.error).toBe('invalidDid');
  });

  it('gives verificationKey the Ed25519 key for assertionMethod and authentication', async () => {
    for (const rel of ['assertionMethod', 'authentication'] as const) {
      const found = await verificationKey(`${DID}#${KEY}`, rel, async (did) => resolveDidKey(did));
      expect(found.ok && found.did).toBe(DID);
    }
    const wrong = await verificationKey(`${DID}#other`, 'assertionMethod', async (did) => resolveDidKey(did));
    expect(wrong).toMatchObject({ ok: false, reason: 'verification_method_not_found' });
  });
});
