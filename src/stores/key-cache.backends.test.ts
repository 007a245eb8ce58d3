// The key cache over the real backends, two instances at a time: a key revoked, replaced or changed through one
// instance (or another process, or by hand in SQL) is refused by the other, by the change feed at once or by
// the staleness bound at the latest; and the feed survives its connection being killed or going silent.
// Instance B's monotonic clock is the test's: while it stands still, B's cache stays fresh, so only the feed
// can make B read the store again; moving it past KEY_CACHE_MAX_STALENESS_MS proves the bound.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { LRUCache } from 'lru-cache';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { createStores } from './index.ts';
import {
  cachedKeyStore,
  KEY_CACHE_MAX_STALENESS_MS,
  KEY_CACHE_REFRESH_EVERY_MS,
  type OpenKeyChangeFeed,
} from './key-cache.ts';
import { keyChannel } from './postgres-key-changes.ts';
import { createPostgresStores } from './postgres.ts';
import { createSqliteStores, DB_FILE } from './sqlite.ts';
import type { ApiKeyRecord, CreateKeyInput, KeyState, KeyStore } from './types.ts';
import {
  PG_HOST,
  PG_PORT,
  dropSchema,
  pgQuery,
  pgUrl,
  tempDir,
  uniqueName,
} from '../../test-support/stores/backends.ts';
import { startTcpProxy } from '../../test-support/stores/tcp-proxy.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const schema = uniqueName('cv_keycache');
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await dropSchema(schema);
});

const input = (wallet: string): CreateKeyInput => ({
  walletAddress: wallet,
  network: 'testnet',
  role: 'standard',
  scopes: [],
  expiresAt: null,
});
/** Retries until the check passes: what the test waits for is the feed's doing, not a time. */
const eventually = (check: () => Promise<void>) => vi.waitFor(check, { timeout: 15_000, interval: 20 });

/** A key cache that counts the lookups it answered: whether an instance answers from memory. */
class CountingLru extends LRUCache<string, ApiKeyRecord> {
  hits = 0;
  override get(key: string): ApiKeyRecord | undefined {
    const found = super.get(key);
    if (found) this.hits++;
    return found;
  }
}

interface Instance {
  keys: KeyStore;
  /** Store reads of lookups so far. */
  reads(): number;
  advance(ms: number): void;
}

/** Instance B: a cache with the test's clock over `inner`, fed by `feed`, evicting its own changes. */
type Evict = (hashes: readonly string[]) => void;

function instanceB(inner: KeyStore, feed: OpenKeyChangeFeed, setEvict: (evict: Evict) => void): Instance {
  let mono = 0;
  let reads = 0;
  const counted: KeyStore = {
    ...inner,
    lookup: (key) => {
      reads++;
      return inner.lookup(key);
    },
  };
  const lru = new LRUCache<string, ApiKeyRecord>({ max: 100 });
  const keys = cachedKeyStore(counted, { lru, openFeed: feed, now: Date.now, clock: () => mono });
  setEvict(keys.evict);
  cleanups.push(() => keys.close());
  return { keys, reads: () => reads, advance: (ms) => (mono += ms) };
}

/** Moves B's clock by one refresh at a time until `key` is answered from memory (the feed is up and fresh). */
async function untilCached(b: Instance, key: string): Promise<void> {
  await eventually(async () => {
    b.advance(KEY_CACHE_REFRESH_EVERY_MS);
    await b.keys.lookup(key);
    // The ping's or the poll's round trip: lookups at this clock reading come from memory once it is back.
    await vi.waitFor(
      async () => {
        const before = b.reads();
        await b.keys.lookup(key);
        expect(b.reads()).toBe(before);
      },
      { timeout: 1000, interval: 10 },
    );
  });
}

const stateOf = async (b: Instance, key: string): Promise<KeyState | undefined> => (await b.keys.lookup(key))?.state;

describe('PostgreSQL: LISTEN/NOTIFY', () => {
  const instanceA = async () => {
    const { dir, remove } = await tempDir();
    const keyCache = new LRUCache<string, ApiKeyRecord>({ max: 100 });
    const a = createStores({ dataDir: dir, databaseUrl: pgUrl(), databaseSchema: schema, keyCache });
    cleanups.push(remove, () => a.close());
    return a;
  };
  const pgB = (connectionString = pgUrl()) => {
    let evict: Evict = () => {};
    const stores = createPostgresStores({ connectionString, schema, onKeysChanged: (h) => evict(h) });
    cleanups.push(() => stores.close());
    return { stores, setEvict: (e: Evict) => (evict = e) };
  };

  it('a key revoked, replaced or rescoped through A is refused by B as soon as the notification arrives', async () => {
    const a = await instanceA();
    const { stores, setEvict } = pgB();
    const b = instanceB(stores.keys, stores.keyChanges, setEvict);
    const revoked = await a.keys.create(input('GPGREVOKE'));
    const replaced = await a.keys.create(input('GPGREPLACE'));
    const rescoped = await a.keys.create(input('GPGRESCOPE'));
    for (const k of [revoked, replaced, rescoped]) await untilCached(b, k.key);
    // B's clock stands still from here: its cache stays fresh, only a notification makes it read again.
    await a.keys.revoke(revoked.record.keyId);
    await a.keys.create(input('GPGREPLACE'));
    // An operator changes a key by hand in SQL: the trigger announces it too.
    const rescope = `UPDATE api_keys SET scopes = '{credentials:read}' WHERE key_id = $1`;
    await pgQuery(schema, rescope, [rescoped.record.keyId]);
    await eventually(async () => {
      expect(await stateOf(b, revoked.key)).toBe('revoked');
      expect(await stateOf(b, replaced.key)).toBe('revoked');
      expect((await b.keys.lookup(rescoped.key))?.record.scopes).toEqual(['credentials:read']);
    });
  });

  it('the listener killed: B reads the store, reconnects, resubscribes and is fed again', async () => {
    const a = await instanceA();
    const { stores, setEvict } = pgB();
    const b = instanceB(stores.keys, stores.keyChanges, setEvict);
    const first = await a.keys.create(input('GPGKILL1'));
    const untouched = await a.keys.create(input('GPGKILL3'));
    await untilCached(b, first.key);
    await untilCached(b, untouched.key);
    const killed = await pgQuery<{ pid: number }>(
      schema,
      'SELECT pg_terminate_backend(pid) AS pid FROM pg_stat_activity WHERE application_name = $1',
      [`credential-vault keys ${keyChannel(schema)}`],
    );
    expect(killed.length).toBeGreaterThanOrEqual(1); // B's listener (and A's, if A opened one)
    await a.keys.revoke(first.record.keyId);
    await a.keys.revoke(untouched.record.keyId);
    // Nothing can tell B now; past the bound it must not answer from memory.
    b.advance(KEY_CACHE_MAX_STALENESS_MS + 1);
    expect(await stateOf(b, first.key)).toBe('revoked');
    // The next refreshes reconnect and listen again; then a revocation reaches B through the new connection.
    const second = await a.keys.create(input('GPGKILL2'));
    await untilCached(b, second.key);
    // What was revoked while nobody listened is not answered from the memory of before.
    expect(await stateOf(b, untouched.key)).toBe('revoked');
    await a.keys.revoke(second.record.keyId);
    await eventually(async () => expect(await stateOf(b, second.key)).toBe('revoked'));
  });

  it('the listener on a silent network: B stops using its cache at the bound, then reconnects', async () => {
    const a = await instanceA();
    const proxy = await startTcpProxy({ host: PG_HOST, port: PG_PORT });
    cleanups.push(() => proxy.close());
    // B's store reads go straight to PostgreSQL; only its listener goes through the proxy.
    const direct = pgB();
    const listener = pgB(`postgres://postgres@${PG_HOST}:${proxy.port}/test`);
    const b = instanceB(direct.stores.keys, listener.stores.keyChanges, direct.setEvict);
    const first = await a.keys.create(input('GPGSILENT1'));
    await untilCached(b, first.key);
    proxy.freeze(true);
    await a.keys.revoke(first.record.keyId);
    // Within the bound B may still accept it (the documented staleness): the notification cannot pass ...
    expect(await stateOf(b, first.key)).toBe('active');
    // ... and past it, never.
    b.advance(KEY_CACHE_MAX_STALENESS_MS + 1);
    expect(await stateOf(b, first.key)).toBe('revoked');
    // Its ping unanswered for 3 s, B drops the connection and connects anew (new connections pass the proxy).
    const second = await a.keys.create(input('GPGSILENT2'));
    b.advance(3000);
    await stateOf(b, second.key);
    await untilCached(b, second.key);
    await a.keys.revoke(second.record.keyId);
    await eventually(async () => expect(await stateOf(b, second.key)).toBe('revoked'));
  });
});

describe('SQLite: the change log, polled', () => {
  const setup = async () => {
    const { dir, remove } = await tempDir();
    const aCache = new CountingLru({ max: 100 });
    const a = createStores({ dataDir: dir, keyCache: aCache });
    let evict: Evict = () => {};
    const stores = createSqliteStores({ dataDir: dir, onKeysChanged: (h) => evict(h) });
    cleanups.push(
      remove,
      () => a.close(),
      () => stores.close(),
    );
    const b = instanceB(stores.keys, stores.keyChanges, (e) => (evict = e));
    return { dir, a, aCache, b };
  };
  const byHand = (dir: string, sql: string, ...params: string[]) => {
    const db = new DatabaseSync(path.join(dir, DB_FILE));
    try {
      db.exec('PRAGMA busy_timeout = 5000');
      db.prepare(sql).run(...params);
    } finally {
      db.close();
    }
  };

  it('a key revoked, replaced or rescoped through another connection is refused by B at its next poll', async () => {
    const { dir, a, b } = await setup();
    const revoked = await a.keys.create(input('GSQREVOKE'));
    const replaced = await a.keys.create(input('GSQREPLACE'));
    const rescoped = await a.keys.create(input('GSQRESCOPE'));
    for (const k of [revoked, replaced, rescoped]) await untilCached(b, k.key);
    await a.keys.revoke(revoked.record.keyId);
    await a.keys.create(input('GSQREPLACE'));
    byHand(dir, `UPDATE api_keys SET scopes = '["credentials:read"]' WHERE key_id = ?`, rescoped.record.keyId);
    // Nothing polled yet: B's clock has not moved.
    expect(await stateOf(b, revoked.key)).toBe('active');
    b.advance(KEY_CACHE_REFRESH_EVERY_MS); // the next lookup starts a poll
    await b.keys.lookup(revoked.key);
    await eventually(async () => {
      expect(await stateOf(b, revoked.key)).toBe('revoked');
      expect(await stateOf(b, replaced.key)).toBe('revoked');
      expect((await b.keys.lookup(rescoped.key))?.record.scopes).toEqual(['credentials:read']);
    });
  });

  it('a key revoked by another process (the keys CLI) while the server runs', async () => {
    const { dir, a, aCache } = await setup();
    const { key, record } = await a.keys.create(input('GSQCLI'));
    expect((await a.keys.lookup(key))?.state).toBe('active');
    // Once the first poll is back, A answers from memory.
    await eventually(async () => {
      const hits = aCache.hits;
      expect((await a.keys.lookup(key))?.state).toBe('active');
      expect(aCache.hits).toBe(hits + 1);
    });
    const child = path.join(ROOT, 'test-support/stores/sqlite-child.ts');
    await promisify(execFile)(process.execPath, [child, 'revoke-key', dir, record.keyId], { cwd: ROOT });
    await eventually(async () => expect((await a.keys.lookup(key))?.state).toBe('revoked'));
  });

  it('a reader that the trimmed log left behind forgets everything', async () => {
    const { dir, a, b } = await setup();
    const gone = await a.keys.create(input('GSQGAP1'));
    const other = await a.keys.create(input('GSQGAP2'));
    await untilCached(b, gone.key);
    await untilCached(b, other.key);
    // The revocation's log entry disappears (as if trimmed) and a later change is logged.
    byHand(dir, 'UPDATE api_keys SET revoked_at = ? WHERE key_id = ?', new Date().toISOString(), gone.record.keyId);
    byHand(dir, 'DELETE FROM api_key_changes WHERE seq = (SELECT max(seq) FROM api_key_changes)');
    byHand(dir, 'UPDATE api_keys SET scopes = ? WHERE key_id = ?', '["sponsor"]', other.record.keyId);
    b.advance(KEY_CACHE_REFRESH_EVERY_MS);
    await b.keys.lookup(other.key);
    await eventually(async () => expect(await stateOf(b, gone.key)).toBe('revoked'));
  });

  it('the log keeps the newest 10,000 changes', async () => {
    const { dir, a } = await setup();
    const db = new DatabaseSync(path.join(dir, DB_FILE));
    try {
      await a.keys.list(); // migrated
      db.exec('BEGIN');
      const insert = db.prepare('INSERT INTO api_key_changes (key_hash) VALUES (?)');
      for (let i = 0; i < 10_005; i++) insert.run(`h${i}`);
      db.exec('COMMIT');
      const row = db.prepare('SELECT count(*) AS n FROM api_key_changes').get() as { n: number };
      expect(row.n).toBe(10_000);
    } finally {
      db.close();
    }
  });
});
