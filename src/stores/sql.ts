// Keys and idempotency records as one SQL store with two drivers: SQLite embedded (./sqlite.ts, the
// default, in the data directory) and PostgreSQL shared (./postgres.ts). The statements and the rules are
// written once here in the subset both dialects speak (`$n` parameters, `INSERT … ON CONFLICT … DO UPDATE
// … WHERE … RETURNING`); a driver supplies connections, transactions under a named write lock, its own
// migrations (./migrations/<dialect>/) and the mapping of its errors to outages.
import { randomUUID } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { checkBeginInput, hashKey, isReplayable, judge, lookupOf, mintKey } from './records.ts';
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
  type IdempotencyStore,
  type KeyLookup,
  type KeyStore,
  type StoreName,
  type StoredResponse,
} from './types.ts';
import type { Clock, KeyRole, Network, Scope } from '../domain.ts';

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

interface KeyRow {
  key_id: string;
  key_hash: string;
  wallet_address: string | null;
  network: Network;
  role: KeyRole;
  /** text[] (PostgreSQL) or JSON text (SQLite). */
  scopes: Scope[] | string;
  /** timestamptz (PostgreSQL) or ISO-8601 text (SQLite). */
  created_at: Date | string;
  expires_at: Date | string | null;
  revoked_at: Date | string | null;
}

const iso = (v: Date | string): string => (v instanceof Date ? v : new Date(v)).toISOString();

function fromRow(row: KeyRow): ApiKeyRecord {
  return {
    keyId: row.key_id,
    keyHash: row.key_hash,
    walletAddress: row.wallet_address,
    network: row.network,
    role: row.role,
    scopes: Array.isArray(row.scopes) ? row.scopes : (JSON.parse(row.scopes) as Scope[]),
    createdAt: iso(row.created_at),
    expiresAt: row.expires_at === null ? null : iso(row.expires_at),
    revokedAt: row.revoked_at === null ? null : iso(row.revoked_at),
  };
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
  const leaseMs = options.leaseMs ?? IDEMPOTENCY_LEASE_MS;
  const ttlMs = options.ttlMs ?? IDEMPOTENCY_TTL_MS;
  let closed = false;
  const changed = (rows: readonly { key_hash: string }[]) => {
    if (rows.length > 0) options.onKeysChanged?.(rows.map((r) => r.key_hash));
  };

  async function run<T>(store: StoreName, op: () => Promise<T>): Promise<T> {
    if (closed) throw new StoreUnavailableError(store, `${driver.dialect} store closed`);
    try {
      await ready();
      return await op();
    } catch (err) {
      if (err instanceof KeyExistsError || err instanceof StoreInputError) throw err;
      throw driver.toOutage(store, err);
    }
  }

  /** One query on the unique key_hash index; the state is judged on the store's clock. */
  const lookup = async (key: string): Promise<KeyLookup | undefined> => {
    const hash = hashKey(key);
    if (hash === undefined) return undefined;
    const { rows } = await run('keys', () =>
      driver.query<KeyRow>('SELECT * FROM api_keys WHERE key_hash = $1', [hash]),
    );
    return lookupOf(rows[0] && fromRow(rows[0]), now());
  };

  const keys: KeyStore = {
    async create(input, createOptions) {
      const created = mintKey(input, now());
      const r = created.record;
      // Every create of this wallet and network takes the same lock: the check and the insert are atomic.
      const replaced = await run('keys', () =>
        driver.transaction(
          async (tx) => {
            let replaced: SqlResult<{ key_hash: string }> | undefined;
            if (r.walletAddress !== null) {
              if (createOptions?.ifNoActiveKey) {
                const held = await tx.query(
                  `SELECT 1 AS held FROM api_keys WHERE wallet_address = $1 AND network = $2 AND revoked_at IS NULL
                 AND (expires_at IS NULL OR expires_at > $3) LIMIT 1`,
                  [r.walletAddress, r.network, r.createdAt],
                );
                if (held.rows.length > 0) throw new KeyExistsError(r.walletAddress, r.network);
              }
              replaced = await tx.query<{ key_hash: string }>(
                `UPDATE api_keys SET revoked_at = $3 WHERE wallet_address = $1 AND network = $2 AND revoked_at IS NULL
               RETURNING key_hash`,
                [r.walletAddress, r.network, r.createdAt],
              );
            }
            await tx.query(
              `INSERT INTO api_keys (key_id, key_hash, wallet_address, network, role, scopes, created_at, expires_at, revoked_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL)`,
              [r.keyId, r.keyHash, r.walletAddress, r.network, r.role, r.scopes, r.createdAt, r.expiresAt],
            );
            return replaced?.rows ?? [];
          },
          `credential-vault:key:${r.network}:${r.walletAddress ?? ''}`,
        ),
      );
      changed(replaced);
      return created;
    },
    async findByKey(key) {
      const found = await lookup(key);
      return found?.state === 'active' ? found.record : undefined;
    },
    lookup,
    async list(filter = {}) {
      const where: string[] = [];
      const params: unknown[] = [];
      if (filter.network !== undefined) where.push(`network = $${params.push(filter.network)}`);
      if (!filter.includeRevoked) where.push('revoked_at IS NULL');
      const sql = `SELECT * FROM api_keys ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at, key_id`;
      const { rows } = await run('keys', () => driver.query<KeyRow>(sql, params));
      return rows.map(fromRow);
    },
    async revoke(keyId) {
      const result = await run('keys', () =>
        driver.query<{ key_hash: string }>(
          'UPDATE api_keys SET revoked_at = $2 WHERE key_id = $1 AND revoked_at IS NULL RETURNING key_hash',
          [keyId, new Date(now()).toISOString()],
        ),
      );
      changed(result.rows);
      return result.rows.length > 0;
    },
    close: () => close(),
  };

  let lastPurge = -Infinity;
  let purging: Promise<unknown> = Promise.resolve();
  const purgeExpired = (t: number) => {
    if (t - lastPurge < IDEMPOTENCY_PURGE_EVERY_MS) return;
    lastPurge = t;
    purging = driver.query('DELETE FROM idempotency_records WHERE expires_at_ms <= $1', [t]).catch(() => undefined);
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
          const claimed = await driver.query<{ token: string }>(
            `INSERT INTO idempotency_records AS r (scope, key, request_hash, token, state, response, created_at_ms, expires_at_ms)
             VALUES ($1, $2, $3, $4, 'in_progress', NULL, $5, $6)
             ON CONFLICT (scope, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, token = EXCLUDED.token,
               state = 'in_progress', response = NULL, created_at_ms = EXCLUDED.created_at_ms,
               expires_at_ms = EXCLUDED.expires_at_ms
             WHERE r.expires_at_ms <= $5
             RETURNING token`,
            [input.scope, input.key, input.requestHash, randomUUID(), t, t + leaseMs],
          );
          const row = claimed.rows[0];
          if (row) return { state: 'started', token: row.token };
          const live = await driver.query<{
            request_hash: string;
            state: 'in_progress' | 'completed';
            response: string | null;
            expires_at_ms: string | number;
          }>(
            'SELECT request_hash, state, response, expires_at_ms FROM idempotency_records WHERE scope = $1 AND key = $2',
            [input.scope, input.key],
          );
          const rec = live.rows[0];
          // Released or expired between the two statements: claim again.
          if (!rec || Number(rec.expires_at_ms) <= t) continue;
          return judge(
            { requestHash: rec.request_hash, state: rec.state, response: rec.response ?? undefined },
            input.requestHash,
          );
        }
        return { state: 'in_progress' };
      });
    },
    async complete(scope: string, key: string, token: string, response: StoredResponse) {
      const result = await run('idempotency', () =>
        isReplayable(response)
          ? driver.query(
              `UPDATE idempotency_records SET state = 'completed', response = $4, expires_at_ms = $5
               WHERE scope = $1 AND key = $2 AND token = $3 AND state = 'in_progress'`,
              [scope, key, token, JSON.stringify(response), now() + ttlMs],
            )
          : driver.query(
              `DELETE FROM idempotency_records WHERE scope = $1 AND key = $2 AND token = $3 AND state = 'in_progress'`,
              [scope, key, token],
            ),
      );
      return result.rowCount > 0;
    },
    async release(scope: string, key: string, token: string) {
      await run('idempotency', () =>
        driver.query(
          `DELETE FROM idempotency_records WHERE scope = $1 AND key = $2 AND token = $3 AND state = 'in_progress'`,
          [scope, key, token],
        ),
      );
    },
    close: () => close(),
  };

  let closing: Promise<void> | undefined;
  function close(): Promise<void> {
    closed = true;
    closing ??= (async () => {
      await purging;
      await driver.close();
    })();
    return closing;
  }

  return {
    keys,
    idempotency,
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
