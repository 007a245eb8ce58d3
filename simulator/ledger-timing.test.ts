// Ledger timing over HTTP (`--ledger-close-ms`), as a client of a real network meets it: the SDK's rpc.Server sees
// PENDING, NOT_FOUND, then SUCCESS with the closing ledger; the friendbot answers once its ledger closed; the
// service's chain client waits for the close within its submit timeout. Closes are stepped by an injected clock where
// the test asserts exact ledgers, and run on a real 1000 ms interval where only the order of states is asserted.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Keypair, Operation, TransactionBuilder, rpc } from '@stellar/stellar-sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createChain } from '../src/chain/index.ts';
import { SIMULATOR_LEDGER_CLOSE_MS } from '../src/config/index.ts';
import { runSimulator } from './cli.ts';
import {
  MAX_LEDGER_CLOSE_MS,
  MIN_LEDGER_CLOSE_MS,
  startSimulator,
  type LedgerClock,
  type RunningSimulator,
} from './index.ts';

const running: RunningSimulator[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((r) => r.close()));
});

/** A ledger clock the test steps by hand. */
function manualClock(): { clock: LedgerClock; close: () => void; everyMs: () => number | undefined } {
  let tick: (() => void) | undefined;
  let every: number | undefined;
  return {
    clock: (everyMs, close) => {
      every = everyMs;
      tick = close;
      return () => void (tick = undefined);
    },
    close: () => tick?.(),
    everyMs: () => every,
  };
}

async function start(o: Parameters<typeof startSimulator>[0]) {
  const r = await startSimulator({ port: 0, ...o });
  running.push(r);
  const server = new rpc.Server(r.networks.testnet.rpcUrl!, { allowHttp: true });
  return { r, server };
}

const payment = async (server: rpc.Server, from: Keypair, passphrase: string) => {
  const acc = await server.getAccount(from.publicKey());
  const tx = new TransactionBuilder(acc, { fee: '100', networkPassphrase: passphrase })
    .addOperation(Operation.createAccount({ destination: Keypair.random().publicKey(), startingBalance: '2' }))
    .setTimeout(60)
    .build();
  tx.sign(from);
  return tx;
};

describe('--ledger-close-ms over HTTP, closes stepped by hand', () => {
  it('friendbot waits for its ledger; sendTransaction PENDING, getTransaction NOT_FOUND, then SUCCESS', async () => {
    const m = manualClock();
    const { r, server } = await start({ ledgerCloseMs: 1000, ledgerClock: m.clock });
    expect(m.everyMs()).toBe(1000);
    const kp = Keypair.random();
    let funded = false;
    const friendbot = fetch(`${r.networks.testnet.friendbotUrl}?addr=${kp.publicKey()}`).then(async (res) => {
      funded = true;
      return { status: res.status, body: (await res.json()) as { ledger: number } };
    });
    // the request has reached the simulator once the queue holds it
    await vi.waitFor(() => expect(r.sim.network('testnet').queue.size).toBe(1), { timeout: 10_000, interval: 10 });
    expect(funded).toBe(false);
    const before = (await server.getLatestLedger()).sequence;
    m.close();
    const fb = await friendbot;
    expect(fb).toMatchObject({ status: 200, body: { ledger: before + 1 } });

    const tx = await payment(server, kp, r.networks.testnet.passphrase);
    const sent = await server.sendTransaction(tx);
    expect(sent.status).toBe('PENDING');
    expect((await server.getTransaction(sent.hash)).status).toBe('NOT_FOUND');
    expect((await server.sendTransaction(tx)).status).toBe('DUPLICATE');
    m.close();
    const got = await server.getTransaction(sent.hash);
    expect(got.status).toBe('SUCCESS');
    if (got.status !== 'SUCCESS') return;
    const latest = await server.getLatestLedger();
    expect(got.ledger).toBe(latest.sequence);
    expect(String(got.createdAt)).toBe(String(latest.closeTime));
    expect(latest.sequence).toBe(before + 2);
  });

  // A client that retries a submit whose transaction landed: the network refuses the resend (TRY_AGAIN_LATER while
  // it bans the hash, then txBadSeq), and the service's submit answers what landed instead.
  it('sent again once applied: never DUPLICATE; the chain client answers the landed transaction', async () => {
    const m = manualClock();
    const { r, server } = await start({ ledgerCloseMs: 1000, ledgerClock: m.clock });
    const t = r.networks.testnet;
    const kp = Keypair.random();
    const funded = server.requestAirdrop(kp.publicKey());
    await vi.waitFor(() => expect(r.sim.network('testnet').queue.size).toBe(1), { timeout: 10_000, interval: 10 });
    m.close();
    await funded;
    const chain = createChain({
      rpcUrl: t.rpcUrl!,
      networkPassphrase: t.passphrase,
      network: 'testnet',
      simulationAccount: t.admin.publicKey,
      factoryId: t.factoryId,
      registryId: t.registryId,
      allowHttp: true,
      timeouts: { rpcMs: 10_000, submitMs: 60_000, pollIntervalMs: 50 },
    });
    const prepared = await chain.factory.deploy({ source: kp.publicKey(), owner: kp.publicKey(), didUri: 'did:web:x' });
    const tx = TransactionBuilder.fromXdr(prepared.xdr, prepared.network);
    tx.sign(kp);
    const sent = await server.sendTransaction(tx);
    m.close();
    const landed = await server.getTransaction(sent.hash);
    expect(landed.status).toBe('SUCCESS');
    expect((await server.sendTransaction(tx)).status).toBe('TRY_AGAIN_LATER');
    const again = await chain.client.submit(tx.toXDR());
    expect(again).toMatchObject({ txId: sent.hash, ledger: landed.status === 'SUCCESS' ? landed.ledger : -1 });
    for (let i = 0; i < 10; i++) m.close();
    const late = await server.sendTransaction(tx);
    expect([late.status, late.errorResult?.result.type]).toEqual(['ERROR', 'txBadSeq']);
    expect((await chain.client.submit(tx.toXDR())).txId).toBe(sent.hash);
  });

  it('close stops the clock and drops what waits', async () => {
    const m = manualClock();
    const { r } = await start({ ledgerCloseMs: 1000, ledgerClock: m.clock });
    const pending = fetch(`${r.networks.testnet.friendbotUrl}?addr=${Keypair.random().publicKey()}`).then(
      (res) => res.status,
      () => 'closed',
    );
    await vi.waitFor(() => expect(r.sim.network('testnet').queue.size).toBe(1), { timeout: 10_000, interval: 10 });
    await r.close();
    expect(['closed', 503]).toContain(await pending);
  });
});

describe('--ledger-close-ms with a state file', () => {
  it('keeps what a close applied across a restart; what still waited in the queue is gone, as on a node', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cv-timed-state-'));
    const stateFile = path.join(dir, 'sim.json');
    try {
      const m = manualClock();
      const first = await startSimulator({ port: 0, stateFile, ledgerCloseMs: 1000, ledgerClock: m.clock });
      const server = new rpc.Server(first.networks.testnet.rpcUrl!, { allowHttp: true });
      const kp = Keypair.random();
      const funded = server.requestAirdrop(kp.publicKey());
      const queued = () => expect(first.sim.network('testnet').queue.size).toBe(1);
      await vi.waitFor(queued, { timeout: 10_000, interval: 10 });
      m.close();
      await funded;
      const passphrase = first.networks.testnet.passphrase;
      const applied = await server.sendTransaction(await payment(server, kp, passphrase));
      m.close();
      expect((await server.getTransaction(applied.hash)).status).toBe('SUCCESS');
      const waiting = await server.sendTransaction(await payment(server, kp, passphrase));
      expect(waiting.status).toBe('PENDING');
      await first.close();

      const again = await startSimulator({ port: 0, stateFile, ledgerCloseMs: 1000, ledgerClock: manualClock().clock });
      try {
        const after = new rpc.Server(again.networks.testnet.rpcUrl!, { allowHttp: true });
        expect((await after.getTransaction(applied.hash)).status).toBe('SUCCESS');
        expect((await after.getTransaction(waiting.hash)).status).toBe('NOT_FOUND');
      } finally {
        await again.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// What must hold on a real interval is the order of the states, whatever the machine's speed: the send and a first
// lookup go in one JSON-RPC batch, which the simulator answers within one turn of its event loop (no close between
// them); the polls then run until the transaction is final, each wait bounded only by the test's own timeout.
describe('--ledger-close-ms 1000 on a real interval', () => {
  it('PENDING, NOT_FOUND, then SUCCESS in a later ledger; the chain client waits for it', async () => {
    const { r, server } = await start({ ledgerCloseMs: 1000 });
    const t = r.networks.testnet;
    const kp = Keypair.random();
    await server.requestAirdrop(kp.publicKey()); // answers once its ledger closed
    const tx = await payment(server, kp, t.passphrase);
    const hash = Buffer.from(tx.hash()).toString('hex');
    const batch = await fetch(t.rpcUrl!, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: { transaction: tx.toXDR() } },
        { jsonrpc: '2.0', id: 2, method: 'getTransaction', params: { hash } },
      ]),
    });
    const [sent, first] = (await batch.json()) as [
      { result: { status: string; latestLedger: number } },
      { result: { status: string } },
    ];
    expect([sent.result.status, first.result.status]).toEqual(['PENDING', 'NOT_FOUND']);
    const seen: string[] = [];
    const final = await vi.waitFor(
      async () => {
        const r = await server.getTransaction(hash);
        seen.push(r.status);
        expect(r.status).not.toBe('NOT_FOUND');
        return r;
      },
      { timeout: 30_000, interval: 100 },
    );
    expect(seen.at(-1)).toBe('SUCCESS');
    expect(seen.slice(0, -1).every((s) => s === 'NOT_FOUND')).toBe(true);
    if (final.status === 'SUCCESS') expect(final.ledger).toBeGreaterThan(sent.result.latestLedger);

    // src/chain: prepare → sign → submit, submit answering once the ledger closed (a submit timeout far beyond
    // any close, so that only the order is tested)
    const chain = createChain({
      rpcUrl: t.rpcUrl!,
      networkPassphrase: t.passphrase,
      network: 'testnet',
      simulationAccount: t.admin.publicKey,
      factoryId: t.factoryId,
      registryId: t.registryId,
      allowHttp: true,
      timeouts: { rpcMs: 60_000, submitMs: 240_000, pollIntervalMs: 100 },
    });
    const prepared = await chain.factory.deploy({
      source: kp.publicKey(),
      owner: kp.publicKey(),
      didUri: 'did:web:timed',
    });
    const signed = TransactionBuilder.fromXdr(prepared.xdr, prepared.network);
    signed.sign(kp);
    const latest = (await server.getLatestLedger()).sequence;
    const done = await chain.client.submit(signed.toXdr());
    expect(done.ledger).toBeGreaterThan(latest);
    expect(await chain.vault.version({ vault: chain.vaultAddress(kp.publicKey()) })).toBe('0.4.0');
  }, 300_000);
});

describe('credential-vault simulator --ledger-close-ms', () => {
  it('says the timing in its banner, names the admin account without its secret, stops on SIGTERM', async () => {
    const lines: string[] = [];
    const done = runSimulator(['--port', '0', '--ledger-close-ms', '1000'], (l) => lines.push(l));
    await vi.waitFor(() => expect(lines.some((l) => l.includes('admin'))).toBe(true), {
      timeout: 10_000,
      interval: 20,
    });
    try {
      expect(lines[0]).toMatch(
        /^credential-vault simulator listening on http:\/\/127\.0\.0\.1:\d+, Protocol 28, a ledger every 1000 ms$/,
      );
      const admin = lines.filter((l) => l.trim().startsWith('admin'));
      expect(admin).toHaveLength(2);
      for (const l of admin)
        expect(l).toMatch(/^ {2}admin {11}G[A-Z2-7]{55} \(its secret: the sim_info RPC method, admin\.secret\)$/);
      expect(lines.join('\n')).not.toMatch(/\bS[A-Z2-7]{55}\b/);
    } finally {
      process.emit('SIGTERM');
      expect(await done).toBe(0);
    }
  });

  const range = 'expected 0 (every transaction at once) or milliseconds from 1000 to 600000';
  const belowOne =
    'ms is below one ledger a second: close times are whole seconds and each must be later than the ' +
    'last, so the interval is 0 (every transaction at once) or 1000 to 600000';
  it.each([
    { args: ['--ledger-close-ms', 'fast'], want: `--ledger-close-ms: ${range}, got "fast"` },
    { args: ['--ledger-close-ms=-5'], want: `--ledger-close-ms: ${range}, got "-5"` },
    { args: ['--ledger-close-ms', '600001'], want: `--ledger-close-ms: ${range}, got "600001"` },
    { args: ['--ledger-close-ms', '250'], want: `--ledger-close-ms: 250 ${belowOne}` },
    { args: ['--ledger-close-ms'], want: '--ledger-close-ms needs a value' },
    { args: ['--port', '99999'], want: '--port: expected a port from 0 to 65535, got "99999"' },
    { args: ['--port=80x'], want: '--port: expected a port from 0 to 65535, got "80x"' },
    { args: ['--port'], want: '--port needs a value' },
    { args: [], env: { ledgerCloseMs: '1' }, want: `CV_SIMULATOR_LEDGER_CLOSE_MS: 1 ${belowOne}` },
  ])('$args $env → exit 2 with one line', async ({ args, env, want }) => {
    const err = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      expect(await runSimulator(args, () => undefined, env ?? {})).toBe(2);
      expect(err.mock.calls.at(-1)).toEqual([want]);
    } finally {
      err.mockRestore();
    }
  });

  it('src/config accepts the same intervals the simulator closes at', () => {
    expect(SIMULATOR_LEDGER_CLOSE_MS).toEqual({ min: MIN_LEDGER_CLOSE_MS, max: MAX_LEDGER_CLOSE_MS });
  });

  it('an unknown argument → exit 2 with the usage', async () => {
    const err = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      expect(await runSimulator(['--prot', '27'])).toBe(2);
      expect(err.mock.calls.at(-1)![0]).toMatch(/^unknown argument --prot\n\nusage: credential-vault simulator /);
    } finally {
      err.mockRestore();
    }
  });

  it('a busy port names the simulator, the address and the flag that moves it', async () => {
    const { r } = await start({});
    const port = Number(new URL(r.url).port);
    const err = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      expect(await runSimulator(['--port', String(port)])).toBe(1);
      expect(err.mock.calls.at(-1)).toEqual([
        `the chain simulator cannot listen on 127.0.0.1:${port}: another process uses that port; ` +
          'stop it, or set --port to a free port (0 picks one)',
      ]);
    } finally {
      err.mockRestore();
    }
  });
});
