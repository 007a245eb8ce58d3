// kill -9 must not lose what the API acknowledged. `credential-vault start` (embedded
// simulator, file stores) runs as its own process group; accounts are funded by friendbot, keys obtained by
// wallet proof, vaults created with idempotent submits; the whole group is killed with SIGKILL; a new `start`
// on the same data directory still has the accounts, the keys and the vaults, and every idempotent retry
// replays a tx id that the chain knows.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Keypair, TransactionBuilder } from '@stellar/stellar-sdk';
import { afterAll, expect, it } from 'vitest';
import { redeemChallenge, request, show, signedChallenge, tempDataDir } from './harness.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'credential-vault.js');
const WRITES = 6;

interface Product {
  child: ChildProcess;
  vault: string;
  simulator: string;
  output(): string;
}

const groups = new Set<number>();
const killGroup = (pid: number) => {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
  groups.delete(pid);
};
afterAll(() => {
  for (const pid of [...groups]) killGroup(pid);
});

/** The parent's environment without any credential-vault setting: only the flags configure the child. */
function childEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith('CV_') || k === 'DATABASE_URL' || k === 'REDIS_URL') delete env[k];
  return env;
}

async function startProduct(dataDir: string): Promise<Product> {
  const ports = ['--testnet-port', '0', '--mainnet-port', '0', '--resolver-port', '0', '--simulator-port', '0'];
  const child = spawn(
    process.execPath,
    [BIN, 'start', '--host', '127.0.0.1', ...ports, '--data-dir', dataDir, '--log-level', 'error'],
    {
      cwd: ROOT,
      env: childEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true, // its own process group, killed as a whole
    },
  );
  groups.add(child.pid!);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const urls = await new Promise<{ vault: string; simulator: string }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`start did not come up:\n${out}`)), 30_000);
    child.stdout!.on('data', () => {
      const vault = /vault API testnet\s+(http:\/\/\S+)/.exec(out)?.[1];
      const simulator = /chain simulator\s+(http:\/\/\S+)/.exec(out)?.[1];
      if (vault && simulator) {
        clearTimeout(timer);
        resolve({ vault, simulator });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`start exited with ${code}:\n${out}`));
    });
  });
  return { child, ...urls, output: () => out };
}

async function sigkill(p: Product): Promise<void> {
  const exited = new Promise((r) => p.child.once('exit', r));
  killGroup(p.child.pid!);
  await exited;
}

async function rpc(simulator: string, method: string, params: unknown): Promise<any> {
  const res = await fetch(`${simulator}/testnet/rpc`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await res.json()) as { result: unknown }).result;
}

it('acknowledged friendbot accounts, keys, vaults and idempotent submits survive SIGKILL of the process group', async () => {
  const data = await tempDataDir();
  try {
    const first = await startProduct(data.dir);
    const writes: {
      owner: Keypair;
      key: string;
      idem: string;
      body: { signedXdr: string };
      text: string;
      txId: string;
    }[] = [];
    for (let i = 0; i < WRITES; i++) {
      const owner = Keypair.random();
      expect((await fetch(`${first.simulator}/testnet/friendbot?addr=${owner.publicKey()}`)).status).toBe(200);
      const proved = await redeemChallenge(first.vault, await signedChallenge(first.vault, owner));
      expect(proved.status, show(proved)).toBe(201);
      const key = proved.body.key as string;
      const prep = await request(first.vault, '/contracts/vault/create', {
        key,
        body: { owner: owner.publicKey(), didUri: `did:ledger:testnet:kill${i}`, sourcePublicKey: owner.publicKey() },
      });
      expect(prep.status, show(prep)).toBe(200);
      const tx = TransactionBuilder.fromXDR(prep.body.xdr as string, prep.body.network as string);
      tx.sign(owner);
      const idem = `kill-${randomBytes(6).toString('hex')}`;
      const body = { signedXdr: tx.toXDR() };
      const sub = await request(first.vault, '/contracts/vault/create', { key, idempotencyKey: idem, body });
      expect(sub.status, show(sub)).toBe(200);
      writes.push({ owner, key, idem, body, text: sub.text, txId: sub.body.tx_id as string });
    }

    await sigkill(first);
    const second = await startProduct(data.dir);
    try {
      for (const w of writes) {
        // The friendbot account is still there: funding it again is refused.
        expect((await fetch(`${second.simulator}/testnet/friendbot?addr=${w.owner.publicKey()}`)).status).toBe(400);
        const vault = await request(second.vault, `/contracts/vault/${w.owner.publicKey()}`, { key: w.key });
        expect(vault.status, show(vault)).toBe(200);
        const retry = await request(second.vault, '/contracts/vault/create', {
          key: w.key,
          idempotencyKey: w.idem,
          body: w.body,
        });
        expect(retry.status, show(retry)).toBe(200);
        expect(retry.headers.get('idempotency-replayed')).toBe('true');
        expect(retry.text).toBe(w.text);
        const onChain = await rpc(second.simulator, 'getTransaction', { hash: w.txId });
        expect(onChain.status).toBe('SUCCESS');
      }
    } finally {
      await sigkill(second);
    }
  } finally {
    await data.remove();
  }
}, 120_000);
