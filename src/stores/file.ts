// The embedded default for keys and idempotency records: JSON files in the data directory, shared safely
// with other processes (the `keys` CLI) through a lock file and atomic replacement. Reads take no lock and
// reload the file only when it changed on disk. Key lookups check the file at most once per `keyRefreshMs`
// (default 250 ms) while they find what they look for, and at once when they do not: a key created by the CLI
// works at once on the server, a key revoked by the CLI stops working within `keyRefreshMs` (a revocation
// through the running server's own store, such as DELETE /keys/{id}, applies at once).
// Every idempotency operation rewrites its file: fine for one instance's traffic, not for many instances
// (use PostgreSQL there).
import path from 'node:path';
import { JsonFile, LockTimeoutError, withFileLock, type LockOptions } from './file-lock.ts';
import {
  addKey,
  beginIn,
  checkBeginInput,
  checkNoActiveKey,
  completeIn,
  hashKey,
  listKeys,
  lookupOf,
  mintKey,
  purgeIn,
  recordId,
  releaseIn,
  revokeKey,
  type IdempotencyRecord,
} from './records.ts';
import {
  IDEMPOTENCY_LEASE_MS,
  IDEMPOTENCY_TTL_MS,
  KeyExistsError,
  StoreInputError,
  StoreUnavailableError,
  type ApiKeyRecord,
  type BeginInput,
  type BeginResult,
  type CreatedKey,
  type IdempotencyStore,
  type KeyLookup,
  type KeyStore,
  type StoreName,
  type StoredResponse,
} from './types.ts';

export const KEYS_FILE = 'api-keys.json';
export const IDEMPOTENCY_FILE = 'idempotency.json';

export interface FileStoreOptions {
  dataDir: string;
  now?: () => number;
  lock?: LockOptions;
}

/** How long key lookups trust the key file without looking at the disk again (a revocation by another process shows within this). */
export const DEFAULT_KEY_REFRESH_MS = 250;

export interface FileKeyStoreOptions extends FileStoreOptions {
  /** See DEFAULT_KEY_REFRESH_MS; 0 checks the file on every lookup. */
  keyRefreshMs?: number;
  /** Monotonic clock of the refresh window in ms (default performance.now). */
  monotonic?: () => number;
}

interface KeysDoc {
  version: 1;
  keys: ApiKeyRecord[];
  /** keyHash → record; built on load, not written. */
  byHash: Map<string, ApiKeyRecord>;
}

function keysDoc(keys: ApiKeyRecord[]): KeysDoc {
  return { version: 1, keys, byHash: new Map(keys.map((k) => [k.keyHash, k])) };
}

function parseKeys(raw: unknown): KeysDoc {
  const doc = raw as { version?: unknown; keys?: unknown };
  if (doc?.version !== 1 || !Array.isArray(doc.keys)) throw new Error(`unrecognized ${KEYS_FILE}`);
  return keysDoc(doc.keys as ApiKeyRecord[]);
}

/** Runs a store operation, turning I/O failures into StoreUnavailableError (input errors pass through). */
async function guarded<T>(store: StoreName, op: () => Promise<T>): Promise<T> {
  try {
    return await op();
  } catch (err) {
    if (err instanceof StoreInputError || err instanceof StoreUnavailableError || err instanceof KeyExistsError) throw err;
    const why = err instanceof LockTimeoutError ? err.message : `file store failed: ${(err as Error).message}`;
    throw new StoreUnavailableError(store, why, { cause: err });
  }
}

export function createFileKeyStore(options: FileKeyStoreOptions): KeyStore {
  const now = options.now ?? Date.now;
  const refreshMs = options.keyRefreshMs ?? DEFAULT_KEY_REFRESH_MS;
  const monotonic = options.monotonic ?? (() => performance.now());
  const file = new JsonFile<KeysDoc>(
    path.join(options.dataDir, KEYS_FILE),
    parseKeys,
    () => keysDoc([]),
  );
  const lockPath = `${file.filePath}.lock`;

  /** The document as last checked against the disk, and when. */
  let checked: { at: number; doc: KeysDoc } | undefined;
  /** Bumped by this store's own writes: a check begun before one is not kept. */
  let generation = 0;
  const check = async (): Promise<KeysDoc> => {
    const at = monotonic();
    const gen = generation;
    const doc = await guarded('keys', () => file.read());
    if (gen === generation && (!checked || at >= checked.at)) checked = { at, doc };
    return doc;
  };
  const recent = (): KeysDoc | undefined => (checked && monotonic() - checked.at < refreshMs ? checked.doc : undefined);

  /** Read-modify-write under the lock, on a copy so a failed write leaves the cache intact. */
  const mutate = <T>(change: (keys: ApiKeyRecord[]) => T): Promise<T> =>
    guarded('keys', () =>
      withFileLock(
        lockPath,
        async () => {
          const keys = structuredClone((await file.read()).keys);
          const result = change(keys);
          await file.write(keysDoc(keys));
          return result;
        },
        options.lock,
      ),
    ).finally(() => {
      // This store's own changes apply to the next lookup.
      generation++;
      checked = undefined;
    });

  const lookup = async (key: string): Promise<KeyLookup | undefined> => {
    const hash = hashKey(key);
    if (hash === undefined) return undefined;
    // A key the recent copy does not know may have been created since: look at the disk at once.
    let record = recent()?.byHash.get(hash);
    if (!record) record = (await check()).byHash.get(hash);
    return lookupOf(record, now());
  };

  return {
    async create(input, createOptions) {
      const t = now();
      const created: CreatedKey = mintKey(input, t);
      await mutate((keys) => {
        // Under the lock: no other process adds a key of this wallet between the check and the write.
        checkNoActiveKey(keys, created.record, createOptions, t);
        addKey(keys, structuredClone(created.record));
      });
      return created;
    },
    async findByKey(key) {
      const found = await lookup(key);
      return found?.state === 'active' ? found.record : undefined;
    },
    lookup,
    async list(filter) {
      const doc = await guarded('keys', () => file.read());
      return listKeys(doc.keys, filter);
    },
    async revoke(keyId) {
      return mutate((keys) => revokeKey(keys, keyId, now()));
    },
    async close() {},
  };
}

export interface FileIdempotencyOptions extends FileStoreOptions {
  leaseMs?: number;
  ttlMs?: number;
}

interface IdempotencyDoc {
  version: 1;
  records: IdempotencyRecord[];
}

function parseIdempotency(raw: unknown): IdempotencyDoc {
  const doc = raw as { version?: unknown; records?: unknown };
  if (doc?.version !== 1 || !Array.isArray(doc.records)) throw new Error(`unrecognized ${IDEMPOTENCY_FILE}`);
  return { version: 1, records: doc.records as IdempotencyRecord[] };
}

export function createFileIdempotencyStore(options: FileIdempotencyOptions): IdempotencyStore {
  const now = options.now ?? Date.now;
  const leaseMs = options.leaseMs ?? IDEMPOTENCY_LEASE_MS;
  const ttlMs = options.ttlMs ?? IDEMPOTENCY_TTL_MS;
  const file = new JsonFile<IdempotencyDoc>(
    path.join(options.dataDir, IDEMPOTENCY_FILE),
    parseIdempotency,
    () => ({ version: 1, records: [] }),
  );
  const lockPath = `${file.filePath}.lock`;

  /** Applies change under the lock; writes only if it (or purging expired records) changed something. */
  const mutate = <T>(purgeAt: number | undefined, change: (records: Map<string, IdempotencyRecord>) => { result: T; changed: boolean }) =>
    guarded('idempotency', () =>
      withFileLock(
        lockPath,
        async () => {
          const doc = await file.read();
          const records = new Map(doc.records.map((r) => [recordId(r.scope, r.key), { ...r }]));
          const purged = purgeAt === undefined ? 0 : purgeIn(records, purgeAt);
          const { result, changed } = change(records);
          if (changed || purged > 0) await file.write({ version: 1, records: [...records.values()] });
          return result;
        },
        options.lock,
      ),
    );

  return {
    async begin(input: BeginInput): Promise<BeginResult> {
      checkBeginInput(input);
      const t = input.now ?? now();
      return mutate(t, (records) => {
        const result = beginIn(records, input, t, leaseMs);
        return { result, changed: result.state === 'started' };
      });
    },
    async complete(scope: string, key: string, token: string, response: StoredResponse) {
      const t = now();
      return mutate(undefined, (records) => {
        const done = completeIn(records, scope, key, token, response, t, ttlMs);
        return { result: done, changed: done };
      });
    },
    async release(scope: string, key: string, token: string) {
      await mutate(undefined, (records) => {
        const before = records.size;
        releaseIn(records, scope, key, token);
        return { result: undefined, changed: records.size !== before };
      });
    },
    async close() {},
  };
}
