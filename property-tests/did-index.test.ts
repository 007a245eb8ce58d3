// The reverse lookup (spec listDidsByController) against a model, over random sequences of registry writes
// (register, update, transfer, deactivate) by three wallets on the RPC simulator, with instances restarted at
// random points: after every sequence, each wallet's DIDs (active, deactivated, all; paged by 2) are exactly the
// model's, asked of two resolver instances sharing one SQLite index.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Keypair } from '@stellar/stellar-sdk';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqlDidIndex } from '../src/stores/did-index.ts';
import { createSqliteStores, type SqliteStores } from '../src/stores/sqlite.ts';
import { multikey, startHarness, type Harness, type RegisteredDid, type Server } from '../test-support/resolver.ts';

interface ModelDid {
  did: RegisteredDid;
  controller: number;
  version: number;
  deactivated: boolean;
}

let h: Harness;
let dir: string;
let stores: SqliteStores;
let apps: Server[];
let wallets: Keypair[];
const model: ModelDid[] = [];

const startApps = async () => {
  apps = [
    await h.startApp({ didIndex: sqlDidIndex(stores.query) }),
    await h.startApp({ didIndex: sqlDidIndex(stores.query) }),
  ];
};

beforeAll(async () => {
  h = await startHarness();
  dir = mkdtempSync(path.join(tmpdir(), 'cv-did-index-prop-'));
  stores = createSqliteStores({ dataDir: dir });
  wallets = [await h.account(), await h.account(), await h.account()];
  await startApps();
}, 120_000);
afterAll(async () => {
  for (const a of apps ?? []) await a.close();
  await stores?.close();
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

type Command =
  | { kind: 'register'; wallet: number }
  | { kind: 'update' | 'deactivate' | 'resolve'; pick: number }
  | { kind: 'transfer'; pick: number; to: number }
  | { kind: 'restart' };

// Registrations and transfers weigh most: they are what moves a DID between wallets.
const command: fc.Arbitrary<Command> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('register' as const), wallet: fc.nat(2) }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constantFrom('update' as const, 'deactivate' as const, 'resolve' as const),
      pick: fc.nat(100),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('transfer' as const), pick: fc.nat(100), to: fc.nat(2) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
);

async function write(p: string, body: Record<string, unknown>, signer: Keypair) {
  const r = await h.prepareSignSubmit(p, { ...body, sourcePublicKey: signer.publicKey() }, [signer]);
  expect(r.status, r.text).toBe(200);
}

/** Applies one command to the chain and the model. */
async function apply(c: Command): Promise<void> {
  if (c.kind === 'register') {
    const did = await h.registerDid({ controller: wallets[c.wallet]! });
    model.push({ did, controller: c.wallet, version: 1, deactivated: false });
    return;
  }
  if (c.kind === 'restart') {
    const idx = apps.shift()!;
    await idx.close();
    apps.push(await h.startApp({ didIndex: sqlDidIndex(stores.query) }));
    return;
  }
  const live = model.filter((m) => !m.deactivated);
  const m = c.kind === 'resolve' ? model[c.pick % Math.max(1, model.length)] : live[c.pick % Math.max(1, live.length)];
  if (!m) return;
  const owner = wallets[m.controller]!;
  const base = `/v1/dids/stellar/${m.did.did}`;
  if (c.kind === 'resolve') {
    await fetch(`${apps[0]!.url}/1.0/identifiers/${m.did.did}`);
  } else if (c.kind === 'update') {
    const record = {
      ...m.did.record,
      controller: owner.publicKey(),
      authentication: [{ publicKeyMultibase: multikey(Keypair.random()) }],
    };
    await write(`${base}/update`, { expectedVersion: m.version, record }, owner);
    m.version++;
  } else if (c.kind === 'deactivate') {
    await write(`${base}/deactivate`, { expectedVersion: m.version }, owner);
    m.version++;
    m.deactivated = true;
  } else if (c.kind === 'transfer') {
    await write(`${base}/transfer`, { expectedVersion: m.version, newController: wallets[c.to]!.publicKey() }, owner);
    m.version++;
    m.controller = c.to;
  }
}

async function listed(base: string, wallet: Keypair, status: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = '';
  for (;;) {
    const r = await fetch(`${base}/v1/dids/stellar?controller=${wallet.publicKey()}&status=${status}&limit=2${cursor}`);
    const body = (await r.json()) as { dids: { did: string; version: number }[]; nextCursor?: string };
    expect(r.status, JSON.stringify(body)).toBe(200);
    out.push(...body.dids.map((d) => `${d.did} v${d.version}`));
    if (!body.nextCursor) return out;
    cursor = `&cursor=${body.nextCursor}`;
  }
}

describe('the reverse lookup against a model', () => {
  it('lists exactly what each wallet controls after any sequence of registry writes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(command, { minLength: 1, maxLength: 6 }), async (commands) => {
        for (const c of commands) await apply(c);
        for (const [i, wallet] of wallets.entries()) {
          const want = (status: string) =>
            model
              .filter((m) => m.controller === i && (status === 'all' || m.deactivated === (status === 'deactivated')))
              .map((m) => `${m.did.did} v${m.version}`)
              .sort();
          for (const status of ['active', 'deactivated', 'all'])
            for (const app of apps) expect((await listed(app.url, wallet, status)).sort()).toEqual(want(status));
        }
      }),
      { numRuns: 8, endOnFailure: true },
    );
  });
});
