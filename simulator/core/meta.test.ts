// metaXdr writes TransactionMeta v4 from already-encoded parts (meta.ts): it must give exactly the bytes of the
// js-xdr encoding of metaOf, for every kind of record the simulator keeps.
import { Asset, Operation, xdr } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { addressToScVal } from '../host.ts';
import { metaOf, metaXdr, txXdrFields } from './meta.ts';
import type { TxRecord } from './records.ts';
import { transactionXdr } from './rpc/tx-xdr.ts';
import { COUNTER_HASH, classicTx, funded, send, testNetwork } from './testing.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('metaXdr', () => {
  it('is the encoding of metaOf for classic, Soroban, failed and deploying transactions', async () => {
    const net = testNetwork();
    const owner = funded(net);
    const other = funded(net);
    const counterId = net.deploy(COUNTER_HASH, Buffer.alloc(32, 1), [addressToScVal(owner.publicKey())]);
    const call = (fn: string, args: xdr.ScVal[]) => net.invoke({ source: owner, contractId: counterId, fn, args });
    expect(call('incr', [xdr.ScVal.scvU32(2)]).status).toBe('SUCCESS');
    expect(call('incr', [xdr.ScVal.scvU32(3)]).status).toBe('SUCCESS');
    expect(call('temp', [xdr.ScVal.scvU32(9)]).status).toBe('SUCCESS');
    expect(call('spawn', [xdr.ScVal.scvBytes(Buffer.alloc(32, 2))]).status).toBe('SUCCESS');
    expect(call('fail', [xdr.ScVal.scvU32(5)]).status).toBe('FAILED');
    const pay = (amount: string) =>
      Operation.payment({ destination: other.publicKey(), asset: Asset.native(), amount });
    expect((await send(net, classicTx(net, owner, [pay('1'), pay('2')]))).status).toBe('PENDING');
    expect((await send(net, classicTx(net, owner, [pay('1000000')]))).status).toBe('PENDING'); // underfunded: FAILED

    const records = [...net.ledger.txs.values()];
    expect(new Set(records.map((r) => r.status))).toEqual(new Set(['SUCCESS', 'FAILED']));
    const failed = records.find((r) => r.status === 'FAILED')!;
    const diagnostic = {
      topics: [xdr.ScVal.scvSymbol('log')],
      data: xdr.ScVal.scvU32(1),
      inSuccessfulContractCall: false,
    };
    records.push({ ...failed, diagnostics: [{ ...diagnostic, contractId: counterId }, diagnostic], cache: {} });
    for (const rec of records)
      expect(hex(metaXdr(net.ledger.codec, rec))).toBe(hex(metaOf(net.ledger.codec, rec).toXdr()));
  });

  it('writes removed entries as their LedgerKey, and getTransaction serves the same meta', () => {
    const net = testNetwork();
    const owner = funded(net);
    const counterId = net.deploy(COUNTER_HASH, Buffer.alloc(32, 1), [addressToScVal(owner.publicKey())]);
    expect(net.invoke({ source: owner, contractId: counterId, fn: 'incr', args: [xdr.ScVal.scvU32(1)] }).status).toBe(
      'SUCCESS',
    );
    const rec = [...net.ledger.txs.values()].at(-1)!;
    const changes = rec.opChanges[0]!;
    const created = changes.find((c) => !c.before && c.after)!;
    const removal: TxRecord = {
      ...rec,
      opChanges: [[...changes, { key: created.key, before: created.after! }]],
      cache: {},
    };
    const codec = net.ledger.codec;
    expect(hex(metaXdr(codec, removal))).toBe(hex(metaOf(codec, removal).toXdr()));
    const served = transactionXdr(codec, removal);
    expect(served.resultMetaXdr).toBe(metaOf(codec, removal).toXdr('base64'));
    expect(txXdrFields(codec, removal).resultMetaXdr).toBe(served.resultMetaXdr);
    expect(xdr.TransactionMeta.fromXdr(served.resultMetaXdr, 'base64').type).toBe('v4');
  });
});
