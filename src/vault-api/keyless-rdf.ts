// The keyless limits of the RDF cryptosuites (vault-api.yaml "Verification limits", KeylessPayloadTooLarge).
// A keyless request must cost the service at most 50 ms of CPU. RDF canonicalization (eddsa-rdfc-2022,
// ecdsa-rdfc-2019, Ed25519Signature2020) costs far more per byte than the JCS suites, so a keyless body whose
// credential or presentation carries such a proof has a smaller limit than the 64 KiB of every keyless body, and
// its canonicalization a fixed work bound (library-suites.ts KEYLESS_CANONICALIZATION_LIMITS). The cost model
// behind the number is in docs/benchmarks.md "Keyless RDF bodies". A key lifts both: a keyed request keeps the
// 512 KiB body and the keyed work bound.
import type { Request } from 'express';
import {
  CANONICALIZATION_LIMITS,
  KEYLESS_CANONICALIZATION_LIMITS,
  type CanonicalizationLimits,
} from '../did/library-suites.ts';
import { VaultErrors, peekAuth } from './context.ts';
import { BODY_LIMIT_BYTES } from './middleware/errors.ts';

/**
 * The most bytes a keyless verification body may have, as compact JSON (without insignificant whitespace),
 * when its credential or presentation carries an RDF-canonicalized proof.
 */
export const KEYLESS_RDF_BODY_LIMIT_BYTES = 6 * 1024;

/** The cryptosuites and legacy proof types whose hashing input is RDF canonicalization (RDFC-1.0). */
const RDF_CRYPTOSUITES: ReadonlySet<string> = new Set(['eddsa-rdfc-2022', 'ecdsa-rdfc-2019']);
const RDF_PROOF_TYPES: ReadonlySet<string> = new Set(['Ed25519Signature2020']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]);

function isRdfProof(proof: unknown): boolean {
  if (!isObject(proof)) return false;
  const { type, cryptosuite } = proof;
  return (
    (typeof cryptosuite === 'string' && RDF_CRYPTOSUITES.has(cryptosuite)) ||
    (typeof type === 'string' && RDF_PROOF_TYPES.has(type))
  );
}

/** Whether the document, or a credential it presents, carries a proof that is verified by RDF canonicalization. */
export function carriesRdfProof(document: unknown): boolean {
  if (!isObject(document)) return false;
  if (listOf(document.proof).some(isRdfProof)) return true;
  return listOf(document.verifiableCredential).some((vc) => isObject(vc) && listOf(vc.proof).some(isRdfProof));
}

/** The size of `document` as compact JSON. */
export const compactSize = (document: unknown): number => Buffer.byteLength(JSON.stringify(document));

/** What the keyless RDF limit allows a request: its canonicalization bound, and the bytes its body spent of the
 *  limit (a status list it makes the service read gets what is left: body and list share one 6 KiB). */
export interface RdfAllowance {
  canonicalization: CanonicalizationLimits;
  rdfBytes: number;
}

/**
 * The canonicalization bound of a verification request: a keyless one whose document carries an RDF proof is
 * refused (413 `payload_too_large`) past KEYLESS_RDF_BODY_LIMIT_BYTES and gets the keyless work bound.
 */
export function canonicalizationFor(req: Request, document: unknown): RdfAllowance {
  if (peekAuth(req) || !carriesRdfProof(document)) return { canonicalization: CANONICALIZATION_LIMITS, rdfBytes: 0 };
  const size = compactSize(req.body);
  if (size > KEYLESS_RDF_BODY_LIMIT_BYTES)
    throw VaultErrors.payloadTooLarge(
      `request body is ${size} bytes as compact JSON: without an API key, a body whose credential or presentation carries an RDF-canonicalized proof (eddsa-rdfc-2022, ecdsa-rdfc-2019, Ed25519Signature2020) may have ${KEYLESS_RDF_BODY_LIMIT_BYTES}; an API key lifts the limit to ${BODY_LIMIT_BYTES}`,
    );
  return { canonicalization: KEYLESS_CANONICALIZATION_LIMITS, rdfBytes: size };
}
