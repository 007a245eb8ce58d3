// The rules of keys and idempotency records as plain functions: minting and judging, shared by every store;
// the in-memory state changes, used by the memory store (the SQL store, ./sql.ts, states them in SQL).
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import {
  IDEMPOTENCY_KEY_MAX,
  KeyExistsError,
  StoreInputError,
  type ApiKeyRecord,
  type BeginInput,
  type BeginResult,
  type CreateKeyInput,
  type CreateKeyOptions,
  type CreatedKey,
  type KeyLookup,
  type KeyState,
  type StoredResponse,
} from './types.ts';
import { isScope, KEY_ROLES, NETWORKS, type Scope } from '../domain.ts';

const KEY_RE = /^[0-9a-fA-F]{64}$/;

/** SHA-256 of a key as lowercase hex; undefined for anything that is not 64 hex characters. */
export function hashKey(key: string): string | undefined {
  if (!KEY_RE.test(key)) return undefined;
  return createHash('sha256').update(key.toLowerCase()).digest('hex');
}

/** Validates the input and mints a key and its record (crypto-random, 256 bits). */
export function mintKey(input: CreateKeyInput, nowMs: number): CreatedKey {
  if (!NETWORKS.includes(input.network)) {
    throw new StoreInputError('invalid_key_request', `network must be one of ${NETWORKS.join(', ')}`);
  }
  if (!KEY_ROLES.includes(input.role)) {
    throw new StoreInputError('invalid_key_request', `role must be one of ${KEY_ROLES.join(', ')}`);
  }
  const wallet = input.walletAddress;
  if (wallet === null || wallet === '') {
    if (input.role !== 'admin') {
      throw new StoreInputError('invalid_key_request', 'a key without a wallet must have the admin role');
    }
  } else if (typeof wallet !== 'string') {
    throw new StoreInputError('invalid_key_request', 'walletAddress must be a string or null');
  }
  const scopes: Scope[] = [];
  for (const scope of input.scopes) {
    if (!isScope(scope)) {
      throw new StoreInputError('invalid_key_request', `unknown scope ${JSON.stringify(scope)}`);
    }
    scopes.push(scope);
  }
  if (input.expiresAt !== null && Number.isNaN(Date.parse(input.expiresAt))) {
    throw new StoreInputError('invalid_key_request', 'expiresAt must be an ISO-8601 timestamp or null');
  }
  const key = randomBytes(32).toString('hex');
  const record: ApiKeyRecord = {
    keyId: randomBytes(8).toString('hex'),
    keyHash: hashKey(key)!,
    walletAddress: wallet === '' ? null : wallet,
    network: input.network,
    role: input.role,
    scopes: [...new Set(scopes)],
    createdAt: new Date(nowMs).toISOString(),
    expiresAt: input.expiresAt === null ? null : new Date(input.expiresAt).toISOString(),
    revokedAt: null,
  };
  return { key, record };
}

/** A key is usable when neither revoked nor expired. */
export function isUsable(record: ApiKeyRecord, nowMs: number): boolean {
  if (record.revokedAt) return false;
  return record.expiresAt === null || Date.parse(record.expiresAt) > nowMs;
}

/** Revoked wins over expired: a revoked key is refused as unknown even once past its expiry. */
export function keyState(record: ApiKeyRecord, nowMs: number): KeyState {
  if (record.revokedAt) return 'revoked';
  return isUsable(record, nowMs) ? 'active' : 'expired';
}

/** A copy of the record (the caller may change it: it is flat but for its scopes) with its state. */
export function lookupOf(record: ApiKeyRecord | undefined, nowMs: number): KeyLookup | undefined {
  return record && { record: { ...record, scopes: [...record.scopes] }, state: keyState(record, nowMs) };
}

/** Under `ifNoActiveKey`, KeyExistsError when the record's wallet holds a usable key on its network. */
export function checkNoActiveKey(
  keys: readonly ApiKeyRecord[],
  record: ApiKeyRecord,
  options: CreateKeyOptions | undefined,
  nowMs: number,
): void {
  const wallet = record.walletAddress;
  if (!options?.ifNoActiveKey || wallet === null) return;
  if (keys.some((k) => k.walletAddress === wallet && k.network === record.network && isUsable(k, nowMs))) {
    throw new KeyExistsError(wallet, record.network);
  }
}

/** Adds the record; the previous usable key of the same wallet and network is revoked (its hash returned). */
export function addKey(keys: ApiKeyRecord[], record: ApiKeyRecord): string[] {
  const revoked: string[] = [];
  if (record.walletAddress !== null) {
    for (const other of keys) {
      if (other.walletAddress === record.walletAddress && other.network === record.network && !other.revokedAt) {
        other.revokedAt = record.createdAt;
        revoked.push(other.keyHash);
      }
    }
  }
  keys.push(record);
  return revoked;
}

export function revokeKey(keys: ApiKeyRecord[], keyId: string, nowMs: number): boolean {
  const record = keys.find((k) => k.keyId === keyId);
  if (!record || record.revokedAt) return false;
  record.revokedAt = new Date(nowMs).toISOString();
  return true;
}

export function listKeys(
  keys: readonly ApiKeyRecord[],
  filter: { network?: string; includeRevoked?: boolean } = {},
): ApiKeyRecord[] {
  return (
    keys
      .filter(
        (k) =>
          (filter.network === undefined || k.network === filter.network) && (filter.includeRevoked || !k.revokedAt),
      )
      .map((k) => ({ ...k, scopes: [...k.scopes] }))
      // The PostgreSQL store's order: created_at, then key_id (keys made in the same millisecond).
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.keyId.localeCompare(b.keyId))
  );
}

/** One idempotency record as both embedded stores keep it. */
export interface IdempotencyRecord {
  scope: string;
  key: string;
  requestHash: string;
  token: string;
  state: 'in_progress' | 'completed';
  /** JSON text of the StoredResponse once completed. */
  response?: string;
  createdAtMs: number;
  /** End of the lease while in progress; completion + TTL once completed. Expired records are ignored. */
  expiresAtMs: number;
}

function recordId(scope: string, key: string): string {
  return JSON.stringify([scope, key]);
}

export function checkBeginInput(input: BeginInput): void {
  if (input.key.length === 0 || input.key.length > IDEMPOTENCY_KEY_MAX) {
    throw new StoreInputError(
      'idempotency_key_too_long',
      `Idempotency-Key must be 1 to ${IDEMPOTENCY_KEY_MAX} characters`,
    );
  }
}

/** begin() over a map of records; the caller makes it atomic (single thread, or under the file lock). */
export function beginIn(
  records: Map<string, IdempotencyRecord>,
  input: BeginInput,
  now: number,
  leaseMs: number,
): BeginResult {
  checkBeginInput(input);
  const id = recordId(input.scope, input.key);
  const existing = records.get(id);
  if (!existing || existing.expiresAtMs <= now) {
    const token = randomUUID();
    records.set(id, {
      scope: input.scope,
      key: input.key,
      requestHash: input.requestHash,
      token,
      state: 'in_progress',
      createdAtMs: now,
      expiresAtMs: now + leaseMs,
    });
    return { state: 'started', token };
  }
  return judge(existing, input.requestHash);
}

/** What a live record means for a new request with this hash. */
export function judge(
  record: Pick<IdempotencyRecord, 'requestHash' | 'state' | 'response'>,
  requestHash: string,
): BeginResult {
  if (record.requestHash !== requestHash) return { state: 'mismatch' };
  if (record.state === 'in_progress' || record.response === undefined) return { state: 'in_progress' };
  return { state: 'replay', response: JSON.parse(record.response) as StoredResponse };
}

/**
 * Whether the store keeps a response for replay: 2xx and 4xx, not 5xx (a retry may succeed). The vault API's
 * idempotency middleware stores only 2xx answers (vault-api.yaml: errors are not stored) and releases the
 * key otherwise; this rule is the store's own, for any caller.
 */
export function isReplayable(response: StoredResponse): boolean {
  return response.status < 500;
}

export function completeIn(
  records: Map<string, IdempotencyRecord>,
  scope: string,
  key: string,
  token: string,
  response: StoredResponse,
  now: number,
  ttlMs: number,
): boolean {
  const id = recordId(scope, key);
  const record = records.get(id);
  if (!record || record.token !== token || record.state !== 'in_progress') return false;
  if (!isReplayable(response)) {
    records.delete(id);
    return true;
  }
  record.state = 'completed';
  record.response = JSON.stringify(response);
  record.expiresAtMs = now + ttlMs;
  return true;
}

export function releaseIn(records: Map<string, IdempotencyRecord>, scope: string, key: string, token: string): void {
  const id = recordId(scope, key);
  const record = records.get(id);
  if (record && record.token === token && record.state === 'in_progress') records.delete(id);
}

export function purgeIn(records: Map<string, IdempotencyRecord>, now: number): number {
  let purged = 0;
  for (const [id, record] of records) {
    if (record.expiresAtMs <= now) {
      records.delete(id);
      purged++;
    }
  }
  return purged;
}
