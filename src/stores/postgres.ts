// The PostgreSQL driver of the SQL store (./sql.ts): keys and idempotency records shared by many
// instances. Migrations in ./migrations/postgres run on start (and again on first use if the database was
// down then), in one transaction under an advisory lock, recorded in schema_migrations. Queries fail fast
// when the database is unreachable (StoreUnavailableError) and the pool reconnects by itself when it returns.
import pg from 'pg';
import type { PoolClient } from 'pg';
import type { OpenKeyChangeFeed } from './key-cache.ts';
import { listenKeyChanges } from './postgres-key-changes.ts';
import { createSqlStores, runMigrations, type SqlDriver, type SqlExecutor, type SqlStores } from './sql.ts';
import { StoreUnavailableError, type IdempotencyStore, type KeyStore, type StoreName } from './types.ts';
import type { Clock } from '../domain.ts';

const SCHEMA_RE = /^[a-z_][a-z0-9_]{0,62}$/;

export interface PostgresStoresOptions {
  connectionString: string;
  /** Schema for the tables (created if missing); default: the connection's search_path (public). */
  schema?: string;
  now?: Clock;
  /** Time to open a connection before failing (default 1500 ms). */
  connectionTimeoutMillis?: number;
  /** Client-side limit on one query, so a silent network fails too (default 5000 ms). */
  queryTimeoutMillis?: number;
  /** Pool size (default 10). */
  max?: number;
  leaseMs?: number;
  ttlMs?: number;
  /** Told the hashes of the keys a revoke or create of this process changed (after the commit). */
  onKeysChanged?: (hashes: readonly string[]) => void;
  /** How long the key change listener waits for its own ping before it reconnects (default 3000 ms). */
  keyPingTimeoutMs?: number;
  /**
   * Told about errors of idle connections (they are dropped and replaced either way) and about migrations
   * that fail at start (they run again on first use).
   */
  onError?: (err: Error) => void;
}

export interface PostgresStores {
  keys: KeyStore;
  idempotency: IdempotencyStore;
  /** Runs pending migrations; called on start and before the first query. */
  migrate(): Promise<void>;
  /** The changes of the keys committed by any instance (LISTEN/NOTIFY), for a key cache (./key-cache.ts). */
  keyChanges: OpenKeyChangeFeed;
  /** One statement, migrations first, outages as StoreUnavailableError (the registrar's jobs, the DID index). */
  query: SqlStores['query'];
  health(): Promise<boolean>;
  close(): Promise<void>;
}

/** SQLSTATE classes that mean the server cannot serve now: connection, resources, operator intervention. */
const OUTAGE_CLASSES: ReadonlySet<string> = new Set(['08', '53', '57']);

/** Network errors, timeouts and server-unavailable states are outages; other SQL errors are bugs. */
function isOutage(err: unknown): boolean {
  const e = err as { severity?: unknown; code?: unknown };
  if (e && typeof e === 'object' && typeof e.severity === 'string' && typeof e.code === 'string') {
    return OUTAGE_CLASSES.has(e.code.slice(0, 2));
  }
  return true;
}

function toOutage(store: StoreName, err: unknown): unknown {
  if (err instanceof StoreUnavailableError || !isOutage(err)) return err;
  return new StoreUnavailableError(store, `postgres: ${(err as Error).message}`, { cause: err });
}

const executor = (q: pg.Pool | PoolClient): SqlExecutor => ({
  async query<R>(sql: string, params: readonly unknown[] = []) {
    const result = await q.query(sql, params as unknown[]);
    return { rows: result.rows as R[], rowCount: result.rowCount ?? result.rows.length };
  },
  async exec(sql: string) {
    await q.query(sql);
  },
});

/**
 * The driver over a pool: transactions take an advisory lock named by the caller; closing waits for the migration
 * under way (`migrating()`), then ends the pool.
 */
function postgresDriver(pool: pg.Pool, migrating: () => Promise<void> | undefined): SqlDriver {
  return {
    dialect: 'postgres',
    ...executor(pool),
    async transaction(fn, lock) {
      const client = await pool.connect();
      let broken: Error | undefined;
      try {
        await client.query('BEGIN');
        await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [lock]);
        const result = await fn(executor(client));
        await client.query('COMMIT');
        return result;
      } catch (err) {
        await client.query('ROLLBACK').catch((e: Error) => (broken = e));
        throw err;
      } finally {
        client.release(broken);
      }
    },
    toOutage,
    async close() {
      await migrating()?.catch(() => undefined);
      await pool.end();
    },
  };
}

export function createPostgresStores(options: PostgresStoresOptions): PostgresStores {
  const schema = options.schema;
  if (schema !== undefined && !SCHEMA_RE.test(schema)) throw new RangeError(`invalid schema name ${schema}`);

  const connection = {
    connectionString: options.connectionString,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 1500,
    query_timeout: options.queryTimeoutMillis ?? 5000,
    keepAlive: true,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  };
  const pool = new pg.Pool({ ...connection, idleTimeoutMillis: 10_000, max: options.max ?? 10 });
  // An idle connection that dies emits here; without a listener the process would crash.
  pool.on('error', (err) => options.onError?.(err));

  let migrated: Promise<void> | undefined;
  const driver = postgresDriver(pool, () => migrated);

  // Two instances starting together: the second waits on the migration lock, then finds everything applied.
  const migrate = (): Promise<void> => {
    migrated ??= runMigrations(driver, `credential-vault:migrate:${schema ?? ''}`, async (tx) => {
      if (schema) await tx.exec(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    }).catch((err: unknown) => {
      migrated = undefined;
      throw err;
    });
    return migrated;
  };

  const stores = createSqlStores(driver, migrate, options);
  let closed = false;
  const close = () => {
    closed = true;
    return stores.close();
  };

  // Reported, not thrown: the process starts without its database, and the first use migrates again.
  void migrate().catch((err: unknown) => {
    if (closed) return;
    const why = (toOutage('keys', err) as Error)?.message ?? String(err);
    options.onError?.(new Error(`postgres migrations at start failed (retried on first use): ${why}`, { cause: err }));
  });

  const keyChanges: OpenKeyChangeFeed = (sink, clock) =>
    listenKeyChanges({
      client: () => new pg.Client(connection),
      ready: migrate,
      sink,
      clock,
      pingTimeoutMs: options.keyPingTimeoutMs ?? 3000,
      onError: (err) => {
        if (!closed) options.onError?.(err);
      },
    });

  return {
    keys: { ...stores.keys, close },
    idempotency: { ...stores.idempotency, close },
    keyChanges,
    query: stores.query,
    migrate: () => migrate().catch((err: unknown) => Promise.reject(toOutage('keys', err))),
    health: stores.health,
    close,
  };
}
