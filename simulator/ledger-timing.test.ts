// Ledger timing over HTTP (`--ledger-close-ms`), as a client of a real network meets it: the SDK's rpc.Server sees
// PENDING, NOT_FOUND, then SUCCESS with the closing ledger; the friendbot answers once its ledger closed; the
// service's chain client waits for the close within its submit timeout. Closes are stepped by an injected clock where
// the test asserts an order, and run on a real 1000 ms interval only where it polls with generous bounds.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Keypair, Operation, TransactionBuilder, rpc } from '@stellar/stellar-sdk';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createChain } from '../src/chain/index.ts';
import { runSimulator } from './cli.ts';
import { startSimulator, type LedgerClock, type RunningSimulator } from './index.ts';

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
      await vi.waitFor(() => expect(first.sim.network('testnet').queue.size).toBe(1), { timeout: 10_000, interval: 10 });
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

describe('--ledger-close-ms 1000 on a real interval', () => {
  it('PENDING, NOT_FOUND, then SUCCESS in a later ledger; the chain client waits for it', async () => {
    const { r, server } = await start({ ledgerCloseMs: 1000 });
    const t = r.networks.testnet;
    const kp = Keypair.random();
    await server.requestAirdrop(kp.publicKey()); // answers once its ledger closed
    // A close may fall between send and the first getTransaction on a slow machine: try again until the window
    // shows NOT_FOUND (each attempt is a new transaction).
    let seen: string[] = [];
    for (let attempt = 0; attempt < 5 && !seen.includes('NOT_FOUND'); attempt++) {
      const sent = await server.sendTransaction(await payment(server, kp, t.passphrase));
      expect(sent.status).toBe('PENDING');
      seen = [(await server.getTransaction(sent.hash)).status];
      const final = await server.pollTransaction(sent.hash, { attempts: 100, sleepStrategy: () => 100 });
      seen.push(final.status);
      expect(final.status).toBe('SUCCESS');
      if (final.status === 'SUCCESS') expect(final.ledger).toBeGreaterThan(sent.latestLedger);
    }
    expect(seen).toEqual(['NOT_FOUND', 'SUCCESS']);

    // src/chain: prepare → sign → submit, submit answering once the ledger closed
    const chain = createChain({
      rpcUrl: t.rpcUrl!,
      networkPassphrase: t.passphrase,
      network: 'testnet',
      simulationAccount: t.admin.publicKey,
      factoryId: t.factoryId,
      registryId: t.registryId,
      allowHttp: true,
      timeouts: { rpcMs: 10_000, submitMs: 30_000, pollIntervalMs: 100 },
    });
    const prepared = await chain.factory.deploy({
      source: kp.publicKey(),
      owner: kp.publicKey(),
      didUri: 'did:web:timed',
    });
    const tx = TransactionBuilder.fromXdr(prepared.xdr, prepared.network);
    tx.sign(kp);
    const latest = (await server.getLatestLedger()).sequence;
    const done = await chain.client.submit(tx.toXdr());
    expect(done.ledger).toBeGreaterThan(latest);
    expect(await chain.vault.version({ vault: chain.vaultAddress(kp.publicKey()) })).toBe('0.4.0');
  }, 60_000);
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

  it.each([
    {
      args: ['--ledger-close-ms', 'fast'],
      want: '--ledger-close-ms: expected milliseconds from 0 to 600000, got "fast"',
    },
    { args: ['--ledger-close-ms=-5'], want: '--ledger-close-ms: expected milliseconds from 0 to 600000, got "-5"' },
  ])('$args → exit 2 with one line', async ({ args, want }) => {
    const err = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      expect(await runSimulator(args)).toBe(2);
      expect(err.mock.calls.at(-1)).toEqual([want]);
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
