// Interfaces of what the services keep between requests (docs/architecture.md): API keys, idempotency
// records, rate-limit windows and the resolver's cache. Each has an embedded default and a shared backend.

import type { KeyRole, Network, Scope } from '../domain.ts';

/** A stored API key. The key itself is never stored, only its SHA-256. */
export interface ApiKeyRecord {
  /** 16 lowercase hex characters, random; the public identifier used to list and revoke. */
  keyId: string;
  /** SHA-256 of the 64-hex key as lowercase hex. */
  keyHash: string;
  /** The wallet the key is bound to; null only for admin keys. */
  walletAddress: string | null;
  network: Network;
  role: KeyRole;
  /** Each one of the spec's scopes (checked when the key is created). */
  scopes: Scope[];
  /** ISO-8601. */
  createdAt: string;
  /** ISO-8601, or null for a key that does not expire. */
  expiresAt: string | null;
  /** ISO-8601 once revoked (explicitly, or replaced by a newer key of the same wallet and network). */
  revokedAt?: string | null;
}

export interface CreateKeyInput {
  walletAddress: string | null;
  network: Network;
  role: KeyRole;
  scopes: string[];
  expiresAt: string | null;
}

export interface CreatedKey {
  /** 64 lowercase hex characters; returned here once and never again. */
  key: string;
  record: ApiKeyRecord;
}

/** Whether a stored key can be used now; a revoked key reads `revoked` even once past its expiry. */
export type KeyState = 'active' | 'expired' | 'revoked';

/** A stored key with its state (KeyStore.lookup). */
export interface KeyLookup {
  record: ApiKeyRecord;
  state: KeyState;
}

export interface CreateKeyOptions {
  /** Refuse with KeyExistsError when the wallet holds a usable key on the network (checked atomically with the create). */
  ifNoActiveKey?: boolean;
}

/** API keys: one usable key per wallet per network; a new one revokes the previous one. */
export interface KeyStore {
  /**
   * Throws StoreInputError for a key without wallet that is not admin, or a bad role/network/scope;
   * KeyExistsError under `ifNoActiveKey`.
   */
  create(input: CreateKeyInput, options?: CreateKeyOptions): Promise<CreatedKey>;
  /** The usable record of a key: unknown, revoked and expired keys give undefined. */
  findByKey(key: string): Promise<ApiKeyRecord | undefined>;
  /** Any stored key with its state, by the key itself (one indexed lookup); undefined when unknown. */
  lookup(key: string): Promise<KeyLookup | undefined>;
  /** Keys ordered by creation; revoked ones only with includeRevoked. */
  list(filter?: { network?: Network; includeRevoked?: boolean }): Promise<ApiKeyRecord[]>;
  /** True when a usable key was revoked by this call. */
  revoke(keyId: string): Promise<boolean>;
  close(): Promise<void>;
}

/** The first response to an idempotent request, replayed byte for byte. */
export interface StoredResponse {
  status: number;
  headers: Record<string, string>;
  /** JSON value of the body; stored as its JSON text so key order survives. */
  body: unknown;
}

/** How long a completed response is replayed (docs/vault-api.md "Idempotency": 24 hours). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** How long an unfinished first execution blocks its key; a crashed instance frees it after this. */
export const IDEMPOTENCY_LEASE_MS = 60 * 1000;
/** How often (store clock) the idempotency stores drop expired records; between purges they are ignored. */
export const IDEMPOTENCY_PURGE_EVERY_MS = 60 * 1000;
/** Longest Idempotency-Key header value (spec/vault-api.yaml, the IdempotencyKey parameter). */
export const IDEMPOTENCY_KEY_MAX = 200;

export interface BeginInput {
  /** Who the key belongs to: the API key's keyId, so two clients never share a key. */
  scope: string;
  /** The Idempotency-Key header value, at most 200 characters. */
  key: string;
  /** Hash of what makes the request the same request (method, path, body). */
  requestHash: string;
  /** Defaults to the store's clock. */
  now?: number;
}

export type BeginResult =
  /** This caller executes the request and must then complete() or release() with the token. */
  | { state: 'started'; token: string }
  /** Another execution of the same request holds the key and has not finished. */
  | { state: 'in_progress' }
  /** The key was used for a different request. */
  | { state: 'mismatch' }
  | { state: 'replay'; response: StoredResponse };

/**
 * Idempotency records (docs/vault-api.md "Idempotency"). Two concurrent begin() of the
 * same key: exactly one gets 'started'. 2xx and 4xx responses are kept 24 hours after completion; a 5xx
 * is not kept (complete() releases the key instead) so a retry executes again.
 */
export interface IdempotencyStore {
  begin(input: BeginInput): Promise<BeginResult>;
  /** False when the token no longer holds the key (its lease ran out, and it was taken over or purged). */
  complete(scope: string, key: string, token: string, response: StoredResponse): Promise<boolean>;
  /** Frees the key without keeping a response (the first execution must not be replayed). */
  release(scope: string, key: string, token: string): Promise<void>;
  close(): Promise<void>;
}

export interface HitInput {
  bucket: string;
  limit: number;
  windowMs: number;
  /** Defaults to the limiter's clock. */
  now?: number;
}

export interface HitResult {
  allowed: boolean;
  limit: number;
  /** Requests left in the window after this one. */
  remaining: number;
  /** Whole seconds, at least 1, until a request would be allowed; 0 when allowed. */
  retryAfterSeconds: number;
  /** Milliseconds until the oldest counted request leaves the window (0 when the window is empty). */
  resetMs: number;
}

/**
 * A true sliding window (docs/vault-api.md "Rate limits": sliding 60 seconds): a log of the timestamps
 * of allowed requests, exact to the millisecond. A refused request is not logged.
 */
export interface RateLimiter {
  hit(input: HitInput): Promise<HitResult>;
  close(): Promise<void>;
}

/** String cache with a TTL (the resolver's 30-second resolution cache). */
export interface Cache {
  get(key: string): Promise<string | undefined>;
  set(key: string, value: string, ttlMs: number): Promise<void>;
  /** Forgets the key (no-op when absent). */
  delete(key: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Issued proof-of-control nonces (did-resolver.yaml, the proof routes): the embedded one of src/did keeps them
 * per process, the Redis one shares them between the resolver's instances. A nonce is bound to the challenge
 * it was issued with (`binding`), so it cannot be reused under another DID, domain or timestamp.
 */
export interface NonceStore {
  issue(nonce: string, expiresAt: Date, binding: string): Promise<void>;
  /** true once: issued with this binding, not expired, not consumed before; any attempt spends the nonce. */
  consume(nonce: string, binding: string): Promise<boolean>;
  close(): Promise<void>;
}

/** What `ChallengeStore.issue` did: kept it, or refused it without evicting anything. */
export type ChallengeIssue = 'issued' | 'client_quota' | 'store_full';

/**
 * The vault API's presentation challenges (vault-api.yaml createChallenge): each kept for the client that asked
 * for it (its API key, or a keyless caller's address), so no other client can spend it. A live challenge is never
 * evicted to make room: past `quota` live challenges of one client, or a full store, the new one is refused.
 */
export interface ChallengeStore {
  issue(client: string, challenge: string, expiresAt: Date, quota: number): Promise<ChallengeIssue>;
  /** true once: issued to this client, not expired, not consumed before. Another client's attempt spends nothing. */
  consume(client: string, challenge: string): Promise<boolean>;
  close(): Promise<void>;
}

export type StoreName = 'keys' | 'idempotency' | 'rate_limit' | 'cache' | 'nonces' | 'challenges';

/**
 * A backend could not be reached; the HTTP layer answers 503 (store_unavailable / rate_limit_unavailable;
 * the resolver's proof routes nonce_store_unavailable).
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  readonly store: StoreName;
  constructor(store: StoreName, message: string, options?: { cause?: unknown }) {
    super(`${store} store unavailable: ${message}`, options);
    this.store = store;
  }
}

/** create(…, {ifNoActiveKey: true}) found a usable key of the wallet on the network (HTTP 409 key_exists). */
export class KeyExistsError extends Error {
  override readonly name = 'KeyExistsError';
  readonly walletAddress: string;
  readonly network: Network;
  constructor(walletAddress: string, network: Network) {
    super(`${walletAddress} already holds a usable key on ${network}`);
    this.walletAddress = walletAddress;
    this.network = network;
  }
}

/** A caller passed something the store refuses (a programming or CLI input error, not an outage). */
export class StoreInputError extends Error {
  override readonly name = 'StoreInputError';
  readonly code: 'invalid_key_request' | 'idempotency_key_too_long';
  constructor(code: 'invalid_key_request' | 'idempotency_key_too_long', message: string) {
    super(message);
    this.code = code;
  }
}
