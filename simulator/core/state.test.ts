// Ledger clock, cheats (time, close, snapshot/revert, fund), getEvents filters and paging, the state file.
import { Keypair, xdr } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { addressToScVal } from '../host.ts';
import { createSimulator } from '../index.ts';
import { COUNTER_HASH, clock, funded, testNetwork } from './testing.ts';
import { toAddress, toBigInt, toStr, toU32 } from '../../src/chain/codec.ts';

const u32 = (n: number) => xdr.ScVal.scvU32(n);
const sym = (s: string) => xdr.ScVal.scvSymbol(s).toXdr('base64');

describe('ledger clock and cheats', () => {
  it('closes a ledger every 5 s of wall time and one per second of transactions', () => {
    const c = clock();
    const net = testNetwork({ now: c.now });
    const start = net.ledger.tick().seq;
    c.advance(12_000);
    expect(net.ledger.tick().seq).toBe(start + 2);
    const owner = funded(net);
    const id = net.deploy(COUNTER_HASH, Buffer.alloc(32, 1), [addressToScVal(owner.publicKey())]);
    const r1 = net.invoke({ source: owner, contractId: id, fn: 'incr', args: [u32(1)] });
    const r2 = net.invoke({ source: owner, contractId: id, fn: 'incr', args: [u32(1)] });
    expect(r1.status === 'SUCCESS' && r2.status === 'SUCCESS' && r1.ledger === r2.ledger).toBe(true);
    c.advance(1_000);
    const r3 = net.invoke({ source: owner, contractId: id, fn: 'incr', args: [u32(1)] });
    expect(r3.status === 'SUCCESS' && r1.status === 'SUCCESS' && r3.ledger).toBe(
      r1.status === 'SUCCESS' ? r1.ledger + 1 : -1,
    );
    expect(net.ledger.latest.closeTime).toBe(Math.floor(c.now() / 1000));
  });

  it('sim_setTime moves ledger time forward only; sim_closeLedger closes one', async () => {
    const c = clock();
    const net = testNetwork({ now: c.now });
    const t0 = Math.floor(c.now() / 1000);
    const r = (await net.rpc('sim_setTime', { unixSeconds: t0 + 86_400 })) as { sequence: number; closeTime: number };
    expect(r.closeTime).toBe(t0 + 86_400);
    await expect(net.rpc('sim_setTime', { unixSeconds: t0 })).rejects.toMatchObject({ code: -32602 });
    // in the same second: the next second, since every close time is later than the last
    const closed = (await net.rpc('sim_closeLedger')) as { sequence: number; closeTime: number };
    expect([closed.sequence, closed.closeTime]).toEqual([r.sequence + 1, t0 + 86_401]);
    c.advance(5_000);
    expect(net.ledger.tick().closeTime).toBe(t0 + 86_401);
    c.advance(1_000);
    expect(net.ledger.tick().closeTime).toBe(t0 + 86_406);
  });

  it('sim_fund mints native and USDC (with a trustline), sim_snapshot / sim_revert restore everything', async () => {
    const sim = createSimulator();
    const net = sim.network('mainnet');
    const kp = Keypair.random();
    await net.rpc('sim_fund', { address: kp.publicKey() });
    const snap = (await net.rpc('sim_snapshot')) as string;
    const usdc = (await net.rpc('sim_fund', { address: kp.publicKey(), amount: '70000000', asset: 'USDC' })) as {
      balance: string;
    };
    expect(usdc.balance).toBe('70000000');
    const seq = net.ledger.latest.seq;
    net.closeLedger();
    expect(await net.rpc('sim_revert', { id: snap })).toBe(true);
    expect(net.ledger.latest.seq).toBe(seq);
    const bal = net.read(net.info.feeTokenId, 'balance', [addressToScVal(kp.publicKey())]);
    expect(bal.status === 'SUCCESS' && toBigInt(bal.returnValue).toString()).toBe('0');
    expect(net.account(kp.publicKey())!.balance).toBe(100_000_000_000n);
    await expect(net.rpc('sim_revert', { id: '99' })).rejects.toMatchObject({ code: -32602 });
    const info = (await net.rpc('sim_info')) as { passphrase: string; admin: { secret: string } };
    expect(info.passphrase).toBe('Credential Vault Simulator Mainnet ; 2026');
    expect(Keypair.fromSecret(info.admin.secret).publicKey()).toBe(net.info.admin.publicKey);
  });
});

describe('getEvents', () => {
  async function withEvents() {
    const net = testNetwork();
    const owner = funded(net);
    const a = net.deploy(COUNTER_HASH, Buffer.alloc(32, 1), [addressToScVal(owner.publicKey())]);
    const b = net.deploy(COUNTER_HASH, Buffer.alloc(32, 2), [addressToScVal(owner.publicKey())]);
    const start = net.ledger.tick().seq;
    for (const id of [a, b, a])
      expect(net.invoke({ source: owner, contractId: id, fn: 'incr', args: [u32(1)] }).status).toBe('SUCCESS');
    return { net, a, b, start };
  }
  type Events = {
    events: { contractId: string; id: string; topic: string[]; value: string }[];
    cursor: string;
    latestLedger: number;
  };

  it('filters by contract id and topics (with * and **)', async () => {
    const { net, a, b, start } = await withEvents();
    const all = (await net.rpc('getEvents', { startLedger: start, filters: [{ contractIds: [a, b] }] })) as Events;
    expect(all.events.map((e) => e.contractId)).toEqual([a, b, a]);
    // unfiltered, each transaction's fee event (CAP-67, on the native asset's contract) comes too
    const everything = (await net.rpc('getEvents', { startLedger: start })) as Events;
    expect(everything.events.filter((e) => e.contractId === net.info.nativeTokenId)).toHaveLength(3);
    const onlyB = (await net.rpc('getEvents', {
      startLedger: start,
      filters: [{ type: 'contract', contractIds: [b] }],
    })) as Events;
    expect(onlyB.events.map((e) => e.contractId)).toEqual([b]);
    const byTopic = (await net.rpc('getEvents', {
      startLedger: start,
      filters: [{ topics: [[sym('incr')]] }],
    })) as Events;
    expect(byTopic.events).toHaveLength(3);
    const wildcard = (await net.rpc('getEvents', { startLedger: start, filters: [{ topics: [['*']] }] })) as Events;
    expect(wildcard.events).toHaveLength(3);
    // two segments: not the counters' one-topic events, only the fee events' ["fee", account]
    const two = (await net.rpc('getEvents', { startLedger: start, filters: [{ topics: [['*', '*']] }] })) as Events;
    expect(two.events.map((e) => e.contractId)).toEqual(Array(3).fill(net.info.nativeTokenId));
    const greedy = (await net.rpc('getEvents', {
      startLedger: start,
      filters: [{ topics: [[sym('incr'), '**']] }],
    })) as Events;
    expect(greedy.events).toHaveLength(3);
    const other = (await net.rpc('getEvents', {
      startLedger: start,
      filters: [{ topics: [[sym('nope')]] }],
    })) as Events;
    expect(other.events).toHaveLength(0);
    expect(toU32(xdr.ScVal.fromXdr(all.events[2]!.value, 'base64'))).toBe(2);
  });

  it('pages with limit and cursor, and refuses a start outside retention', async () => {
    const { net, a, b, start } = await withEvents();
    const filters = [{ contractIds: [a, b] }];
    const p1 = (await net.rpc('getEvents', { startLedger: start, filters, pagination: { limit: 2 } })) as Events;
    expect(p1.events.map((e) => e.contractId)).toEqual([a, b]);
    const p2 = (await net.rpc('getEvents', { filters, pagination: { cursor: p1.cursor, limit: 2 } })) as Events;
    expect(p2.events.map((e) => e.contractId)).toEqual([a]);
    const p3 = (await net.rpc('getEvents', { filters, pagination: { cursor: p2.cursor } })) as Events;
    expect(p3.events).toHaveLength(0);
    const owner = funded(net);
    const c = net.deploy(COUNTER_HASH, Buffer.alloc(32, 5), [addressToScVal(owner.publicKey())]);
    net.invoke({ source: owner, contractId: c, fn: 'incr', args: [u32(1)] });
    const p4 = (await net.rpc('getEvents', {
      filters: [{ contractIds: [a, b, c] }],
      pagination: { cursor: p3.cursor },
    })) as Events;
    expect(p4.events.map((e) => e.contractId)).toEqual([c]);
    await expect(net.rpc('getEvents', { startLedger: p1.latestLedger + 10 })).rejects.toMatchObject({ code: -32600 });
    await expect(
      net.rpc('getEvents', { startLedger: start, filters: [{ contractIds: ['nope'] }] }),
    ).rejects.toMatchObject({ code: -32602 });
  });
});

describe('state file', () => {
  it('round-trips entries, ledger, transactions and events through JSON', async () => {
    const c = clock();
    const sim = createSimulator({ now: c.now });
    const net = sim.network('testnet');
    const owner = funded(net);
    const dep = net.invoke({
      source: owner,
      contractId: net.info.factoryId,
      fn: 'deploy',
      args: [
        addressToScVal(owner.publicKey()),
        xdr.ScVal.scvString('did:ledger:testnet:x'),
        xdr.ScVal.scvBytes(Buffer.alloc(32)),
      ],
    });
    expect(dep.status).toBe('SUCCESS');
    const vault = dep.status === 'SUCCESS' ? dep.returnValue : xdr.ScVal.scvVoid();
    const vaultId = toAddress(xdr.ScVal.fromXdr(vault.toXdr()));
    const args = [
      xdr.ScVal.scvString('vc-1'),
      xdr.ScVal.scvString('data'),
      vault,
      addressToScVal(owner.publicKey()),
      xdr.ScVal.scvString('did:ledger:testnet:y'),
    ];
    const issued = net.invoke({ source: owner, contractId: vaultId, fn: 'issue', args });
    expect(issued.status).toBe('SUCCESS');
    await net.rpc('sim_setTime', { unixSeconds: Math.floor(c.now() / 1000) + 3600 });
    const before = {
      latest: net.ledger.latest.seq,
      balance: net.account(owner.publicKey())!.balance,
      entries: net.ledger.entries.size,
    };

    const restored = createSimulator({ now: c.now, state: JSON.parse(JSON.stringify(sim.saveState())) });
    const net2 = restored.network('testnet');
    expect(net2.info.factoryId).toBe(net.info.factoryId);
    expect(net2.ledger.latest.seq).toBe(before.latest);
    expect(net2.ledger.entries.size).toBe(before.entries);
    expect(net2.account(owner.publicKey())!.balance).toBe(before.balance);
    expect(net2.ledger.nowSec()).toBe(net.ledger.nowSec());
    const status = net2.read(vaultId, 'verify_vc', [xdr.ScVal.scvString('vc-1')]);
    expect(status.status).toBe('SUCCESS');
    const tx = (await net2.rpc('getTransaction', { hash: issued.status === 'SUCCESS' ? issued.hash : '' })) as {
      status: string;
      resultMetaXdr: string;
    };
    expect(tx.status).toBe('SUCCESS');
    const meta = xdr.TransactionMeta.fromXdr(tx.resultMetaXdr, 'base64');
    const rv = meta.type === 'v4' ? meta.v4.sorobanMeta?.returnValue : undefined;
    expect(rv && toStr(rv)).toBe('vc-1');
    const ev = (await net2.rpc('getEvents', { startLedger: net2.ledger.oldestLedger })) as { events: unknown[] };
    expect(ev.events.length).toBeGreaterThan(0);
    // the restored chain goes on
    const again = net2.invoke({
      source: owner,
      contractId: vaultId,
      fn: 'issue',
      args: [xdr.ScVal.scvString('vc-2'), ...args.slice(1)],
    });
    expect(again.status).toBe('SUCCESS');
  });
});
