// The key of a proof (Data Integrity §4.4 step 7, "retrieve the verification method"; Controlled Identifiers
// §3.3): the `verificationMethod` DID URL is dereferenced through DID resolution, must be listed under the
// proof's purpose by the DID that controls it, and must hold an Ed25519, P-256 or P-384 Multikey.
import { dereferenceFragment, methodsFor, parseDidUrl, type VerificationRelationship } from './dereference.ts';
import type { ProofProblemReason } from './data-integrity.ts';
import { decodeSigningMultikey, type SigningKeyType } from './multikey.ts';
import type { DidResolutionResult, VerificationMethod } from './types.ts';

export type KeyLookup =
  | { ok: true; did: string; method: VerificationMethod; keyType: SigningKeyType; publicKey: Uint8Array }
  | { ok: false; reason: ProofProblemReason; message: string };

function clip(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/** The resolution's failure as a proof problem, or undefined when the DID resolved to a live document. */
function resolutionProblem(did: string, resolved: DidResolutionResult): KeyLookup | undefined {
  const error = resolved.didResolutionMetadata.error;
  const message = resolved.didResolutionMetadata.message;
  if (error === 'notFound') return { ok: false, reason: 'did_not_found', message: `${did} is not registered` };
  if (error === 'methodNotSupported')
    return {
      ok: false,
      reason: 'did_method_not_supported',
      message: `${did}: ${message ?? 'DID method not supported'}`,
    };
  if (error === 'invalidDid')
    return {
      ok: false,
      reason: 'verification_method_invalid',
      message: `${did} is not a DID this verifier resolves: ${message ?? 'invalid DID'}`,
    };
  if (error !== undefined || !resolved.didDocument)
    return {
      ok: false,
      reason: 'did_unresolvable',
      message: `${did} could not be resolved (${error ?? 'no document'})`,
    };
  if (resolved.didDocumentMetadata.deactivated)
    return { ok: false, reason: 'did_deactivated', message: `${did} is deactivated` };
  return undefined;
}

/**
 * The public key a `verificationMethod` DID URL names: the DID resolves, is not deactivated, the fragment
 * names a method of its document that the DID lists under the proof's purpose, controlled by that DID,
 * holding an Ed25519, P-256 or P-384 key.
 */
export async function verificationKey(
  verificationMethod: string,
  relationship: VerificationRelationship,
  resolve: (did: string) => Promise<DidResolutionResult>,
): Promise<KeyLookup> {
  const url = parseDidUrl(verificationMethod);
  if (!url || url.fragment === undefined || url.pathAndQuery !== undefined) {
    return {
      ok: false,
      reason: 'verification_method_invalid',
      message: `verificationMethod ${clip(verificationMethod)} is not a DID URL with a fragment`,
    };
  }
  const did = clip(url.did);
  const resolved = await resolve(url.did);
  const unresolved = resolutionProblem(did, resolved);
  if (unresolved) return unresolved;
  const document = resolved.didDocument!;
  const found = dereferenceFragment(document, url.fragment);
  if (!found || found.kind !== 'verificationMethod') {
    return {
      ok: false,
      reason: 'verification_method_not_found',
      message: `${did} has no verification method #${clip(url.fragment)}`,
    };
  }
  const id = `${document.id}#${url.fragment}`;
  const authorized = methodsFor(document, relationship).find((m) => m.id === id);
  if (!authorized) {
    return {
      ok: false,
      reason: 'verification_method_not_authorized',
      message: `${clip(id)} is not listed under ${relationship} of ${did}`,
    };
  }
  if (authorized.controller !== url.did) {
    return {
      ok: false,
      reason: 'verification_method_not_authorized',
      message: `${clip(id)} is controlled by ${clip(String(authorized.controller))}, not ${did}`,
    };
  }
  const key = authorized.type === 'Multikey' ? decodeSigningMultikey(authorized.publicKeyMultibase) : undefined;
  if (!key?.ok)
    return {
      ok: false,
      reason: 'verification_method_invalid',
      message: `${clip(id)} is not an Ed25519, P-256 or P-384 Multikey${key ? `: ${key.message}` : ''}`,
    };
  return { ok: true, did: url.did, method: authorized, keyType: key.type, publicKey: key.publicKey };
}
