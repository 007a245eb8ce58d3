// One contract for every key and idempotency store: memory, SQLite (data directory) and PostgreSQL.
import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryIdempotencyStore, createMemoryKeyStore } from './memory.ts';
import { createPostgresStores } from './postgres.ts';
import { createSqliteStores } from './sqlite.ts';
import { dropSchema, manualClock, pgUrl, tempDir, uniqueName } from '../../test-support/stores/backends.ts';
import {
  IDEMPOTENCY_LEASE_MS,
  IDEMPOTENCY_TTL_MS,
  KeyExistsError,
  StoreInputError,
  type CreateKeyInput,
  type IdempotencyStore,
  type KeyStore,
  type StoredResponse,
} from './types.ts';

const WALLET = 'GBRPYHIL2CI3FNQ4BXLFMNDLFJUNPU2HY3ZMFSHONUCEOASW7QC7OX2H';
const WALLET_2 = 'GCEZWKCA5VLDNRLN3RPRJMRZOX3Z6G5CHCGSNFHEYVXM3XOJMDS674JZ';

interface Opened {
  keys: KeyStore;
  idempotency: IdempotencyStore;
  close(): Promise<void>;
}

interface Backend {
  name: string;
  /** Survives a restart: open() again reaches the same data. */
  persistent: boolean;
  setup(): Promise<void>;
  /** A new store instance over the same data (directory, schema). */
  open(now: () => number): Opened;
  teardown(): Promise<void>;
}

function memoryBackend(): Backend {
  return {
    name: 'memory',
    persistent: false,
    setup: async () => {},
    open: (now) => {
      const keys = createMemoryKeyStore({ now });
      const idempotency = createMemoryIdempotencyStore({ now });
      return { keys, idempotency, close: async () => {} };
    },
    teardown: async () => {},
  };
}

function sqliteBackend(): Backend {
  let dir = '';
  let remove = async () => {};
  return {
    name: 'sqlite',
    persistent: true,
    setup: async () => {
      ({ dir, remove } = await tempDir());
    },
    open: (now) => {
      const stores = createSqliteStores({ dataDir: dir, now });
      return { keys: stores.keys, idempotency: stores.idempotency, close: stores.close };
    },
    teardown: () => remove(),
  };
}

function postgresBackend(): Backend {
  const schema = uniqueName('cv_records');
  return {
    name: 'postgres',
    persistent: true,
    setup: async () => {},
    open: (now) => {
      const stores = createPostgresStores({ connectionString: pgUrl(), schema, now });
      return { keys: stores.keys, idempotency: stores.idempotency, close: stores.close };
    },
    teardown: () => dropSchema(schema),
  };
}

const backends = [memoryBackend(), sqliteBackend(), postgresBackend()];

const ok = (body: unknown, status = 200): StoredResponse => ({
  status,
  headers: { 'content-type': 'application/json', 'x-z': '1', 'x-a': '2' },
  body,
});

describe.each(backends)('$name store', (backend) => {
  const clock = manualClock();
  const opened: Opened[] = [];
  const open = () => {
    const o = backend.open(clock.now);
    opened.push(o);
    return o;
  };
  let store: Opened;

  beforeAll(async () => {
    await backend.setup();
    store = open();
  });
  afterEach(() => {
    clock.set(Date.parse('2026-07-01T00:00:00Z'));
  });
  afterAll(async () => {
    for (const o of opened) await o.close();
    await backend.teardown();
  });

  describe('keys', () => {
    it('creates a 64-hex key shown once and finds it by its hash', async () => {
      const { key, record } = await store.keys.create({
        walletAddress: WALLET,
        network: 'testnet',
        role: 'standard',
        scopes: ['credentials:read'],
        expiresAt: null,
      });
      expect(key).toMatch(/^[0-9a-f]{64}$/);
      expect(record).toEqual({
        keyId: expect.stringMatching(/^[0-9a-f]{16}$/),
        keyHash: createHash('sha256').update(key).digest('hex'),
        walletAddress: WALLET,
        network: 'testnet',
        role: 'standard',
        scopes: ['credentials:read'],
        createdAt: '2026-07-01T00:00:00.000Z',
        expiresAt: null,
        revokedAt: null,
      });
      expect(await store.keys.findByKey(key)).toEqual(record);
      expect(await store.keys.findByKey(key.toUpperCase())).toEqual(record);
      expect(JSON.stringify(await store.keys.list({ includeRevoked: true }))).not.toContain(key);
    });

    it.each([
      { given: 'an unknown key', key: 'ab'.repeat(32) },
      { given: 'a short key', key: 'abc' },
      { given: 'a non-hex key', key: 'zz'.repeat(32) },
      { given: 'an empty key', key: '' },
    ])('finds nothing for $given', async ({ key }) => {
      expect(await store.keys.findByKey(key)).toBeUndefined();
    });

    it('keeps one key per wallet per network: a new one revokes the old one', async () => {
      const a = await store.keys.create({
        walletAddress: WALLET_2,
        network: 'testnet',
        role: 'standard',
        scopes: [],
        expiresAt: null,
      });
      clock.advance(1000);
      const b = await store.keys.create({
        walletAddress: WALLET_2,
        network: 'testnet',
        role: 'early',
        scopes: [],
        expiresAt: null,
      });
      const c = await store.keys.create({
        walletAddress: WALLET_2,
        network: 'mainnet',
        role: 'standard',
        scopes: [],
        expiresAt: null,
      });
      expect(await store.keys.findByKey(a.key)).toBeUndefined();
      expect((await store.keys.findByKey(b.key))?.role).toBe('early');
      expect((await store.keys.findByKey(c.key))?.network).toBe('mainnet');
      const all = await store.keys.list({ includeRevoked: true });
      expect(all.find((k) => k.keyId === a.record.keyId)?.revokedAt).toBe(b.record.createdAt);
      const usable = await store.keys.list();
      expect(
        usable
          .filter((k) => k.walletAddress === WALLET_2)
          .map((k) => k.keyId)
          .sort(),
      ).toEqual([b.record.keyId, c.record.keyId].sort());
    });

    it('allows keys without a wallet for the admin role only, several of them', async () => {
      const x = await store.keys.create({
        walletAddress: null,
        network: 'mainnet',
        role: 'admin',
        scopes: [],
        expiresAt: null,
      });
      const y = await store.keys.create({
        walletAddress: null,
        network: 'mainnet',
        role: 'admin',
        scopes: [],
        expiresAt: null,
      });
      expect((await store.keys.findByKey(x.key))?.walletAddress).toBeNull();
      expect(await store.keys.findByKey(y.key)).toBeDefined();
    });

    it.each([
      {
        given: 'no wallet and role standard',
        input: { walletAddress: null, role: 'standard', scopes: [], network: 'testnet' },
      },
      {
        given: 'an unknown scope',
        input: { walletAddress: WALLET, role: 'standard', scopes: ['everything'], network: 'testnet' },
      },
      { given: 'an unknown role', input: { walletAddress: WALLET, role: 'root', scopes: [], network: 'testnet' } },
      {
        given: 'an unknown network',
        input: { walletAddress: WALLET, role: 'standard', scopes: [], network: 'devnet' },
      },
    ])('refuses $given', async ({ input }) => {
      await expect(
        store.keys.create({ ...input, expiresAt: null } as Parameters<KeyStore['create']>[0]),
      ).rejects.toBeInstanceOf(StoreInputError);
    });

    it('revokes a key once', async () => {
      const { key, record } = await store.keys.create({
        walletAddress: 'GREVOKE',
        network: 'testnet',
        role: 'standard',
        scopes: [],
        expiresAt: null,
      });
      expect(await store.keys.revoke(record.keyId)).toBe(true);
      expect(await store.keys.findByKey(key)).toBeUndefined();
      expect(await store.keys.revoke(record.keyId)).toBe(false);
      expect(await store.keys.revoke('0000000000000000')).toBe(false);
    });

    it('stops finding a key once it expires', async () => {
      const { key } = await store.keys.create({
        walletAddress: 'GEXPIRY',
        network: 'testnet',
        role: 'standard',
        scopes: [],
        expiresAt: '2026-07-02T00:00:00Z',
      });
      clock.set(Date.parse('2026-07-01T23:59:59.999Z'));
      expect((await store.keys.findByKey(key))?.expiresAt).toBe('2026-07-02T00:00:00.000Z');
      clock.set(Date.parse('2026-07-02T00:00:00Z'));
      expect(await store.keys.findByKey(key)).toBeUndefined();
    });

    it('looks a key up with its state: active, expired, revoked; unknown and malformed keys give undefined', async () => {
      const input: CreateKeyInput = {
        walletAddress: 'GLOOKUP',
        network: 'testnet',
        role: 'standard',
        scopes: ['credentials:read'],
        expiresAt: '2026-07-02T00:00:00Z',
      };
      const { key, record } = await store.keys.create(input);
      expect(await store.keys.lookup(key)).toEqual({ record, state: 'active' });
      expect(await store.keys.lookup(key.toUpperCase())).toEqual({ record, state: 'active' });
      clock.set(Date.parse('2026-07-02T00:00:00Z'));
      expect(await store.keys.lookup(key)).toEqual({ record, state: 'expired' });
      expect(await store.keys.findByKey(key)).toBeUndefined();
      clock.set(Date.parse('2026-07-01T00:00:00Z'));
      await store.keys.revoke(record.keyId);
      const revoked = await store.keys.lookup(key);
      expect(revoked?.state).toBe('revoked');
      expect(revoked?.record.revokedAt).toBe('2026-07-01T00:00:00.000Z');
      // Revoked wins over expired.
      clock.set(Date.parse('2026-07-03T00:00:00Z'));
      expect((await store.keys.lookup(key))?.state).toBe('revoked');
      for (const unknown of ['ab'.repeat(32), 'abc', '']) expect(await store.keys.lookup(unknown)).toBeUndefined();
    });

    it('create with ifNoActiveKey refuses a wallet holding a usable key (KeyExistsError), not one whose key expired or was revoked', async () => {
      const input: CreateKeyInput = {
        walletAddress: 'GIFNOACTIVE',
        network: 'testnet',
        role: 'standard',
        scopes: [],
        expiresAt: '2026-07-02T00:00:00Z',
      };
      const first = await store.keys.create(input, { ifNoActiveKey: true });
      const refused = await store.keys
        .create({ ...input, expiresAt: null }, { ifNoActiveKey: true })
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(KeyExistsError);
      expect(refused).toMatchObject({ walletAddress: 'GIFNOACTIVE', network: 'testnet' });
      expect((await store.keys.lookup(first.key))?.state).toBe('active');
      // The other network is another wallet slot; without the option a create replaces the key.
      await store.keys.create({ ...input, network: 'mainnet' }, { ifNoActiveKey: true });
      clock.set(Date.parse('2026-07-02T00:00:00Z'));
      const second = await store.keys.create({ ...input, expiresAt: null }, { ifNoActiveKey: true });
      expect((await store.keys.lookup(first.key))?.state).toBe('revoked');
      await store.keys.revoke(second.record.keyId);
      const third = await store.keys.create({ ...input, expiresAt: null }, { ifNoActiveKey: true });
      expect((await store.keys.lookup(third.key))?.state).toBe('active');
      const replaced = await store.keys.create({ ...input, expiresAt: null });
      expect((await store.keys.lookup(third.key))?.state).toBe('revoked');
      expect((await store.keys.lookup(replaced.key))?.state).toBe('active');
    });

    it('10 concurrent creates with ifNoActiveKey for one wallet (over two instances when shared): exactly one succeeds', async () => {
      const other = backend.persistent ? open() : store;
      const input: CreateKeyInput = {
        walletAddress: 'GRACE',
        network: 'testnet',
        role: 'standard',
        scopes: [],
        expiresAt: null,
      };
      const results = await Promise.allSettled(
        Array.from({ length: 10 }, (_, i) => (i % 2 ? other : store).keys.create(input, { ifNoActiveKey: true })),
      );
      const won = results.filter((r) => r.status === 'fulfilled');
      expect(won).toHaveLength(1);
      expect(results.filter((r) => r.status === 'rejected' && r.reason instanceof KeyExistsError)).toHaveLength(9);
      const usable = (await store.keys.list({ network: 'testnet' })).filter((k) => k.walletAddress === 'GRACE');
      expect(usable.map((k) => k.keyId)).toEqual([
        (won[0] as PromiseFulfilledResult<{ record: { keyId: string } }>).value.record.keyId,
      ]);
    });

    it('lists by network in creation order', async () => {
      // Keys of its own on both networks (other tests may or may not have made some before).
      const made: string[] = [];
      for (const [i, network] of (['mainnet', 'testnet', 'mainnet'] as const).entries()) {
        const input: CreateKeyInput = {
          walletAddress: `GLIST${i}`,
          network,
          role: 'standard',
          scopes: [],
          expiresAt: null,
        };
        made.push((await store.keys.create(input)).record.keyId);
      }
      const mainnet = await store.keys.list({ network: 'mainnet' });
      const ids = mainnet.map((k) => k.keyId);
      expect(ids).toEqual(expect.arrayContaining([made[0], made[2]]));
      expect(ids).not.toContain(made[1]);
      expect(mainnet.every((k) => k.network === 'mainnet')).toBe(true);
      const created = mainnet.map((k) => k.createdAt);
      expect(created).toEqual([...created].sort());
    });
  });

  describe('idempotency', () => {
    let n = 0;
    const fresh = () => `idem-${++n}`;

    it('starts, then reports in progress, then replays the stored response', async () => {
      const key = fresh();
      const first = await store.idempotency.begin({ scope: 'k1', key, requestHash: 'h1' });
      expect(first.state).toBe('started');
      expect(await store.idempotency.begin({ scope: 'k1', key, requestHash: 'h1' })).toEqual({ state: 'in_progress' });
      const response = ok({ tx_id: 'abc', z: 1, a: 2 });
      expect(await store.idempotency.complete('k1', key, (first as { token: string }).token, response)).toBe(true);
      const replay = await store.idempotency.begin({ scope: 'k1', key, requestHash: 'h1' });
      expect(replay.state).toBe('replay');
      // Same bytes, key order included.
      expect(JSON.stringify((replay as { response: unknown }).response)).toBe(JSON.stringify(response));
    });

    it.each([
      { given: 'in progress', complete: false },
      { given: 'completed', complete: true },
    ])('reports a different request with the same key as a mismatch ($given)', async ({ complete }) => {
      const key = fresh();
      const first = await store.idempotency.begin({ scope: 'k1', key, requestHash: 'h1' });
      if (complete) await store.idempotency.complete('k1', key, (first as { token: string }).token, ok({}));
      expect(await store.idempotency.begin({ scope: 'k1', key, requestHash: 'h2' })).toEqual({ state: 'mismatch' });
    });

    it.each([
      { status: 200, replayed: true },
      { status: 201, replayed: true },
      { status: 400, replayed: true },
      { status: 403, replayed: true },
      { status: 500, replayed: false },
      { status: 503, replayed: false },
    ])('status $status is replayed: $replayed', async ({ status, replayed }) => {
      const key = fresh();
      const first = await store.idempotency.begin({ scope: 'k1', key, requestHash: 'h' });
      await store.idempotency.complete('k1', key, (first as { token: string }).token, ok({ status }, status));
      const again = await store.idempotency.begin({ scope: 'k1', key, requestHash: 'h' });
      expect(again.state).toBe(replayed ? 'replay' : 'started');
    });

    it('release frees the key for a new execution', async () => {
      const key = fresh();
      const first = await store.idempotency.begin({ scope: 'k1', key, requestHash: 'h' });
      await store.idempotency.release('k1', key, (first as { token: string }).token);
      expect((await store.idempotency.begin({ scope: 'k1', key, requestHash: 'h' })).state).toBe('started');
    });

    it('a wrong token neither completes nor releases', async () => {
      const key = fresh();
      await store.idempotency.begin({ scope: 'k1', key, requestHash: 'h' });
      expect(await store.idempotency.complete('k1', key, 'not-the-token', ok({}))).toBe(false);
      await store.idempotency.release('k1', key, 'not-the-token');
      expect(await store.idempotency.begin({ scope: 'k1', key, requestHash: 'h' })).toEqual({ state: 'in_progress' });
    });

    it('scopes keys per API key', async () => {
      const key = fresh();
      expect((await store.idempotency.begin({ scope: 'k1', key, requestHash: 'h' })).state).toBe('started');
      expect((await store.idempotency.begin({ scope: 'k2', key, requestHash: 'h' })).state).toBe('started');
    });

    it('forgets a response 24 hours after completion', async () => {
      const key = fresh();
      const first = await store.idempotency.begin({ scope: 'k1', key, requestHash: 'h' });
      clock.advance(5_000);
      await store.idempotency.complete('k1', key, (first as { token: string }).token, ok({}));
      clock.advance(IDEMPOTENCY_TTL_MS - 1);
      expect((await store.idempotency.begin({ scope: 'k1', key, requestHash: 'h' })).state).toBe('replay');
      clock.advance(1);
      expect((await store.idempotency.begin({ scope: 'k1', key, requestHash: 'h2' })).state).toBe('started');
    });

    it('lets another execution take over after the lease of a crashed one', async () => {
      const key = fresh();
      const crashed = await store.idempotency.begin({ scope: 'k1', key, requestHash: 'h' });
      clock.advance(IDEMPOTENCY_LEASE_MS - 1);
      expect((await store.idempotency.begin({ scope: 'k1', key, requestHash: 'h' })).state).toBe('in_progress');
      clock.advance(1);
      const next = await store.idempotency.begin({ scope: 'k1', key, requestHash: 'h' });
      expect(next.state).toBe('started');
      // The late first execution can no longer store its response.
      expect(
        await store.idempotency.complete('k1', key, (crashed as { token: string }).token, ok({ late: true })),
      ).toBe(false);
      expect(await store.idempotency.complete('k1', key, (next as { token: string }).token, ok({ late: false }))).toBe(
        true,
      );
      const replay = await store.idempotency.begin({ scope: 'k1', key, requestHash: 'h' });
      expect(replay).toEqual({ state: 'replay', response: ok({ late: false }) });
    });

    it.each([
      { given: '200 characters', length: 200, accepted: true },
      { given: '201 characters', length: 201, accepted: false },
      { given: 'empty', length: 0, accepted: false },
    ])('Idempotency-Key of $given accepted: $accepted', async ({ length, accepted }) => {
      const begin = store.idempotency.begin({ scope: 'k-len', key: 'k'.repeat(length), requestHash: 'h' });
      if (accepted) expect((await begin).state).toBe('started');
      else await expect(begin).rejects.toBeInstanceOf(StoreInputError);
    });

    it('20 concurrent begin() of one key (over two instances when shared): exactly one starts', async () => {
      const other = backend.persistent ? open() : store;
      const key = fresh();
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 ? other : store).idempotency.begin({ scope: 'race', key, requestHash: 'h' }),
        ),
      );
      const states = results.map((r) => r.state);
      expect(states.filter((s) => s === 'started')).toHaveLength(1);
      expect(states.filter((s) => s === 'in_progress')).toHaveLength(19);
    });
  });

  describe('restart', () => {
    if (!backend.persistent) {
      it('keeps nothing across instances (memory stores are for tests; the embedded default is SQLite)', async () => {
        const { key } = await store.keys.create({
          walletAddress: 'GRESTART',
          network: 'testnet',
          role: 'early',
          scopes: [],
          expiresAt: null,
        });
        expect(await store.keys.findByKey(key)).toBeDefined();
        expect(await open().keys.findByKey(key)).toBeUndefined();
      });
      return;
    }
    it('a new instance over the same data sees keys and idempotency records', async () => {
      const { key } = await store.keys.create({
        walletAddress: 'GRESTART',
        network: 'testnet',
        role: 'early',
        scopes: [],
        expiresAt: null,
      });
      const done = await store.idempotency.begin({ scope: 'k1', key: 'restart-done', requestHash: 'h' });
      await store.idempotency.complete('k1', 'restart-done', (done as { token: string }).token, ok({ tx_id: 'T' }));
      await store.idempotency.begin({ scope: 'k1', key: 'restart-running', requestHash: 'h' });

      const restarted = open();
      expect((await restarted.keys.findByKey(key))?.role).toBe('early');
      expect(await restarted.idempotency.begin({ scope: 'k1', key: 'restart-done', requestHash: 'h' })).toEqual({
        state: 'replay',
        response: ok({ tx_id: 'T' }),
      });
      expect(await restarted.idempotency.begin({ scope: 'k1', key: 'restart-running', requestHash: 'h' })).toEqual({
        state: 'in_progress',
      });
    });
  });
});
