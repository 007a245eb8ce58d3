// Verifying Data Integrity proofs: Data Integrity §4.4 Verify Proof and §4.5 proof sets and chains. Each proof's
// purpose, domain, challenge, validity window and key are checked here, whatever its cryptosuite; its cryptography
// by the suite's own module: `eddsa-jcs-2022` with jcs-hashing.ts (§3.3.2), the others by digitalbazaar's
// implementations (library-suites.ts).
//
// Cost is linear in the document whatever its proofs: at most MAX_PROOFS proofs, each naming at most
// MAX_PREVIOUS_PROOFS others; a proof whose key is not the expected controller's is refused before its DID is
// resolved, unless co-signers are allowed (a credential's proof set: at most MAX_PROOFS DIDs resolved).
import {
  DATA_INTEGRITY_PROOF,
  EDDSA_JCS_2022,
  isDateTimeStamp,
  proofConfiguration,
  type DataIntegrityErrorType,
} from './eddsa-jcs-2022.ts';
import {
  DEFAULT_CLOCK_SKEW_MS,
  MAX_PREVIOUS_PROOFS,
  MAX_PROOFS,
  type ProofProblem,
  type ProofProblemReason,
  type ProofVerification,
  type VerifyDataIntegrityOptions,
  type VerifyDataIntegrityResult,
} from './data-integrity.ts';
import { parseDidUrl } from './dereference.ts';
import { canonicalize } from './jcs.ts';
import {
  canonicalMembers,
  documentHash,
  memberText,
  securedText,
  sha256,
  type CanonicalMembers,
} from './jcs-hashing.ts';
import { verificationKey, type KeyLookup } from './key-lookup.ts';
import { SUITE_KEY_TYPES, verifyByLibrary, type LibrarySuiteName } from './library-suites.ts';
import { base58btcDecode } from './multikey.ts';
import { Ed25519KeyCache, verifyEd25519 } from './proof.ts';

type SuiteName = LibrarySuiteName | typeof EDDSA_JCS_2022;

const DATA_INTEGRITY_SUITES: ReadonlySet<string> = new Set([
  EDDSA_JCS_2022,
  'eddsa-rdfc-2022',
  'ecdsa-rdfc-2019',
  'ecdsa-jcs-2019',
]);

/** The signature length of each key type (Ed25519: RFC 8032 §5.1.6; ECDSA: r || s, FIPS 186-5 §6.4). */
const SIGNATURE_BYTES = { Ed25519: 64, 'P-256': 64, 'P-384': 96 } as const;

interface VerifyContext {
  options: VerifyDataIntegrityOptions;
  unsecured: Record<string, unknown>;
  members: CanonicalMembers;
  allProofs: unknown[];
  /** Canonical text of each proof of the document, by index, once. */
  proofTexts: Map<number, string>;
  /** SHA-256 of each distinct hash input (the same @context and chained proofs give the same input). */
  hashes: Map<string, Buffer>;
  /** Node's key of each Ed25519 public key met, made once. */
  keys: Ed25519KeyCache;
}

/** Verifies every proof of a secured document. Problems are data; only a programming error throws. */
export async function verifyDataIntegrity(options: VerifyDataIntegrityOptions): Promise<VerifyDataIntegrityResult> {
  const { document } = options;
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    return failed(problem('MALFORMED_PROOF_ERROR', 'malformed_proof', 'the secured document must be a JSON object'));
  }
  const { proof, ...unsecured } = document as Record<string, unknown>;
  if (proof === undefined || (Array.isArray(proof) && proof.length === 0)) {
    return failed(problem('PROOF_VERIFICATION_ERROR', 'no_proof', 'the document carries no proof'));
  }
  const allProofs = Array.isArray(proof) ? proof : [proof];
  if (allProofs.length > MAX_PROOFS) {
    return failed(
      problem(
        'MALFORMED_PROOF_ERROR',
        'too_many_proofs',
        `the document carries ${allProofs.length} proofs; at most ${MAX_PROOFS} are verified`,
      ),
    );
  }
  const ctx = verifyContext(options, unsecured, allProofs);
  if (!('members' in ctx)) return failed(ctx);
  if (options.canonicalCache) {
    try {
      options.canonicalCache.set(document, securedText(ctx.members, proof, ctx.proofTexts));
    } catch {
      // a proof JCS cannot take: the document is refused below, and a container canonicalizes it anew
    }
  }
  // A proof the set holds twice (the same canonical text) is verified once: Data Integrity §2.1.1 makes the set
  // unordered, and the W3C suites send a set of two equal proofs that must verify.
  const results: ProofVerification[] = [];
  const byText = new Map<string, ProofVerification>();
  for (const [i, p] of allProofs.entries()) {
    const text = ctx.proofTexts.get(i);
    const earlier = text === undefined ? undefined : byText.get(text);
    const result = earlier ? { ...earlier, proof: p } : await verifyOne(ctx, p);
    if (text !== undefined && !earlier) byText.set(text, result);
    results.push(result);
  }
  const errors = results.flatMap((r) => r.errors);
  let verified = results.every((r) => r.verified);
  // With co-signers, one proof at least must be the expected controller's: said when the set verifies otherwise,
  // and beside the other problems when every proof's key was found (a changed `issuer` fails both ways).
  const signer = options.expectedController;
  const keysFound = results.every((r) => r.controller !== undefined);
  if (
    options.coSigners &&
    signer !== undefined &&
    (verified || keysFound) &&
    !results.some((r) => r.controller === signer)
  ) {
    verified = false;
    errors.push(
      problem('PROOF_VERIFICATION_ERROR', 'not_proof_signer', `no proof was made with a key of ${clip(signer)}`),
    );
  }
  return verified ? { verified, verifiedDocument: unsecured, results, errors } : { verified, results, errors };
}

/** The document's canonical members and its proofs' texts (a set of several proofs). */
function verifyContext(
  options: VerifyDataIntegrityOptions,
  unsecured: Record<string, unknown>,
  allProofs: unknown[],
): VerifyContext | ProofProblem {
  let members: CanonicalMembers;
  try {
    members = canonicalMembers(unsecured, options.canonicalCache);
  } catch (e) {
    const why = `the document cannot be canonicalized: ${(e as Error).message}`;
    return problem('PROOF_TRANSFORMATION_ERROR', 'malformed_proof', why);
  }
  const ctx: VerifyContext = {
    options,
    unsecured,
    members,
    allProofs,
    proofTexts: new Map(),
    hashes: new Map(),
    keys: options.keyCache ?? new Ed25519KeyCache(MAX_PROOFS),
  };
  if (allProofs.length > 1) {
    for (const [i, q] of allProofs.entries()) {
      let text: string;
      try {
        text = canonicalize(q);
      } catch (e) {
        const why = `proof ${i} cannot be canonicalized: ${(e as Error).message}`;
        return problem('PROOF_TRANSFORMATION_ERROR', 'malformed_proof', why);
      }
      ctx.proofTexts.set(i, text);
    }
  }
  return ctx;
}

/** §4.4 step 3 and the suite: the required properties, and which cryptosuite verifies the proof. */
function proofShape(proof: unknown): { p: Record<string, unknown>; suite: SuiteName } | ProofProblem {
  if (typeof proof !== 'object' || proof === null || Array.isArray(proof))
    return problem('MALFORMED_PROOF_ERROR', 'malformed_proof', 'a proof must be a JSON object');
  const p = proof as Record<string, unknown>;
  for (const name of ['type', 'verificationMethod', 'proofPurpose', 'proofValue'] as const) {
    if (typeof p[name] !== 'string' || p[name] === '')
      return problem('MALFORMED_PROOF_ERROR', 'malformed_proof', `proof.${name} must be a non-empty string`);
  }
  let suite: SuiteName | undefined;
  if (p['type'] === DATA_INTEGRITY_PROOF && DATA_INTEGRITY_SUITES.has(String(p['cryptosuite'])))
    suite = p['cryptosuite'] as SuiteName;
  else if (p['type'] === 'Ed25519Signature2020' && p['cryptosuite'] === undefined) suite = 'Ed25519Signature2020';
  if (!suite)
    return problem(
      'PROOF_VERIFICATION_ERROR',
      'unsupported_cryptosuite',
      `the proof is not one this verifier supports: ${DATA_INTEGRITY_PROOF} with cryptosuite ${[...DATA_INTEGRITY_SUITES].join(', ')}, or Ed25519Signature2020`,
    );
  for (const name of ['created', 'expires'] as const) {
    if (p[name] !== undefined && !isDateTimeStamp(p[name]))
      return problem('MALFORMED_PROOF_ERROR', 'malformed_proof', `proof.${name} must be an XML Schema dateTimeStamp`);
  }
  return { p, suite };
}

/** §4.4 steps 4-6 (purpose, domain, challenge, each mismatch reported) and the proof's own validity window. */
function optionProblems(p: Record<string, unknown>, o: VerifyDataIntegrityOptions): ProofProblem[] {
  const mismatches: ProofProblem[] = [];
  const expectedPurpose = o.expectedProofPurpose ?? 'assertionMethod';
  if (p['proofPurpose'] !== expectedPurpose) {
    const why = `proofPurpose is ${clip(String(p['proofPurpose']))}, expected ${expectedPurpose}`;
    mismatches.push(problem('MISMATCHED_PROOF_PURPOSE_ERROR', 'proof_purpose_mismatch', why));
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
  if (mismatches.length > 0) return mismatches;
  const now = o.now.getTime();
  if (typeof p['expires'] === 'string' && Date.parse(p['expires']) < now)
    return [problem('PROOF_VERIFICATION_ERROR', 'proof_expired', `the proof expired at ${p['expires']}`)];
  if (typeof p['created'] === 'string' && Date.parse(p['created']) > now + (o.maxClockSkewMs ?? DEFAULT_CLOCK_SKEW_MS))
    return [
      problem('PROOF_VERIFICATION_ERROR', 'created_in_future', `the proof was created in the future (${p['created']})`),
    ];
  return [];
}

/** The key, by the expected controller (refused before any resolution), authorized for the purpose. */
async function proofKey(
  p: Record<string, unknown>,
  suite: SuiteName,
  o: VerifyDataIntegrityOptions,
): Promise<KeyLookup> {
  const vm = String(p['verificationMethod']);
  const url = parseDidUrl(vm);
  if (o.expectedController !== undefined && !o.coSigners && url && url.did !== o.expectedController) {
    const why = `the proof was made with a key of ${clip(url.did)}, not of ${clip(o.expectedController)}`;
    return { ok: false, reason: 'not_proof_signer', message: why };
  }
  const key = await verificationKey(vm, o.expectedProofPurpose ?? 'assertionMethod', o.resolve);
  if (key.ok && !SUITE_KEY_TYPES[suite].includes(key.keyType)) {
    const why = `${clip(key.method.id)} is a ${key.keyType} key; ${suite} verifies with ${SUITE_KEY_TYPES[suite].join(' or ')} keys`;
    return { ok: false, reason: 'verification_method_invalid', message: why };
  }
  return key;
}

async function verifyOne(ctx: VerifyContext, proof: unknown): Promise<ProofVerification> {
  const o = ctx.options;
  const fail = (e: ProofProblem, extra: Partial<ProofVerification> = {}): ProofVerification => ({
    proof,
    verified: false,
    ...extra,
    errors: [e],
  });
  const shape = proofShape(proof);
  if (!('p' in shape)) return fail(shape);
  const { p, suite } = shape;
  const chained = chainedProofs(ctx, p['previousProof']);
  if (!chained.ok) return fail(chained.problem);
  const mismatches = optionProblems(p, o);
  if (mismatches.length > 0) return { proof, verified: false, errors: mismatches };
  const key = await proofKey(p, suite, o);
  if (!key.ok) return fail(problem('PROOF_VERIFICATION_ERROR', key.reason, key.message));
  const who = { verificationMethod: key.method.id, controller: key.did };

  const signature = signatureOf(String(p['proofValue']), key.keyType);
  if (!signature) {
    const bytes = SIGNATURE_BYTES[key.keyType];
    const why = `proofValue must be a ${bytes}-byte ${key.keyType} signature in multibase base58btc (z…)`;
    return fail(problem('MALFORMED_PROOF_ERROR', 'malformed_proof', why), who);
  }
  if (p['@context'] !== undefined && !contextStartsWith(ctx.unsecured['@context'], p['@context'])) {
    const why = "the document's @context does not start with the proof's @context";
    return fail(problem('PROOF_VERIFICATION_ERROR', 'context_mismatch', why), who);
  }
  const outcome =
    suite === EDDSA_JCS_2022
      ? verifyJcs(ctx, p, key, signature, chained.text)
      : await verifyByLibrary({
          suite,
          document: chained.proofs ? { ...ctx.unsecured, proof: chained.proofs } : ctx.unsecured,
          proof: p,
          proofSet: ctx.allProofs,
          method: { id: key.method.id, controller: key.did, publicKeyMultibase: key.method.publicKeyMultibase },
          key: { type: key.keyType, publicKey: key.publicKey },
          keys: ctx.keys,
          ...(o.libraryPath ? { path: o.libraryPath } : {}),
          ...(o.contexts ? { contexts: o.contexts } : {}),
          ...(o.canonicalization ? { limits: o.canonicalization } : {}),
        });
  return outcome ? fail(outcome, who) : { proof, verified: true, ...who, errors: [] };
}

function signatureOf(proofValue: string, keyType: keyof typeof SIGNATURE_BYTES): Uint8Array | undefined {
  const signature = proofValue.startsWith('z') ? base58btcDecode(proofValue.slice(1)) : undefined;
  return signature?.length === SIGNATURE_BYTES[keyType] ? signature : undefined;
}

/** §3.3.2 Verify Proof (eddsa-jcs-2022): the hash input composed from the canonical members (jcs-hashing.ts). */
function verifyJcs(
  ctx: VerifyContext,
  p: Record<string, unknown>,
  key: Extract<KeyLookup, { ok: true }>,
  signature: Uint8Array,
  chainedText: string | undefined,
): ProofProblem | undefined {
  const { proofValue: _value, ...proofOptions } = p;
  let data: Uint8Array;
  try {
    const contextMember = p['@context'] !== undefined ? memberText('@context', p['@context']) : undefined;
    const configHash = sha256(proofConfiguration(proofOptions));
    data = Buffer.concat([configHash, documentHash(ctx.members, ctx.hashes, contextMember, chainedText)]);
  } catch (e) {
    const why = `the proof cannot be canonicalized: ${(e as Error).message}`;
    return problem('PROOF_TRANSFORMATION_ERROR', 'malformed_proof', why);
  }
  if (!verifyEd25519(ctx.keys.get(key.publicKey), data, signature)) {
    const why = 'the signature does not verify: the document or the proof was changed, or another key signed it';
    return problem('PROOF_VERIFICATION_ERROR', 'signature_invalid', why);
  }
  return undefined;
}

type Chained = { ok: true; text?: string; proofs?: unknown[] } | { ok: false; problem: ProofProblem };

/** §4.5: the proofs a `previousProof` names, and the canonical text of the `proof` member they form. */
function chainedProofs(ctx: VerifyContext, previous: unknown): Chained {
  if (previous === undefined) return { ok: true };
  const refuse = (type: DataIntegrityErrorType, reason: ProofProblemReason, message: string): Chained => ({
    ok: false,
    problem: problem(type, reason, message),
  });
  const ids = typeof previous === 'string' ? [previous] : previous;
  if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === 'string'))
    return refuse(
      'MALFORMED_PROOF_ERROR',
      'malformed_proof',
      'previousProof must be a proof id or a non-empty list of proof ids',
    );
  if (ids.length > MAX_PREVIOUS_PROOFS)
    return refuse(
      'MALFORMED_PROOF_ERROR',
      'malformed_proof',
      `previousProof names ${ids.length} proofs; at most ${MAX_PREVIOUS_PROOFS}`,
    );
  if (new Set(ids).size !== ids.length)
    return refuse('MALFORMED_PROOF_ERROR', 'malformed_proof', 'previousProof names a proof twice');
  const texts: string[] = [];
  const proofs: unknown[] = [];
  for (const id of ids as string[]) {
    const at = ctx.allProofs.findIndex((q) => typeof q === 'object' && q !== null && (q as { id?: unknown }).id === id);
    if (at < 0)
      return refuse(
        'PROOF_VERIFICATION_ERROR',
        'previous_proof_missing',
        `previousProof ${clip(id)} is not a proof of the document`,
      );
    let text = ctx.proofTexts.get(at);
    if (text === undefined) {
      try {
        text = canonicalize(ctx.allProofs[at]);
      } catch (e) {
        return refuse(
          'PROOF_TRANSFORMATION_ERROR',
          'malformed_proof',
          `proof ${clip(id)} cannot be canonicalized: ${(e as Error).message}`,
        );
      }
      ctx.proofTexts.set(at, text);
    }
    texts.push(text);
    proofs.push(ctx.allProofs[at]);
  }
  return { ok: true, text: `"proof":[${texts.join(',')}]`, proofs };
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

function clip(text: string, max = 200): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function problem(type: DataIntegrityErrorType, reason: ProofProblemReason, message: string): ProofProblem {
  return { type, reason, message };
}

function failed(error: ProofProblem): VerifyDataIntegrityResult {
  return { verified: false, results: [], errors: [error] };
}
