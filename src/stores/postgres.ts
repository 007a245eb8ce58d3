// The PostgreSQL driver of the SQL store (./sql.ts): keys and idempotency records shared by many
// instances. Migrations in ./migrations/postgres run on start (and again on first use if the database was
// down then), in one transaction under an advisory lock, recorded in schema_migrations. Queries fail fast
// when the database is unreachable (StoreUnavailableError) and the pool reconnects by itself when it returns.
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import type { PoolClient } from 'pg';
import type { KeyChangeFeed, KeyChangeSink, OpenKeyChangeFeed } from './key-cache.ts';
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
  const driver: SqlDriver = {
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
      await migrated?.catch(() => undefined);
      await pool.end();
    },
  };

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

/** The channel the key triggers of a schema announce on (migrations/postgres/002_key_changes.sql). */
export const keyChannel = (schema: string): string => `cv_keys_${createHash('md5').update(schema).digest('hex')}`;

interface ListenOptions {
  /** A new, unconnected client with the pool's settings (schema included). */
  client: () => pg.Client;
  /** Migrations, so that the triggers exist before listening. */
  ready: () => Promise<void>;
  sink: KeyChangeSink;
  clock: Clock;
  pingTimeoutMs: number;
  onError: (err: Error) => void;
}

/**
 * Key changes from LISTEN on a dedicated connection. Notifications of different transactions arrive in
 * commit order, so when this connection's own ping (a NOTIFY on the same channel) comes back, every change
 * committed before the ping was sent has been delivered: the watermark is the send time of the last ping
 * that returned. A lost connection drops the watermark at once and reconnects at the next refresh (backoff
 * up to 1 s); a ping unanswered for `pingTimeoutMs` means a silent network, and the connection is replaced.
 * Every (re)connection clears the cache: what happened while nobody listened is unknown.
 */
function listenKeyChanges(o: ListenOptions): KeyChangeFeed {
  /** Tells this connection's pings from other instances' on the shared channel. */
  const token = randomBytes(6).toString('hex');
  let client: pg.Client | undefined;
  let channel = '';
  let connecting: Promise<void> | undefined;
  let failures = 0;
  let retryAt = -Infinity;
  let watermark = -Infinity;
  let pingSeq = 0;
  /** Pings sent and not yet back: sequence → send time. */
  const pings = new Map<number, number>();
  let closed = false;

  const lost = (c: pg.Client, err?: Error) => {
    if (client !== c) return;
    client = undefined;
    watermark = -Infinity;
    pings.clear();
    retryAt = o.clock() + 100;
    void c.end().catch(() => undefined);
    if (err) o.onError(new Error(`key change listener lost its connection: ${err.message}`, { cause: err }));
  };

  const onNotification = (c: pg.Client, msg: pg.Notification) => {
    if (client !== c || msg.channel !== channel) return;
    const payload = msg.payload ?? '';
    if (payload.startsWith('ping:')) {
      const mine = `ping:${token}:`;
      if (!payload.startsWith(mine)) return;
      const seq = Number(payload.slice(mine.length));
      const sentAt = pings.get(seq);
      if (sentAt === undefined) return;
      for (const n of pings.keys()) if (n <= seq) pings.delete(n);
      watermark = Math.max(watermark, sentAt);
    } else if (payload === '*') o.sink.clear();
    else o.sink.evict([payload]);
  };

  const ping = (c: pg.Client) => {
    const seq = ++pingSeq;
    pings.set(seq, o.clock());
    c.query('SELECT pg_notify($1, $2)', [channel, `ping:${token}:${seq}`]).catch((err: Error) => lost(c, err));
  };

  const connect = async () => {
    const c = o.client();
    c.on('error', (err) => lost(c, err));
    c.on('end', () => lost(c, new Error('connection ended')));
    c.on('notification', (msg) => onNotification(c, msg));
    try {
      await o.ready();
      await c.connect();
      const { rows } = await c.query<{ schema: string | null }>('SELECT current_schema() AS schema');
      const schema = rows[0]?.schema;
      if (!schema) throw new Error('no current schema');
      channel = keyChannel(schema);
      // Named so that an operator (or a test) can find this connection in pg_stat_activity.
      await c.query("SELECT set_config('application_name', $1, false)", [`credential-vault keys ${channel}`]);
      await c.query(`LISTEN ${channel}`);
      if (closed) throw new Error('closed');
      client = c;
      failures = 0;
      o.sink.clear();
      ping(c);
    } catch (err) {
      failures++;
      retryAt = o.clock() + Math.min(1000, 50 * 2 ** failures);
      void c.end().catch(() => undefined);
      const why = (err as Error).message;
      if (!closed) o.onError(new Error(`key change listener cannot connect: ${why}`, { cause: err }));
    }
  };

  return {
    watermark: () => watermark,
    refresh() {
      if (closed) return;
      const c = client;
      if (!c) {
        if (!connecting && o.clock() >= retryAt) {
          connecting = connect().finally(() => {
            connecting = undefined;
          });
        }
        return;
      }
      const oldest = pings.values().next().value;
      if (oldest === undefined) ping(c);
      else if (o.clock() - oldest > o.pingTimeoutMs) lost(c, new Error(`no answer to a ping in ${o.pingTimeoutMs} ms`));
    },
    async close() {
      closed = true;
      await connecting;
      const c = client;
      client = undefined;
      watermark = -Infinity;
      await c?.end().catch(() => undefined);
    },
  };
}
