// The embedded default for keys and idempotency records: files in the data directory, shared safely with
// other processes (the `keys` CLI, a second embedded server by mistake, a test opening two stores) through
// lock files.
// Keys: one JSON document (`api-keys.json`) replaced atomically under its lock. Reads take no lock and
// reload the file only when it changed on disk. Key lookups check the file at most once per `keyRefreshMs`
// (default 250 ms) while they find what they look for, and at once when they do not: a key created by the CLI
// works at once on the server, a key revoked by the CLI stops working within `keyRefreshMs` (a revocation
// through the running server's own store, such as DELETE /keys/{id}, applies at once).
// Idempotency records: an append-only journal (`idempotency.jsonl`, see idempotency-journal.ts) with an
// in-memory index. Each begin/complete/release takes the journal's lock, reads only the bytes other
// processes appended since this process last looked (a whole reload only after another process compacted
// the file), decides with records.ts, and appends at most one line, fdatasync'd before it returns. The file
// is compacted to its live records when it holds more than 2 × live + 1,000 lines. A torn last line left by
// a crash is ignored and cut off; a former `idempotency.json` is migrated into the journal once. Per
// operation this costs O(new bytes), not O(file); still one lock and one fdatasync per write on one disk,
// and a whole-file load at start: for many instances use PostgreSQL.
import path from 'node:path';
import { JsonFile, LockTimeoutError, withFileLock, type LockOptions } from './file-lock.ts';
import { IdempotencyJournal, type JournalEntry, type JournalFs, type JournalStats } from './idempotency-journal.ts';
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
  IDEMPOTENCY_PURGE_EVERY_MS,
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
/** The idempotency journal (JSON lines). */
export const IDEMPOTENCY_FILE = 'idempotency.jsonl';
/** The former whole-file idempotency store ({"version":1,"records":[…]}), migrated into the journal once. */
export const LEGACY_IDEMPOTENCY_FILE = 'idempotency.json';

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
  /** Compact the journal when it holds more than ratio × live records + slack lines (defaults 2 and 1,000). */
  compactRatio?: number;
  compactSlack?: number;
  /** File operations of the journal (tests inject failing or counting ones); default node:fs/promises. */
  fs?: JournalFs;
}

export interface FileIdempotencyStore extends IdempotencyStore {
  /** What the journal did so far in this process (lines, bytes read, loads, compactions). */
  stats(): JournalStats;
}

export function createFileIdempotencyStore(options: FileIdempotencyOptions): FileIdempotencyStore {
  const now = options.now ?? Date.now;
  const leaseMs = options.leaseMs ?? IDEMPOTENCY_LEASE_MS;
  const ttlMs = options.ttlMs ?? IDEMPOTENCY_TTL_MS;
  const journal = new IdempotencyJournal({
    filePath: path.join(options.dataDir, IDEMPOTENCY_FILE),
    legacyPath: path.join(options.dataDir, LEGACY_IDEMPOTENCY_FILE),
    ...(options.fs ? { fs: options.fs } : {}),
    ...(options.compactRatio !== undefined ? { compactRatio: options.compactRatio } : {}),
    ...(options.compactSlack !== undefined ? { compactSlack: options.compactSlack } : {}),
  });
  const lockPath = `${journal.filePath}.lock`;
  let lastPurge = -Infinity;
  /** The last operation queued by this store: close() waits for it. */
  let tail: Promise<unknown> = Promise.resolve();

  /**
   * Under the lock: catch up with the journal at time t, decide, append what changed. After a failure the
   * index may hold a change the file does not (or the reverse): it is dropped and reloaded next time.
   */
  const run = <T>(t: number, decide: (records: Map<string, IdempotencyRecord>) => { result: T; entry?: JournalEntry }): Promise<T> => {
    const op = guarded('idempotency', () =>
      withFileLock(
        lockPath,
        async () => {
          try {
            const records = await journal.sync(t);
            const { result, entry } = decide(records);
            if (entry) await journal.append([entry], t);
            return result;
          } catch (err) {
            if (!(err instanceof StoreInputError)) await journal.invalidate();
            throw err;
          }
        },
        options.lock,
      ),
    );
    tail = op.catch(() => undefined);
    return op;
  };

  return {
    async begin(input: BeginInput): Promise<BeginResult> {
      checkBeginInput(input);
      const t = input.now ?? now();
      return run(t, (records) => {
        // The index drops expired records; the file drops them at compaction.
        if (t - lastPurge > IDEMPOTENCY_PURGE_EVERY_MS) {
          purgeIn(records, t);
          lastPurge = t;
        }
        const result = beginIn(records, input, t, leaseMs);
        const started = result.state === 'started' ? records.get(recordId(input.scope, input.key)) : undefined;
        return started ? { result, entry: { put: started } } : { result };
      });
    },
    async complete(scope: string, key: string, token: string, response: StoredResponse) {
      const t = now();
      return run(t, (records) => {
        const done = completeIn(records, scope, key, token, response, t, ttlMs);
        if (!done) return { result: false };
        // A 5xx is not kept: completeIn deleted the record.
        const record = records.get(recordId(scope, key));
        return { result: true, entry: record ? { put: record } : { del: [scope, key] } };
      });
    },
    async release(scope: string, key: string, token: string) {
      await run(now(), (records) => {
        const had = records.has(recordId(scope, key));
        releaseIn(records, scope, key, token);
        return had && !records.has(recordId(scope, key)) ? { result: undefined, entry: { del: [scope, key] } } : { result: undefined };
      });
    },
    stats: () => journal.stats(),
    async close() {
      await tail;
      await journal.close();
    },
  };
}
