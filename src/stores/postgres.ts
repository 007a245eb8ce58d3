// Keys and idempotency records in PostgreSQL, shared by many instances. Migrations in ./migrations run
// on start (and again on first use if the database was down then), in one transaction under an advisory
// lock, recorded in schema_migrations. Queries fail fast when the database is unreachable
// (StoreUnavailableError) and the pool reconnects by itself when it returns.
import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import pg from 'pg';
import type { PoolClient } from 'pg';
import { checkBeginInput, hashKey, isReplayable, judge, lookupOf, mintKey } from './records.ts';
import {
  IDEMPOTENCY_LEASE_MS,
  IDEMPOTENCY_PURGE_EVERY_MS,
  IDEMPOTENCY_TTL_MS,
  KeyExistsError,
  StoreUnavailableError,
  type ApiKeyRecord,
  type BeginInput,
  type BeginResult,
  type IdempotencyStore,
  type KeyLookup,
  type KeyNetwork,
  type KeyRole,
  type KeyStore,
  type StoreName,
  type StoredResponse,
} from './types.ts';

const MIGRATIONS_DIR = new URL('./migrations/', import.meta.url);
const SCHEMA_RE = /^[a-z_][a-z0-9_]{0,62}$/;

export interface PostgresStoresOptions {
  connectionString: string;
  /** Schema for the tables (created if missing); default: the connection's search_path (public). */
  schema?: string;
  now?: () => number;
  /** Time to open a connection before failing (default 1500 ms). */
  connectionTimeoutMillis?: number;
  /** Client-side limit on one query, so a silent network fails too (default 5000 ms). */
  queryTimeoutMillis?: number;
  /** Pool size (default 10). */
  max?: number;
  leaseMs?: number;
  ttlMs?: number;
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
  health(): Promise<boolean>;
  close(): Promise<void>;
}

/** SQLSTATE classes that mean the server cannot serve now: connection, resources, operator intervention. */
const OUTAGE_CLASSES = new Set(['08', '53', '57']);

/** Network errors, timeouts and server-unavailable states are outages; other SQL errors are bugs. */
function isOutage(err: unknown): boolean {
  const e = err as { severity?: unknown; code?: unknown };
  if (e && typeof e === 'object' && typeof e.severity === 'string' && typeof e.code === 'string') {
    return OUTAGE_CLASSES.has(e.code.slice(0, 2));
  }
  return true;
}

function toOutage(store: StoreName, err: unknown): unknown {
  if (err instanceof StoreUnavailableError || err instanceof KeyExistsError || !isOutage(err)) return err;
  return new StoreUnavailableError(store, `postgres: ${(err as Error).message}`, { cause: err });
}

interface KeyRow {
  key_id: string;
  key_hash: string;
  wallet_address: string | null;
  network: KeyNetwork;
  role: KeyRole;
  scopes: string[];
  created_at: Date;
  expires_at: Date | null;
  revoked_at: Date | null;
}

function fromRow(row: KeyRow): ApiKeyRecord {
  return {
    keyId: row.key_id,
    keyHash: row.key_hash,
    walletAddress: row.wallet_address,
    network: row.network,
    role: row.role,
    scopes: row.scopes,
    createdAt: row.created_at.toISOString(),
    expiresAt: row.expires_at ? row.expires_at.toISOString() : null,
    revokedAt: row.revoked_at ? row.revoked_at.toISOString() : null,
  };
}

async function pendingMigrations(): Promise<{ version: string; sql: string }[]> {
  const files = (await readdir(MIGRATIONS_DIR)).filter((f) => f.endsWith('.sql')).sort();
  return Promise.all(
    files.map(async (f) => ({ version: f.replace(/\.sql$/, ''), sql: await readFile(new URL(f, MIGRATIONS_DIR), 'utf8') })),
  );
}

export function createPostgresStores(options: PostgresStoresOptions): PostgresStores {
  const now = options.now ?? Date.now;
  const leaseMs = options.leaseMs ?? IDEMPOTENCY_LEASE_MS;
  const ttlMs = options.ttlMs ?? IDEMPOTENCY_TTL_MS;
  const schema = options.schema;
  if (schema !== undefined && !SCHEMA_RE.test(schema)) throw new RangeError(`invalid schema name ${schema}`);

  const pool = new pg.Pool({
    connectionString: options.connectionString,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 1500,
    query_timeout: options.queryTimeoutMillis ?? 5000,
    idleTimeoutMillis: 10_000,
    max: options.max ?? 10,
    keepAlive: true,
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // An idle connection that dies emits here; without a listener the process would crash.
  pool.on('error', (err) => options.onError?.(err));

  let closed = false;
  let migrated: Promise<void> | undefined;
  const migrate = (): Promise<void> => {
    migrated ??= runMigrations().catch((err: unknown) => {
      migrated = undefined;
      throw err;
    });
    return migrated;
  };

  async function runMigrations(): Promise<void> {
    const migrations = await pendingMigrations();
    await transaction(async (client) => {
      // Two instances starting together: the second waits here, then finds everything applied.
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`credential-vault:migrate:${schema ?? ''}`]);
      if (schema) await client.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
      await client.query(
        'CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
      );
      const applied = new Set(
        (await client.query<{ version: string }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version),
      );
      for (const m of migrations) {
        if (applied.has(m.version)) continue;
        await client.query(m.sql);
        await client.query('INSERT INTO schema_migrations (version) VALUES ($1)', [m.version]);
      }
    });
  }

  async function transaction<T>(fn: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query('BEGIN');
      const result = await fn(client);
      await client.query('COMMIT');
      return result;
    } catch (err) {
      await client.query('ROLLBACK').catch((e: Error) => (broken = e));
      throw err;
    } finally {
      client.release(broken);
    }
  }

  /** Runs an operation after migrations, mapping outages to StoreUnavailableError. */
  async function run<T>(store: StoreName, op: () => Promise<T>): Promise<T> {
    if (closed) throw new StoreUnavailableError(store, 'postgres store closed');
    try {
      await migrate();
      return await op();
    } catch (err) {
      throw toOutage(store, err);
    }
  }

  /** One query on the unique key_hash index; the state is judged on the store's clock. */
  const lookup = async (key: string): Promise<KeyLookup | undefined> => {
    const hash = hashKey(key);
    if (hash === undefined) return undefined;
    const { rows } = await run('keys', () => pool.query<KeyRow>('SELECT * FROM api_keys WHERE key_hash = $1', [hash]));
    return lookupOf(rows[0] && fromRow(rows[0]), now());
  };

  const keys: KeyStore = {
    async create(input, createOptions) {
      const created = mintKey(input, now());
      const r = created.record;
      await run('keys', () =>
        transaction(async (client) => {
          if (r.walletAddress !== null) {
            // Every create of this wallet and network waits here: the check below and the insert are atomic.
            await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`credential-vault:key:${r.network}:${r.walletAddress}`]);
            if (createOptions?.ifNoActiveKey) {
              const held = await client.query(
                `SELECT 1 FROM api_keys WHERE wallet_address = $1 AND network = $2 AND revoked_at IS NULL
                 AND (expires_at IS NULL OR expires_at > $3) LIMIT 1`,
                [r.walletAddress, r.network, r.createdAt],
              );
              if (held.rows.length > 0) throw new KeyExistsError(r.walletAddress, r.network);
            }
            await client.query(
              'UPDATE api_keys SET revoked_at = $3 WHERE wallet_address = $1 AND network = $2 AND revoked_at IS NULL',
              [r.walletAddress, r.network, r.createdAt],
            );
          }
          await client.query(
            `INSERT INTO api_keys (key_id, key_hash, wallet_address, network, role, scopes, created_at, expires_at, revoked_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL)`,
            [r.keyId, r.keyHash, r.walletAddress, r.network, r.role, r.scopes, r.createdAt, r.expiresAt],
          );
        }),
      );
      return created;
    },
    async findByKey(key) {
      const found = await lookup(key);
      return found?.state === 'active' ? found.record : undefined;
    },
    lookup,
    async list(filter = {}) {
      const { rows } = await run('keys', () =>
        pool.query<KeyRow>(
          `SELECT * FROM api_keys WHERE ($1::text IS NULL OR network = $1) AND ($2 OR revoked_at IS NULL)
           ORDER BY created_at, key_id`,
          [filter.network ?? null, filter.includeRevoked ?? false],
        ),
      );
      return rows.map(fromRow);
    },
    async revoke(keyId) {
      const result = await run('keys', () =>
        pool.query('UPDATE api_keys SET revoked_at = $2 WHERE key_id = $1 AND revoked_at IS NULL', [
          keyId,
          new Date(now()).toISOString(),
        ]),
      );
      return (result.rowCount ?? 0) > 0;
    },
    close: () => close(),
  };

  let lastPurge = -Infinity;
  let purging: Promise<unknown> = Promise.resolve();
  const purgeExpired = (t: number) => {
    if (t - lastPurge < IDEMPOTENCY_PURGE_EVERY_MS) return;
    lastPurge = t;
    purging = pool.query('DELETE FROM idempotency_records WHERE expires_at_ms <= $1', [t]).catch(() => undefined);
  };

  const idempotency: IdempotencyStore = {
    async begin(input: BeginInput): Promise<BeginResult> {
      checkBeginInput(input);
      const t = input.now ?? now();
      return run('idempotency', async () => {
        purgeExpired(t);
        // Atomic: a new key, or an expired record (lapsed lease, or replay older than the TTL), is
        // claimed by exactly one caller; everyone else reads the live record.
        for (let attempt = 0; attempt < 5; attempt++) {
          const claimed = await pool.query(
            `INSERT INTO idempotency_records AS r (scope, key, request_hash, token, state, response, created_at_ms, expires_at_ms)
             VALUES ($1, $2, $3, $4, 'in_progress', NULL, $5, $6)
             ON CONFLICT (scope, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, token = EXCLUDED.token,
               state = 'in_progress', response = NULL, created_at_ms = EXCLUDED.created_at_ms,
               expires_at_ms = EXCLUDED.expires_at_ms
             WHERE r.expires_at_ms <= $5
             RETURNING token`,
            [input.scope, input.key, input.requestHash, randomUUID(), t, t + leaseMs],
          );
          const row = claimed.rows[0] as { token: string } | undefined;
          if (row) return { state: 'started', token: row.token };
          const live = await pool.query<{ request_hash: string; state: 'in_progress' | 'completed'; response: string | null; expires_at_ms: string }>(
            'SELECT request_hash, state, response, expires_at_ms FROM idempotency_records WHERE scope = $1 AND key = $2',
            [input.scope, input.key],
          );
          const rec = live.rows[0];
          // Released or expired between the two statements: claim again.
          if (!rec || Number(rec.expires_at_ms) <= t) continue;
          return judge({ requestHash: rec.request_hash, state: rec.state, response: rec.response ?? undefined }, input.requestHash);
        }
        return { state: 'in_progress' };
      });
    },
    async complete(scope: string, key: string, token: string, response: StoredResponse) {
      const result = await run('idempotency', () =>
        isReplayable(response)
          ? pool.query(
              `UPDATE idempotency_records SET state = 'completed', response = $4, expires_at_ms = $5
               WHERE scope = $1 AND key = $2 AND token = $3 AND state = 'in_progress'`,
              [scope, key, token, JSON.stringify(response), now() + ttlMs],
            )
          : pool.query(
              `DELETE FROM idempotency_records WHERE scope = $1 AND key = $2 AND token = $3 AND state = 'in_progress'`,
              [scope, key, token],
            ),
      );
      return (result.rowCount ?? 0) > 0;
    },
    async release(scope: string, key: string, token: string) {
      await run('idempotency', () =>
        pool.query(`DELETE FROM idempotency_records WHERE scope = $1 AND key = $2 AND token = $3 AND state = 'in_progress'`, [
          scope,
          key,
          token,
        ]),
      );
    },
    close: () => close(),
  };

  let closing: Promise<void> | undefined;
  function close(): Promise<void> {
    closed = true;
    closing ??= (async () => {
      await purging;
      await migrated?.catch(() => undefined);
      await pool.end();
    })();
    return closing;
  }

  // Reported, not thrown: the process starts without its database, and run() migrates again on first use.
  void migrate().catch((err: unknown) => {
    if (closed) return;
    const why = (toOutage('keys', err) as Error)?.message ?? String(err);
    options.onError?.(new Error(`postgres migrations at start failed (retried on first use): ${why}`, { cause: err }));
  });

  return {
    keys,
    idempotency,
    migrate: () => migrate().catch((err: unknown) => Promise.reject(toOutage('keys', err))),
    async health() {
      try {
        await run('keys', () => pool.query('SELECT 1'));
        return true;
      } catch {
        return false;
      }
    },
    close,
  };
}
