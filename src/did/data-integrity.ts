// Data Integrity proofs with the `eddsa-jcs-2022` cryptosuite (W3C "Data Integrity EdDSA Cryptosuites
// v1.0" §3.3.1-§3.3.2, over W3C "Verifiable Credential Data Integrity 1.0" §4; the suite's transformation,
// hashing and keys are in eddsa-jcs-2022.ts): Ed25519 over proofConfigHash || documentHash, `proofValue` in
// multibase base58btc. Proof sets (an array of proofs) and proof chains (`previousProof`) follow the Data
// Integrity algorithms. Creating a proof needs the signer's key; the services never call it with an
// issuer's key, only issuers' wallets and backends do. Verification never throws: it answers a result
// with the problems as data (like digitalbazaar/vc), the clock and the DID resolver injected.
import { canonicalize } from './jcs.ts';
import { base58btcDecode, base58btcEncode, decodeMultikey } from './multikey.ts';
import {
  DATA_INTEGRITY_PROOF, DataIntegrityError, EDDSA_JCS_2022, ed25519KeyPair, hashData, isDateTimeStamp, proofConfiguration, transform,
  type DataIntegrityErrorType, type Ed25519SecretKey, type Signer,
} from './eddsa-jcs-2022.ts';
import { dereferenceFragment, methodsFor, parseDidUrl, type VerificationRelationship } from './dereference.ts';
import { verifyEd25519 } from './proof.ts';
import type { DidResolutionResult, VerificationMethod } from './types.ts';

/** A proof as Data Integrity §2.1 defines it (the properties this cryptosuite reads). */
export interface DataIntegrityProof {
  id?: string;
  type: typeof DATA_INTEGRITY_PROOF;
  cryptosuite: typeof EDDSA_JCS_2022;
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
  | 'malformed_proof'
  | 'unsupported_cryptosuite'
  | 'context_mismatch'
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
}

export const DEFAULT_CLOCK_SKEW_MS = 5 * 60 * 1000;

// ---------------------------------------------------------------------------------------------------------
// Creating proofs: §3.3.1 Create Proof, and Data Integrity §4.1/§4.2 (proof sets and chains).

/** What the signer chooses about the proof (Data Integrity §2.1); `type` and `cryptosuite` are fixed. */
export interface ProofOptions {
  /** A DID URL naming the signing key, e.g. `did:ledger:testnet:…#assert-1`. */
  verificationMethod: string;
  /** Default `assertionMethod`: what an issuer's credential proof is for. */
  proofPurpose?: VerificationRelationship;
  created?: Date | string;
  expires?: Date | string;
  id?: string;
  domain?: string | string[];
  challenge?: string;
  nonce?: string;
  /** The ids of the proofs already on the document that this proof endorses (a proof chain). */
  previousProof?: string | string[];
}

export type SigningKey = { secretKey: Ed25519SecretKey; signer?: never } | { signer: Signer; secretKey?: never };

/** §3.3.1: the proof of one unsecured document (which, in a chain, carries the endorsed proofs). */
export async function createProof(unsecuredDocument: Record<string, unknown>, options: ProofOptions, key: SigningKey): Promise<DataIntegrityProof> {
  const proof: Record<string, unknown> = {
    ...(options.id !== undefined ? { id: options.id } : {}),
    type: DATA_INTEGRITY_PROOF,
    cryptosuite: EDDSA_JCS_2022,
    ...(options.created !== undefined ? { created: dateTimeOf(options.created, 'created') } : {}),
    ...(options.expires !== undefined ? { expires: dateTimeOf(options.expires, 'expires') } : {}),
    verificationMethod: options.verificationMethod,
    proofPurpose: options.proofPurpose ?? 'assertionMethod',
    ...(options.domain !== undefined ? { domain: options.domain } : {}),
    ...(options.challenge !== undefined ? { challenge: options.challenge } : {}),
    ...(options.nonce !== undefined ? { nonce: options.nonce } : {}),
    ...(options.previousProof !== undefined ? { previousProof: options.previousProof } : {}),
  };
  if (parseDidUrl(options.verificationMethod)?.fragment === undefined && !/^[a-z][a-z0-9+.-]*:/i.test(options.verificationMethod)) {
    throw new DataIntegrityError('PROOF_GENERATION_ERROR', 'verificationMethod must be a URL (a DID URL with a fragment)');
  }
  // Step 2: the proof carries the document's @context, so the verifier can check it was not swapped.
  if (unsecuredDocument['@context'] !== undefined) proof['@context'] = unsecuredDocument['@context'];
  const canonicalProofConfig = proofConfiguration(proof);
  const transformed = transform(unsecuredDocument, proof);
  const sign: Signer = key.signer ?? ed25519KeyPair(key.secretKey!).sign;
  const signature = await sign(hashData(transformed, canonicalProofConfig));
  if (!(signature instanceof Uint8Array) || signature.length !== 64) {
    throw new DataIntegrityError('PROOF_GENERATION_ERROR', 'the signer must return a 64-byte Ed25519 signature');
  }
  return { ...(proof as unknown as DataIntegrityProof), proofValue: 'z' + base58btcEncode(signature) };
}

/**
 * Data Integrity §4.1 Add Proof and §4.2 proof sets and chains: the document with one more proof. A
 * document that already has proofs gets an array (a proof set); with `previousProof` the new proof signs
 * the document together with the proofs it names (a chain), which must be on the document.
 */
export async function addProof(
  document: Record<string, unknown>,
  options: ProofOptions,
  key: SigningKey,
): Promise<Record<string, unknown> & { proof: DataIntegrityProof | DataIntegrityProof[] }> {
  const { proof: existing, ...rest } = document;
  const allProofs = existing === undefined ? [] : Array.isArray(existing) ? [...existing] : [existing];
  const input: Record<string, unknown> = { ...rest };
  if (options.previousProof !== undefined) {
    const matching = matchingProofs(allProofs, options.previousProof);
    if (!matching.ok) throw new DataIntegrityError('PROOF_GENERATION_ERROR', matching.message);
    input['proof'] = matching.proofs;
  }
  const proof = await createProof(input, options, key);
  allProofs.push(proof);
  return { ...rest, proof: allProofs.length === 1 ? proof : (allProofs as DataIntegrityProof[]) };
}

export interface SignCredentialOptions extends Omit<ProofOptions, 'proofPurpose'> {
  credential: Record<string, unknown>;
  proofPurpose?: VerificationRelationship;
  secretKey?: Ed25519SecretKey;
  signer?: Signer;
}

/**
 * An issuer's proof on a credential: `eddsa-jcs-2022`, purpose `assertionMethod`, signed with the key that
 * `verificationMethod` names (one of the issuer DID's `#assert-N` keys). Pass the key itself or a `signer`
 * (a wallet, an HSM) that signs the 64 bytes it is given.
 */
export async function signCredential({ credential, secretKey, signer, ...options }: SignCredentialOptions) {
  if ((secretKey === undefined) === (signer === undefined)) {
    throw new DataIntegrityError('PROOF_GENERATION_ERROR', 'pass exactly one of secretKey and signer');
  }
  return addProof(credential, options, signer ? { signer } : { secretKey: secretKey! });
}

function dateTimeOf(value: Date | string, name: string): string {
  const text = value instanceof Date ? value.toISOString().replace(/\.000Z$/, 'Z') : value;
  if (!isDateTimeStamp(text)) throw new DataIntegrityError('PROOF_GENERATION_ERROR', `${name} must be an XML Schema dateTimeStamp`);
  return text;
}

function matchingProofs(all: unknown[], previous: unknown): { ok: true; proofs: unknown[] } | { ok: false; message: string } {
  const ids = typeof previous === 'string' ? [previous] : previous;
  if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === 'string')) {
    return { ok: false, message: 'previousProof must be a proof id or a non-empty list of proof ids' };
  }
  const proofs: unknown[] = [];
  for (const id of ids) {
    const found = all.find((p) => typeof p === 'object' && p !== null && (p as { id?: unknown }).id === id);
    if (!found) return { ok: false, message: `previousProof ${id} is not a proof of the document` };
    proofs.push(found);
  }
  return { ok: true, proofs };
}

// ---------------------------------------------------------------------------------------------------------
// Verifying: Data Integrity §4.4 Verify Proof and §4.5 proof sets and chains, with §3.3.2.

/** Verifies every proof of a secured document; never throws. */
export async function verifyDataIntegrity(options: VerifyDataIntegrityOptions): Promise<VerifyDataIntegrityResult> {
  const { document } = options;
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    return failed([problem('MALFORMED_PROOF_ERROR', 'malformed_proof', 'the secured document must be a JSON object')]);
  }
  const { proof, ...unsecured } = document as Record<string, unknown>;
  if (proof === undefined || (Array.isArray(proof) && proof.length === 0)) {
    return failed([problem('PROOF_VERIFICATION_ERROR', 'no_proof', 'the document carries no proof')]);
  }
  const allProofs = Array.isArray(proof) ? proof : [proof];
  const results: ProofVerification[] = [];
  for (const p of allProofs) {
    const input: Record<string, unknown> = { ...unsecured };
    const previous = typeof p === 'object' && p !== null ? (p as { previousProof?: unknown }).previousProof : undefined;
    if (previous !== undefined) {
      const matching = matchingProofs(allProofs, previous);
      if (!matching.ok) {
        results.push({ proof: p, verified: false, errors: [problem('PROOF_VERIFICATION_ERROR', 'previous_proof_missing', matching.message)] });
        continue;
      }
      input['proof'] = matching.proofs;
    }
    results.push(await verifyOne(input, p, options).catch((e: unknown) => ({
      proof: p,
      verified: false,
      errors: [problem('PROOF_VERIFICATION_ERROR', 'did_unresolvable', `verification could not complete: ${(e as Error)?.message ?? String(e)}`)],
    })));
  }
  const errors = results.flatMap((r) => r.errors);
  const verified = results.every((r) => r.verified);
  return verified ? { verified, verifiedDocument: unsecured, results, errors } : { verified, results, errors };
}

async function verifyOne(unsecured: Record<string, unknown>, proof: unknown, o: VerifyDataIntegrityOptions): Promise<ProofVerification> {
  const fail = (type: DataIntegrityErrorType, reason: ProofProblemReason, message: string, extra: Partial<ProofVerification> = {}): ProofVerification => ({
    proof, verified: false, ...extra, errors: [problem(type, reason, message)],
  });
  // §4.4 step 3: the required properties.
  if (typeof proof !== 'object' || proof === null || Array.isArray(proof)) return fail('MALFORMED_PROOF_ERROR', 'malformed_proof', 'a proof must be a JSON object');
  const p = proof as Record<string, unknown>;
  for (const name of ['type', 'verificationMethod', 'proofPurpose', 'proofValue'] as const) {
    if (typeof p[name] !== 'string' || p[name] === '') return fail('MALFORMED_PROOF_ERROR', 'malformed_proof', `proof.${name} must be a non-empty string`);
  }
  if (p['type'] !== DATA_INTEGRITY_PROOF || p['cryptosuite'] !== EDDSA_JCS_2022) {
    return fail('PROOF_VERIFICATION_ERROR', 'unsupported_cryptosuite', `only ${DATA_INTEGRITY_PROOF} with cryptosuite ${EDDSA_JCS_2022} is supported`);
  }
  for (const name of ['created', 'expires'] as const) {
    if (p[name] !== undefined && !isDateTimeStamp(p[name])) return fail('MALFORMED_PROOF_ERROR', 'malformed_proof', `proof.${name} must be an XML Schema dateTimeStamp`);
  }
  // Step 4-6: purpose, domain, challenge.
  const expectedPurpose = o.expectedProofPurpose ?? 'assertionMethod';
  if (p['proofPurpose'] !== expectedPurpose) {
    return fail('MISMATCHED_PROOF_PURPOSE_ERROR', 'proof_purpose_mismatch', `proofPurpose is ${String(p['proofPurpose'])}, expected ${expectedPurpose}`);
  }
  if (o.domain !== undefined) {
    const domains = typeof p['domain'] === 'string' ? [p['domain']] : Array.isArray(p['domain']) ? p['domain'] : [];
    if (!domains.includes(o.domain)) return fail('INVALID_DOMAIN_ERROR', 'domain_mismatch', `the proof is not for the domain ${o.domain}`);
  }
  if (o.challenge !== undefined && p['challenge'] !== o.challenge) {
    return fail('INVALID_CHALLENGE_ERROR', 'challenge_mismatch', 'the proof does not answer the expected challenge');
  }
  // Validity window of the proof itself, on the injected clock.
  const now = o.now.getTime();
  if (typeof p['expires'] === 'string' && Date.parse(p['expires']) < now) {
    return fail('PROOF_VERIFICATION_ERROR', 'proof_expired', `the proof expired at ${p['expires']}`);
  }
  if (typeof p['created'] === 'string' && Date.parse(p['created']) > now + (o.maxClockSkewMs ?? DEFAULT_CLOCK_SKEW_MS)) {
    return fail('PROOF_VERIFICATION_ERROR', 'created_in_future', `the proof was created in the future (${p['created']})`);
  }
  // The key: dereferenced through DID resolution, authorized for the purpose, DID active.
  const key = await verificationKey(String(p['verificationMethod']), expectedPurpose, o.resolve);
  if (!key.ok) return fail('PROOF_VERIFICATION_ERROR', key.reason, key.message);
  const who = { verificationMethod: key.method.id, controller: key.did };

  // §3.3.2 Verify Proof (eddsa-jcs-2022).
  const { proofValue, ...proofOptions } = p;
  const value = String(proofValue);
  const signature = value.startsWith('z') ? base58btcDecode(value.slice(1)) : undefined;
  if (!signature || signature.length !== 64) {
    return fail('MALFORMED_PROOF_ERROR', 'malformed_proof', 'proofValue must be a 64-byte signature in multibase base58btc (z…)', who);
  }
  const input = { ...unsecured };
  if (proofOptions['@context'] !== undefined) {
    if (!contextStartsWith(input['@context'], proofOptions['@context'])) {
      return fail('PROOF_VERIFICATION_ERROR', 'context_mismatch', "the document's @context does not start with the proof's @context", who);
    }
    input['@context'] = proofOptions['@context'];
  }
  let data: Uint8Array;
  try {
    data = hashData(transform(input, proofOptions), proofConfiguration(proofOptions));
  } catch (e) {
    return fail('PROOF_TRANSFORMATION_ERROR', 'malformed_proof', `the document cannot be canonicalized: ${(e as Error).message}`, who);
  }
  if (!verifyEd25519(key.publicKey, data, signature)) {
    return fail('PROOF_VERIFICATION_ERROR', 'signature_invalid', 'the signature does not verify: the document or the proof was changed, or another key signed it', who);
  }
  return { proof, verified: true, ...who, errors: [] };
}

type KeyLookup =
  | { ok: true; did: string; method: VerificationMethod; publicKey: Uint8Array }
  | { ok: false; reason: ProofProblemReason; message: string };

/**
 * The public key a `verificationMethod` DID URL names: the DID resolves, is not deactivated, the fragment
 * names a method of its document that the DID lists under the proof's purpose, controlled by that DID,
 * holding an Ed25519 Multikey.
 */
export async function verificationKey(
  verificationMethod: string,
  relationship: VerificationRelationship,
  resolve: (did: string) => Promise<DidResolutionResult>,
): Promise<KeyLookup> {
  const url = parseDidUrl(verificationMethod);
  if (!url || url.fragment === undefined || url.pathAndQuery !== undefined) {
    return { ok: false, reason: 'verification_method_invalid', message: `verificationMethod ${verificationMethod} is not a DID URL with a fragment` };
  }
  const resolved = await resolve(url.did);
  const error = resolved.didResolutionMetadata.error;
  if (error === 'notFound') return { ok: false, reason: 'did_not_found', message: `${url.did} is not registered` };
  if (error === 'invalidDid') return { ok: false, reason: 'verification_method_invalid', message: `${url.did} is not a DID this verifier resolves` };
  if (error !== undefined || !resolved.didDocument) return { ok: false, reason: 'did_unresolvable', message: `${url.did} could not be resolved (${error ?? 'no document'})` };
  if (resolved.didDocumentMetadata.deactivated) return { ok: false, reason: 'did_deactivated', message: `${url.did} is deactivated` };
  const document = resolved.didDocument;
  const found = dereferenceFragment(document, url.fragment);
  if (!found || found.kind !== 'verificationMethod') {
    return { ok: false, reason: 'verification_method_not_found', message: `${url.did} has no verification method #${url.fragment}` };
  }
  const id = `${document.id}#${url.fragment}`;
  const authorized = methodsFor(document, relationship).find((m) => m.id === id);
  if (!authorized) {
    return { ok: false, reason: 'verification_method_not_authorized', message: `${id} is not listed under ${relationship} of ${url.did}` };
  }
  if (authorized.controller !== url.did) {
    return { ok: false, reason: 'verification_method_not_authorized', message: `${id} is controlled by ${String(authorized.controller)}, not ${url.did}` };
  }
  const key = authorized.type === 'Multikey' ? decodeMultikey(authorized.publicKeyMultibase, 'Ed25519') : undefined;
  if (!key?.ok) return { ok: false, reason: 'verification_method_invalid', message: `${id} is not an Ed25519 Multikey` };
  return { ok: true, did: url.did, method: authorized, publicKey: key.publicKey };
}

/** §3.3.2 step 4.1: the document's @context starts with every value of the proof's, in order. */
function contextStartsWith(documentContext: unknown, proofContext: unknown): boolean {
  const doc = Array.isArray(documentContext) ? documentContext : documentContext === undefined ? [] : [documentContext];
  const pre = Array.isArray(proofContext) ? proofContext : [proofContext];
  return pre.length <= doc.length && pre.every((v, i) => canonicalizeOrNull(v) === canonicalizeOrNull(doc[i]));
}

function canonicalizeOrNull(v: unknown): string | null {
  try {
    return canonicalize(v);
  } catch {
    return null;
  }
}

function problem(type: DataIntegrityErrorType, reason: ProofProblemReason, message: string): ProofProblem {
  return { type, reason, message };
}

function failed(errors: ProofProblem[]): VerifyDataIntegrityResult {
  return { verified: false, results: [], errors };
}

