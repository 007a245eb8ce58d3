// Off-chain proof of control (docs/did-resolver.md, "Proof of control"): the verifier issues
// a challenge {did, domain, nonce, timestamp}; the signer signs its JCS form (RFC 8785) with an Ed25519
// authentication key; the verifier checks, in order, the 5-minute window, the domain, the nonce (once), and
// the signature against every authentication key of the resolved document. Verification never throws.
import { createHash, createPublicKey, randomBytes, verify as cryptoVerify, type KeyObject } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { parseDid } from './did.ts';
import { canonicalizeToBytes } from './jcs.ts';
import { decodeMultikey } from './multikey.ts';
import type { DidDocument, DidResolutionResult, VerificationMethod } from './types.ts';
import type { NonceStore } from '../stores/types.ts';
import { lruClock, type Clock } from '../domain.ts';

/** The timestamp window, either side of the verifier's clock. */
export const PROOF_WINDOW_MS = 5 * 60 * 1000;
/** Random bytes of a nonce (base64url, 22 characters). */
export const NONCE_BYTES = 16;

/** What the signer signs, canonicalized with JCS. */
export interface ProofChallenge {
  did: string;
  domain: string;
  /** base64url without padding, at least 16 random bytes. */
  nonce: string;
  /** ISO-8601 UTC, when the challenge was issued. */
  timestamp: string;
}

export type ProofErrorCode =
  | 'invalid_request'
  | 'did_invalid'
  | 'challenge_expired'
  | 'domain_mismatch'
  | 'nonce_invalid'
  | 'signature_invalid'
  | 'did_not_found'
  | 'did_deactivated'
  | 'ledger_unavailable'
  | 'nonce_store_unavailable';

// Issued nonces are a store (src/stores/types.ts, one declaration); a nonce is consumed by the first
// verification that reaches the nonce check, whatever the outcome of the signature check after it.
export type { NonceStore };

/** How often, at most, the embedded store looks through all its entries for expired ones. */
const NONCE_SWEEP_INTERVAL_MS = 1000;

/** Nonces the embedded store keeps at most: a bound on its memory, far above what one process issues in a window. */
const DEFAULT_NONCE_ENTRIES = 100_000;

/**
 * The embedded NonceStore: one process, an lru-cache LRU bounded by `maxEntries` (the least recently issued go
 * first when full; a nonce is used once), each entry living until its `expiresAt` on the injected clock. Expired
 * entries are also dropped by a sweep at most once a second (NONCE_SWEEP_INTERVAL_MS): a sweep on every issue
 * made each issue cost the whole store (100,000 issues took 91 s), and POST /challenges issues one per keyless
 * request.
 */
export class MemoryNonceStore implements NonceStore {
  readonly #now: Clock;
  readonly #entries: LRUCache<string, { expiresAt: number; binding: string }>;
  #lastSweep = Number.NEGATIVE_INFINITY;
  #sweeps = 0;

  constructor({ now = Date.now, maxEntries = DEFAULT_NONCE_ENTRIES }: { now?: Clock; maxEntries?: number } = {}) {
    this.#now = now;
    this.#entries = new LRUCache({ max: maxEntries, ...lruClock(now) });
  }

  get size(): number {
    return this.#entries.size;
  }

  /** How many sweeps ran (each looks at every entry). */
  get sweeps(): number {
    return this.#sweeps;
  }

  async issue(nonce: string, expiresAt: Date, binding: string): Promise<void> {
    const now = this.#now();
    if (now - this.#lastSweep >= NONCE_SWEEP_INTERVAL_MS) this.#sweep(now);
    const until = expiresAt.getTime();
    // lru-cache's ttl needs a positive number and ends an entry once its age exceeds it, so an entry lives at
    // least until `expiresAt`; consume() checks `expiresAt` itself.
    this.#entries.set(nonce, { expiresAt: until, binding }, { ttl: Math.max(1, Math.ceil(until - now)) });
  }

  async consume(nonce: string, binding: string): Promise<boolean> {
    const entry = this.#entries.get(nonce);
    if (!entry) return false;
    this.#entries.delete(nonce);
    return entry.binding === binding && entry.expiresAt >= this.#now();
  }

  async close(): Promise<void> {
    this.#entries.clear();
  }

  #sweep(now: number): void {
    this.#lastSweep = now;
    this.#sweeps++;
    this.#entries.purgeStale();
  }
}

/** What ties a nonce to its challenge: SHA-256 of the challenge's JCS form. */
export function challengeBinding(challenge: ProofChallenge): string {
  return createHash('sha256')
    .update(canonicalizeToBytes(pick(challenge)))
    .digest('hex');
}

const DOMAIN_PATTERN = /^[\x21-\x7e]{1,255}$/;

export type CreateChallengeResult =
  | { ok: true; challenge: ProofChallenge }
  | { ok: false; error: 'did_invalid' | 'invalid_request' | 'nonce_store_unavailable'; message: string };

export async function createChallenge({
  did,
  domain,
  now,
  nonceStore,
  random = randomBytes,
}: {
  did: string;
  domain: string;
  now: Date;
  nonceStore: NonceStore;
  random?: (n: number) => Uint8Array;
}): Promise<CreateChallengeResult> {
  const parsed = parseDid(did);
  if (!parsed.ok) return { ok: false, error: 'did_invalid', message: parsed.message };
  if (typeof domain !== 'string' || !DOMAIN_PATTERN.test(domain)) {
    return { ok: false, error: 'invalid_request', message: 'domain is 1 to 255 visible ASCII characters' };
  }
  const challenge: ProofChallenge = {
    did,
    domain,
    nonce: Buffer.from(random(NONCE_BYTES)).toString('base64url'),
    timestamp: now.toISOString(),
  };
  try {
    await nonceStore.issue(challenge.nonce, new Date(now.getTime() + PROOF_WINDOW_MS), challengeBinding(challenge));
  } catch (e) {
    return {
      ok: false,
      error: 'nonce_store_unavailable',
      message: nonceStoreFailure('the challenge could not be issued', e),
    };
  }
  return { ok: true, challenge };
}

export type VerifyProofResult =
  | { verified: true; did: string; verificationMethod: string }
  | { verified: false; error: ProofErrorCode; message: string };

export interface VerifyProofOptions {
  /** The challenge as the signer received it; checked for shape here. */
  challenge: unknown;
  /** Ed25519 signature over the challenge's JCS form, base64url without padding. */
  signature: unknown;
  expectedDomain: string;
  resolve: (did: string) => Promise<DidResolutionResult>;
  now: Date;
  nonceStore: NonceStore;
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const NONCE_PATTERN = /^[A-Za-z0-9_-]{22,}$/;
const SIGNATURE_PATTERN = /^[A-Za-z0-9_-]{86}$/;

export async function verifyProof(options: VerifyProofOptions): Promise<VerifyProofResult> {
  try {
    return await verifyInOrder(options);
  } catch (e) {
    // A store or resolver that throws is an infrastructure failure, reported as a value.
    return fail('ledger_unavailable', `verification could not complete: ${(e as Error)?.message ?? String(e)}`);
  }
}

async function verifyInOrder({
  challenge: input,
  signature,
  expectedDomain,
  resolve,
  now,
  nonceStore,
}: VerifyProofOptions): Promise<VerifyProofResult> {
  const challenge = asChallenge(input);
  if (!challenge)
    return fail('invalid_request', 'challenge is {did, domain, nonce, timestamp}, all strings, nothing else');
  let binding: string;
  try {
    binding = challengeBinding(challenge);
  } catch {
    return fail('invalid_request', 'challenge strings must be well-formed Unicode');
  }
  const parsed = parseDid(challenge.did);
  if (!parsed.ok) return fail('did_invalid', parsed.message);
  const issuedAt = ISO_8601.test(challenge.timestamp) ? Date.parse(challenge.timestamp) : NaN;
  if (Number.isNaN(issuedAt)) return fail('invalid_request', 'timestamp must be an ISO-8601 date-time');

  // 1. Timestamp window.
  if (Math.abs(now.getTime() - issuedAt) > PROOF_WINDOW_MS) {
    return fail('challenge_expired', 'the challenge timestamp is more than 5 minutes from now');
  }
  // 2. Domain.
  if (challenge.domain !== expectedDomain)
    return fail('domain_mismatch', 'the challenge was issued for another domain');
  // 3. Nonce freshness: spent here, once. A store that cannot answer is an outage, never a pass.
  let fresh = false;
  if (NONCE_PATTERN.test(challenge.nonce)) {
    try {
      fresh = await nonceStore.consume(challenge.nonce, binding);
    } catch (e) {
      return fail('nonce_store_unavailable', nonceStoreFailure('the nonce could not be checked', e));
    }
  }
  if (!fresh)
    return fail('nonce_invalid', 'the nonce is unknown, expired, already used, or was issued for another challenge');
  // 4. Signature against every authentication key of the resolved document.
  const resolved = await resolve(challenge.did);
  const refused = resolutionFailure(resolved);
  if (refused) return refused;
  const document = resolved.didDocument!;
  if (typeof signature !== 'string' || !SIGNATURE_PATTERN.test(signature)) {
    return fail('signature_invalid', 'signature must be 64 bytes, base64url without padding');
  }
  const message = canonicalizeToBytes(challenge);
  const sig = Buffer.from(signature, 'base64url');
  for (const method of authenticationMethods(document)) {
    const key = decodeMultikey(method.publicKeyMultibase, 'Ed25519');
    if (!key.ok) continue;
    if (verifyEd25519(key.publicKey, message, sig)) {
      return { verified: true, did: challenge.did, verificationMethod: method.id };
    }
  }
  return fail('signature_invalid', 'no authentication key of the DID verifies the signature');
}

function resolutionFailure(result: DidResolutionResult): VerifyProofResult | undefined {
  switch (result.didResolutionMetadata.error) {
    case undefined:
      break;
    case 'invalidDid':
      return fail('did_invalid', 'the DID is invalid');
    case 'notFound':
      return fail('did_not_found', 'the DID is not registered');
    default:
      return fail('ledger_unavailable', 'the DID could not be resolved');
  }
  if (result.didDocumentMetadata.deactivated) return fail('did_deactivated', 'the DID is deactivated');
  if (!result.didDocument) return fail('ledger_unavailable', 'the DID could not be resolved');
  return undefined;
}

/** The authentication methods with absolute ids; references are resolved against the document id. */
export function authenticationMethods(document: DidDocument): VerificationMethod[] {
  const absolute = (id: string) => (id.startsWith('#') ? document.id + id : id);
  const byId = new Map((document.verificationMethod ?? []).map((vm) => [absolute(vm.id), vm]));
  const out: VerificationMethod[] = [];
  for (const entry of (document.authentication ?? []) as unknown[]) {
    const vm =
      typeof entry === 'string' ? byId.get(absolute(entry)) : ((entry as VerificationMethod | null) ?? undefined);
    if (vm && vm.type === 'Multikey' && typeof vm.publicKeyMultibase === 'string') {
      out.push({ ...vm, id: absolute(vm.id) });
    }
  }
  return out;
}

const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');

/** Node's Ed25519 public key from the raw 32 bytes (SubjectPublicKeyInfo DER); throws on a wrong length. */
export function ed25519PublicKey(publicKey: Uint8Array): KeyObject {
  if (publicKey.length !== 32) throw new RangeError('an Ed25519 public key is 32 bytes');
  return createPublicKey({ key: Buffer.concat([SPKI_ED25519, publicKey]), format: 'der', type: 'spki' });
}

/** Keys an Ed25519KeyCache keeps by default: the issuers and holders one verifier meets again, not every key seen. */
const DEFAULT_ED25519_KEYS = 1_000;

/**
 * Node's keys of Ed25519 public keys, each made once: making one costs several times a verification. An
 * lru-cache LRU (the least recently used key goes first when full). One per verifier (a request, or an app
 * across requests).
 */
export class Ed25519KeyCache {
  readonly #keys: LRUCache<string, KeyObject>;

  constructor(maxEntries = DEFAULT_ED25519_KEYS) {
    this.#keys = new LRUCache({ max: maxEntries });
  }

  get size(): number {
    return this.#keys.size;
  }

  /** The key of `publicKey` (32 bytes); throws as ed25519PublicKey does. */
  get(publicKey: Uint8Array): KeyObject {
    const id = Buffer.from(publicKey).toString('hex');
    let key = this.#keys.get(id);
    if (!key) {
      key = ed25519PublicKey(publicKey);
      this.#keys.set(id, key);
    }
    return key;
  }
}

/** Ed25519 verification with the raw 32-byte key or a key made by ed25519PublicKey (reused across proofs). */
export function verifyEd25519(publicKey: Uint8Array | KeyObject, message: Uint8Array, signature: Uint8Array): boolean {
  try {
    const key = publicKey instanceof Uint8Array ? ed25519PublicKey(publicKey) : publicKey;
    return cryptoVerify(null, message, key, signature);
  } catch {
    return false;
  }
}

function asChallenge(input: unknown): ProofChallenge | undefined {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) return undefined;
  const keys = Object.keys(input).sort();
  if (keys.join(',') !== 'did,domain,nonce,timestamp') return undefined;
  const c = input as Record<string, unknown>;
  if (![c.did, c.domain, c.nonce, c.timestamp].every((v) => typeof v === 'string')) return undefined;
  return pick(c as unknown as ProofChallenge);
}

function pick({ did, domain, nonce, timestamp }: ProofChallenge): ProofChallenge {
  return { did, domain, nonce, timestamp };
}

function nonceStoreFailure(what: string, e: unknown): string {
  return `${what}: ${(e as Error)?.message ?? String(e)}`;
}

function fail(error: ProofErrorCode, message: string): VerifyProofResult {
  return { verified: false, error, message };
}
