// Data Integrity proofs with the `eddsa-jcs-2022` cryptosuite (W3C "Data Integrity EdDSA Cryptosuites
// v1.0" §3.3.1-§3.3.2, over W3C "Verifiable Credential Data Integrity 1.0" §4; the suite's transformation,
// hashing and keys are in eddsa-jcs-2022.ts): Ed25519 over proofConfigHash || documentHash, `proofValue` in
// multibase base58btc. Proof sets (an array of proofs) and proof chains (`previousProof`) follow the Data
// Integrity algorithms. Creating a proof needs the signer's key; the services never call it with an
// issuer's key, only issuers' wallets and backends do. Verification answers a result with the problems as
// data (like digitalbazaar/vc), the clock and the DID resolver injected; it throws only on a programming
// error (the resolver's own failures are resolution metadata, did_unresolvable).
import { createHash, type Hash } from 'node:crypto';
import type { Network } from '../domain.ts';
import { canonicalize } from './jcs.ts';
import { base58btcDecode, base58btcEncode, decodeMultikey } from './multikey.ts';
import {
  DATA_INTEGRITY_PROOF,
  DataIntegrityError,
  EDDSA_JCS_2022,
  ed25519KeyPair,
  hashData,
  isDateTimeStamp,
  proofConfiguration,
  transform,
  type DataIntegrityErrorType,
  type Ed25519SecretKey,
  type Signer,
} from './eddsa-jcs-2022.ts';
import { dereferenceFragment, methodsFor, parseDidUrl, type VerificationRelationship } from './dereference.ts';
import { Ed25519KeyCache, verifyEd25519 } from './proof.ts';
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
  | 'too_many_proofs'
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
   * Canonical (JCS) texts of documents verified before in the same request, by object: a presentation's
   * credentials are canonicalized once, for their own proofs and then inside the presentation's.
   */
  canonicalCache?: WeakMap<object, string>;
  /** Node's public keys, kept across documents (default: one cache for this document). */
  keyCache?: Ed25519KeyCache;
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
export async function createProof(
  unsecuredDocument: Record<string, unknown>,
  options: ProofOptions,
  key: SigningKey,
): Promise<DataIntegrityProof> {
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
  if (
    parseDidUrl(options.verificationMethod)?.fragment === undefined &&
    !/^[a-z][a-z0-9+.-]*:/i.test(options.verificationMethod)
  ) {
    throw new DataIntegrityError(
      'PROOF_GENERATION_ERROR',
      'verificationMethod must be a URL (a DID URL with a fragment)',
    );
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

/**
 * Where a credential held in a vault keeps its status: its LedgerVaultStatusEntry (vault-api.yaml), which a
 * verifier reads on the chain. `vaultContract` is the holder's vault (`vault_address` of
 * `GET /contracts/vault/{owner}`); `contextUrl`, when given, is the vault API's
 * `{base}/contexts/ledger-vault/v1`, added to the credential's `@context`.
 */
export interface LedgerVaultStatus {
  network: Network;
  vaultContract: string;
  vcId: string;
  contextUrl?: string;
}

export interface SignCredentialOptions extends Omit<ProofOptions, 'proofPurpose'> {
  credential: Record<string, unknown>;
  proofPurpose?: VerificationRelationship;
  secretKey?: Ed25519SecretKey;
  signer?: Signer;
  /** Adds the credential's LedgerVaultStatusEntry before signing. */
  ledgerVaultStatus?: LedgerVaultStatus;
}

/**
 * An issuer's proof on a credential: `eddsa-jcs-2022`, purpose `assertionMethod`, signed with the key that
 * `verificationMethod` names (one of the issuer DID's `#assert-N` keys). Pass the key itself or a `signer`
 * (a wallet, an HSM) that signs the 64 bytes it is given.
 */
export async function signCredential({
  credential,
  secretKey,
  signer,
  ledgerVaultStatus,
  ...options
}: SignCredentialOptions) {
  if ((secretKey === undefined) === (signer === undefined)) {
    throw new DataIntegrityError('PROOF_GENERATION_ERROR', 'pass exactly one of secretKey and signer');
  }
  const unsigned = ledgerVaultStatus ? withStatusEntry(credential, ledgerVaultStatus) : credential;
  return addProof(unsigned, options, signer ? { signer } : { secretKey: secretKey! });
}

function withStatusEntry(credential: Record<string, unknown>, s: LedgerVaultStatus): Record<string, unknown> {
  const entry = {
    type: 'LedgerVaultStatusEntry',
    statusPurpose: 'revocation',
    network: s.network,
    vaultContract: s.vaultContract,
    vcId: s.vcId,
  };
  const existing = credential['credentialStatus'];
  const list = existing === undefined ? [] : Array.isArray(existing) ? existing : [existing];
  if (list.some((e) => typeof e === 'object' && e !== null && (e as { type?: unknown }).type === entry.type)) {
    throw new DataIntegrityError('PROOF_GENERATION_ERROR', 'the credential already carries a LedgerVaultStatusEntry');
  }
  const context = credential['@context'];
  const contexts = Array.isArray(context) ? context : context === undefined ? [] : [context];
  return {
    ...credential,
    ...(s.contextUrl !== undefined && !contexts.includes(s.contextUrl)
      ? { '@context': [...contexts, s.contextUrl] }
      : {}),
    credentialStatus: list.length === 0 ? entry : [...list, entry],
  };
}

export interface SignPresentationOptions {
  /** The presentation: `holder` and `verifiableCredential`; `@context` and `type` are added when missing. */
  presentation: Record<string, unknown>;
  /** A key under the holder DID's `authentication` (`did:ledger:…#auth-1`, or a did:key's own key). */
  verificationMethod: string;
  /** The verifier's challenge (POST /challenges) and, when it asks for one, its domain. */
  challenge: string;
  domain?: string;
  created?: Date | string;
  secretKey?: Ed25519SecretKey;
  signer?: Signer;
}

/** A holder's proof on a presentation: `eddsa-jcs-2022`, purpose `authentication`, over the challenge. */
export async function signPresentation({
  presentation,
  secretKey,
  signer,
  challenge,
  domain,
  ...options
}: SignPresentationOptions) {
  if ((secretKey === undefined) === (signer === undefined)) {
    throw new DataIntegrityError('PROOF_GENERATION_ERROR', 'pass exactly one of secretKey and signer');
  }
  const vp = {
    '@context': ['https://www.w3.org/ns/credentials/v2'],
    type: ['VerifiablePresentation'],
    ...presentation,
  };
  const proof = {
    ...options,
    proofPurpose: 'authentication' as const,
    challenge,
    ...(domain !== undefined ? { domain } : {}),
  };
  return addProof(vp, proof, signer ? { signer } : { secretKey: secretKey! });
}

function dateTimeOf(value: Date | string, name: string): string {
  const text = value instanceof Date ? value.toISOString().replace(/\.000Z$/, 'Z') : value;
  if (!isDateTimeStamp(text))
    throw new DataIntegrityError('PROOF_GENERATION_ERROR', `${name} must be an XML Schema dateTimeStamp`);
  return text;
}

function matchingProofs(
  all: unknown[],
  previous: unknown,
): { ok: true; proofs: unknown[] } | { ok: false; message: string } {
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
//
// Cost is linear in the document whatever its proofs: the unsecured document is canonicalized once, member by
// member, and each proof's hash input (the document, its own @context, the proofs it chains to) is composed
// from those texts; at most MAX_PROOFS proofs, each naming at most MAX_PREVIOUS_PROOFS others, so every byte
// is hashed a bounded number of times. A proof whose key is not the expected controller's is refused before
// its DID is resolved.

/** The most proofs one document may carry (vault-api.yaml "Verification limits"). */
export const MAX_PROOFS = 8;
/** The most proof ids one `previousProof` may name. */
export const MAX_PREVIOUS_PROOFS = 8;

/** Verifies every proof of a secured document. Problems are data; only a programming error throws. */
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
  if (allProofs.length > MAX_PROOFS) {
    return failed([
      problem(
        'MALFORMED_PROOF_ERROR',
        'too_many_proofs',
        `the document carries ${allProofs.length} proofs; at most ${MAX_PROOFS} are verified`,
      ),
    ]);
  }
  let members: CanonicalMembers;
  try {
    members = canonicalMembers(unsecured, options.canonicalCache);
  } catch (e) {
    return failed([
      problem(
        'PROOF_TRANSFORMATION_ERROR',
        'malformed_proof',
        `the document cannot be canonicalized: ${(e as Error).message}`,
      ),
    ]);
  }
  const ctx: VerifyContext = {
    members,
    allProofs,
    proofTexts: new Map(),
    hashes: new Map(),
    keys: options.keyCache ?? new Ed25519KeyCache(MAX_PROOFS),
  };
  // A set that holds one proof twice says nothing more than once, and costs twice: refused.
  if (allProofs.length > 1) {
    const seen = new Set<string>();
    for (const [i, q] of allProofs.entries()) {
      let text: string;
      try {
        text = canonicalize(q);
      } catch (e) {
        return failed([
          problem(
            'PROOF_TRANSFORMATION_ERROR',
            'malformed_proof',
            `proof ${i} cannot be canonicalized: ${(e as Error).message}`,
          ),
        ]);
      }
      if (seen.has(text))
        return failed([problem('MALFORMED_PROOF_ERROR', 'malformed_proof', `the document carries proof ${i} twice`)]);
      seen.add(text);
      ctx.proofTexts.set(i, text);
    }
  }
  if (options.canonicalCache) {
    try {
      options.canonicalCache.set(document, securedText(members, proof, ctx.proofTexts));
    } catch {
      // a proof JCS cannot take: the document is refused below, and a container canonicalizes it anew
    }
  }
  const results: ProofVerification[] = [];
  for (const p of allProofs) results.push(await verifyOne(ctx, p, options));
  const errors = results.flatMap((r) => r.errors);
  const verified = results.every((r) => r.verified);
  return verified ? { verified, verifiedDocument: unsecured, results, errors } : { verified, results, errors };
}

interface VerifyContext {
  members: CanonicalMembers;
  allProofs: unknown[];
  /** Canonical text of each proof of the document, by index, once. */
  proofTexts: Map<number, string>;
  /** SHA-256 of each distinct hash input (the same @context and chained proofs give the same input). */
  hashes: Map<string, Buffer>;
  /** Node's key of each Ed25519 public key met, made once. */
  keys: Ed25519KeyCache;
}

async function verifyOne(
  ctx: VerifyContext,
  proof: unknown,
  o: VerifyDataIntegrityOptions,
): Promise<ProofVerification> {
  const fail = (
    type: DataIntegrityErrorType,
    reason: ProofProblemReason,
    message: string,
    extra: Partial<ProofVerification> = {},
  ): ProofVerification => ({
    proof,
    verified: false,
    ...extra,
    errors: [problem(type, reason, message)],
  });
  // §4.4 step 3: the required properties.
  if (typeof proof !== 'object' || proof === null || Array.isArray(proof))
    return fail('MALFORMED_PROOF_ERROR', 'malformed_proof', 'a proof must be a JSON object');
  const p = proof as Record<string, unknown>;
  for (const name of ['type', 'verificationMethod', 'proofPurpose', 'proofValue'] as const) {
    if (typeof p[name] !== 'string' || p[name] === '')
      return fail('MALFORMED_PROOF_ERROR', 'malformed_proof', `proof.${name} must be a non-empty string`);
  }
  if (p['type'] !== DATA_INTEGRITY_PROOF || p['cryptosuite'] !== EDDSA_JCS_2022) {
    return fail(
      'PROOF_VERIFICATION_ERROR',
      'unsupported_cryptosuite',
      `only ${DATA_INTEGRITY_PROOF} with cryptosuite ${EDDSA_JCS_2022} is supported`,
    );
  }
  for (const name of ['created', 'expires'] as const) {
    if (p[name] !== undefined && !isDateTimeStamp(p[name]))
      return fail('MALFORMED_PROOF_ERROR', 'malformed_proof', `proof.${name} must be an XML Schema dateTimeStamp`);
  }
  const chained = chainedProofs(ctx, p['previousProof']);
  if (!chained.ok) return fail(chained.type, chained.reason, chained.message);

  // Steps 4-6: purpose, domain, challenge; each mismatch is reported.
  const mismatches: ProofProblem[] = [];
  const expectedPurpose = o.expectedProofPurpose ?? 'assertionMethod';
  if (p['proofPurpose'] !== expectedPurpose) {
    mismatches.push(
      problem(
        'MISMATCHED_PROOF_PURPOSE_ERROR',
        'proof_purpose_mismatch',
        `proofPurpose is ${clip(String(p['proofPurpose']))}, expected ${expectedPurpose}`,
      ),
    );
  }
  if (o.domain !== undefined) {
    const domains = typeof p['domain'] === 'string' ? [p['domain']] : Array.isArray(p['domain']) ? p['domain'] : [];
    if (!domains.includes(o.domain))
      mismatches.push(
        problem('INVALID_DOMAIN_ERROR', 'domain_mismatch', `the proof is not for the domain ${clip(o.domain)}`),
      );
  }
  if (o.challenge !== undefined && p['challenge'] !== o.challenge) {
    mismatches.push(
      problem('INVALID_CHALLENGE_ERROR', 'challenge_mismatch', 'the proof does not answer the expected challenge'),
    );
  }
  if (mismatches.length > 0) return { proof, verified: false, errors: mismatches };

  // Validity window of the proof itself, on the injected clock.
  const now = o.now.getTime();
  if (typeof p['expires'] === 'string' && Date.parse(p['expires']) < now) {
    return fail('PROOF_VERIFICATION_ERROR', 'proof_expired', `the proof expired at ${p['expires']}`);
  }
  if (
    typeof p['created'] === 'string' &&
    Date.parse(p['created']) > now + (o.maxClockSkewMs ?? DEFAULT_CLOCK_SKEW_MS)
  ) {
    return fail(
      'PROOF_VERIFICATION_ERROR',
      'created_in_future',
      `the proof was created in the future (${p['created']})`,
    );
  }
  // The key: by the expected controller, dereferenced through DID resolution, authorized for the purpose.
  const vm = String(p['verificationMethod']);
  if (o.expectedController !== undefined) {
    const url = parseDidUrl(vm);
    if (url && url.did !== o.expectedController) {
      return fail(
        'PROOF_VERIFICATION_ERROR',
        'not_proof_signer',
        `the proof was made with a key of ${clip(url.did)}, not of ${clip(o.expectedController)}`,
      );
    }
  }
  const key = await verificationKey(vm, expectedPurpose, o.resolve);
  if (!key.ok) return fail('PROOF_VERIFICATION_ERROR', key.reason, key.message);
  const who = { verificationMethod: key.method.id, controller: key.did };

  // §3.3.2 Verify Proof (eddsa-jcs-2022).
  const { proofValue, ...proofOptions } = p;
  const value = String(proofValue);
  const signature = value.startsWith('z') ? base58btcDecode(value.slice(1)) : undefined;
  if (!signature || signature.length !== 64) {
    return fail(
      'MALFORMED_PROOF_ERROR',
      'malformed_proof',
      'proofValue must be a 64-byte signature in multibase base58btc (z…)',
      who,
    );
  }
  let contextMember: string | undefined;
  if (proofOptions['@context'] !== undefined) {
    if (!contextStartsWith(ctx.members.values.get('@context'), proofOptions['@context'])) {
      return fail(
        'PROOF_VERIFICATION_ERROR',
        'context_mismatch',
        "the document's @context does not start with the proof's @context",
        who,
      );
    }
    contextMember = memberText('@context', proofOptions['@context']);
  }
  let data: Uint8Array;
  try {
    const configHash = sha256(proofConfiguration(proofOptions));
    data = Buffer.concat([configHash, documentHash(ctx, contextMember, chained.text)]);
  } catch (e) {
    return fail(
      'PROOF_TRANSFORMATION_ERROR',
      'malformed_proof',
      `the proof cannot be canonicalized: ${(e as Error).message}`,
      who,
    );
  }
  if (!verifyEd25519(ctx.keys.get(key.publicKey), data, signature)) {
    return fail(
      'PROOF_VERIFICATION_ERROR',
      'signature_invalid',
      'the signature does not verify: the document or the proof was changed, or another key signed it',
      who,
    );
  }
  return { proof, verified: true, ...who, errors: [] };
}

type Chained =
  | { ok: true; text?: string }
  | { ok: false; type: DataIntegrityErrorType; reason: ProofProblemReason; message: string };

/** §4.5: the proofs a `previousProof` names, as the canonical text of the `proof` member they form. */
function chainedProofs(ctx: VerifyContext, previous: unknown): Chained {
  if (previous === undefined) return { ok: true };
  const ids = typeof previous === 'string' ? [previous] : previous;
  if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === 'string')) {
    return {
      ok: false,
      type: 'MALFORMED_PROOF_ERROR',
      reason: 'malformed_proof',
      message: 'previousProof must be a proof id or a non-empty list of proof ids',
    };
  }
  if (ids.length > MAX_PREVIOUS_PROOFS) {
    return {
      ok: false,
      type: 'MALFORMED_PROOF_ERROR',
      reason: 'malformed_proof',
      message: `previousProof names ${ids.length} proofs; at most ${MAX_PREVIOUS_PROOFS}`,
    };
  }
  if (new Set(ids).size !== ids.length) {
    return {
      ok: false,
      type: 'MALFORMED_PROOF_ERROR',
      reason: 'malformed_proof',
      message: 'previousProof names a proof twice',
    };
  }
  const texts: string[] = [];
  for (const id of ids as string[]) {
    const at = ctx.allProofs.findIndex((q) => typeof q === 'object' && q !== null && (q as { id?: unknown }).id === id);
    if (at < 0)
      return {
        ok: false,
        type: 'PROOF_VERIFICATION_ERROR',
        reason: 'previous_proof_missing',
        message: `previousProof ${clip(id)} is not a proof of the document`,
      };
    let text = ctx.proofTexts.get(at);
    if (text === undefined) {
      try {
        text = canonicalize(ctx.allProofs[at]);
      } catch (e) {
        return {
          ok: false,
          type: 'PROOF_TRANSFORMATION_ERROR',
          reason: 'malformed_proof',
          message: `proof ${clip(id)} cannot be canonicalized: ${(e as Error).message}`,
        };
      }
      ctx.proofTexts.set(at, text);
    }
    texts.push(text);
  }
  return { ok: true, text: `"proof":[${texts.join(',')}]` };
}

/** The unsecured document's canonical (JCS) members: `"name":value` texts in UTF-8, names in JCS order. */
interface CanonicalMembers {
  names: string[];
  /** The member texts, as strings and in UTF-8. */
  strings: Map<string, string>;
  texts: Map<string, Buffer>;
  values: Map<string, unknown>;
  /** SHA-256 states over `{` and the members before `proof`, per @context member (hash.copy() per proof). */
  prefixes: Map<string, Hash>;
}

function canonicalMembers(doc: Record<string, unknown>, cache?: WeakMap<object, string>): CanonicalMembers {
  const names: string[] = [];
  const strings = new Map<string, string>();
  const texts = new Map<string, Buffer>();
  const values = new Map<string, unknown>();
  // RFC 8785 §3.2.3: names sorted by UTF-16 code units, which is what sort() compares.
  for (const name of Object.keys(doc).sort()) {
    const v = doc[name];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    names.push(name);
    const text = memberText(name, v, cache);
    strings.set(name, text);
    texts.set(name, Buffer.from(text, 'utf8'));
    values.set(name, v);
  }
  return { names, strings, texts, values, prefixes: new Map() };
}

function memberText(name: string, value: unknown, cache?: WeakMap<object, string>): string {
  return `${canonicalize(name)}:${cachedCanonical(value, cache)}`;
}

/** JCS of a value, from the cache for a verified document or a list of them (RFC 8785: `[a,b]` of their texts). */
function cachedCanonical(value: unknown, cache?: WeakMap<object, string>): string {
  if (cache && typeof value === 'object' && value !== null) {
    const hit = cache.get(value);
    if (hit !== undefined) return hit;
    if (Array.isArray(value) && value.length > 0) {
      const items = value.map((v) => (typeof v === 'object' && v !== null ? cache.get(v) : undefined));
      if (items.every((t) => t !== undefined)) return `[${items.join(',')}]`;
    }
  }
  return canonicalize(value);
}

/** JCS of the whole secured document: its members with the `proof` member in its place. */
function securedText(members: CanonicalMembers, proof: unknown, proofTexts: Map<number, string>): string {
  const proofs = Array.isArray(proof) ? proof : undefined;
  const proofText =
    proofs && proofTexts.size === proofs.length
      ? `[${proofs.map((_, i) => proofTexts.get(i)!).join(',')}]`
      : canonicalize(proof);
  const parts: string[] = [];
  let placed = false;
  for (const name of members.names) {
    if (!placed && name > 'proof') {
      parts.push(`"proof":${proofText}`);
      placed = true;
    }
    parts.push(members.strings.get(name)!);
  }
  if (!placed) parts.push(`"proof":${proofText}`);
  return `{${parts.join(',')}}`;
}

const OPEN = Buffer.from('{');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from('}');

/**
 * SHA-256 of the JCS text of the unsecured document with its `@context` member replaced (a proof's own
 * @context) and a `proof` member added (the proofs a chained proof signs over). Texts are composed, never
 * canonicalized again; the members before `proof` are hashed once per @context and the state copied, so a
 * proof costs the hashing of what follows; equal inputs are hashed once.
 */
function documentHash(ctx: VerifyContext, contextMember: string | undefined, proofMember: string | undefined): Buffer {
  const key = `${contextMember ?? ''}\u0000${proofMember ?? ''}`;
  const cached = ctx.hashes.get(key);
  if (cached) return cached;
  const { names, texts, prefixes } = ctx.members;
  const before = names.filter((n) => n < 'proof');
  const after = names.filter((n) => n > 'proof');
  const textOf = (name: string) =>
    name === '@context' && contextMember !== undefined ? Buffer.from(contextMember, 'utf8') : texts.get(name)!;
  let prefix = prefixes.get(contextMember ?? '');
  if (!prefix) {
    prefix = createHash('sha256').update(OPEN);
    before.forEach((name, i) => {
      if (i > 0) prefix!.update(COMMA);
      prefix!.update(textOf(name));
    });
    prefixes.set(contextMember ?? '', prefix);
  }
  const hash = prefix.copy();
  let first = before.length === 0;
  const put = (text: Buffer) => {
    if (!first) hash.update(COMMA);
    hash.update(text);
    first = false;
  };
  if (proofMember !== undefined) put(Buffer.from(proofMember, 'utf8'));
  for (const name of after) put(textOf(name));
  hash.update(CLOSE);
  const digest = hash.digest();
  ctx.hashes.set(key, digest);
  return digest;
}

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

function clip(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
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
    return {
      ok: false,
      reason: 'verification_method_invalid',
      message: `verificationMethod ${clip(verificationMethod)} is not a DID URL with a fragment`,
    };
  }
  const resolved = await resolve(url.did);
  const error = resolved.didResolutionMetadata.error;
  const did = clip(url.did);
  if (error === 'notFound') return { ok: false, reason: 'did_not_found', message: `${did} is not registered` };
  if (error === 'methodNotSupported')
    return {
      ok: false,
      reason: 'did_method_not_supported',
      message: `${did}: ${resolved.didResolutionMetadata.message ?? 'DID method not supported'}`,
    };
  if (error === 'invalidDid')
    return {
      ok: false,
      reason: 'verification_method_invalid',
      message: `${did} is not a DID this verifier resolves: ${resolved.didResolutionMetadata.message ?? 'invalid DID'}`,
    };
  if (error !== undefined || !resolved.didDocument)
    return {
      ok: false,
      reason: 'did_unresolvable',
      message: `${did} could not be resolved (${error ?? 'no document'})`,
    };
  if (resolved.didDocumentMetadata.deactivated)
    return { ok: false, reason: 'did_deactivated', message: `${did} is deactivated` };
  const document = resolved.didDocument;
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
  const key = authorized.type === 'Multikey' ? decodeMultikey(authorized.publicKeyMultibase, 'Ed25519') : undefined;
  if (!key?.ok)
    return { ok: false, reason: 'verification_method_invalid', message: `${clip(id)} is not an Ed25519 Multikey` };
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
