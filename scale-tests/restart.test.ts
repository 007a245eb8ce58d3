// Restart: a `credential-vault serve` process makes keys and answers an idempotent write,
// is stopped (SIGTERM), and a new process takes over. Nothing is lost — the keys open the new process, the
// write replays byte for byte, and a challenge issued before the restart is still redeemable:
//   - embedded default: the SQLite store and the key file in the data directory, which the new process reuses;
//   - shared backends: PostgreSQL (same schema) and Redis; the new process gets an empty data directory,
//     so nothing it finds can come from the disk of the old one.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keypair } from '@stellar/stellar-sdk';
import {
  cliKey,
  encryptionKeys,
  redeemChallenge,
  request,
  sharedBackends,
  show,
  signedChallenge,
  startApi,
  startTestChain,
  tempDataDir,
  type ApiProcess,
  type TestChain,
} from './harness.ts';

let chain: TestChain;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  chain = await startTestChain();
  cleanups.push(() => chain.close());
});

afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

async function start(flags: string[]): Promise<ApiProcess> {
  const api = await startApi([...chain.flags(), '--log-level', 'error', ...flags]);
  cleanups.push(() => api.stop());
  return api;
}

/**
 * Keys from the CLI and from wallet proof, an idempotent prepare and an unredeemed challenge on `before`;
 * then `before` stops, `after()` starts the next process, and everything is checked there.
 */
async function survivesRestart(
  before: ApiProcess,
  cliStore: string[],
  after: () => Promise<ApiProcess>,
): Promise<void> {
  const cliWallet = Keypair.random();
  const cliMade = await cliKey(cliStore, cliWallet.publicKey());

  const owner = chain.fund();
  const proved = await redeemChallenge(before.url, await signedChallenge(before.url, owner));
  expect(proved.status, show(proved)).toBe(201);
  const proofKey = proved.body.key as string;

  const idem = `restart-${randomBytes(6).toString('hex')}`;
  const body = { owner: owner.publicKey(), didUri: 'did:ledger:testnet:restart', sourcePublicKey: owner.publicKey() };
  const first = await request(before.url, '/contracts/vault/create', { key: proofKey, idempotencyKey: idem, body });
  expect(first.status, show(first)).toBe(200);
  expect(first.headers.get('idempotency-replayed')).toBeNull();

  const pending = await signedChallenge(before.url, chain.fund());

  await before.stop();
  expect(before.child.exitCode, before.output()).toBe(0);
  const next = await after();

  for (const key of [cliMade, proofKey]) {
    const r = await request(next.url, '/contracts/version', { key });
    expect(r.status, show(r)).toBe(200);
  }
  const replay = await request(next.url, '/contracts/vault/create', { key: proofKey, idempotencyKey: idem, body });
  expect(replay.status, show(replay)).toBe(200);
  expect(replay.headers.get('idempotency-replayed')).toBe('true');
  expect(replay.text).toBe(first.text);

  const late = await redeemChallenge(next.url, pending);
  expect(late.status, show(late)).toBe(201);
}

describe('restart', () => {
  it('embedded default: a new process on the same data directory keeps every key and idempotency record', async () => {
    const data = await tempDataDir();
    cleanups.push(data.remove);
    // No --encryption-keys: the key file is created in the data directory, as `npm start` does.
    const flags = ['--data-dir', data.dir];
    await survivesRestart(await start(flags), ['--data-dir', data.dir], () => start(flags));
  }, 60_000);

  it('shared backends: a new process on the same PostgreSQL schema keeps every key and idempotency record', async () => {
    const backends = await sharedBackends('restart');
    cleanups.push(() => backends.drop());
    const keys = encryptionKeys();
    const flags = async () => {
      const data = await tempDataDir();
      cleanups.push(data.remove);
      return [
        '--database-url',
        backends.databaseUrl(),
        '--redis-url',
        backends.redisUrl(),
        '--encryption-keys',
        keys,
        '--data-dir',
        data.dir,
      ];
    };
    const first = await start(await flags());
    const nextFlags = await flags();
    await survivesRestart(first, ['--database-url', backends.databaseUrl()], () => start(nextFlags));
  }, 60_000);
});
