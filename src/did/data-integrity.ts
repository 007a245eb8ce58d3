// Data Integrity proofs (W3C "Verifiable Credential Data Integrity 1.0" §4): the types both sides share and the
// public surface. Signing is data-integrity-sign.ts (`eddsa-jcs-2022`, this repository's own, over
// eddsa-jcs-2022.ts); verifying is data-integrity-verify.ts, which checks every proof's purpose, domain,
// challenge, validity window and key (key-lookup.ts) itself, then its cryptography: `eddsa-jcs-2022` by
// jcs-hashing.ts, and `eddsa-rdfc-2022`, `ecdsa-rdfc-2019`, `ecdsa-jcs-2019` and `Ed25519Signature2020` by
// digitalbazaar's maintained implementations (library-suites.ts) over a static JSON-LD loader (json-ld.ts).
// Verification answers a result with the problems as data (like digitalbazaar/vc), the clock and the DID
// resolver injected; it throws only on a programming error.
import type { LibraryPath } from './library-fast-path.ts';
import type { CanonicalizationLimits } from './library-suites.ts';
import type { DataIntegrityErrorType } from './eddsa-jcs-2022.ts';
import type { VerificationRelationship } from './dereference.ts';
import type { ContextSource } from './json-ld.ts';
import type { Ed25519KeyCache } from './proof.ts';
import type { DidResolutionResult } from './types.ts';

/** A proof as Data Integrity §2.1 defines it (the properties this verifier reads). */
export interface DataIntegrityProof {
  id?: string;
  type: string;
  cryptosuite?: string;
  verificationMethod: string;
  proofPurpose: string;
  created?: string;
  expires?: string;
  domain?: string | string[];
  challenge?: string;
  nonce?: string;
  previousProof?: string | string[];
  '@context'?: unknown;
  proofValue: string;
}

/** Why a proof did not verify, finer than the error type: what a verifier reports to its caller. */
export type ProofProblemReason =
  | 'no_proof'
  | 'too_many_proofs'
  | 'malformed_proof'
  | 'unsupported_cryptosuite'
  | 'context_mismatch'
  | 'context_not_bundled'
  | 'undefined_term'
  | 'canonicalization_limit'
  | 'proof_purpose_mismatch'
  | 'domain_mismatch'
  | 'challenge_mismatch'
  | 'proof_expired'
  | 'created_in_future'
  | 'previous_proof_missing'
  | 'verification_method_invalid'
  | 'verification_method_not_found'
  | 'verification_method_not_authorized'
  | 'did_not_found'
  | 'did_deactivated'
  | 'did_unresolvable'
  | 'did_method_not_supported'
  | 'not_proof_signer'
  | 'signature_invalid';

export interface ProofProblem {
  type: DataIntegrityErrorType;
  reason: ProofProblemReason;
  message: string;
}

/** One proof of the set and its outcome. */
export interface ProofVerification {
  proof: unknown;
  verified: boolean;
  /** The absolute id of the key that verified it. */
  verificationMethod?: string;
  /** The DID that controls that key. */
  controller?: string;
  errors: ProofProblem[];
}

export interface VerifyDataIntegrityResult {
  /** True when the document has at least one proof and every proof verifies. */
  verified: boolean;
  /** The document without `proof`, when verified. */
  verifiedDocument?: Record<string, unknown>;
  results: ProofVerification[];
  /** Every problem of every proof, in order (empty when verified). */
  errors: ProofProblem[];
}

export interface VerifyDataIntegrityOptions {
  /** The secured document (a credential with `proof`). */
  document: unknown;
  /** DID resolution (W3C DID Resolution `resolve`): the resolver's own logic, injected. */
  resolve: (did: string) => Promise<DidResolutionResult>;
  /** The verifier's clock, for `created` and `expires`. */
  now: Date;
  /** Data Integrity §4.4 step 4: the purpose the verifier expects. Default `assertionMethod` (credentials). */
  expectedProofPurpose?: VerificationRelationship;
  /** Data Integrity §4.4 steps 5-6, when the verifier asked for them. */
  domain?: string;
  challenge?: string;
  /** How far in the future `created` may be (clock skew). Default 5 minutes. */
  maxClockSkewMs?: number;
  /**
   * The DID whose keys must make every proof (a credential's issuer, a presentation's holder): a proof by
   * another DID fails `not_proof_signer` without that DID being resolved.
   */
  expectedController?: string;
  /**
   * With `expectedController`: a proof by another DID (a co-signer, the earlier proof of a chain) is verified with
   * that DID's key instead of being refused, and at least one proof must still be by `expectedController`
   * (else `not_proof_signer`). A credential's proof set (the W3C Data Integrity suites' previousProof case).
   */
  coSigners?: boolean;
  /**
   * Canonical (JCS) texts of documents verified before in the same request, by object: a presentation's
   * credentials are canonicalized once, for their own proofs and then inside the presentation's.
   */
  canonicalCache?: WeakMap<object, string>;
  /** Node's public keys, kept across documents (default: one cache for this document). */
  keyCache?: Ed25519KeyCache;
  /** The JSON-LD contexts beyond the bundled ones, for the RDF cryptosuites (json-ld.ts). */
  contexts?: ContextSource;
  /** How the RDF cryptosuites are verified: library-fast-path.ts (default `fast`) or `maintained`. */
  libraryPath?: LibraryPath;
  /** The RDF canonicalization's work bound (library-suites.ts; default a keyed request's). */
  canonicalization?: CanonicalizationLimits;
}

export const DEFAULT_CLOCK_SKEW_MS = 5 * 60 * 1000;
/** The most proofs one document may carry (vault-api.yaml "Verification limits"). */
export const MAX_PROOFS = 8;
/** The most proof ids one `previousProof` may name. */
export const MAX_PREVIOUS_PROOFS = 8;

export {
  addProof,
  createProof,
  signCredential,
  signPresentation,
  type LedgerVaultStatus,
  type SignCredentialOptions,
  type SignPresentationOptions,
  type SigningCryptosuite,
} from './data-integrity-sign.ts';
export { verifyDataIntegrity } from './data-integrity-verify.ts';
export { verificationKey } from './key-lookup.ts';
