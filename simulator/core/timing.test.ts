// Ledger timing (`ledgerCloseMs` > 0): transactions queue as stellar-core's queue holds them, and a ledger closes
// only when the network closes one (here by hand, with a test clock: nothing depends on the machine's speed).
// sendTransaction answers PENDING, DUPLICATE, TRY_AGAIN_LATER or ERROR; getTransaction NOT_FOUND until the close,
// then SUCCESS or FAILED with that ledger and its close time; the latest ledger, getLedgers and events follow the
// closes. Off (the default), every transaction lands at once, as before.
import { Asset, Keypair, Operation, xdr } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { addressToScVal } from '../host.ts';
import { COUNTER_HASH, classicTx, clock, errorCode, funded, send, testNetwork } from './testing.ts';

type Got = { status: string; ledger?: number; createdAt?: string; applicationOrder?: number; latestLedger: number };
const get = async (net: ReturnType<typeof testNetwork>, hash: string) =>
  (await net.rpc('getTransaction', { hash })) as Got;
const latest = async (net: ReturnType<typeof testNetwork>) =>
  (await net.rpc('getLatestLedger')) as { sequence: number; closeTime: string; metadataXdr: string };
const payment = (to: string) => Operation.payment({ destination: to, asset: Asset.native(), amount: '1' });

function timed() {
  const c = clock();
  const net = testNetwork({ now: c.now, ledgerCloseMs: 5_000 });
  return { c, net, a: funded(net), b: funded(net) };
}

describe('ledger timing off (the default): every transaction lands at once', () => {
  it('PENDING, and getTransaction answers SUCCESS at once', async () => {
    const net = testNetwork({ now: clock().now });
    const a = funded(net);
    const sent = await send(net, classicTx(net, a, [payment(net.info.admin.publicKey)]));
    expect(sent.status).toBe('PENDING');
    expect((await get(net, sent.hash)).status).toBe('SUCCESS');
  });

  it('a transaction after sim_closeLedger in the same second lands in a later second', async () => {
    const c = clock();
    const net = testNetwork({ now: c.now });
    const a = funded(net);
    const closed = (await net.rpc('sim_closeLedger')) as { sequence: number; closeTime: number };
    const sent = await send(net, classicTx(net, a, [payment(net.info.admin.publicKey)]));
    const got = await get(net, sent.hash);
    expect(got.ledger).toBe(closed.sequence + 1);
    expect(Number(got.createdAt)).toBe(closed.closeTime + 1);
    // another one in that second joins the ledger
    const again = await send(net, classicTx(net, a, [payment(net.info.admin.publicKey)]));
    expect((await get(net, again.hash)).ledger).toBe(got.ledger);
  });
});

describe('ledger timing on', () => {
  it('PENDING, NOT_FOUND until the close, then SUCCESS with that ledger and its close time', async () => {
    const { c, net, a } = timed();
    const before = await latest(net);
    const sent = (await send(net, classicTx(net, a, [payment(net.info.admin.publicKey)]))) as {
      status: string;
      hash: string;
      latestLedger?: number;
    };
    expect(sent.status).toBe('PENDING');
    const waiting = await get(net, sent.hash);
    expect(waiting.status).toBe('NOT_FOUND');
    expect(waiting.latestLedger).toBe(before.sequence);
    // wall time alone closes nothing: the network's close does
    c.advance(60_000);
    expect((await latest(net)).sequence).toBe(before.sequence);
    expect((await get(net, sent.hash)).status).toBe('NOT_FOUND');
    const closed = net.closeLedger();
    expect(closed).toMatchObject({ sequence: before.sequence + 1, applied: 1, dropped: 0 });
    const done = await get(net, sent.hash);
    expect(done).toMatchObject({
      status: 'SUCCESS',
      ledger: closed.sequence,
      createdAt: String(closed.closeTime),
      applicationOrder: 1,
    });
    expect(closed.closeTime).toBe(Math.floor(c.now() / 1000));
    const now = await latest(net);
    expect([now.sequence, now.closeTime]).toEqual([closed.sequence, String(closed.closeTime)]);
  });

  it('a close applies everything queued, in arrival order, in one ledger', async () => {
    const { net, a, b } = timed();
    const first = await send(net, classicTx(net, b, [payment(net.info.admin.publicKey)]));
    const second = await send(net, classicTx(net, a, [payment(net.info.admin.publicKey)]));
    expect([first.status, second.status]).toEqual(['PENDING', 'PENDING']);
    const closed = net.closeLedger();
    expect(closed.applied).toBe(2);
    const [x, y] = [await get(net, first.hash), await get(net, second.hash)];
    expect([x.ledger, y.ledger]).toEqual([closed.sequence, closed.sequence]);
    expect([x.applicationOrder, y.applicationOrder]).toEqual([1, 2]);
    // the ledger's close meta carries both, in that order
    const meta = xdr.LedgerCloseMeta.fromXdr((await latest(net)).metadataXdr, 'base64');
    const processed = xdr
      .expectUnionVariant(meta, 'v2')
      .v2.txProcessing.map((t) => Buffer.from(t.result.transactionHash.toXdr()).toString('hex'));
    expect(processed).toEqual([first.hash, second.hash]);
  });

  it('TRY_AGAIN_LATER while a transaction of the same source waits; sent again after the close, it lands', async () => {
    const { net, a } = timed();
    const one = classicTx(net, a, [payment(net.info.admin.publicKey)]);
    const two = classicTx(net, a, [payment(net.info.admin.publicKey)], { seqOffset: 1n });
    expect((await send(net, one)).status).toBe('PENDING');
    expect((await send(net, two)).status).toBe('TRY_AGAIN_LATER');
    net.closeLedger();
    expect((await send(net, two)).status).toBe('PENDING');
    net.closeLedger();
    expect((await get(net, Buffer.from(two.hash()).toString('hex'))).status).toBe('SUCCESS');
    expect(net.account(a.publicKey())!.seqNum).toBe(BigInt(two.sequence));
  });

  it('DUPLICATE while queued; once applied TRY_AGAIN_LATER for 10 ledgers, then txBadSeq', async () => {
    const { net, a } = timed();
    const tx = classicTx(net, a, [payment(net.info.admin.publicKey)]);
    expect((await send(net, tx)).status).toBe('PENDING');
    expect((await send(net, tx)).status).toBe('DUPLICATE');
    const landed = net.closeLedger();
    expect(landed.applied).toBe(1);
    for (let i = 0; i < 9; i++) {
      expect((await send(net, tx)).status).toBe('TRY_AGAIN_LATER');
      net.closeLedger();
    }
    expect((await send(net, tx)).status).toBe('TRY_AGAIN_LATER');
    expect(net.closeLedger()).toMatchObject({ sequence: landed.sequence + 10, applied: 0 });
    const late = await send(net, tx);
    expect([late.status, errorCode(late)]).toEqual(['ERROR', 'txBadSeq']);
    expect((await get(net, late.hash)).ledger).toBe(landed.sequence);
  });

  it('ERROR at once for what stellar-core refuses on receipt', async () => {
    const { net, a } = timed();
    const stale = await send(net, classicTx(net, a, [payment(Keypair.random().publicKey())], { seqOffset: -1n }));
    expect([stale.status, errorCode(stale)]).toEqual(['ERROR', 'txBadSeq']);
    const unsigned = await send(
      net,
      classicTx(net, a, [payment(net.info.admin.publicKey)], { signers: [Keypair.random()] }),
    );
    expect(errorCode(unsigned)).toBe('txBadAuth');
  });

  it('a transaction whose time bounds end before the close is dropped: never applied, nothing used', async () => {
    const { c, net, a } = timed();
    const seq = net.account(a.publicKey())!.seqNum;
    const tx = classicTx(net, a, [payment(net.info.admin.publicKey)], { timeout: 10 });
    expect((await send(net, tx)).status).toBe('PENDING');
    c.advance(20_000);
    expect(net.closeLedger()).toMatchObject({ applied: 0, dropped: 1 });
    expect((await get(net, Buffer.from(tx.hash()).toString('hex'))).status).toBe('NOT_FOUND');
    expect(net.account(a.publicKey())!.seqNum).toBe(seq);
  });

  it('sim_closeLedger closes one at once with what is queued; sim_setTime closes one at the new time', async () => {
    const { c, net, a, b } = timed();
    const sent = await send(net, classicTx(net, a, [payment(net.info.admin.publicKey)]));
    const closed = (await net.rpc('sim_closeLedger')) as { sequence: number };
    expect((await get(net, sent.hash)).ledger).toBe(closed.sequence);
    const later = await send(net, classicTx(net, b, [payment(net.info.admin.publicKey)]));
    const at = Math.floor(c.now() / 1000) + 100; // within the transaction's time bounds (300 s)
    const moved = (await net.rpc('sim_setTime', { unixSeconds: at })) as { sequence: number; closeTime: number };
    expect(moved).toMatchObject({ sequence: closed.sequence + 1, closeTime: at });
    expect(await get(net, later.hash)).toMatchObject({
      status: 'SUCCESS',
      ledger: moved.sequence,
      createdAt: String(at),
    });
  });

  it('every close time is later than the one before, also for closes within one second', async () => {
    const { c, net } = timed();
    const times = [Number((await latest(net)).closeTime)];
    c.advance(5_000);
    times.push(net.closeLedger().closeTime); // the timer's close, on the clock
    times.push(((await net.rpc('sim_closeLedger')) as { closeTime: number }).closeTime); // right after it
    times.push(net.closeLedger().closeTime);
    const now = Math.floor(c.now() / 1000);
    expect(times.slice(1)).toEqual([now, now + 1, now + 2]);
    // the clock catches up: the next closes follow it again
    c.advance(5_000);
    expect(net.closeLedger().closeTime).toBe(now + 5);
    const page = (await net.rpc('getLedgers', { startLedger: 1, pagination: { limit: 200 } })) as {
      ledgers: { ledgerCloseTime: string }[];
    };
    const all = page.ledgers.map((l) => Number(l.ledgerCloseTime));
    expect(all.every((t, i) => i === 0 || t > all[i - 1]!)).toBe(true);
  });

  it.each([1, 250, 999])('%i ms is refused: at most one ledger a second', (ms) => {
    expect(() => testNetwork({ ledgerCloseMs: ms })).toThrow(
      /below one ledger a second: .* 0 \(every transaction at once\) or 1000 to 600000/,
    );
  });

  it('contract events appear with the ledger that closed them, and getLedgers lists every closed ledger', async () => {
    const { net, a } = timed();
    const counter = net.deploy(COUNTER_HASH, Buffer.alloc(32, 7), [addressToScVal(a.publicKey())]);
    const start = (await latest(net)).sequence;
    const invoked = net.invoke({ source: a, contractId: counter, fn: 'incr', args: [xdr.ScVal.scvU32(2)] });
    expect(invoked.status).toBe('SUCCESS'); // in process: queued, then a ledger closed for it
    const ledger = invoked.status === 'SUCCESS' ? invoked.ledger : 0;
    expect(ledger).toBe(start + 1);
    const events = (await net.rpc('getEvents', { startLedger: start, filters: [{ contractIds: [counter] }] })) as {
      events: { ledger: number }[];
    };
    expect(events.events.map((e) => e.ledger)).toEqual([ledger]);
    net.closeLedger();
    net.closeLedger();
    const page = (await net.rpc('getLedgers', { startLedger: start, pagination: { limit: 3 } })) as {
      ledgers: { sequence: number; headerXdr: string; metadataXdr: string; ledgerCloseTime: string }[];
      latestLedger: number;
      cursor: string;
    };
    expect(page.ledgers.map((l) => l.sequence)).toEqual([start, start + 1, start + 2]);
    expect(page.latestLedger).toBe(start + 3);
    expect(page.cursor).toBe(String(start + 2));
    const entry = xdr.LedgerHeaderHistoryEntry.fromXdr(page.ledgers[1]!.headerXdr, 'base64');
    expect(entry.header.ledgerSeq).toBe(start + 1);
    const meta = xdr.expectUnionVariant(xdr.LedgerCloseMeta.fromXdr(page.ledgers[1]!.metadataXdr, 'base64'), 'v2').v2;
    expect(meta.txProcessing).toHaveLength(1);
    const next = (await net.rpc('getLedgers', { pagination: { cursor: page.cursor } })) as {
      ledgers: { sequence: number }[];
    };
    expect(next.ledgers.map((l) => l.sequence)).toEqual([start + 3]);
  });

  it('the friendbot answers once the ledger that funds the account closes', async () => {
    const { net } = timed();
    const kp = Keypair.random();
    let answered = false;
    const reply = net.requestFriendbot(kp.publicKey()).then((r) => {
      answered = true;
      return r;
    });
    const other = net.requestFriendbot(Keypair.random().publicKey());
    await new Promise((r) => setImmediate(r));
    expect(answered).toBe(false);
    expect(net.account(kp.publicKey())).toBeUndefined();
    const closed = net.closeLedger();
    expect(closed.applied).toBe(2); // its own transactions chain their sequence numbers in one ledger
    expect((await reply).ledger).toBe(closed.sequence);
    expect((await other).ledger).toBe(closed.sequence);
    expect(net.account(kp.publicKey())).toBeDefined();
  });

  it('sim_revert empties the queue: what waited was checked against a state that is gone', async () => {
    const { net, a } = timed();
    const snap = (await net.rpc('sim_snapshot')) as string;
    const sent = await send(net, classicTx(net, a, [payment(net.info.admin.publicKey)]));
    await net.rpc('sim_revert', { id: snap });
    expect(net.closeLedger().applied).toBe(0);
    expect((await get(net, sent.hash)).status).toBe('NOT_FOUND');
  });

  it.each([
    // protocol's GetLedgersRequest.Validate → -32600; parameters that do not decode, and the cursor → -32602
    { params: { startLedger: 1, pagination: { limit: 201 } }, code: -32600, want: /limit must not exceed 200/ },
    {
      params: { startLedger: 0 },
      code: -32600,
      want: /start ledger must be between the oldest ledger: 1 and the latest ledger: \d+/,
    },
    { params: { startLedger: 10_000 }, code: -32600, want: /start ledger must be between/ },
    { params: { startLedger: '1' }, code: -32602, want: /startLedger must be a ledger sequence/ },
    {
      params: { startLedger: 1, pagination: { cursor: '1' } },
      code: -32600,
      want: /startLedger and cursor cannot both be set/,
    },
    { params: { pagination: { cursor: 'x' } }, code: -32602, want: /invalid cursor "x"/ },
    {
      params: { startLedger: 1, xdrFormat: 'xml' },
      code: -32600,
      want: /^got 'xml': expected base64, json for optional 'xdrFormat'$/,
    },
  ])('getLedgers refuses $params with $code', async ({ params, code, want }) => {
    const { net } = timed();
    await expect(net.rpc('getLedgers', params)).rejects.toMatchObject({ code, message: expect.stringMatching(want) });
  });

  it('getLedgers takes limit 0 as the default (50) and xdrFormat json', async () => {
    const { net } = timed();
    const page = (await net.rpc('getLedgers', { startLedger: 1, pagination: { limit: 0 }, xdrFormat: 'json' })) as {
      ledgers: { sequence: number; headerJson: { header: { ledger_seq: number } }; metadataXdr?: string }[];
    };
    expect(page.ledgers[0]!.headerJson.header.ledger_seq).toBe(page.ledgers[0]!.sequence);
    expect(page.ledgers[0]!.metadataXdr).toBeUndefined();
  });
});
