// The one place where the RDF cryptosuites' verification departs from digitalbazaar's maintained path for speed
// (library-suites.ts picks the path; `maintained` keeps every object as the libraries make it). What the fast
// path changes, and only that:
//   - the signature check of an Ed25519 proof (`eddsa-rdfc-2022`, `Ed25519Signature2020`) uses Node's key made
//     once per public key (proof.ts Ed25519KeyCache, shared with eddsa-jcs-2022) instead of the library's
//     `Ed25519Multikey.from` → `verifier()`, which builds a new Node key from the raw bytes on every proof
//     (createPublicKey was 9 % of an eddsa-rdfc-2022 verification's CPU, more than the signature check
//     itself). The key is the one key-lookup.ts found, decoded and authorized before; the signature check is
//     the same `crypto.verify` over the same bytes (RFC 8032), so the verdict is the library's.
//   - the JSON-LD contexts of a Data Integrity RDF suite's canonicalization (`eddsa-rdfc-2022`, `ecdsa-rdfc-2019`)
//     are resolved through fastContextResolver below, which keeps type-scoped contexts processed. jsonld keeps a
//     processed context per (context, active context object); a type-scoped context (`VerifiableCredential`,
//     `DataIntegrityProof` in the VC 2.0 context) is applied with `@propagate: false`, so jsonld first deep-clones
//     the active context (context.js `api.process`) and looks its cache up under that fresh clone: it never hits,
//     and every credential paid two more deep clones of the whole VC context and the scoped context's processing
//     (a third of an eddsa-rdfc-2022 verification's CPU, measured). Here such a result is also kept under the
//     active context it was cloned from. Unlike jsonld's, a result is kept only when it holds whether protected
//     terms may be overridden or not (`keepable`): the fast path never skips a protected-term check. A kept
//     context's revert to the context before its type-scoped one is also made once (`revertedOnce`).
// Canonicalization itself, hashing, the proof's transformation and every check stay the library's (jsonld in safe
// mode, rdf-canonize within its limits, bundled contexts only). P-256 and P-384 keys keep the library's verifier.
// property-tests/library-fast-path-differential.test.ts checks that both paths give the same verdict and problem;
// property-tests/library-fast-path-contexts.test.ts that fastContextResolver gives the canonical N-Quads, or the
// refusal, that jsonld gives processing every context anew, for generated JSON-LD documents in any order.
import { createRequire } from 'node:module';
import { verifyEd25519, type Ed25519KeyCache } from './proof.ts';

/**
 * A digitalbazaar cryptosuite object, as far as this module reads it (the package's own type is declared in
 * vendor.d.ts, which the published client does not ship: no exported signature may name it).
 */
export interface Cryptosuite {
  name: string;
  canonize(input: unknown, options: Record<string, unknown>): Promise<string>;
  [member: string]: unknown;
}

/** Which path verifies the RDF cryptosuites: `fast` (default) or digitalbazaar's objects as they come. */
export type LibraryPath = 'fast' | 'maintained';

export const DEFAULT_LIBRARY_PATH: LibraryPath = 'fast';

/** The Ed25519 key the proof is checked with, as key-lookup.ts found it. */
export interface FoundEd25519Key {
  id: string;
  /** The raw 32 bytes. */
  publicKey: Uint8Array;
}

/** A verifier as the libraries' `createVerifier` answers it (`@digitalbazaar/ed25519-multikey` `verifier()`). */
export interface Verifier {
  algorithm: string;
  id: string;
  verify(o: { data: Uint8Array; signature: Uint8Array }): Promise<boolean>;
}

/** The library's Ed25519 verifier, over Node's key of `key` made once. */
export function cachedEd25519Verifier(key: FoundEd25519Key, keys: Ed25519KeyCache): Verifier {
  const node = keys.get(key.publicKey);
  return {
    algorithm: 'Ed25519',
    id: key.id,
    verify: async ({ data, signature }) => verifyEd25519(node, data, signature),
  };
}

/** The suite with its Ed25519 verifier over Node's cached key; everything else is the suite's own. */
export function withCachedEd25519Key(suite: Cryptosuite, key: FoundEd25519Key, keys: Ed25519KeyCache): Cryptosuite {
  const verifier = cachedEd25519Verifier(key, keys);
  return { ...suite, createVerifier: async () => verifier };
}

/** jsonld's active context, as far as this module reads it (jsonld/lib/context.js). */
interface ActiveContext {
  previousContext?: ActiveContext;
  mappings: Map<string, unknown>;
  protected: Record<string, boolean>;
  /** A clone of previousContext (jsonld makes one whenever it leaves a type-scoped context's node). */
  revertToPreviousContext(this: ActiveContext): ActiveContext;
}

/** A processed context and the events its processing emitted (jsonld replays them on a cache hit). */
interface Processed {
  context: ActiveContext;
  events: unknown[];
}

/** jsonld's ResolvedContext (jsonld/lib/ResolvedContext.js): what `api.process` reads of a resolved context. */
interface ResolvedContext {
  document: unknown;
  getProcessed(activeCtx: ActiveContext): Processed | undefined;
  setProcessed(activeCtx: ActiveContext, processed: Processed): void;
}

interface ContextResolverLike {
  resolve(options: Record<string, unknown>): Promise<ResolvedContext[]>;
}

type ContextResolverClass = new (options: { sharedCache: SharedCache }) => ContextResolverLike;

interface SharedCache {
  get(key: string): unknown;
  set(key: string, value: unknown): void;
}

/** Processed contexts made by FastContextResolver's contexts: every active context that is not a fresh clone. */
const processedHere = new WeakSet<ActiveContext>();

/**
 * The active context a fresh clone was made from, for the clone `api.process` makes before applying a context
 * with `@propagate: false` (`rval = activeCtx.clone(); rval.previousContext = activeCtx`, only when activeCtx
 * has no previousContext). Every other active context with a previousContext is a processed one (kept in
 * processedHere) or a clone whose previousContext is itself a fresh clone, never an active context.
 */
function cloneOrigin(active: ActiveContext): ActiveContext | undefined {
  const origin = active.previousContext;
  return origin !== undefined && origin.previousContext === undefined && !processedHere.has(active)
    ? origin
    : undefined;
}

/** Context keywords that define no term (JSON-LD 1.1 §9.15 context definitions). */
const NOT_TERMS: ReadonlySet<string> = new Set([
  '@base',
  '@direction',
  '@language',
  '@propagate',
  '@protected',
  '@version',
  '@vocab',
]);

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Structural equality of two term definitions (jsonld's own `_deepCompare` for protected terms). */
function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) return Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => k in b && sameJson(a[k], b[k]));
}

/**
 * Whether the result of applying `document` to `base` (or to a clone of it) may serve every later application of
 * it to `base`, whatever the later call's `overrideProtected` (which jsonld's own cache does not know: it serves a
 * property-scoped context's result, made with protected terms overridable, to a later call that must refuse
 * them): the context imports nothing, and every term it defines that `base` protects, it protects too, with the
 * same definition as before (so the strict call would not refuse it and the lax one would not unprotect it).
 * A result that fails this is not kept: that context is processed anew every time, as jsonld would.
 */
function keepable(document: unknown, base: ActiveContext, result: ActiveContext): boolean {
  let ctx = document;
  if (isPlainObject(ctx) && '@context' in ctx) ctx = ctx['@context'];
  if (!isPlainObject(ctx) || '@import' in ctx) return false;
  const allProtected = ctx['@protected'] === true;
  for (const [term, definition] of Object.entries(ctx)) {
    if (NOT_TERMS.has(term) || base.protected[term] !== true) continue;
    const own = isPlainObject(definition) ? definition['@protected'] : undefined;
    if (!(own === true || (allProtected && own !== false))) return false;
    if (result.protected[term] !== true || !sameJson(result.mappings.get(term), base.mappings.get(term))) return false;
  }
  return true;
}

/** A resolved context whose processed results are also kept under the origin of a fresh clone. */
class OriginCachedContext implements ResolvedContext {
  readonly document: unknown;
  readonly #byContext = new WeakMap<ActiveContext, Processed>();
  readonly #byOrigin = new WeakMap<ActiveContext, Processed>();

  constructor(inner: ResolvedContext) {
    this.document = inner.document;
  }

  getProcessed(active: ActiveContext): Processed | undefined {
    const origin = cloneOrigin(active);
    return origin ? this.#byOrigin.get(origin) : this.#byContext.get(active);
  }

  setProcessed(active: ActiveContext, processed: Processed): void {
    const origin = cloneOrigin(active);
    processedHere.add(processed.context);
    if (!keepable(this.document, origin ?? active, processed.context)) return;
    revertedOnce(processed.context);
    if (origin) this.#byOrigin.set(origin, processed);
    else this.#byContext.set(active, processed);
  }
}

/**
 * A kept processed context's revert, made once: jsonld deep-clones the previous context for every node object it
 * leaves a type-scoped context for (expand.js), and reads the clone only (as it reads every active context, which
 * it shares through its own caches). The clones jsonld makes of this context (which copy the method) revert as
 * jsonld's own method does.
 */
function revertedOnce(ctx: ActiveContext): void {
  if (ctx.previousContext === undefined) return;
  const revert = ctx.revertToPreviousContext;
  let reverted: ActiveContext | undefined;
  ctx.revertToPreviousContext = function (this: ActiveContext) {
    if (this !== ctx) return revert.call(this);
    return (reverted ??= revert.call(this));
  };
}

/** Resolved contexts, as jsonld's shared cache keeps them: `static` ones only (bundled contexts), at most 100. */
class BoundedCache implements SharedCache {
  readonly #entries = new Map<string, unknown>();
  readonly #max: number;
  constructor(max: number) {
    this.#max = max;
  }
  /** The entry, without making it the most recent. */
  peek(key: string): unknown {
    return this.#entries.get(key);
  }
  get(key: string): unknown {
    const v = this.#entries.get(key);
    if (v !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, v);
    }
    return v;
  }
  set(key: string, value: unknown): void {
    this.#entries.delete(key);
    this.#entries.set(key, value);
    if (this.#entries.size > this.#max) this.#entries.delete(this.#entries.keys().next().value!);
  }
}

/** jsonld's own ContextResolver class, from the jsonld the cryptosuites import; undefined if it is not there. */
function jsonldContextResolver(): ContextResolverClass | undefined {
  try {
    const loaded: unknown = createRequire(import.meta.url)('jsonld/lib/ContextResolver.js');
    return typeof loaded === 'function' ? (loaded as ContextResolverClass) : undefined;
  } catch {
    return undefined;
  }
}

const JsonldResolver = jsonldContextResolver();
const sharedContexts = new BoundedCache(100);
const wrapped = new WeakMap<object, OriginCachedContext>();
const resolvedObjects = new WeakMap<object, OriginCachedContext>();
/** The objects of `static` context documents (bundled: never changed once jsonld resolved their URLs). */
const staticObjects = new WeakSet<object>();

function markStatic(value: unknown): void {
  if (typeof value !== 'object' || value === null || staticObjects.has(value)) return;
  staticObjects.add(value);
  for (const v of Object.values(value)) markStatic(v);
}

/** Marks the documents of the `static` contexts that `context` names by URL (as jsonld's shared cache holds them). */
function markStaticDocuments(context: unknown): void {
  for (const url of Array.isArray(context) ? context : [context]) {
    if (typeof url !== 'string') continue;
    const tags = sharedContexts.peek(url);
    const resolved: unknown = tags instanceof Map ? tags.get('static') : undefined;
    for (const r of Array.isArray(resolved) ? resolved : resolved ? [resolved] : []) {
      markStatic((r as ResolvedContext).document);
    }
  }
}

/**
 * A jsonld `contextResolver` for one jsonld operation (its per-operation cache is the operation's): jsonld's own
 * resolver, over this module's shared cache, whose resolved contexts keep type-scoped results (above). Undefined
 * when this jsonld has no ContextResolver module: the canonicalization then uses jsonld's own.
 */
export function fastContextResolver(): ContextResolverLike | undefined {
  if (!JsonldResolver) return undefined;
  const inner = new JsonldResolver({ sharedCache: sharedContexts });
  return {
    resolve: async (options) => {
      // A context object of a bundled context document (a type-scoped context of the VC context): jsonld keys it
      // by its JSON text, made anew on every use; such an object never changes, so it is found by identity.
      // A document's own context objects are not: a caller may change them between two verifications.
      const { context } = options;
      const byObject = isPlainObject(context) && !('@context' in context) && staticObjects.has(context);
      const known = byObject ? resolvedObjects.get(context) : undefined;
      if (known) return [known];
      const resolved = (await inner.resolve(options)).map((r) => {
        let w = wrapped.get(r);
        if (!w) {
          w = new OriginCachedContext(r);
          wrapped.set(r, w);
        }
        return w;
      });
      if (byObject && resolved.length === 1) resolvedObjects.set(context, resolved[0]!);
      markStaticDocuments(context);
      return resolved;
    },
  };
}
