// The cryptosuites this repository does not implement, verified by digitalbazaar's maintained implementations:
// `eddsa-rdfc-2022` (W3C "Data Integrity EdDSA Cryptosuites v1.0" §3.2), `ecdsa-rdfc-2019` and `ecdsa-jcs-2019`
// (W3C "Data Integrity ECDSA Cryptosuites v1.0" §3.2-§3.3, P-256 and P-384) and `Ed25519Signature2020` (W3C CCG,
// VC 1.1 credentials). Everything a verifier decides (purpose, domain, challenge, validity, which key) is checked
// before, by data-integrity-verify.ts; here each library transforms, hashes and checks the signature, through
// its public LinkedDataProof interface (`verifyProof`), with the key already found and a document loader that
// never reaches a network. RDF canonicalization runs in JSON-LD safe mode and within rdf-canonize's work limits,
// so an undefined term fails and a poison graph is refused instead of computed.
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { cryptosuite as ecdsaRdfc2019 } from '@digitalbazaar/ecdsa-rdfc-2019-cryptosuite';
import { createVerifyCryptosuite as ecdsaJcs2019 } from '@digitalbazaar/ecdsa-jcs-2019-cryptosuite';
import { Ed25519Signature2020 } from '@digitalbazaar/ed25519-signature-2020';
import { cryptosuite as eddsaRdfc2022, type Cryptosuite } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import type { ProofProblem } from './data-integrity.ts';
import {
  DEFAULT_LIBRARY_PATH,
  cachedEd25519Verifier,
  fastContextResolver,
  withCachedEd25519Key,
  type FoundEd25519Key,
  type LibraryPath,
} from './library-fast-path.ts';
import { Ed25519KeyCache } from './proof.ts';
import { ContextNotBundledError, staticDocumentLoader, type ContextSource } from './json-ld.ts';
import type { SigningKeyType } from './multikey.ts';

export type LibrarySuiteName = 'eddsa-rdfc-2022' | 'ecdsa-rdfc-2019' | 'ecdsa-jcs-2019' | 'Ed25519Signature2020';

/** The key types each suite verifies with (its `requiredAlgorithm`). */
export const SUITE_KEY_TYPES: Record<LibrarySuiteName | 'eddsa-jcs-2022', readonly SigningKeyType[]> = {
  'eddsa-jcs-2022': ['Ed25519'],
  'eddsa-rdfc-2022': ['Ed25519'],
  Ed25519Signature2020: ['Ed25519'],
  'ecdsa-rdfc-2019': ['P-256', 'P-384'],
  'ecdsa-jcs-2019': ['P-256', 'P-384'],
};

/**
 * How much work one RDF canonicalization may do before it is refused as a poison graph (RDFC-1.0 §4.4 notes
 * "poison graphs"): rdf-canonize counts its deep iterations (calls of Hash N-Degree Quads, §4.8) and refuses
 * past the bound; the time bound is only the backstop.
 */
export interface CanonicalizationLimits {
  /** At most n^maxWorkFactor deep iterations for n blank nodes that the first pass leaves unlabelled. */
  maxWorkFactor?: number;
  /** At most this many deep iterations, whatever n (overrides maxWorkFactor). */
  maxDeepIterations?: number;
  timeoutMs: number;
}

/**
 * A keyed request's bound: a fixed count of deep iterations, larger than the keyless one. Under rdf-canonize's
 * default work factor (n iterations for n blank nodes alike) a keyed 183 KB ring cost 23.6 s of CPU: the time
 * bound is checked only every third permutation, which a ring never reaches, so it did not stop it. 128
 * iterations bound the worst keyed body near a second; no credential seen holds that many blank nodes alike.
 */
export const CANONICALIZATION_LIMITS: CanonicalizationLimits = { maxDeepIterations: 128, timeoutMs: 1_000 };

/**
 * A keyless request's bound: a fixed count of deep iterations, so a poison graph is refused by the work limit
 * within a few milliseconds of CPU whatever its size (a ring of n blank nodes alike costs n iterations of O(n)
 * under the work factor: 0.9 s for the keyless body's ring). A graph with at most this many blank nodes alike
 * canonicalizes as under the keyed bound (docs/benchmarks.md "Keyless RDF bodies").
 */
export const KEYLESS_CANONICALIZATION_LIMITS: CanonicalizationLimits = { maxDeepIterations: 64, timeoutMs: 1_000 };

const MULTIKEY_CONTEXT = 'https://w3id.org/security/multikey/v1';

export interface LibraryCheck {
  suite: LibrarySuiteName;
  /** The unsecured document: without `proof`, or with the proofs a chained proof names (Data Integrity §4.5). */
  document: Record<string, unknown>;
  proof: Record<string, unknown>;
  proofSet: readonly unknown[];
  /** The verification method, found and authorized by key-lookup.ts. */
  method: { id: string; controller: string; publicKeyMultibase: string };
  /** The method's key type and raw public key, as key-lookup.ts decoded them (for the fast path). */
  key?: { type: SigningKeyType; publicKey: Uint8Array };
  contexts?: ContextSource;
  /** library-fast-path.ts: `fast` (default) or digitalbazaar's objects as they come. */
  path?: LibraryPath;
  /** Node's Ed25519 keys for the fast path, kept by the caller across requests (default: made for this proof). */
  keys?: Ed25519KeyCache;
  /** The canonicalization's work bound (default CANONICALIZATION_LIMITS, a keyed request's). */
  limits?: CanonicalizationLimits;
}

/** rdf-canonize's work bound, without its time bound (a signal: `bounded` and Ed25519Signature2020 add theirs). */
function workOptions(limits: CanonicalizationLimits): Record<string, unknown> {
  return {
    ...(limits.maxWorkFactor !== undefined ? { maxWorkFactor: limits.maxWorkFactor } : {}),
    ...(limits.maxDeepIterations !== undefined ? { maxDeepIterations: limits.maxDeepIterations } : {}),
  };
}

/**
 * A cryptosuite whose canonicalization runs within the limits (the suite's own options, then ours), and on the
 * fast path with library-fast-path.ts's context resolver. The time bound's timer is cleared when the
 * canonicalization ends: `AbortSignal.timeout` left one timer per canonicalization to fire a second later and
 * abort a signal nobody read (a DOMException and an abort event each, measured 1-2 % of a request's CPU).
 */
function bounded(suite: Cryptosuite, limits: CanonicalizationLimits, path: LibraryPath): Cryptosuite {
  return {
    ...suite,
    canonize: async (input, options) => {
      const contextResolver = path === 'fast' ? fastContextResolver() : undefined;
      const timeout = new AbortController();
      const timer = setTimeout(
        () => timeout.abort(new Error(`canonicalization took more than ${limits.timeoutMs} ms`)),
        limits.timeoutMs,
      );
      try {
        return await suite.canonize(input, {
          ...options,
          ...workOptions(limits),
          signal: timeout.signal,
          ...(contextResolver ? { contextResolver } : {}),
        });
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

function suiteFor(
  name: LibrarySuiteName,
  limits: CanonicalizationLimits,
  path: LibraryPath,
  fast?: FoundEd25519Key,
  keys?: Ed25519KeyCache,
): DataIntegrityProof | Ed25519Signature2020 {
  const cache = keys ?? new Ed25519KeyCache(1);
  switch (name) {
    case 'eddsa-rdfc-2022': {
      const suite = bounded(eddsaRdfc2022, limits, path);
      return new DataIntegrityProof({ cryptosuite: fast ? withCachedEd25519Key(suite, fast, cache) : suite });
    }
    case 'ecdsa-rdfc-2019':
      return new DataIntegrityProof({ cryptosuite: bounded(ecdsaRdfc2019, limits, path) });
    case 'ecdsa-jcs-2019':
      return new DataIntegrityProof({ cryptosuite: ecdsaJcs2019() });
    case 'Ed25519Signature2020': {
      // Ed25519Signature2020 takes its verifier as an option: the fast path's, from the same cached key.
      const verifier = fast ? cachedEd25519Verifier(fast, cache) : undefined;
      const canonizeOptions = { ...workOptions(limits), signal: AbortSignal.timeout(limits.timeoutMs) };
      return new Ed25519Signature2020({ canonizeOptions, ...(verifier ? { verifier } : {}) });
    }
  }
}

const pathOf = (check: LibraryCheck): LibraryPath => check.path ?? DEFAULT_LIBRARY_PATH;

/** The Ed25519 key for the fast path, when the check takes it; else undefined (the maintained path). */
function fastKey(check: LibraryCheck): FoundEd25519Key | undefined {
  if (pathOf(check) !== 'fast' || check.key?.type !== 'Ed25519') return undefined;
  return { id: check.method.id, publicKey: check.key.publicKey };
}

/** Undefined when the proof verifies; else the problem, in Data Integrity's error types. */
export async function verifyByLibrary(check: LibraryCheck): Promise<ProofProblem | undefined> {
  const { method } = check;
  const verificationMethod = { '@context': MULTIKEY_CONTEXT, type: 'Multikey', ...method };
  const documentLoader = staticDocumentLoader(check.contexts ?? {}, new Map([[method.id, verificationMethod]]));
  // As jsonld-signatures' ProofSet does: an RDF proof is read under the document's @context; a JCS proof as is.
  const jcs = check.suite === 'ecdsa-jcs-2019';
  const proof = jcs ? { ...check.proof } : { '@context': check.document['@context'], ...check.proof };
  let outcome: { verified: boolean; error?: unknown };
  try {
    const limits = check.limits ?? CANONICALIZATION_LIMITS;
    outcome = await suiteFor(check.suite, limits, pathOf(check), fastKey(check), check.keys).verifyProof({
      proof,
      proofSet: [...check.proofSet],
      document: { ...check.document },
      documentLoader,
      // Purpose and key authorization were checked before, by this verifier.
      purpose: { validate: async () => ({ valid: true }) },
    });
  } catch (e) {
    outcome = { verified: false, error: e };
  }
  return outcome.verified ? undefined : libraryProblem(outcome.error);
}

/** The errors a library reports, in causes: jsonld wraps a loader's error in `details.cause`. */
function causes(error: unknown): unknown[] {
  const out: unknown[] = [];
  let at: unknown = error;
  for (let depth = 0; depth < 6 && at !== undefined && at !== null; depth++) {
    out.push(at);
    const e = at as { cause?: unknown; details?: { cause?: unknown } };
    at = e.details?.cause ?? e.cause;
  }
  return out;
}

function libraryProblem(error: unknown): ProofProblem {
  const chain = causes(Array.isArray(error) ? error[0] : error);
  const notBundled = chain.find((e) => e instanceof ContextNotBundledError);
  if (notBundled)
    return { type: 'PROOF_TRANSFORMATION_ERROR', reason: 'context_not_bundled', message: notBundled.message };
  const messages = chain.map((e) => (e instanceof Error ? e.message : String(e)));
  const text = messages[0] ?? 'the proof does not verify';
  if (messages.some((m) => /safe mode/i.test(m)))
    return {
      type: 'PROOF_TRANSFORMATION_ERROR',
      reason: 'undefined_term',
      message: `a term or type of the document is not defined by its contexts (JSON-LD safe mode): ${clip(text)}`,
    };
  const work = messages.map((m) => /Maximum deep iterations exceeded \((\d+)\)/.exec(m)).find((m) => m !== null);
  if (work)
    return {
      type: 'PROOF_TRANSFORMATION_ERROR',
      reason: 'canonicalization_limit',
      message: `the document is refused: its RDF canonicalization exceeds the work limit of ${work[1]} deep iterations (a poison graph)`,
    };
  if (messages.some((m) => /Abort signal received/.test(m)))
    return {
      type: 'PROOF_TRANSFORMATION_ERROR',
      reason: 'canonicalization_limit',
      message: 'the document is refused: its RDF canonicalization exceeds the time limit (a poison graph)',
    };
  if (messages.some((m) => /does not start with proof\.@context/.test(m)))
    return {
      type: 'PROOF_VERIFICATION_ERROR',
      reason: 'context_mismatch',
      message: "the document's @context does not start with the proof's @context",
    };
  return {
    type: 'PROOF_VERIFICATION_ERROR',
    reason: 'signature_invalid',
    message: `the signature does not verify: the document or the proof was changed, or another key signed it (${clip(text)})`,
  };
}

function clip(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
