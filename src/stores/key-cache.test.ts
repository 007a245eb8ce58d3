// The key cache's rules (./key-cache.ts) over the in-memory key store, with a feed and both clocks driven by
// the test: when a cached record may be used, and when the store must be asked.
import { LRUCache } from 'lru-cache';
import { describe, expect, it } from 'vitest';
import { manualClock } from '../../test-support/stores/backends.ts';
import {
  cachedKeyStore,
  KEY_CACHE_MAX_STALENESS_MS,
  KEY_CACHE_REFRESH_EVERY_MS,
  type KeyChangeSink,
} from './key-cache.ts';
import { createMemoryKeyStore } from './memory.ts';
import type { ApiKeyRecord, CreateKeyInput, KeyStore } from './types.ts';

const input = (wallet: string, extra: Partial<CreateKeyInput> = {}): CreateKeyInput => ({
  walletAddress: wallet,
  network: 'testnet',
  role: 'standard',
  scopes: [],
  expiresAt: null,
  ...extra,
});

/** A cache over a memory store; `elsewhere` changes the store as another instance or process would. */
function setup(o: { max?: number } = {}) {
  const service = manualClock();
  let mono = 1_000_000;
  const feed: { watermark: number; refreshes: number; opened: number; closed: number; sink?: KeyChangeSink } = {
    watermark: -Infinity,
    refreshes: 0,
    opened: 0,
    closed: 0,
  };
  const lru = new LRUCache<string, ApiKeyRecord>({ max: o.max ?? 100 });
  let evict: ((hashes: readonly string[]) => void) | undefined;
  let local = true;
  const shared = createMemoryKeyStore({ now: service.now, onKeysChanged: (h) => local && evict?.(h) });
  let reads = 0;
  /** The store as this instance reaches it: every lookup counted, and one can be held open. */
  let hold: Promise<void> | undefined;
  const inner: KeyStore = {
    ...shared,
    async lookup(key) {
      reads++;
      const found = await shared.lookup(key);
      await hold;
      return found;
    },
  };
  const cache = cachedKeyStore(inner, {
    lru,
    now: service.now,
    clock: () => mono,
    openFeed: (sink) => {
      feed.opened++;
      feed.sink = sink;
      return {
        watermark: () => feed.watermark,
        refresh: () => void feed.refreshes++,
        close: async () => void feed.closed++,
      };
    },
  });
  evict = cache.evict;
  return {
    cache,
    shared,
    /** Revokes as another instance does: this one's cache hears nothing from the store. */
    async revokeElsewhere(keyId: string) {
      local = false;
      try {
        return await shared.revoke(keyId);
      } finally {
        local = true;
      }
    },
    lru,
    feed,
    service,
    reads: () => reads,
    /** The feed is up to date now. */
    fresh: () => (feed.watermark = mono),
    advance: (ms: number) => (mono += ms),
    holdReads: () => {
      let release!: () => void;
      hold = new Promise((r) => (release = r));
      return () => {
        hold = undefined;
        release();
      };
    },
  };
}

describe('a known key', () => {
  it('is read from the store once, then answered from memory while the feed is fresh', async () => {
    const t = setup();
    const { key, record } = await t.cache.create(input('GA'));
    await t.cache.lookup(key);
    t.fresh();
    for (let i = 0; i < 5; i++) expect(await t.cache.lookup(key)).toEqual({ record, state: 'active' });
    expect(await t.cache.findByKey(key.toUpperCase())).toEqual(record);
    expect(t.reads()).toBe(1);
  });

  it.each([
    { given: 'the feed never came up', watermark: -Infinity, after: 0, reads: true },
    { given: 'fresh', watermark: 0, after: 0, reads: false },
    { given: 'the bound exactly', watermark: 0, after: KEY_CACHE_MAX_STALENESS_MS, reads: false },
    { given: '1 ms past the bound', watermark: 0, after: KEY_CACHE_MAX_STALENESS_MS + 1, reads: true },
    { given: 'long past the bound', watermark: 0, after: 3_600_000, reads: true },
  ])('is answered from memory only within the bound: $given → store read $reads', async (c) => {
    const t = setup();
    const { key } = await t.cache.create(input('GB'));
    t.fresh();
    await t.cache.lookup(key);
    if (c.watermark === -Infinity) t.feed.watermark = -Infinity;
    t.advance(c.after);
    const before = t.reads();
    await t.cache.lookup(key);
    expect(t.reads() - before).toBe(c.reads ? 1 : 0);
  });

  it('revoked elsewhere: accepted at most until the bound, refused at once when the feed says so', async () => {
    const t = setup();
    const { key, record } = await t.cache.create(input('GC'));
    t.fresh();
    await t.cache.lookup(key);
    // Another instance revokes: nothing reaches this one yet.
    expect(await t.revokeElsewhere(record.keyId)).toBe(true);
    t.advance(KEY_CACHE_MAX_STALENESS_MS);
    expect((await t.cache.lookup(key))?.state).toBe('active');
    t.advance(1);
    expect((await t.cache.lookup(key))?.state).toBe('revoked');
    // Within the bound, the feed's eviction is what refuses it.
    const second = await t.cache.create(input('GD'));
    t.fresh();
    await t.cache.lookup(second.key);
    await t.revokeElsewhere(second.record.keyId);
    expect((await t.cache.lookup(second.key))?.state).toBe('active');
    t.feed.sink!.evict([second.record.keyHash]);
    expect((await t.cache.lookup(second.key))?.state).toBe('revoked');
  });

  it("this instance's own revoke and replacement refuse the old key at once", async () => {
    const t = setup();
    const a = await t.cache.create(input('GE'));
    const b = await t.cache.create(input('GF'));
    t.fresh();
    await t.cache.lookup(a.key);
    await t.cache.lookup(b.key);
    await t.cache.revoke(a.record.keyId);
    await t.cache.create(input('GF')); // replaces b
    expect((await t.cache.lookup(a.key))?.state).toBe('revoked');
    expect((await t.cache.lookup(b.key))?.state).toBe('revoked');
  });

  it('expires on the service clock, with no store read', async () => {
    const t = setup();
    const expiresAt = new Date(t.service.now() + 60_000).toISOString();
    const { key } = await t.cache.create(input('GG', { expiresAt }));
    t.fresh();
    await t.cache.lookup(key);
    const before = t.reads();
    t.service.advance(59_999);
    expect((await t.cache.lookup(key))?.state).toBe('active');
    t.service.advance(1);
    expect((await t.cache.lookup(key))?.state).toBe('expired');
    expect(await t.cache.findByKey(key)).toBeUndefined();
    expect(t.reads()).toBe(before);
  });

  it('an answer is a copy: changing it changes nothing cached', async () => {
    const t = setup();
    const { key } = await t.cache.create(input('GH', { scopes: ['credentials:read'] }));
    t.fresh();
    const first = (await t.cache.lookup(key))!;
    first.record.scopes.push('vault:admin');
    first.record.role = 'admin';
    const again = (await t.cache.lookup(key))!;
    expect([again.record.role, again.record.scopes]).toEqual(['standard', ['credentials:read']]);
  });
});

describe('what is never cached', () => {
  it('unknown keys: each is asked of the store, and memory stays empty', async () => {
    const t = setup();
    t.fresh();
    for (let i = 0; i < 50; i++) expect(await t.cache.lookup(i.toString(16).padStart(64, 'f'))).toBeUndefined();
    expect(await t.cache.lookup('not a key')).toBeUndefined();
    expect([t.lru.size, t.reads()]).toEqual([0, 51]);
  });

  it('a store read that raced with a change', async () => {
    const t = setup();
    const { key, record } = await t.cache.create(input('GI'));
    t.fresh();
    const release = t.holdReads();
    const racing = t.cache.lookup(key); // reads "active", held before it returns
    await new Promise((r) => setImmediate(r));
    await t.shared.revoke(record.keyId); // evicts through the store's hook while the read is open
    release();
    expect((await racing)?.state).toBe('active'); // what the store said when asked
    expect(t.lru.size).toBe(0);
    expect((await t.cache.lookup(key))?.state).toBe('revoked');
  });

  it('more keys than the LRU holds: the least recently used go', async () => {
    const t = setup({ max: 2 });
    const made = [];
    for (const w of ['GJ', 'GK', 'GL']) made.push(await t.cache.create(input(w)));
    t.fresh();
    for (const m of made) await t.cache.lookup(m.key);
    expect(t.lru.size).toBe(2);
    expect(t.lru.has(made[0]!.record.keyHash)).toBe(false);
  });
});

describe('the feed', () => {
  it('opens at the first lookup only (creating and listing keys never do), and closes with the store', async () => {
    const t = setup();
    const { key } = await t.cache.create(input('GM'));
    await t.cache.list();
    expect(t.feed.opened).toBe(0);
    await t.cache.lookup(key);
    await t.cache.lookup(key);
    expect(t.feed.opened).toBe(1);
    await t.cache.close();
    expect(t.feed.closed).toBe(1);
  });

  it(`is asked for a newer watermark at most every ${KEY_CACHE_REFRESH_EVERY_MS} ms`, async () => {
    const t = setup();
    const { key } = await t.cache.create(input('GN'));
    for (let i = 0; i < 10; i++) {
      await t.cache.lookup(key);
      t.advance(KEY_CACHE_REFRESH_EVERY_MS / 5);
    }
    expect(t.feed.refreshes).toBe(2);
  });

  it('clear() forgets everything', async () => {
    const t = setup();
    const { key } = await t.cache.create(input('GO'));
    t.fresh();
    await t.cache.lookup(key);
    expect(t.lru.size).toBe(1);
    t.feed.sink!.clear();
    expect(t.lru.size).toBe(0);
    const before = t.reads();
    await t.cache.lookup(key);
    expect(t.reads()).toBe(before + 1);
  });
});
