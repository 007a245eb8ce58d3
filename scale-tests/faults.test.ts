// Store faults at the HTTP level: the vault API as `serve` wires it (startServices), with a TCP
// proxy in front of PostgreSQL, of Redis and of the chain's RPC. Each dependency is cut and restored under
// the running service: the answers are the spec's (503 `rate_limit_unavailable` — fail closed —, 503
// `store_unavailable`, 502 `chain_unavailable`), the keyless routes keep answering, and the service
// recovers by itself, without a restart.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keypair } from '@stellar/stellar-sdk';
import { loadConfig } from '../src/config/index.ts';
import { startServices, type RunningServices } from '../src/services.ts';
import { PG_HOST, PG_PORT, REDIS_HOST, REDIS_PORT } from '../test-support/stores/backends.ts';
import { startTcpProxy, type TcpProxy } from '../test-support/stores/tcp-proxy.ts';
import {
  encryptionKeys,
  eventually,
  redeemChallenge,
  request,
  sharedBackends,
  show,
  signedChallenge,
  startTestChain,
  tempDataDir,
  type Answer,
  type SharedBackends,
  type TestChain,
} from './harness.ts';

let chain: TestChain;
let backends: SharedBackends;
let pgProxy: TcpProxy, redisProxy: TcpProxy, rpcProxy: TcpProxy;
let services: RunningServices;
let url: string;
let owner: Keypair;
let key: string;
const cleanups: (() => Promise<unknown>)[] = [];

beforeAll(async () => {
  chain = await startTestChain();
  cleanups.push(() => chain.close());
  backends = await sharedBackends('faults');
  cleanups.push(() => backends.drop());
  const data = await tempDataDir();
  cleanups.push(data.remove);
  pgProxy = await startTcpProxy({ host: PG_HOST, port: PG_PORT });
  redisProxy = await startTcpProxy({ host: REDIS_HOST, port: REDIS_PORT });
  rpcProxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(chain.url).port) });
  cleanups.push(
    () => pgProxy.close(),
    () => redisProxy.close(),
    () => rpcProxy.close(),
  );

  const { config } = loadConfig(
    [
      '--network',
      'testnet',
      '--host',
      '127.0.0.1',
      '--port',
      '0',
      ...chain.flags(`http://127.0.0.1:${rpcProxy.port}/testnet/rpc`),
      '--database-url',
      backends.databaseUrl(pgProxy.port),
      '--redis-url',
      backends.redisUrl(redisProxy.port),
      '--data-dir',
      data.dir,
      '--encryption-keys',
      encryptionKeys(),
      '--rpc-timeout-ms',
      '2000',
      // Every chain read goes to the RPC: an answer from the short read cache would hide the outage.
      '--read-cache-ms',
      '0',
      '--log-level',
      'silent',
      '--rate-standard-read',
      '1000',
      '--rate-standard-write',
      '1000',
    ],
    {},
  );
  services = await startServices(config, { mode: 'serve' });
  cleanups.push(() => services.close());
  url = services.vault.testnet!.url;

  owner = chain.fund();
  key = (
    await services.stores.keys.create({
      walletAddress: owner.publicKey(),
      network: 'testnet',
      role: 'standard',
      scopes: [],
      expiresAt: null,
    })
  ).key;
  const body = { owner: owner.publicKey(), didUri: 'did:ledger:testnet:faults', sourcePublicKey: owner.publicKey() };
  const prepared = await request(url, '/contracts/vault/create', { key, body });
  expect(prepared.status, show(prepared)).toBe(200);
  const submitted = await request(url, '/contracts/vault/create', {
    key,
    body: { signedXdr: chain.sign(prepared.body.xdr as string, owner) },
  });
  expect(submitted.status, show(submitted)).toBe(200);
}, 60_000);

afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

/** A read that needs the key store and the rate-limit store, not the chain. */
const storeRead = () => request(url, '/contracts/version', { key });
/** A read that needs the chain too. */
const chainRead = () => request(url, `/contracts/vault/vc-count?owner=${owner.publicKey()}`, { key });
const ok = (r: Answer) => r.status === 200;

function expectError(r: Answer, status: number, code: string): void {
  expect([r.status, r.body?.error], show(r)).toEqual([status, code]);
}

async function expectKeylessRoutesUp(): Promise<void> {
  for (const p of ['/health', '/config']) {
    const r = await request(url, p);
    expect(r.status, `${p}: ${show(r)}`).toBe(200);
  }
}

describe('the service before any fault', () => {
  it('answers reads through every dependency', async () => {
    expect((await storeRead()).status).toBe(200);
    const r = await chainRead();
    expect([r.status, r.body], show(r)).toEqual([200, { count: 0 }]);
  });
});

describe('Redis unreachable', () => {
  it('connection refused: keyed requests get 503 rate_limit_unavailable (fail closed, reads and writes); /health and /config answer; recovery without restart', async () => {
    await redisProxy.stop();
    try {
      expectError(await storeRead(), 503, 'rate_limit_unavailable');
      const write = await request(url, '/contracts/vault/set-vault-did', {
        key,
        body: { owner: owner.publicKey(), didUri: 'did:ledger:testnet:x', sourcePublicKey: owner.publicKey() },
      });
      expectError(write, 503, 'rate_limit_unavailable');
      // The wallet-proof routes are limited per client IP in the same store: closed as well.
      expectError(await request(url, `/auth/challenge?account=${owner.publicKey()}`), 503, 'rate_limit_unavailable');
      await expectKeylessRoutesUp();
    } finally {
      await redisProxy.start();
    }
    const back = await eventually(storeRead, ok);
    expect(back.status, show(back)).toBe(200);
    expect(back.headers.get('x-ratelimit-limit')).toBe('1000');
  });
});

describe('PostgreSQL unreachable', () => {
  it('keyed requests and wallet proof get 503 store_unavailable; /health and /config answer; recovery without restart', async () => {
    const wallet = chain.fund(); // only an existing account gets a key
    await pgProxy.stop();
    let signed: string;
    try {
      // Verified keys are answered from memory until the key cache sees its listener's connection closed
      // (milliseconds later; at most 1 s on a silent network: src/stores/key-cache.ts); then every keyed
      // request needs the store.
      expectError(await eventually(storeRead, (r) => r.status !== 200), 503, 'store_unavailable');
      expectError(await chainRead(), 503, 'store_unavailable');
      // A challenge needs no store; redeeming it does (single use, then the key).
      signed = await signedChallenge(url, wallet);
      expectError(await redeemChallenge(url, signed), 503, 'store_unavailable');
      await expectKeylessRoutesUp();
    } finally {
      await pgProxy.start();
    }
    const back = await eventually(storeRead, ok);
    expect(back.status, show(back)).toBe(200);
    // The refused redemption used nothing up: the same signed challenge gives a key now.
    const made = await redeemChallenge(url, signed);
    expect(made.status, show(made)).toBe(201);
    expect((await request(url, '/contracts/version', { key: made.body.key as string })).status).toBe(200);
  });
});

describe('the chain RPC unreachable', () => {
  it('a read gets 502 chain_unavailable; a write too, and its Idempotency-Key is not kept; both recover when the RPC returns', async () => {
    const idem = `rpc-down-${randomBytes(6).toString('hex')}`;
    const write = () =>
      request(url, '/contracts/vault/set-vault-did', {
        key,
        idempotencyKey: idem,
        body: {
          owner: owner.publicKey(),
          didUri: 'did:ledger:testnet:after-outage',
          sourcePublicKey: owner.publicKey(),
        },
      });
    await rpcProxy.stop();
    try {
      expectError(await chainRead(), 502, 'chain_unavailable');
      expectError(await write(), 502, 'chain_unavailable');
      expect((await storeRead()).status).toBe(200);
      await expectKeylessRoutesUp();
    } finally {
      await rpcProxy.start();
    }
    const back = await eventually(chainRead, ok);
    expect([back.status, back.body], show(back)).toEqual([200, { count: 0 }]);
    // The 502 was not stored: the retry under the same key executes now, and only then is replayed.
    const retried = await write();
    expect(retried.status, show(retried)).toBe(200);
    expect(retried.headers.get('idempotency-replayed')).toBeNull();
    const again = await write();
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.text).toBe(retried.text);
  });
});
