// CAP-67 fee events: the charge (BEFORE_ALL_TXS) and the refund (AFTER_ALL_TXS) of a transaction in its
// TransactionMetaV4 `events`, getTransaction's `transactionEventsXdr` / `transactionEventsJson`, and getEvents
// (type `contract`, the native SAC, topics ["fee", account], i128 amount) with stellar-rpc's ids.
import {
  Account,
  Address,
  Asset,
  Contract,
  Keypair,
  Operation,
  SorobanDataBuilder,
  TransactionBuilder,
  rpc,
  xdr,
} from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { addressToScVal } from '../host.ts';
import { txXdrFields } from './meta.ts';
import { loadNetwork, saveNetwork } from './state.ts';
import type { SimNetwork } from './network.ts';
import { COUNTER_HASH, classicTx, clock, funded, send, testNetwork, type TestClock } from './testing.ts';

const EXTRA = 12_345n; // resource fee declared beyond what simulation asks, refunded after apply

type Sim = { transactionData: string; minResourceFee: string; results: { auth: string[] }[] };
type TxInfo = {
  status: string;
  ledger: number;
  applicationOrder: number;
  resultXdr: string;
  resultMetaXdr: string;
  events: { transactionEventsXdr: string[]; contractEventsXdr: string[][] };
};
type RpcEvent = {
  type: string;
  contractId: string;
  id: string;
  topic: string[];
  value: string;
  transactionIndex: number;
  operationIndex: number;
  txHash: string;
  inSuccessfulContractCall: boolean;
};

const i128Of = (v: xdr.ScVal): bigint => {
  if (v.type !== 'scvI128') throw new TypeError(`not an i128: ${v.type}`);
  return (BigInt(v.i128.hi) << 64n) + BigInt(v.i128.lo);
};
const topicText = (t: xdr.ScVal): string =>
  t.type === 'scvSymbol' ? t.sym.toString() : Address.fromScVal(t).toString();
const toid = (ledger: number, tx: number, op: number): string =>
  ((BigInt(ledger) << 32n) | (BigInt(tx) << 12n) | BigInt(op)).toString().padStart(19, '0');

/** A counter owned by `payer` and payer's `incr(by)` with `extra` stroops of resource fee over the minimum. */
async function incrTx(net: SimNetwork, payer: Keypair, counterId: string, by: number, extra: bigint) {
  const acc = new Account(payer.publicKey(), net.account(payer.publicKey())!.seqNum.toString());
  const raw = new TransactionBuilder(acc, { fee: '100', networkPassphrase: net.info.passphrase })
    .addOperation(new Contract(counterId).call('incr', xdr.ScVal.scvU32(by)))
    .setTimebounds(0, net.ledger.nowSec() + 300)
    .build();
  const sim = (await net.rpc('simulateTransaction', { transaction: raw.toXdr() })) as Sim;
  const declared = BigInt(sim.minResourceFee) + extra;
  const data = new SorobanDataBuilder(sim.transactionData).setResourceFee(declared.toString()).build();
  const tx = rpc
    .assembleTransaction(raw, sim as never)
    .setSorobanData(data)
    .build();
  tx.sign(payer);
  return { tx, declared };
}

function setup(c: TestClock = clock()) {
  const net = testNetwork({ now: c.now });
  const payer = funded(net);
  const counterId = net.deploy(COUNTER_HASH, Buffer.alloc(32, 9), [addressToScVal(payer.publicKey())]);
  return { net, c, payer, counterId };
}

/** Stage, contract, topics and amount of a TransactionEvent. */
function readTxEvent(b64: string) {
  const te = xdr.TransactionEvent.fromXdr(b64, 'base64');
  const ev = te.event;
  const body = ev.body.v0;
  return {
    stage: te.stage.name,
    type: ev.type.name,
    contractId: Address.contract(Buffer.from(ev.contractId!.value)).toString(),
    topics: body.topics.map(topicText),
    amount: i128Of(body.data),
  };
}

describe('fee events (CAP-67)', () => {
  it('a Soroban transaction carries its charge and its refund, in the meta and in getTransaction', async () => {
    const { net, payer, counterId } = setup();
    const native = Asset.native().contractId(net.info.passphrase);
    expect(native).toBe(net.info.nativeTokenId);
    const { tx, declared } = await incrTx(net, payer, counterId, 2, EXTRA);
    const balanceBefore = net.account(payer.publicKey())!.balance;
    const sent = await send(net, tx);
    expect(sent.status).toBe('PENDING');
    const got = (await net.rpc('getTransaction', { hash: sent.hash })) as TxInfo;
    expect(got.status).toBe('SUCCESS');

    const charged = 100n + declared; // inclusion fee (one operation at the base fee) and the declared resource fee
    const events = got.events.transactionEventsXdr.map(readTxEvent);
    expect(events).toEqual([
      {
        stage: 'transactionEventStageBeforeAllTxs',
        type: 'contract',
        contractId: native,
        topics: ['fee', payer.publicKey()],
        amount: charged,
      },
      {
        stage: 'transactionEventStageAfterAllTxs',
        type: 'contract',
        contractId: native,
        topics: ['fee', payer.publicKey()],
        amount: -EXTRA,
      },
    ]);
    // the fee paid is the sum of the fee events: the result's feeCharged and what left the account
    const result = xdr.TransactionResult.fromXdr(got.resultXdr, 'base64');
    expect(BigInt(result.feeCharged)).toBe(charged - EXTRA);
    expect(net.account(payer.publicKey())!.balance).toBe(balanceBefore - (charged - EXTRA));
    // the same events in TransactionMetaV4 `events`, the contract event beside them
    const meta = xdr.expectUnionVariant(xdr.TransactionMeta.fromXdr(got.resultMetaXdr, 'base64'), 'v4').v4;
    expect(meta.events.map((e) => e.toXdr('base64'))).toEqual(got.events.transactionEventsXdr);
    expect(got.events.contractEventsXdr).toEqual([[expect.any(String)]]);

    const json = (await net.rpc('getTransaction', { hash: sent.hash, xdrFormat: 'json' })) as {
      events: { transactionEventsJson: { stage: string; event: { contract_id: string } }[] };
    };
    expect(json.events.transactionEventsJson.map((e) => [e.stage, e.event.contract_id])).toEqual([
      ['before_all_txs', native],
      ['after_all_txs', native],
    ]);
  });

  it('the refund is in the ledger close meta after the transaction (postTxApplyFeeProcessing)', async () => {
    const { net, payer, counterId } = setup();
    const { tx } = await incrTx(net, payer, counterId, 1, EXTRA);
    const got = (await net.rpc('getTransaction', { hash: (await send(net, tx)).hash })) as TxInfo;
    const page = (await net.rpc('getLedgers', { startLedger: got.ledger, pagination: { limit: 1 } })) as {
      ledgers: { metadataXdr: string }[];
    };
    const v2 = xdr.expectUnionVariant(xdr.LedgerCloseMeta.fromXdr(page.ledgers[0]!.metadataXdr, 'base64'), 'v2').v2;
    const processed = v2.txProcessing.at(-1)!;
    const [state, updated] = processed.postTxApplyFeeProcessing;
    const balance = (e: xdr.LedgerEntry): bigint => BigInt(xdr.expectUnionVariant(e.data, 'account').account.balance);
    const before = balance(xdr.expectUnionVariant(state!, 'ledgerEntryState').state);
    const after = balance(xdr.expectUnionVariant(updated!, 'ledgerEntryUpdated').updated);
    expect(after - before).toBe(EXTRA);
  });

  it('a classic transaction is charged once, with no refund', async () => {
    const { net } = setup();
    const a = funded(net);
    const pay = Operation.payment({ destination: net.info.admin.publicKey, asset: Asset.native(), amount: '1' });
    const tx = classicTx(net, a, [pay, pay]);
    const got = (await net.rpc('getTransaction', { hash: (await send(net, tx)).hash })) as TxInfo;
    expect(got.events.transactionEventsXdr.map(readTxEvent)).toEqual([
      {
        stage: 'transactionEventStageBeforeAllTxs',
        type: 'contract',
        contractId: net.info.nativeTokenId,
        topics: ['fee', a.publicKey()],
        amount: 200n,
      },
    ]);
  });

  it('a transaction declaring exactly the minimum resource fee has no refund event', async () => {
    const { net, payer, counterId } = setup();
    const { tx, declared } = await incrTx(net, payer, counterId, 1, 0n);
    const got = (await net.rpc('getTransaction', { hash: (await send(net, tx)).hash })) as TxInfo;
    expect(got.events.transactionEventsXdr.map(readTxEvent).map((e) => [e.stage, e.amount])).toEqual([
      ['transactionEventStageBeforeAllTxs', 100n + declared],
    ]);
  });

  it('getEvents serves them as contract events of the native SAC, with the ids stellar-rpc gives them', async () => {
    const c = clock();
    const { net, payer, counterId } = setup(c);
    const other = funded(net);
    c.advance(10_000); // a fresh ledger for the two transactions below, within one second
    const first = await incrTx(net, payer, counterId, 1, EXTRA);
    const pay = Operation.payment({ destination: payer.publicKey(), asset: Asset.native(), amount: '1' });
    const h1 = (await send(net, first.tx)).hash;
    const h2 = (await send(net, classicTx(net, other, [pay]))).hash;
    const t1 = (await net.rpc('getTransaction', { hash: h1 })) as TxInfo;
    const t2 = (await net.rpc('getTransaction', { hash: h2 })) as TxInfo;
    expect(t2.ledger).toBe(t1.ledger);
    expect([t1.applicationOrder, t2.applicationOrder]).toEqual([1, 2]);

    const all = (await net.rpc('getEvents', { startLedger: t1.ledger })) as { events: RpcEvent[] };
    const L = t1.ledger;
    // charges first (TOID tx 0, numbered across the ledger), then operation events, then refunds (TOID tx 0xfffff)
    expect(all.events.map((e) => [e.id, e.txHash, e.contractId])).toEqual([
      [`${toid(L, 0, 0)}-0000000000`, h1, net.info.nativeTokenId],
      [`${toid(L, 0, 0)}-0000000001`, h2, net.info.nativeTokenId],
      [`${toid(L, 1, 0)}-0000000000`, h1, counterId],
      [`${toid(L, 0xfffff, 0)}-0000000000`, h1, net.info.nativeTokenId],
    ]);
    const fee = all.events[3]!;
    expect(fee).toMatchObject({ type: 'contract', transactionIndex: 0xfffff, operationIndex: 0 });
    expect(fee.inSuccessfulContractCall).toBe(true);
    expect(fee.topic.map((t) => topicText(xdr.ScVal.fromXdr(t, 'base64')))).toEqual(['fee', payer.publicKey()]);
    expect(i128Of(xdr.ScVal.fromXdr(fee.value, 'base64'))).toBe(-EXTRA);

    // a filter on the native SAC and ["fee", account] finds one account's fee events only
    const payerFees = (await net.rpc('getEvents', {
      startLedger: t1.ledger,
      filters: [
        {
          type: 'contract',
          contractIds: [net.info.nativeTokenId],
          topics: [[xdr.ScVal.scvSymbol('fee').toXdr('base64'), addressToScVal(payer.publicKey()).toXdr('base64')]],
        },
      ],
    })) as { events: RpcEvent[] };
    expect(payerFees.events.map((e) => i128Of(xdr.ScVal.fromXdr(e.value, 'base64')))).toEqual([
      100n + first.declared,
      -EXTRA,
    ]);
    // system events are not fee events
    const system = (await net.rpc('getEvents', { startLedger: t1.ledger, filters: [{ type: 'system' }] })) as {
      events: RpcEvent[];
    };
    expect(system.events).toEqual([]);
    // paging one at a time walks the same order
    const ids: string[] = [];
    let cursor: string | undefined;
    for (let i = 0; i < 4; i++) {
      const page = (await net.rpc('getEvents', {
        ...(cursor ? {} : { startLedger: t1.ledger }),
        pagination: { limit: 1, ...(cursor ? { cursor } : {}) },
      })) as { events: RpcEvent[]; cursor: string };
      ids.push(...page.events.map((e) => e.id));
      cursor = page.cursor;
    }
    expect(ids).toEqual(all.events.map((e) => e.id));
  });

  it('the fee events of a failed transaction are not in a successful contract call', async () => {
    const { net, payer, counterId } = setup();
    const { tx } = await incrTx(net, payer, counterId, 1, EXTRA);
    // the counter's owner authorizes the call: a transaction from another account without its signature fails
    const stranger = funded(net);
    const acc = new Account(stranger.publicKey(), net.account(stranger.publicKey())!.seqNum.toString());
    const op = tx.operations[0] as Operation.InvokeHostFunction;
    const ext = xdr.expectUnionVariant(tx.toEnvelope(), 'envelopeTypeTx').v1.tx.ext;
    const data = xdr.expectUnionVariant(ext, 'sorobanData').sorobanData;
    const forged = new TransactionBuilder(acc, { fee: '100', networkPassphrase: net.info.passphrase })
      .addOperation(Operation.invokeHostFunction({ func: op.func, auth: [] }))
      .setSorobanData(data)
      .setTimebounds(0, net.ledger.nowSec() + 300)
      .build();
    forged.sign(stranger);
    const sent = await send(net, forged);
    const got = (await net.rpc('getTransaction', { hash: sent.hash })) as TxInfo;
    expect(got.status).toBe('FAILED');
    const events = got.events.transactionEventsXdr.map(readTxEvent);
    expect(events.map((e) => e.stage)).toEqual([
      'transactionEventStageBeforeAllTxs',
      'transactionEventStageAfterAllTxs',
    ]);
    expect(events.every((e) => e.topics[1] === stranger.publicKey())).toBe(true);
    const listed = (await net.rpc('getEvents', {
      startLedger: got.ledger,
      filters: [{ contractIds: [net.info.nativeTokenId] }],
    })) as { events: RpcEvent[] };
    const mine = listed.events.filter((e) => e.txHash === sent.hash);
    expect(mine).toHaveLength(2);
    expect(mine.every((e) => e.inSuccessfulContractCall === false)).toBe(true);
  });

  it('fee events survive the state file', async () => {
    const c = clock();
    const { net, payer, counterId } = setup(c);
    const { tx } = await incrTx(net, payer, counterId, 1, EXTRA);
    const hash = (await send(net, tx)).hash;
    const before = (await net.rpc('getTransaction', { hash })) as TxInfo;
    const saved = JSON.parse(JSON.stringify(saveNetwork(net, txXdrFields)));
    const net2 = testNetwork({ now: c.now });
    loadNetwork(net2, saved);
    const after = (await net2.rpc('getTransaction', { hash })) as TxInfo;
    expect(after.events.transactionEventsXdr).toEqual(before.events.transactionEventsXdr);
    const events = (await net2.rpc('getEvents', {
      startLedger: before.ledger,
      filters: [{ contractIds: [net2.info.nativeTokenId] }],
    })) as { events: RpcEvent[] };
    expect(events.events.filter((e) => e.txHash === hash).map((e) => e.transactionIndex)).toEqual([0, 0xfffff]);
  });
});
