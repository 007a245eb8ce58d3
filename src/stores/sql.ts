// Keys and idempotency records as one SQL store with two drivers: SQLite embedded (./sqlite.ts, the
// default, in the data directory) and PostgreSQL shared (./postgres.ts). The statements and the rules are
// written once here in the subset both dialects speak (`$n` parameters, `INSERT … ON CONFLICT … DO UPDATE
// … WHERE … RETURNING`); a driver supplies connections, transactions under a named write lock, its own
// migrations (./migrations/<dialect>/) and the mapping of its errors to outages.
import { readdir, readFile } from 'node:fs/promises';
import { sqlIdempotencyStore } from './sql-idempotency.ts';
import { sqlKeyStore } from './sql-keys.ts';
import {
  IDEMPOTENCY_LEASE_MS,
  IDEMPOTENCY_TTL_MS,
  KeyExistsError,
  StoreInputError,
  StoreUnavailableError,
  type IdempotencyStore,
  type KeyStore,
  type StoreName,
} from './types.ts';
import type { Clock } from '../domain.ts';

export interface SqlResult<R> {
  rows: R[];
  /** Rows changed (UPDATE/DELETE/INSERT) or returned. */
  rowCount: number;
}

export interface SqlExecutor {
  /** One statement with `$1`, `$2`, … parameters. Arrays are text[] in PostgreSQL, JSON text in SQLite. */
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<SqlResult<R>>;
  /** A script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface SqlDriver extends SqlExecutor {
  readonly dialect: 'sqlite' | 'postgres';
  /**
   * Runs `fn` in one transaction that first takes the write lock named `lock`: PostgreSQL an advisory
   * transaction lock (other names do not wait), SQLite the database's single write lock (BEGIN IMMEDIATE).
   */
  transaction<T>(fn: (tx: SqlExecutor) => Promise<T>, lock: string): Promise<T>;
  /** StoreUnavailableError for an outage (unreachable, busy past its timeout, I/O); other errors as they are. */
  toOutage(store: StoreName, err: unknown): unknown;
  close(): Promise<void>;
}

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);

/**
 * Applies the dialect's pending migrations (./migrations/<dialect>/NNN_name.sql) in one transaction under
 * the migration lock, recorded in schema_migrations: instances starting together apply each one once.
 */
export async function runMigrations(
  driver: SqlDriver,
  lockName: string,
  before?: (tx: SqlExecutor) => Promise<void>,
): Promise<void> {
  const dir = new URL(`${driver.dialect}/`, MIGRATIONS_DIR);
  const files = (await readdir(dir)).filter((f) => f.endsWith('.sql')).sort();
  const migrations = await Promise.all(
    files.map(async (f) => ({ version: f.replace(/\.sql$/, ''), sql: await readFile(new URL(f, dir), 'utf8') })),
  );
  await driver.transaction(async (tx) => {
    await before?.(tx);
    await tx.exec(
      'CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT CURRENT_TIMESTAMP)',
    );
    const applied = new Set(
      (await tx.query<{ version: string }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version),
    );
    for (const m of migrations) {
      if (applied.has(m.version)) continue;
      await tx.exec(m.sql);
      await tx.query('INSERT INTO schema_migrations (version) VALUES ($1)', [m.version]);
    }
  }, lockName);
}

export interface SqlStoresOptions {
  now?: Clock;
  leaseMs?: number;
  ttlMs?: number;
  /** Told, after the commit, the hashes of the keys a revoke or create changed (this process's key cache). */
  onKeysChanged?: (hashes: readonly string[]) => void;
}

export interface SqlStores {
  keys: KeyStore;
  idempotency: IdempotencyStore;
  /** One statement as the key store runs it (ready first, outages as StoreUnavailableError): for change feeds. */
  query<R = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<SqlResult<R>>;
  health(): Promise<boolean>;
  close(): Promise<void>;
}

/** Runs one operation of a store: ready first, a closed store or an outage as StoreUnavailableError. */
export type SqlRun = <T>(store: StoreName, op: () => Promise<T>) => Promise<T>;

/**
 * The key and idempotency stores over a driver. `ready()` runs before every operation (migrations, and for
 * the embedded store the one-time import of the former files); it should be cheap once done and retry
 * after a failure, so a store started without its database recovers by itself.
 */
export function createSqlStores(
  driver: SqlDriver,
  ready: () => Promise<void>,
  options: SqlStoresOptions = {},
): SqlStores {
  const now = options.now ?? Date.now;
  let closed = false;
  const run: SqlRun = async (store, op) => {
    if (closed) throw new StoreUnavailableError(store, `${driver.dialect} store closed`);
    try {
      await ready();
      return await op();
    } catch (err) {
      if (err instanceof KeyExistsError || err instanceof StoreInputError) throw err;
      throw driver.toOutage(store, err);
    }
  };
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed = true;
    closing ??= (async () => {
      await idempotency.settled();
      await driver.close();
    })();
    return closing;
  };
  const keys = sqlKeyStore(driver, run, {
    now,
    close,
    ...(options.onKeysChanged ? { onKeysChanged: options.onKeysChanged } : {}),
  });
  const idempotency = sqlIdempotencyStore(driver, run, {
    now,
    leaseMs: options.leaseMs ?? IDEMPOTENCY_LEASE_MS,
    ttlMs: options.ttlMs ?? IDEMPOTENCY_TTL_MS,
    close,
  });
  return {
    keys,
    idempotency: idempotency.store,
    query: (sql, params) => run('keys', () => driver.query(sql, params)),
    async health() {
      try {
        await run('keys', () => driver.query('SELECT 1 AS one'));
        return true;
      } catch {
        return false;
      }
    },
    close,
  };
}
