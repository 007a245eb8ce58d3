// Several instances at the HTTP level: two `credential-vault serve` processes behind no balancer, sharing one
// PostgreSQL schema (keys, idempotency records), one Redis key prefix (rate-limit windows) and one chain
// simulator. Whatever one instance learns, the other must know: keys, windows, first responses, leases.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keypair } from '@stellar/stellar-sdk';
import {
  cliKey,
  encryptionKeys,
  eventually,
  redeemChallenge,
  request,
  sharedBackends,
  show,
  signedChallenge,
  startApi,
  startTestChain,
  tempDataDir,
  type Answer,
  type ApiProcess,
  type SharedBackends,
  type TestChain,
} from './harness.ts';

const READ_LIMIT = 5;
const WRITE_LIMIT = 3;

let chain: TestChain;
let backends: SharedBackends;
let a: ApiProcess;
let b: ApiProcess;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  chain = await startTestChain();
  cleanups.push(() => chain.close());
  backends = await sharedBackends('multi');
  cleanups.push(() => backends.drop());
  const keys = encryptionKeys();
  const flags = async () => {
    const data = await tempDataDir();
    cleanups.push(data.remove);
    return [
      ...chain.flags(),
      '--database-url',
      backends.databaseUrl(),
      '--redis-url',
      backends.redisUrl(),
      '--data-dir',
      data.dir,
      '--encryption-keys',
      keys,
      '--rate-standard-read',
      String(READ_LIMIT),
      '--rate-standard-write',
      String(WRITE_LIMIT),
      '--rate-early-read',
      '100',
      '--rate-early-write',
      '100',
      '--log-level',
      'error',
    ];
  };
  const start = async () => {
    const api = await startApi(await flags());
    cleanups.push(() => api.stop());
    return api;
  };
  // Both start together: the second waits on the migration lock, then finds the tables there.
  [a, b] = await Promise.all([start(), start()]);
  // Ready means the stores answer and the migrations ran (a store's health check runs them first): on a
  // loaded host a start-up migration can miss its connect timeout and run again on first use, so the tests
  // begin once both instances say they are ready, not at the first line of their output.
  for (const api of [a, b]) {
    const ready = await eventually(
      () => request(api.url, '/ready'),
      (r) => r.status === 200,
      30_000,
    );
    expect(ready.status, show(ready)).toBe(200);
  }
}, 90_000);

afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

const read = (api: ApiProcess, key: string) => request(api.url, '/contracts/version', { key });
const createVaultBody = (
  owner: Keypair,
  didUri = `did:ledger:testnet:${owner.publicKey().slice(1, 9).toLowerCase()}`,
) => ({
  owner: owner.publicKey(),
  didUri,
  sourcePublicKey: owner.publicKey(),
});

describe('shared backends are really the ones configured', () => {
  it("the tables live in this file's schema", async () => {
    // Migrations start in the background and, should the database not answer in time (a loaded CI host),
    // run again on first use: a keyed request on each instance makes sure both got that far.
    for (const api of [a, b]) {
      const r = await read(api, randomBytes(32).toString('hex'));
      expect([r.status, r.body.error], show(r)).toEqual([401, 'invalid_api_key']);
    }
    const tables = await backends.query<{ table_name: string }>(
      'SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name',
      [backends.schema],
    );
    expect(tables.map((t) => t.table_name)).toEqual(
      expect.arrayContaining(['api_keys', 'idempotency_records', 'schema_migrations']),
    );
  });
});

describe('a key made through one instance works on the other', () => {
  it('wallet proof: challenge from A, redeemed at B; the key opens A and B; the challenge is single-use across both', async () => {
    const wallet = chain.fund(); // only an existing account gets a key
    const signed = await signedChallenge(a.url, wallet);
    const made = await redeemChallenge(b.url, signed);
    expect(made.status, show(made)).toBe(201);
    expect(made.body).toMatchObject({ wallet_address: wallet.publicKey(), role: 'standard', network: 'testnet' });
    const key = made.body.key as string;

    for (const api of [a, b]) {
      const r = await read(api, key);
      expect(r.status, show(r)).toBe(200);
    }
    const again = await redeemChallenge(a.url, signed);
    expect([again.status, again.body.error], show(again)).toEqual([400, 'challenge_invalid']);

    // Proving the wallet again through B replaces the key everywhere: A, which keeps verified keys in memory,
    // refuses the old one once PostgreSQL tells it (within 1 s: src/stores/key-cache.ts).
    const replaced = await redeemChallenge(b.url, await signedChallenge(b.url, wallet));
    expect(replaced.status, show(replaced)).toBe(201);
    const old = await eventually(
      () => read(a, key),
      (r) => r.status !== 200,
    );
    expect([old.status, old.body.error], show(old)).toEqual([401, 'invalid_api_key']);
    expect((await read(a, replaced.body.key as string)).status).toBe(200);
  });

  it('operator CLI: `keys create --database-url` while both run; the key opens A and B', async () => {
    const key = await cliKey(['--database-url', backends.databaseUrl()], Keypair.random().publicKey());
    for (const api of [a, b]) {
      const r = await read(api, key);
      expect(r.status, show(r)).toBe(200);
    }
  });
});

describe('one sliding window across both instances', () => {
  it(`reads: ${READ_LIMIT} spread over A and B pass, the next gets 429 rate_limit_exceeded with Retry-After on either`, async () => {
    const key = await cliKey(['--database-url', backends.databaseUrl()], Keypair.random().publicKey());
    for (let i = 0; i < READ_LIMIT; i++) {
      const r = await read(i % 2 === 0 ? a : b, key);
      expect(r.status, show(r)).toBe(200);
      expect(r.headers.get('x-ratelimit-limit')).toBe(String(READ_LIMIT));
      expect(r.headers.get('x-ratelimit-remaining')).toBe(String(READ_LIMIT - 1 - i));
    }
    for (const api of [b, a]) {
      const over = await read(api, key);
      expect([over.status, over.body.error], show(over)).toEqual([429, 'rate_limit_exceeded']);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(Number(over.headers.get('retry-after'))).toBeLessThanOrEqual(60);
      expect(over.headers.get('x-ratelimit-remaining')).toBe('0');
    }
    // Keyless routes stay open for the same client.
    expect((await request(a.url, '/config')).status).toBe(200);
    expect((await request(b.url, '/health')).status).toBe(200);
  });

  it(`writes: ${WRITE_LIMIT} prepares spread over A and B pass, the next gets 429 write_rate_limit_exceeded; reads are a separate bucket`, async () => {
    const owner = chain.fund();
    const key = await cliKey(['--database-url', backends.databaseUrl()], owner.publicKey());
    for (let i = 0; i < WRITE_LIMIT; i++) {
      const r = await request(i % 2 === 0 ? a.url : b.url, '/contracts/vault/create', {
        key,
        body: createVaultBody(owner),
      });
      expect(r.status, show(r)).toBe(200);
      expect(r.headers.get('x-writeratelimit-limit')).toBe(String(WRITE_LIMIT));
      expect(r.headers.get('x-writeratelimit-remaining')).toBe(String(WRITE_LIMIT - 1 - i));
    }
    for (const api of [b, a]) {
      const over = await request(api.url, '/contracts/vault/create', { key, body: createVaultBody(owner) });
      expect([over.status, over.body.error], show(over)).toEqual([429, 'write_rate_limit_exceeded']);
      expect(Number(over.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(over.headers.get('x-writeratelimit-remaining')).toBe('0');
    }
    expect((await read(b, key)).status).toBe(200);
  });

  it("the windows are in Redis under this file's prefix, one per key and bucket", async () => {
    const { Redis } = await import('ioredis');
    const redis = new Redis(backends.redisUrl().split('?')[0]!, { maxRetriesPerRequest: 1 });
    try {
      const pattern = `${backends.redisPrefix}rl:vault:testnet:*`;
      const before = new Set(await redis.keys(pattern));
      // A new key's read on A and prepare on B, then another read on B: its own windows, whatever ran before.
      const owner = chain.fund();
      const key = await cliKey(['--database-url', backends.databaseUrl()], owner.publicKey());
      expect((await read(a, key)).status).toBe(200);
      const prepared = await request(b.url, '/contracts/vault/create', { key, body: createVaultBody(owner) });
      expect(prepared.status, show(prepared)).toBe(200);
      expect((await read(b, key)).status).toBe(200);
      const added = (await redis.keys(pattern)).filter((k) => !before.has(k)).sort();
      // One window a bucket, shared by both instances, both of this key (the same key id after the bucket).
      expect(added.map((k) => k.slice(pattern.length - 1).split(':')[0])).toEqual(['read', 'write']);
      const ids = added.map((k) =>
        k
          .slice(pattern.length - 1)
          .split(':')
          .slice(1)
          .join(':'),
      );
      expect(ids[0]).toBe(ids[1]);
    } finally {
      redis.disconnect();
    }
  });
});

describe('idempotency across both instances', () => {
  let owner: Keypair;
  let key: string;
  /** simulateTransaction calls of one execution of the prepare. */
  let simulationsPerPrepare: number;

  beforeAll(async () => {
    owner = chain.fund();
    key = await cliKey(['--database-url', backends.databaseUrl()], owner.publicKey(), 'early');
    const before = chain.calls('simulateTransaction');
    const idempotencyKey = `measure-${randomBytes(6).toString('hex')}`;
    const once = await request(a.url, '/contracts/vault/create', { key, idempotencyKey, body: createVaultBody(owner) });
    expect(once.status, show(once)).toBe(200);
    simulationsPerPrepare = chain.calls('simulateTransaction') - before;
  });

  it("a prepare sent to A, then the same to B: B replays A's answer byte for byte", async () => {
    const idem = `prepare-${randomBytes(6).toString('hex')}`;
    const before = chain.calls('simulateTransaction');
    const prepared = await request(a.url, '/contracts/vault/create', {
      key,
      idempotencyKey: idem,
      body: createVaultBody(owner),
    });
    expect(prepared.status, show(prepared)).toBe(200);
    expect(prepared.headers.get('idempotency-replayed')).toBeNull();
    expect(chain.calls('simulateTransaction') - before).toBeGreaterThan(0);

    const simulations = chain.calls('simulateTransaction');
    const replay = await request(b.url, '/contracts/vault/create', {
      key,
      idempotencyKey: idem,
      body: createVaultBody(owner),
    });
    expect(replay.status, show(replay)).toBe(200);
    expect(replay.headers.get('idempotency-replayed')).toBe('true');
    expect(replay.text).toBe(prepared.text);
    expect(chain.calls('simulateTransaction')).toBe(simulations);

    const reused = await request(b.url, '/contracts/vault/create', {
      key,
      idempotencyKey: idem,
      body: createVaultBody(owner, 'did:ledger:testnet:other'),
    });
    expect([reused.status, reused.body.error], show(reused)).toEqual([422, 'idempotency_key_reused']);
  });

  it('the same prepare at the same moment on A and B runs once (one answer, the other a replay or 409)', async () => {
    const idem = `race-prepare-${randomBytes(6).toString('hex')}`;
    const body = createVaultBody(owner, 'did:ledger:testnet:race');
    const simulations = chain.calls('simulateTransaction');
    chain.slow('simulateTransaction', 400);
    let answers: Answer[];
    try {
      answers = await Promise.all(
        [a, b].map((api) => request(api.url, '/contracts/vault/create', { key, idempotencyKey: idem, body })),
      );
    } finally {
      chain.slow('simulateTransaction', 0);
    }
    expectExecutedOnce(answers);
    expect(chain.calls('simulateTransaction') - simulations).toBe(simulationsPerPrepare);
  });

  it('the same signed submit at the same moment on A and B reaches the chain once; later retries replay its tx_id', async () => {
    // An owner of its own: the vault this submit deploys is one the prepares above would meet.
    const owner = chain.fund();
    const key = await cliKey(['--database-url', backends.databaseUrl()], owner.publicKey(), 'early');
    const prepared = await request(a.url, '/contracts/vault/create', {
      key,
      idempotencyKey: `prepare-${randomBytes(6).toString('hex')}`,
      body: createVaultBody(owner),
    });
    expect(prepared.status, show(prepared)).toBe(200);
    const signedXdr = chain.sign(prepared.body.xdr as string, owner);
    const idem = `race-submit-${randomBytes(6).toString('hex')}`;
    const seq = chain.sequence(owner.publicKey())!;
    const sends = chain.sent.length;
    // The chain takes its time, so the first execution still holds the key when the second arrives.
    chain.slow('sendTransaction', 500);
    let answers: Answer[];
    try {
      answers = await Promise.all(
        [a, b].map((api) =>
          request(api.url, '/contracts/vault/create', { key, idempotencyKey: idem, body: { signedXdr } }),
        ),
      );
    } finally {
      chain.slow('sendTransaction', 0);
    }
    const first = expectExecutedOnce(answers);
    expect(first.body.tx_id).toMatch(/^[0-9a-f]{64}$/);
    expect(chain.sent.slice(sends)).toEqual([first.body.tx_id]);
    expect(chain.sequence(owner.publicKey())).toBe(seq + 1n);

    for (const api of [a, b]) {
      const retry = await request(api.url, '/contracts/vault/create', {
        key,
        idempotencyKey: idem,
        body: { signedXdr },
      });
      expect(retry.status, show(retry)).toBe(200);
      expect(retry.headers.get('idempotency-replayed')).toBe('true');
      expect(retry.text).toBe(first.text);
    }
    expect(chain.sent.length).toBe(sends + 1);
    const vault = await request(b.url, `/contracts/vault/${owner.publicKey()}`, { key });
    expect(vault.status, show(vault)).toBe(200);
    expect(vault.body.did_uri).toBe(createVaultBody(owner).didUri);
  });
});

/** Exactly one answer executed (2xx, not replayed); the other is a replay of it or 409 in progress. */
function expectExecutedOnce(answers: Answer[]): Answer {
  const executed = answers.filter((r) => r.status === 200 && r.headers.get('idempotency-replayed') === null);
  expect(executed, answers.map(show).join('\n')).toHaveLength(1);
  const first = executed[0]!;
  const other = answers.find((r) => r !== first)!;
  if (other.status === 200) {
    expect(other.headers.get('idempotency-replayed')).toBe('true');
    expect(other.text).toBe(first.text);
  } else {
    expect([other.status, other.body.error], show(other)).toEqual([409, 'idempotency_in_progress']);
  }
  return first;
}
