// The `did:key` method for Ed25519 keys (W3C CCG "The did:key Method v0.7" §3.1.2): the DID is the key
// itself, `did:key:` + its Multikey (`z6Mk…`), so it resolves offline. The document has one verification
// method, `{did}#{multibase}`, which every verification relationship references. Other key types are not
// resolved: this service verifies Ed25519 (eddsa-jcs-2022) proofs only.
import { decodeMultikey, MULTIKEY_PREFIX } from './multikey.ts';
import { resolutionError } from './document.ts';
import type { DidDocument, DidResolutionResult, VerificationMethod } from './types.ts';

export const DID_KEY_PREFIX = 'did:key:';

const DID_KEY_CONTEXT: readonly string[] = ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'];

/** W3C DID Resolution `resolve(did)` for `did:key:z6Mk…`; failures are resolution metadata. */
export function resolveDidKey(did: string): DidResolutionResult {
  if (!did.startsWith(DID_KEY_PREFIX)) return resolutionError('invalidDid', `${did} is not a did:key`);
  const multibase = did.slice(DID_KEY_PREFIX.length);
  if (!multibase.startsWith(MULTIKEY_PREFIX.Ed25519)) {
    return resolutionError(
      'invalidDid',
      `did:key ${clipDid(did)} is not an Ed25519 key (z6Mk…): this verifier resolves Ed25519 did:key DIDs only`,
    );
  }
  const key = decodeMultikey(multibase, 'Ed25519');
  if (!key.ok)
    return resolutionError('invalidDid', `did:key ${clipDid(did)} does not hold an Ed25519 Multikey: ${key.message}`);
  const method: VerificationMethod = {
    id: `${did}#${multibase}`,
    type: 'Multikey',
    controller: did,
    publicKeyMultibase: multibase,
  };
  const ref = `${did}#${multibase}`;
  const didDocument = {
    '@context': [...DID_KEY_CONTEXT],
    id: did,
    verificationMethod: [method],
    authentication: [ref],
    assertionMethod: [ref],
    capabilityInvocation: [ref],
    capabilityDelegation: [ref],
  } as DidDocument;
  return { didDocument, didDocumentMetadata: {}, didResolutionMetadata: { contentType: 'application/did+ld+json' } };
}

function clipDid(did: string): string {
  return did.length > 80 ? `${did.slice(0, 80)}…` : did;
}
