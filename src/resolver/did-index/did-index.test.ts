// The reverse lookup (spec listDidsByController) over the simulator: exactly the DIDs a wallet controls after
// registrations, two transfers and a deactivation; the same answer from two instances sharing the SQLite store
// and after a restart; a DID registered before the index's window added by resolving it; paging.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Keypair } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryDidIndex, sqlDidIndex } from '../../stores/did-index.ts';
import { createSqliteStores } from '../../stores/sqlite.ts';
import { startHarness, type Harness, type RegisteredDid } from '../../../test-support/resolver.ts';

let h: Harness;
let dir: string;
beforeAll(async () => {
  h = await startHarness();
  dir = mkdtempSync(path.join(tmpdir(), 'cv-did-index-'));
}, 60_000);
afterAll(async () => {
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function getJson(base: string, p: string) {
  const r = await fetch(base + p);
  return { status: r.status, body: (await r.json()) as any };
}

/** Every DID of `controller` by following nextCursor, page size `limit`. */
async function listAll(base: string, controller: string, status = 'active', limit = 50): Promise<string[]> {
  const out: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const q = `controller=${controller}&network=testnet&status=${status}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`;
    const r = await getJson(base, `/v1/dids/stellar?${q}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    out.push(...r.body.dids.map((d: { did: string }) => d.did));
    cursor = r.body.nextCursor;
    if (!cursor) return out;
  }
}

async function transfer(d: RegisteredDid, from: Keypair, to: Keypair, version: number) {
  const r = await h.prepareSignSubmit(
    `/v1/dids/stellar/${d.did}/transfer`,
    { expectedVersion: version, newController: to.publicKey(), sourcePublicKey: from.publicKey() },
    [from],
  );
  expect(r.status, r.text).toBe(200);
}

describe('GET /v1/dids/stellar?controller=', () => {
  it('lists what each wallet controls after registrations, two transfers and a deactivation, on two instances and after a restart', async () => {
    const alice = await h.account();
    const bob = await h.account();
    const a1 = await h.registerDid({ controller: alice });
    const a2 = await h.registerDid({ controller: alice });
    const a3 = await h.registerDid({ controller: alice });
    const b1 = await h.registerDid({ controller: bob });
    await transfer(a2, alice, bob, 1); // alice → bob
    await transfer(b1, bob, alice, 1); // bob → alice
    const d = await h.prepareSignSubmit(
      `/v1/dids/stellar/${a3.did}/deactivate`,
      { expectedVersion: 1, sourcePublicKey: alice.publicKey() },
      [alice],
    );
    expect(d.status, d.text).toBe(200);

    const stores = createSqliteStores({ dataDir: dir });
    const one = await h.startApp({ didIndex: sqlDidIndex(stores.query) });
    const two = await h.startApp({ didIndex: sqlDidIndex(stores.query) });
    const sorted = (xs: string[]) => [...xs].sort();
    for (const base of [one.url, two.url]) {
      expect(sorted(await listAll(base, alice.publicKey()))).toEqual(sorted([a1.did, b1.did]));
      expect(sorted(await listAll(base, bob.publicKey()))).toEqual(sorted([a2.did]));
      expect(await listAll(base, alice.publicKey(), 'deactivated')).toEqual([a3.did]);
      expect(sorted(await listAll(base, alice.publicKey(), 'all', 1))).toEqual(sorted([a1.did, b1.did, a3.did]));
    }
    // A transfer after the first answers: both instances see it.
    await transfer(a1, alice, bob, 1);
    expect(await listAll(two.url, alice.publicKey())).toEqual([b1.did]);
    expect(sorted(await listAll(one.url, bob.publicKey()))).toEqual(sorted([a1.did, a2.did]));
    await one.close();
    await two.close();
    await stores.close();

    // A restart over the same database: caught up from where it stopped.
    const again = createSqliteStores({ dataDir: dir });
    const three = await h.startApp({ didIndex: sqlDidIndex(again.query) });
    const before = (await getJson(three.url, `/v1/dids/stellar?controller=${bob.publicKey()}`)).body.index;
    expect(sorted(await listAll(three.url, bob.publicKey()))).toEqual(sorted([a1.did, a2.did]));
    expect(before.fromLedger).toBeGreaterThan(0);
    expect(before.toLedger).toBeGreaterThanOrEqual(before.fromLedger);
    await three.close();
    await again.close();
  });

  it('adds a DID older than the index once it is resolved', async () => {
    const carol = await h.account();
    const old = await h.registerDid({ controller: carol });
    // An index whose window starts after the registration: it learns of the DID only by resolution.
    const index = memoryDidIndex();
    const latest = await h.latestLedger();
    await index.advance('testnet', {
      fromLedger: latest,
      toLedger: latest,
      eventCursor: `${(BigInt(latest) << 32n) | 0xfffffn}`.padStart(19, '0') + '-2147483647',
    });
    const app = await h.startApp({ didIndex: index });
    const first = await getJson(app.url, `/v1/dids/stellar?controller=${carol.publicKey()}`);
    expect(first.body.dids).toEqual([]);
    expect(first.body.index.fromLedger).toBe(latest);
    expect((await getJson(app.url, `/1.0/identifiers/${old.did}`)).status).toBe(200);
    const second = await getJson(app.url, `/v1/dids/stellar?controller=${carol.publicKey()}`);
    expect(second.body.dids.map((x: { did: string }) => x.did)).toEqual([old.did]);
    await app.close();
  });

  it('refuses a controller that is not an account', async () => {
    const r = await h.get('/v1/dids/stellar?controller=GNOTANACCOUNT');
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('invalid_request');
  });
});
