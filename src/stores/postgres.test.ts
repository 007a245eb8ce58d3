// What only the PostgreSQL store must prove: migrations on start, safe when instances start together, and
// purging of expired idempotency records.
import { readdir } from 'node:fs/promises';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createPostgresStores, type PostgresStores } from './postgres.ts';
import { dropSchema, manualClock, pgQuery, pgUrl, uniqueName } from '../../test-support/stores/backends.ts';
import { closedPort } from '../../test-support/stores/tcp-proxy.ts';
import { IDEMPOTENCY_TTL_MS, StoreUnavailableError } from './types.ts';

const schema = uniqueName('cv_pg');
const opened: PostgresStores[] = [];
const open = (now?: () => number) => {
  const s = createPostgresStores({ connectionString: pgUrl(), schema, ...(now ? { now } : {}) });
  opened.push(s);
  return s;
};
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
  await dropSchema(schema);
});

describe('postgres migrations', () => {
  it('four instances starting together on an empty schema apply each migration once', async () => {
    const instances = Array.from({ length: 4 }, () => open());
    await Promise.all(instances.map((s) => s.migrate()));
    const files = (await readdir(new URL('./migrations/postgres/', import.meta.url)))
      .filter((f) => f.endsWith('.sql'))
      .sort();
    const rows = await pgQuery<{ version: string }>(schema, 'SELECT version FROM schema_migrations ORDER BY version');
    expect(rows.map((r) => r.version)).toEqual(files.map((f) => f.replace(/\.sql$/, '')));
    const tables = await pgQuery<{ table_name: string }>(
      schema,
      `SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name`,
      [schema],
    );
    expect(tables.map((t) => t.table_name)).toEqual([
      'api_keys',
      'did_index',
      'did_index_progress',
      'idempotency_records',
      'registrar_jobs',
      'schema_migrations',
    ]);
  });

  it('running them again changes nothing', async () => {
    await open().migrate();
    const files = (await readdir(new URL('./migrations/postgres/', import.meta.url))).filter((f) => f.endsWith('.sql'));
    const rows = await pgQuery(schema, 'SELECT version FROM schema_migrations');
    expect(rows).toHaveLength(files.length);
  });

  it('the database refuses a second usable key for one wallet and network, even without the store', async () => {
    const insert = (id: string) =>
      pgQuery(
        schema,
        `INSERT INTO api_keys (key_id, key_hash, wallet_address, network, role, created_at) VALUES ($1, $1, 'GDUP', 'testnet', 'standard', now())`,
        [id],
      );
    await insert('dup-1');
    await expect(insert('dup-2')).rejects.toThrow(/api_keys_one_per_wallet/);
  });
});

describe('postgres unreachable at start', () => {
  it('reports the failed start-time migration through onError; first use migrates again', async () => {
    const port = await closedPort();
    let report!: (err: Error) => void;
    const reported = new Promise<Error>((resolve) => (report = resolve));
    const onError = vi.fn((err: Error) => report(err));
    const store = createPostgresStores({ connectionString: pgUrl(port), schema, onError });
    opened.push(store);
    const err = await reported;
    expect(err.message).toMatch(
      /^postgres migrations at start failed \(retried on first use\): keys store unavailable: postgres: .*ECONNREFUSED/,
    );
    expect(onError).toHaveBeenCalledTimes(1);
    // The first use runs the migrations again, and fails as an outage while the server is away.
    await expect(store.keys.list()).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});

describe('postgres idempotency purge', () => {
  it('deletes expired records on a later begin()', async () => {
    const clock = manualClock();
    const store = open(clock.now);
    const first = await store.idempotency.begin({ scope: 's', key: 'old', requestHash: 'h' });
    await store.idempotency.complete('s', 'old', (first as { token: string }).token, {
      status: 200,
      headers: {},
      body: {},
    });
    clock.advance(IDEMPOTENCY_TTL_MS + 60_000);
    await store.idempotency.begin({ scope: 's', key: 'new', requestHash: 'h' });
    await store.close(); // waits for the background purge
    const rows = await pgQuery<{ key: string }>(schema, `SELECT key FROM idempotency_records WHERE scope = 's'`);
    expect(rows.map((r) => r.key)).toEqual(['new']);
  });
});
