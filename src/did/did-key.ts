// The `did:key` method (W3C CCG "The did:key Method v0.7" §3.1.2) for the keys the verifier checks proofs with:
// Ed25519 (`z6Mk…`), P-256 (`zDn…`) and P-384 (`z82…`) Multikeys. The DID is the key itself, `did:key:` + its
// Multikey, so it resolves offline. The document has one verification method, `{did}#{multibase}`, which every
// verification relationship references. Other key types are not resolved.
import { decodeSigningMultikey } from './multikey.ts';
import { resolutionError } from './document.ts';
import type { DidDocument, DidResolutionResult, VerificationMethod } from './types.ts';

export const DID_KEY_PREFIX = 'did:key:';

const DID_KEY_CONTEXT: readonly string[] = ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/multikey/v1'];

/** W3C DID Resolution `resolve(did)` for `did:key:z6Mk…`, `zDn…`, `z82…`; failures are resolution metadata. */
export function resolveDidKey(did: string): DidResolutionResult {
  if (!did.startsWith(DID_KEY_PREFIX)) return resolutionError('invalidDid', `${did} is not a did:key`);
  const multibase = did.slice(DID_KEY_PREFIX.length);
  const key = decodeSigningMultikey(multibase);
  if (!key.ok)
    return resolutionError(
      'invalidDid',
      `did:key ${clipDid(did)} does not hold an Ed25519, P-256 or P-384 Multikey (z6Mk…, zDn…, z82…): ${key.message}`,
    );
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
