// The DIF Universal Registrar and the reverse lookup through the real `start` wiring: `credential-vault start`
// with the embedded simulator closing a ledger every second runs create → action → sign → wait → finished →
// resolve → update → deactivate; two `credential-vault resolver` processes over one PostgreSQL schema share
// jobs (started on one, signed and finished on the other) and answer the same reverse lookup, also after one
// restarts.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Keypair } from '@stellar/stellar-sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { encodeMultikey } from '../src/did/index.ts';
import { eventually, request, sharedBackends, show, startTestChain, tempDataDir, type Answer } from './harness.ts';

const BIN = path.join(fileURLToPath(new URL('../', import.meta.url)), 'bin', 'credential-vault.js');
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

interface Product {
  /** The URLs it printed, by the pattern's names. */
  urls: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * `credential-vault <args>`; resolves once every pattern matched a printed URL and the resolver answers /health
 * (not /ready: its 2-second RPC probe can time out on a loaded test host while requests are served).
 */
async function startProduct(args: string[], patterns: Record<string, RegExp>): Promise<Product> {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('CV_') || k === 'DATABASE_URL' || k === 'REDIS_URL') delete env[k];
  const child: ChildProcess = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  cleanups.push(stop);
  const urls = await new Promise<Record<string, string>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no start within 60 s:\n${out}`)), 60_000);
    const look = () => {
      const found = Object.entries(patterns).map(([k, re]) => [k, re.exec(out)?.[1]] as const);
      if (found.every(([, v]) => v)) {
        clearTimeout(timer);
        resolve(Object.fromEntries(found) as Record<string, string>);
      }
    };
    child.stdout!.on('data', look);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}:\n${out}`));
    });
  });
  const health = await eventually(
    () => request(urls.resolver!, '/health'),
    (a) => a.status === 200,
    30_000,
  );
  if (health.status !== 200) throw new Error(`/health: ${show(health)}`);
  return { urls, stop };
}

const RESOLVER = /DID resolver\s+(http:\/\/127\.0\.0\.1:\d+)/;
const SIMULATOR = /chain simulator\s+(http:\/\/127\.0\.0\.1:\d+)/;

const docOf = (auth: Keypair) => ({
  verificationMethod: [
    { id: '#auth-1', type: 'Multikey', publicKeyMultibase: encodeMultikey('Ed25519', auth.rawPublicKey()) },
  ],
  authentication: ['#auth-1'],
});

function signedBy(action: Answer, key: Keypair) {
  const payload = action.body.didState.signingRequest.signingRequest1.serializedPayload as string;
  const signature = Buffer.from(key.sign(Buffer.from(payload, 'base64'))).toString('base64');
  return { jobId: action.body.jobId, secret: { signingResponse: { signingRequest1: { signature, alg: 'EdDSA' } } } };
}

/** Signs on `signAt`, then asks `pollAt` until the job is no longer waiting; the states seen, in order. */
async function signAndFinish(signAt: string, pollAt: string, p: string, action: Answer, key: Keypair) {
  const states: string[] = [];
  const sent = await request(signAt, p, { body: signedBy(action, key) });
  expect(sent.status, show(sent)).toBe(200);
  states.push(sent.body.didState.state);
  const last = await eventually(
    async () => {
      const a = await request(pollAt, p, { body: { jobId: action.body.jobId } });
      states.push(a.body.didState?.state);
      return a;
    },
    (a) => a.body.didState?.state !== 'wait',
    30_000,
  );
  return { last, states };
}

describe('the registrar through `credential-vault start`', () => {
  it('creates, updates and deactivates with --ledger-close-ms 1000: wait before finished', async () => {
    const data = await tempDataDir();
    cleanups.push(data.remove);
    const product = await startProduct(
      [
        'start',
        '--host',
        '127.0.0.1',
        '--ledger-close-ms',
        '1000',
        '--data-dir',
        data.dir,
        '--simulator-port',
        '0',
        '--testnet-port',
        '0',
        '--mainnet-port',
        '0',
        '--resolver-port',
        '0',
      ],
      { resolver: RESOLVER, simulator: SIMULATOR },
    );
    const base = product.urls.resolver!;
    const controller = Keypair.random();
    const funded = await fetch(`${product.urls.simulator}/testnet/friendbot?addr=${controller.publicKey()}`);
    expect(funded.ok).toBe(true);

    const action = await request(base, '/1.0/create?method=ledger', {
      body: { options: { network: 'testnet', clientSecretMode: true }, didDocument: docOf(controller) },
    });
    expect(action.status, show(action)).toBe(200);
    expect(action.body.didState.state).toBe('action');
    const created = await signAndFinish(base, base, '/1.0/create?method=ledger', action, controller);
    expect(created.last.status, show(created.last)).toBe(201);
    expect(created.states[0]).toBe('wait');
    expect(created.states.indexOf('wait')).toBeLessThan(created.states.indexOf('finished'));
    const did = created.last.body.didState.did as string;
    expect((await request(base, `/1.0/identifiers/${did}`)).status).toBe(200);

    const updateAction = await request(base, '/1.0/update', {
      body: { did, options: { clientSecretMode: true }, didDocument: [docOf(Keypair.random())] },
    });
    const updated = await signAndFinish(base, base, '/1.0/update', updateAction, controller);
    expect(updated.last.status, show(updated.last)).toBe(200);
    expect(updated.last.body.didDocumentMetadata.versionId).toBe('2');

    const deactivateAction = await request(base, '/1.0/deactivate', {
      body: { did, options: { clientSecretMode: true } },
    });
    const deactivated = await signAndFinish(base, base, '/1.0/deactivate', deactivateAction, controller);
    expect(deactivated.last.status, show(deactivated.last)).toBe(200);
    expect((await request(base, `/1.0/identifiers/${did}`)).status).toBe(410);
    const mine = await request(base, `/v1/dids/stellar?controller=${controller.publicKey()}&status=all`);
    expect(mine.body.dids.map((d: { did: string; deactivated: boolean }) => [d.did, d.deactivated])).toEqual([
      [did, true],
    ]);
    await product.stop();
  }, 120_000);
});

describe('two resolver instances over one PostgreSQL', () => {
  it('share jobs and the reverse lookup, also after a restart', async () => {
    const chain = await startTestChain();
    cleanups.push(() => chain.close());
    const backends = await sharedBackends('registrar');
    cleanups.push(() => backends.drop());
    const instance = async () => {
      const data = await tempDataDir();
      cleanups.push(data.remove);
      return startProduct(
        [
          'resolver',
          '--host',
          '127.0.0.1',
          '--resolver-port',
          '0',
          '--resolver-networks',
          'testnet',
          ...chain.flags(),
          '--database-url',
          backends.databaseUrl(),
          '--redis-url',
          backends.redisUrl(),
          '--data-dir',
          data.dir,
        ],
        { resolver: RESOLVER },
      );
    };
    const a = await instance();
    const b = await instance();
    const [A, B] = [a.urls.resolver!, b.urls.resolver!];
    const controller = chain.fund();
    const dids: string[] = [];
    for (const [start, finishAt] of [
      [A, B],
      [B, A],
    ] as const) {
      const action = await request(start, '/1.0/create?method=ledger', {
        body: { options: { clientSecretMode: true }, didDocument: docOf(controller) },
      });
      expect(action.status, show(action)).toBe(200);
      const done = await signAndFinish(finishAt, start, '/1.0/create?method=ledger', action, controller);
      expect(done.last.status, show(done.last)).toBe(201);
      dids.push(done.last.body.didState.did as string);
    }
    const listed = async (base: string) => {
      const a = await request(base, `/v1/dids/stellar?controller=${controller.publicKey()}`);
      expect(a.status, show(a)).toBe(200);
      return (a.body.dids as { did: string }[]).map((d) => d.did).sort();
    };
    expect(await listed(A)).toEqual([...dids].sort());
    expect(await listed(B)).toEqual([...dids].sort());
    await b.stop();
    const again = await instance();
    expect(await listed(again.urls.resolver!)).toEqual([...dids].sort());
  }, 180_000);
});
