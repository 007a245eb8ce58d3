// State archival as Protocol 28 has it, with small TTL settings so a test closes ledgers past them: entries are
// created with the minimum TTL, archived persistent entries are answered with live-until 0 and auto-restored through
// simulation's restore list, temporary ones are gone, ExtendFootprintTTL and RestoreFootprint work on the footprint.
import { Keypair, Operation, SorobanDataBuilder, TransactionBuilder, rpc, xdr } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { addressToScVal } from '../host.ts';
import type { SimNetwork } from './network.ts';
import { COUNTER_HASH, clock, funded, testNetwork } from './testing.ts';
import { toU32 } from './scval.ts';

const TTL = { minPersistentTTL: 20, minTemporaryTTL: 10, maxEntryTTL: 100 };
const u32 = (n: number) => xdr.ScVal.scvU32(n);

function setup() {
  const c = clock();
  const net = testNetwork({ now: c.now, ttl: TTL });
  const owner = funded(net);
  const counter = net.deploy(COUNTER_HASH, Buffer.alloc(32, 1), [addressToScVal(owner.publicKey())]);
  return { c, net, owner, counter };
}

const dataKey = (net: SimNetwork, contract: string, durability: 'persistent' | 'temporary'): xdr.LedgerKey =>
  xdr.LedgerKey.contractData(
    new xdr.LedgerKeyContractData({
      contract: net.ledger.codec.toScAddress(contract),
      key: xdr.ScVal.scvSymbol('Count'),
      durability: xdr.ContractDataDurability[durability],
    }),
  );
const instanceKey = (net: SimNetwork, contract: string): xdr.LedgerKey =>
  xdr.LedgerKey.contractData(
    new xdr.LedgerKeyContractData({
      contract: net.ledger.codec.toScAddress(contract),
      key: xdr.ScVal.scvLedgerKeyContractInstance(),
      durability: xdr.ContractDataDurability.persistent,
    }),
  );

async function entries(net: SimNetwork, keys: xdr.LedgerKey[]) {
  return (await net.rpc('getLedgerEntries', { keys: keys.map((k) => k.toXdr('base64')) })) as {
    entries: { key: string; liveUntilLedgerSeq: number }[];
    latestLedger: number;
  };
}

const closeLedgers = (net: SimNetwork, n: number): void => {
  for (let i = 0; i < n; i++) net.closeLedger();
};

/** Builds, simulates (over the RPC), assembles, signs and sends one Soroban operation; its getTransaction answer. */
async function send(
  net: SimNetwork,
  source: Keypair,
  op: xdr.Operation,
  o: { data?: xdr.SorobanTransactionData; edit?: (d: xdr.SorobanTransactionData) => xdr.SorobanTransactionData } = {},
) {
  const seq = net.account(source.publicKey())!.seqNum;
  const build = (data?: xdr.SorobanTransactionData) => {
    const b = new TransactionBuilder(
      { accountId: () => source.publicKey(), sequenceNumber: () => seq.toString(), incrementSequenceNumber() {} },
      { fee: '100', networkPassphrase: net.info.passphrase },
    )
      .addOperation(op)
      .setTimeout(300);
    if (data) b.setSorobanData(data);
    return b.build();
  };
  const raw = (await net.rpc('simulateTransaction', { transaction: build(o.data).toXDR() })) as Record<string, unknown>;
  const sim = rpc.parseRawSimulation(raw as never);
  if (!rpc.Api.isSimulationSuccess(sim)) throw new Error(`simulation failed: ${JSON.stringify(raw)}`);
  let tx = rpc.assembleTransaction(build(o.data), sim).build();
  if (o.edit) {
    const d = o.edit(sim.transactionData.build());
    tx = TransactionBuilder.cloneFrom(build(), { fee: tx.fee, sorobanData: d }).build();
  }
  tx.sign(source);
  const sent = (await net.rpc('sendTransaction', { transaction: tx.toXDR() })) as { status: string; hash: string };
  expect(sent.status).toBe('PENDING');
  const got = (await net.rpc('getTransaction', { hash: sent.hash })) as { status: string; resultXdr: string };
  return { raw, got, result: xdr.TransactionResult.fromXdr(got.resultXdr, 'base64') };
}

const opResultType = (r: xdr.TransactionResult): string => {
  const res = r.result;
  const results = res.type === 'txSuccess' || res.type === 'txFailed' ? res.results : [];
  const tr = results[0]?.type === 'opInner' ? results[0].tr : undefined;
  if (!tr) return res.type;
  if (tr.type === 'invokeHostFunction') return tr.invokeHostFunctionResult.type;
  if (tr.type === 'extendFootprintTtl') return tr.extendFootprintTtlResult.type;
  if (tr.type === 'restoreFootprint') return tr.restoreFootprintResult.type;
  return tr.type;
};

describe('state archival (Protocol 28, small TTL settings)', () => {
  it('creates entries with the minimum TTL; a write keeps it; past it a persistent entry is archived, a temporary one gone', async () => {
    const { net, owner, counter } = setup();
    const r = net.invoke({ source: owner, contractId: counter, fn: 'incr', args: [u32(2)] });
    expect(r.status).toBe('SUCCESS');
    const createdIn = net.ledger.latest.seq;
    expect(net.invoke({ source: owner, contractId: counter, fn: 'temp', args: [u32(1)] }).status).toBe('SUCCESS');
    const tempIn = net.ledger.latest.seq;
    const keys = [dataKey(net, counter, 'persistent'), dataKey(net, counter, 'temporary')];
    let got = await entries(net, keys);
    expect(got.entries.map((e) => e.liveUntilLedgerSeq)).toEqual([createdIn + 19, tempIn + 9]);
    // a later write leaves the TTL where it was
    expect(net.invoke({ source: owner, contractId: counter, fn: 'incr', args: [u32(1)] }).status).toBe('SUCCESS');
    got = await entries(net, keys);
    expect(got.entries[0]!.liveUntilLedgerSeq).toBe(createdIn + 19);
    closeLedgers(net, 25);
    got = await entries(net, keys);
    expect(got.latestLedger).toBeGreaterThan(createdIn + 19);
    // the archived persistent entry is still answered, live-until 0 (stellar-rpc's placeholder); the temporary is gone
    expect(got.entries).toHaveLength(1);
    expect(got.entries[0]).toMatchObject({ key: keys[0]!.toXdr('base64'), liveUntilLedgerSeq: 0 });
  });

  it('simulation puts archived entries in the restore list; the transaction restores them and runs', async () => {
    const { net, owner, counter } = setup();
    expect(net.invoke({ source: owner, contractId: counter, fn: 'incr', args: [u32(2)] }).status).toBe('SUCCESS');
    closeLedgers(net, 25);
    const op = Operation.invokeContractFunction({ contract: counter, function: 'incr', args: [u32(3)] });
    const { raw, got } = await send(net, owner, op);
    expect(raw.restorePreamble).toBeUndefined(); // Protocol 23+: restored in the transaction itself
    const data = xdr.SorobanTransactionData.fromXdr(raw.transactionData as string, 'base64');
    expect(data.ext.type).toBe('resourceExt');
    const rw = data.resources.footprint.readWrite.map((k) => k.toXdr('base64'));
    const archived = data.ext.type === 'resourceExt' ? data.ext.resourceExt.archivedSorobanEntries : [];
    // the instance and the counter's entry were both archived
    expect(archived.map((i) => rw[i]).sort()).toEqual(
      [instanceKey(net, counter).toXdr('base64'), dataKey(net, counter, 'persistent').toXdr('base64')].sort(),
    );
    expect(got.status).toBe('SUCCESS');
    const seq = net.ledger.latest.seq;
    const after = await entries(net, [dataKey(net, counter, 'persistent'), instanceKey(net, counter)]);
    expect(after.entries.map((e) => e.liveUntilLedgerSeq)).toEqual([seq + 19, seq + 19]);
    const read = net.read(counter, 'get', []);
    expect(read.status === 'SUCCESS' && toU32(read.returnValue)).toBe(5);
  });

  it('an archived entry in the footprint but not in the restore list fails the transaction (ENTRY_ARCHIVED)', async () => {
    const { net, owner, counter } = setup();
    expect(net.invoke({ source: owner, contractId: counter, fn: 'incr', args: [u32(2)] }).status).toBe('SUCCESS');
    closeLedgers(net, 25);
    const op = Operation.invokeContractFunction({ contract: counter, function: 'incr', args: [u32(3)] });
    const { got, result } = await send(net, owner, op, {
      edit: (d) =>
        new xdr.SorobanTransactionData({
          ext: xdr.SorobanTransactionDataExt.v0(),
          resources: d.resources,
          resourceFee: d.resourceFee,
        }),
    });
    expect(got.status).toBe('FAILED');
    expect(opResultType(result)).toBe('invokeHostFunctionEntryArchived');
    expect((await entries(net, [dataKey(net, counter, 'persistent')])).entries[0]!.liveUntilLedgerSeq).toBe(0);
  });

  it('RestoreFootprint restores an archived entry for the minimum TTL; ExtendFootprintTTL extends a live one', async () => {
    const { net, owner, counter } = setup();
    expect(net.invoke({ source: owner, contractId: counter, fn: 'incr', args: [u32(2)] }).status).toBe('SUCCESS');
    closeLedgers(net, 25);
    const keys = [dataKey(net, counter, 'persistent'), instanceKey(net, counter)];
    // an extension over archived entries answers the restore to send first
    const extendData = new SorobanDataBuilder().setReadOnly(keys).build();
    const extendSim = (await net.rpc('simulateTransaction', {
      transaction: new TransactionBuilder(
        { accountId: () => owner.publicKey(), sequenceNumber: () => '1', incrementSequenceNumber() {} },
        { fee: '100', networkPassphrase: net.info.passphrase },
      )
        .addOperation(Operation.extendFootprintTtl({ extendTo: 50 }))
        .setSorobanData(extendData)
        .setTimeout(300)
        .build()
        .toXDR(),
    })) as { restorePreamble?: { transactionData: string; minResourceFee: string } };
    const pre = extendSim.restorePreamble!;
    expect(Number(pre.minResourceFee)).toBeGreaterThan(0);
    const preData = xdr.SorobanTransactionData.fromXdr(pre.transactionData, 'base64');
    expect(preData.resources.footprint.readWrite).toHaveLength(2);

    const restore = await send(net, owner, Operation.restoreFootprint({}), { data: preData });
    expect(restore.got.status).toBe('SUCCESS');
    const restoredIn = net.ledger.latest.seq;
    expect((await entries(net, keys)).entries.map((e) => e.liveUntilLedgerSeq)).toEqual([
      restoredIn + 19,
      restoredIn + 19,
    ]);

    const extend = await send(net, owner, Operation.extendFootprintTtl({ extendTo: 50 }), { data: extendData });
    expect(extend.got.status).toBe('SUCCESS');
    const extendedIn = net.ledger.latest.seq;
    expect((await entries(net, keys)).entries.map((e) => e.liveUntilLedgerSeq)).toEqual([
      extendedIn + 50,
      extendedIn + 50,
    ]);
    // beyond the maximum TTL: malformed
    const tooFar = await send(net, owner, Operation.extendFootprintTtl({ extendTo: 100 }), { data: extendData });
    expect(tooFar.got.status).toBe('FAILED');
    expect(opResultType(tooFar.result)).toBe('extendFootprintTtlMalformed');
    closeLedgers(net, 30);
    const read = net.read(counter, 'get', []);
    expect(read.status === 'SUCCESS' && toU32(read.returnValue)).toBe(2);
    expect((await entries(net, keys)).entries[0]!.liveUntilLedgerSeq).toBe(extendedIn + 50);
  });

  it('refuses TTL settings that are not whole ledgers or whose minimums exceed the maximum', () => {
    expect(() => testNetwork({ ttl: { minPersistentTTL: 0 } })).toThrow(/minPersistentTTL/);
    expect(() => testNetwork({ ttl: { minPersistentTTL: 200, maxEntryTTL: 100 } })).toThrow(/must not exceed/);
    expect(testNetwork().ledger.ttl).toEqual({
      minPersistentTTL: 2_073_600,
      minTemporaryTTL: 17_280,
      maxEntryTTL: 3_110_400,
    });
  });
});
