// The one place where the RDF cryptosuites' verification departs from digitalbazaar's maintained path for speed
// (library-suites.ts picks the path; `maintained` keeps every object as the libraries make it). What the fast
// path changes, and only that:
//   - the signature check of an Ed25519 proof (`eddsa-rdfc-2022`, `Ed25519Signature2020`) uses Node's key made
//     once per public key (proof.ts Ed25519KeyCache, shared with eddsa-jcs-2022) instead of the library's
//     `Ed25519Multikey.from` → `verifier()`, which builds a new Node key from the raw bytes on every proof
//     (createPublicKey was 9 % of an eddsa-rdfc-2022 verification's CPU, more than the signature check
//     itself). The key is the one key-lookup.ts found, decoded and authorized before; the signature check is
//     the same `crypto.verify` over the same bytes (RFC 8032), so the verdict is the library's.
// Canonicalization, hashing, the proof's transformation and every check stay the library's (jsonld in safe mode,
// rdf-canonize within its limits, bundled contexts only). P-256 and P-384 keys keep the library's verifier.
// property-tests/library-fast-path.property.test.ts checks that both paths give the same verdict and problem.
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
