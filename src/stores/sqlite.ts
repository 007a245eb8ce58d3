// The embedded driver of the SQL store (./sql.ts): one SQLite database in the data directory
// (`credential-vault.db`, Node's built-in node:sqlite), shared safely by every process that opens it —
// the server and the `credential-vault keys` CLI while the server runs.
// - WAL mode: readers never wait for the writer; writers take SQLite's single write lock, and wait for it
//   up to `busyTimeoutMs` (default 5 s) when another process holds it (a write holds it for well under a
//   millisecond). Waiting blocks this process's event loop: node:sqlite is synchronous.
// - synchronous=FULL: every commit fsyncs the WAL before it returns, so an acknowledged write survives the
//   process being killed (kill -9) and the machine losing power.
// - One connection per store, its statements run one at a time (a transaction's statements are never
//   interleaved with another operation's).
// - At first start the former files of the data directory — `api-keys.json`, `idempotency.jsonl` and
//   `idempotency.json` — are imported once and renamed `<name>.migrated`.
import { closeSync, mkdirSync, openSync } from 'node:fs';
import { readFile, rename } from 'node:fs/promises';
import path from 'node:path';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { KeyChangeFeed, KeyChangeSink, OpenKeyChangeFeed } from './key-cache.ts';
import {
  createSqlStores,
  runMigrations,
  type SqlDriver,
  type SqlExecutor,
  type SqlResult,
  type SqlStores,
} from './sql.ts';
import { StoreUnavailableError, type ApiKeyRecord, type StoreName } from './types.ts';
import type { IdempotencyRecord } from './records.ts';
import { type Clock, KEY_ROLES, NETWORKS } from '../domain.ts';

/** The database file in the data directory. */
export const DB_FILE = 'credential-vault.db';
/** Former files of the embedded store, imported once at first start and then renamed `<name>.migrated`. */
export const FORMER_KEYS_FILE = 'api-keys.json';
export const FORMER_JOURNAL_FILE = 'idempotency.jsonl';
export const FORMER_IDEMPOTENCY_FILE = 'idempotency.json';
export const MIGRATED_SUFFIX = '.migrated';

export const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

export interface SqliteStoresOptions {
  dataDir: string;
  now?: Clock;
  leaseMs?: number;
  ttlMs?: number;
  /** Told the hashes of the keys a revoke or create of this process changed (after the commit). */
  onKeysChanged?: (hashes: readonly string[]) => void;
  /** How long a write waits for another process's write lock before the store answers unavailable. */
  busyTimeoutMs?: number;
}

/** Primary result codes that mean the database cannot serve now (busy, locked, I/O, full, unreadable). */
const OUTAGE_CODES: ReadonlySet<number> = new Set([5, 6, 7, 8, 10, 11, 13, 14, 15, 26]);

function toOutage(store: StoreName, err: unknown): unknown {
  if (err instanceof StoreUnavailableError) return err;
  const e = err as { errcode?: unknown; code?: unknown; message?: string };
  const sqliteOutage = typeof e?.errcode === 'number' && OUTAGE_CODES.has(e.errcode & 0xff);
  const fsError = typeof e?.code === 'string' && /^E[A-Z]+$/.test(e.code);
  if (!sqliteOutage && !fsError) return err;
  return new StoreUnavailableError(store, `sqlite: ${e.message}`, { cause: err });
}

/** `$1` → `?1` (SQLite's numbered parameter); arrays as JSON text, booleans as 0/1. */
const toSqlite = (sql: string) => sql.replace(/\$(\d+)/g, '?$1');
const bind = (v: unknown) =>
  Array.isArray(v)
    ? JSON.stringify(v)
    : typeof v === 'boolean'
      ? Number(v)
      : v === undefined
        ? null
        : (v as string | number | null);

export interface SqliteStores extends SqlStores {
  /** The changes of the keys made by any connection or process, for a key cache (./key-cache.ts). */
  keyChanges: OpenKeyChangeFeed;
}

/** The one connection to the database file, opened (WAL, synchronous) on first use, with its prepared statements. */
interface SqliteConnection {
  open(): DatabaseSync;
  /** One statement now, on the connection. */
  run<R>(sql: string, params?: readonly unknown[]): SqlResult<R>;
  close(): void;
}

function sqliteConnection(dataDir: string, file: string, busyTimeoutMs: number): SqliteConnection {
  let db: DatabaseSync | undefined;
  /** Prepared once per SQL text; `returnsRows` is asked once too (columns() costs as much as the query). */
  const statements = new Map<string, { st: StatementSync; returnsRows: boolean }>();

  const open = (): DatabaseSync => {
    if (db) return db;
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    // Created 0600 before SQLite opens it; SQLite gives its -wal and -shm files the same mode.
    closeSync(openSync(file, 'a', 0o600));
    const opened = new DatabaseSync(file);
    try {
      opened.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
      const mode = opened.prepare('PRAGMA journal_mode = WAL').get() as { journal_mode?: string } | undefined;
      if (mode?.journal_mode !== 'wal')
        throw new Error(`cannot switch ${file} to WAL (journal_mode ${mode?.journal_mode})`);
      opened.exec('PRAGMA synchronous = FULL');
    } catch (err) {
      opened.close();
      throw err;
    }
    return (db = opened);
  };

  return {
    open,
    run<R>(sql: string, params: readonly unknown[] = []): SqlResult<R> {
      const conn = open();
      let prepared = statements.get(sql);
      if (!prepared) {
        const st = conn.prepare(toSqlite(sql));
        statements.set(sql, (prepared = { st, returnsRows: st.columns().length > 0 }));
      }
      const { st, returnsRows } = prepared;
      const args = params.map(bind);
      if (returnsRows) {
        const rows = st.all(...args) as R[];
        return { rows, rowCount: rows.length };
      }
      return { rows: [], rowCount: Number(st.run(...args).changes) };
    },
    close() {
      statements.clear();
      db?.close();
      db = undefined;
    },
  };
}

/** The driver over the connection: operations one after another, transactions under the database's write lock. */
function sqliteDriver(conn: SqliteConnection): SqlDriver {
  const direct: SqlExecutor = {
    query: async (sql, params) => conn.run(sql, params),
    exec: async (sql) => void conn.open().exec(sql),
  };

  /** Operations on the one connection, one after another. */
  let queue: Promise<unknown> = Promise.resolve();
  const exclusive = <T>(fn: () => T | Promise<T>): Promise<T> => {
    const result = queue.then(fn);
    queue = result.catch(() => undefined);
    return result;
  };

  return {
    dialect: 'sqlite',
    query: (sql, params) => exclusive(() => conn.run(sql, params)),
    exec: (sql) => exclusive(() => void conn.open().exec(sql)),
    // SQLite has one write lock per database: IMMEDIATE takes it at BEGIN, so every lock name is the same lock.
    transaction: (fn, _lock) =>
      exclusive(async () => {
        const db = conn.open();
        db.exec('BEGIN IMMEDIATE');
        try {
          const result = await fn(direct);
          db.exec('COMMIT');
          return result;
        } catch (err) {
          if (db.isTransaction) db.exec('ROLLBACK');
          throw err;
        }
      }),
    toOutage,
    close: () => exclusive(() => conn.close()),
  };
}

export function createSqliteStores(options: SqliteStoresOptions): SqliteStores {
  const file = path.join(options.dataDir, DB_FILE);
  const busyTimeoutMs = options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
  const driver = sqliteDriver(sqliteConnection(options.dataDir, file, busyTimeoutMs));

  let readied: Promise<void> | undefined;
  const ready = (): Promise<void> =>
    (readied ??= (async () => {
      await runMigrations(driver, 'migrate');
      await importFormerFiles(options.dataDir, driver, options.now ?? Date.now);
    })().catch(async (err: unknown) => {
      readied = undefined;
      await driver.close();
      throw err;
    }));

  const stores = createSqlStores(driver, ready, options);
  return { ...stores, keyChanges: (sink, clock) => pollKeyChanges(stores.query, sink, clock) };
}

/** Rows of the change log read per poll; a full batch is delivered without moving the watermark. */
const CHANGES_PER_POLL = 1000;

/**
 * The key change log (migrations/sqlite/002_key_changes.sql) read by polling. The watermark is the time a
 * poll started: every change committed before it was in the poll's snapshot. A failed poll leaves the
 * watermark where it was, so the cache stops being used once it is too old.
 */
function pollKeyChanges(query: SqlStores['query'], sink: KeyChangeSink, clock: Clock): KeyChangeFeed {
  let watermark = -Infinity;
  /** The last change delivered; undefined until the first poll set the starting point. */
  let lastSeq: number | undefined;
  let polling = false;
  let closed = false;

  const poll = async (): Promise<void> => {
    const started = clock();
    if (lastSeq === undefined) {
      const { rows } = await query<{ seq: number | null }>('SELECT max(seq) AS seq FROM api_key_changes');
      if (closed) return;
      lastSeq = Number(rows[0]?.seq ?? 0);
      // Records cached before the starting point may predate changes that it skips.
      sink.clear();
      watermark = started;
      return;
    }
    const { rows } = await query<{ seq: number; key_hash: string }>(
      'SELECT seq, key_hash FROM api_key_changes WHERE seq > $1 ORDER BY seq LIMIT $2',
      [lastSeq, CHANGES_PER_POLL],
    );
    if (closed) return;
    const first = rows[0];
    const last = rows[rows.length - 1];
    if (first && last) {
      // A gap: the log was trimmed past what this reader saw, so some changes are unknown.
      if (first.seq !== lastSeq + 1) sink.clear();
      else sink.evict(rows.map((r) => r.key_hash));
      lastSeq = last.seq;
    }
    if (rows.length < CHANGES_PER_POLL) watermark = Math.max(watermark, started);
  };

  return {
    watermark: () => watermark,
    refresh() {
      if (polling || closed) return;
      polling = true;
      poll()
        .catch(() => undefined)
        .finally(() => {
          polling = false;
        });
    },
    async close() {
      closed = true;
    },
  };
}

// ---- the one-time import of the former file store ----

const readIfThere = (p: string) =>
  readFile(p, 'utf8').catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });

const damaged = (store: StoreName, name: string, why: string) =>
  new StoreUnavailableError(store, `${name} in the data directory cannot be imported (${why}); fix or move it away`);

function parseKeysFile(text: string): ApiKeyRecord[] {
  let doc: { version?: unknown; keys?: unknown };
  try {
    doc = JSON.parse(text) as typeof doc;
  } catch {
    throw damaged('keys', FORMER_KEYS_FILE, 'not JSON');
  }
  if (doc?.version !== 1 || !Array.isArray(doc.keys)) throw damaged('keys', FORMER_KEYS_FILE, 'not a keys document');
  const keys = doc.keys as ApiKeyRecord[];
  for (const k of keys) {
    const ok =
      typeof k?.keyId === 'string' &&
      typeof k.keyHash === 'string' &&
      NETWORKS.includes(k.network) &&
      KEY_ROLES.includes(k.role) &&
      Array.isArray(k.scopes) &&
      typeof k.createdAt === 'string';
    if (!ok) throw damaged('keys', FORMER_KEYS_FILE, 'a key record is malformed');
  }
  return keys;
}

function isRecord(r: unknown): r is IdempotencyRecord {
  const x = r as Partial<IdempotencyRecord> | null;
  return (
    typeof x === 'object' &&
    x !== null &&
    typeof x.scope === 'string' &&
    typeof x.key === 'string' &&
    typeof x.requestHash === 'string' &&
    typeof x.token === 'string' &&
    (x.state === 'in_progress' || x.state === 'completed') &&
    typeof x.createdAtMs === 'number' &&
    typeof x.expiresAtMs === 'number'
  );
}

const idOf = (scope: string, key: string) => JSON.stringify([scope, key]);

/** `{"version":1,"records":[…]}`, the whole-file store before the journal. */
function replayWholeFile(text: string, into: Map<string, IdempotencyRecord>): void {
  let doc: { version?: unknown; records?: unknown };
  try {
    doc = JSON.parse(text) as typeof doc;
  } catch {
    throw damaged('idempotency', FORMER_IDEMPOTENCY_FILE, 'not JSON');
  }
  if (doc?.version !== 1 || !Array.isArray(doc.records))
    throw damaged('idempotency', FORMER_IDEMPOTENCY_FILE, 'not a records document');
  for (const r of doc.records) if (isRecord(r)) into.set(idOf(r.scope, r.key), r);
}

/** JSON lines `{"put":record}` / `{"del":[scope,key]}`; a torn last line (a crash mid-append) is ignored. */
function replayJournal(text: string, into: Map<string, IdempotencyRecord>): void {
  const lines = text.split('\n');
  lines.forEach((line, i) => {
    if (line.trim() === '') return;
    let entry: { put?: unknown; del?: unknown } | undefined;
    try {
      entry = JSON.parse(line) as typeof entry;
    } catch {
      entry = undefined;
    }
    const del = entry?.del;
    if (isRecord(entry?.put)) into.set(idOf(entry.put.scope, entry.put.key), entry.put);
    else if (Array.isArray(del) && del.length === 2) into.delete(idOf(String(del[0]), String(del[1])));
    else if (lines.slice(i + 1).some((l) => l.trim() !== ''))
      throw damaged('idempotency', FORMER_JOURNAL_FILE, `line ${i + 1} is damaged`);
  });
}

async function importFormerFiles(dataDir: string, driver: SqlDriver, now: Clock): Promise<void> {
  const at = (name: string) => path.join(dataDir, name);
  const [keysText, wholeText, journalText] = await Promise.all(
    [FORMER_KEYS_FILE, FORMER_IDEMPOTENCY_FILE, FORMER_JOURNAL_FILE].map((n) => readIfThere(at(n))),
  );
  if (keysText === undefined && wholeText === undefined && journalText === undefined) return;
  const keys = keysText === undefined ? [] : parseKeysFile(keysText);
  const records = new Map<string, IdempotencyRecord>();
  // The journal began as a migration of the whole file, so it is newer: replayed last.
  if (wholeText !== undefined) replayWholeFile(wholeText, records);
  if (journalText !== undefined) replayJournal(journalText, records);
  const t = now();
  // ON CONFLICT DO NOTHING: two processes starting together may both import before either renames.
  await driver.transaction(async (tx) => {
    for (const k of keys) {
      await tx.query(
        `INSERT INTO api_keys (key_id, key_hash, wallet_address, network, role, scopes, created_at, expires_at, revoked_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING`,
        [
          k.keyId,
          k.keyHash,
          k.walletAddress ?? null,
          k.network,
          k.role,
          k.scopes,
          k.createdAt,
          k.expiresAt ?? null,
          k.revokedAt ?? null,
        ],
      );
    }
    for (const r of records.values()) {
      if (r.expiresAtMs <= t) continue;
      await tx.query(
        `INSERT INTO idempotency_records (scope, key, request_hash, token, state, response, created_at_ms, expires_at_ms)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING`,
        [r.scope, r.key, r.requestHash, r.token, r.state, r.response ?? null, r.createdAtMs, r.expiresAtMs],
      );
    }
  }, 'import');
  const moved = [
    [FORMER_KEYS_FILE, keysText],
    [FORMER_IDEMPOTENCY_FILE, wholeText],
    [FORMER_JOURNAL_FILE, journalText],
  ] as const;
  for (const [name, text] of moved) {
    if (text === undefined) continue;
    await rename(at(name), at(name + MIGRATED_SUFFIX)).catch((err: NodeJS.ErrnoException) => {
      // Another process imported and renamed it first.
      if (err.code !== 'ENOENT') throw err;
    });
  }
}
