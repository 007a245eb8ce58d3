// The state journal: whatever a served simulator answered survives the process dying without
// its close (a new simulator on the same state file is the restart), a torn last line is dropped, records the
// snapshot already holds are not replayed over it, and sim_revert rewrites the snapshot.
import fs from 'node:fs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Asset, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../index.ts';

const dirs: string[] = [];
const running: RunningSimulator[] = [];
afterEach(async () => {
  for (const r of running.splice(0).reverse()) await r.close().catch(() => undefined);
});
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function stateFile(): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'cv-journal-'));
  dirs.push(dir);
  return path.join(dir, 'simulator-state.json');
}

async function start(file: string): Promise<RunningSimulator> {
  const r = await startSimulator({ port: 0, stateFile: file });
  running.push(r);
  return r;
}

async function rpcCall(sim: RunningSimulator, method: string, params?: unknown): Promise<any> {
  const res = await fetch(`${sim.url}/testnet/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params === undefined ? {} : { params }) }),
  });
  const body = (await res.json()) as { result?: unknown; error?: unknown };
  if (body.error) throw new Error(JSON.stringify(body.error));
  return body.result;
}

async function friendbot(sim: RunningSimulator, kp: Keypair): Promise<void> {
  const res = await fetch(`${sim.url}/testnet/friendbot?addr=${kp.publicKey()}`);
  expect(res.status).toBe(200);
}

/** A payment sent over JSON-RPC, as a wallet sends it; resolves with its hash once applied. */
async function pay(sim: RunningSimulator, from: Keypair, to: Keypair, amount: string): Promise<string> {
  const net = sim.sim.network('testnet');
  const acc = net.account(from.publicKey())!;
  const tx = new TransactionBuilder(
    {
      accountId: () => from.publicKey(),
      sequenceNumber: () => acc.seqNum.toString(),
      incrementSequenceNumber: () => undefined,
    },
    { fee: '100', networkPassphrase: net.info.passphrase },
  )
    .addOperation(Operation.payment({ destination: to.publicKey(), asset: Asset.native(), amount }))
    .setTimeout(0) // ledger time runs ahead after sim_setTime
    .build();
  tx.sign(from);
  const sent = (await rpcCall(sim, 'sendTransaction', { transaction: tx.toXDR() })) as { status: string; hash: string };
  expect(sent.status).toBe('PENDING');
  return sent.hash;
}

describe('state journal', () => {
  it('keeps every answered change when the process dies without closing', async () => {
    const file = stateFile();
    const first = await start(file);
    const a = Keypair.random();
    const b = Keypair.random();
    await friendbot(first, a);
    await friendbot(first, b);
    const hash = await pay(first, a, b, '12.5');
    const t = Math.floor(Date.now() / 1000) + 3_600;
    await rpcCall(first, 'sim_setTime', { unixSeconds: t });
    // No close(): the state file was never written, the journal holds everything.
    expect(fs.existsSync(file)).toBe(false);

    const second = await start(file);
    const net = second.sim.network('testnet');
    expect(net.account(a.publicKey())).toBeDefined();
    expect(net.account(b.publicKey())!.balance).toBe(100_000_000_000n + 125_000_000n);
    const got = (await rpcCall(second, 'getTransaction', { hash })) as { status: string };
    expect(got.status).toBe('SUCCESS');
    expect(net.ledger.latest.closeTime).toBeGreaterThanOrEqual(t);
    // And the restarted simulator keeps working on top of the replayed state.
    const c = Keypair.random();
    await friendbot(second, c);
    await pay(second, b, c, '1');
  });

  it('creates the directory of a state file that does not exist yet', async () => {
    const file = path.join(path.dirname(stateFile()), 'data', 'nested', 'simulator-state.json');
    const first = await start(file);
    const a = Keypair.random();
    await friendbot(first, a);
    const second = await start(file);
    expect(second.sim.network('testnet').account(a.publicKey())).toBeDefined();
  });

  it('concurrent answers (one shared fdatasync) are all durable', async () => {
    const file = stateFile();
    const first = await start(file);
    const wallets = Array.from({ length: 20 }, () => Keypair.random());
    await Promise.all(wallets.map((w) => friendbot(first, w)));

    const second = await start(file);
    for (const w of wallets) expect(second.sim.network('testnet').account(w.publicKey())).toBeDefined();
  });

  it('drops a torn last line and refuses a damaged complete one', async () => {
    const file = stateFile();
    const first = await start(file);
    const a = Keypair.random();
    await friendbot(first, a);
    const journal = `${file}.journal`;
    const good = fs.readFileSync(journal, 'utf8');
    fs.appendFileSync(journal, '{"seq":99,"networks":{"testn');

    const second = await start(file);
    expect(second.sim.network('testnet').account(a.publicKey())).toBeDefined();
    expect(fs.readFileSync(journal, 'utf8')).toBe(good);

    fs.appendFileSync(journal, 'not json\n');
    await expect(startSimulator({ port: 0, stateFile: file })).rejects.toThrow(/damaged/);
  });

  it('does not replay records the snapshot already holds (a kill between snapshot and truncate)', async () => {
    const file = stateFile();
    const first = await start(file);
    const a = Keypair.random();
    const b = Keypair.random();
    await friendbot(first, a);
    await friendbot(first, b);
    await pay(first, a, b, '3');
    const journal = `${file}.journal`;
    const stale = fs.readFileSync(journal, 'utf8');
    await pay(first, b, a, '1');
    await first.close();
    expect(fs.readFileSync(journal, 'utf8')).toBe('');
    // The records before the last payment come back, as if the truncate never happened.
    fs.writeFileSync(journal, stale);

    const second = await start(file);
    const net = second.sim.network('testnet');
    expect(net.account(b.publicKey())!.balance).toBe(100_000_000_000n + 30_000_000n - 10_000_000n - 100n);
  });

  it('writes a whole snapshot on sim_revert', async () => {
    const file = stateFile();
    const first = await start(file);
    const snap = (await rpcCall(first, 'sim_snapshot')) as string;
    const a = Keypair.random();
    await friendbot(first, a);
    expect(await rpcCall(first, 'sim_revert', { id: snap })).toBe(true);

    const second = await start(file);
    expect(second.sim.network('testnet').account(a.publicKey())).toBeUndefined();
  });
});
