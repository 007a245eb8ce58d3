// The host: storage, events, cross-contract calls, implicit invoker auth, deployment, rollback, error texts.
import { Keypair, xdr } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { addressFromScVal, addressToScVal } from '../host.ts';
import { SimCodec } from './entries.ts';

const codec = new SimCodec();
import { COUNTER_HASH, clock, funded, testNetwork } from './testing.ts';
import { toStr, toU32 } from '../../src/chain/codec.ts';

const u32 = (n: number) => xdr.ScVal.scvU32(n);
const salt = (b: number) => Buffer.alloc(32, b);

function setup() {
  const c = clock();
  const net = testNetwork({ now: c.now });
  const owner = funded(net);
  const a = net.deploy(COUNTER_HASH, salt(1), [addressToScVal(owner.publicKey())]);
  const b = net.deploy(COUNTER_HASH, salt(2), [addressToScVal(owner.publicKey())]);
  return { c, net, owner, a, b };
}

describe('host', () => {
  it('stores, emits and returns through a signed transaction', () => {
    const { net, owner, a } = setup();
    const r1 = net.invoke({ source: owner, contractId: a, fn: 'incr', args: [u32(2)] });
    const r2 = net.invoke({ source: owner, contractId: a, fn: 'incr', args: [u32(3)] });
    expect(r1.status).toBe('SUCCESS');
    expect(r2.status === 'SUCCESS' && toU32(r2.returnValue)).toBe(5);
    expect(r2.status === 'SUCCESS' && r2.events.map((e) => toStr(e.topics[0]!))).toEqual(['incr']);
    const read = net.read(a, 'get', []);
    expect(read.status === 'SUCCESS' && toU32(read.returnValue)).toBe(5);
  });

  it('fails with Error(Contract, #N) and rolls every write back', () => {
    const { net, owner, a } = setup();
    const r = net.invoke({ source: owner, contractId: a, fn: 'fail', args: [u32(25)] });
    expect(r).toMatchObject({ status: 'FAILED', stage: 'simulate', contractError: 25 });
    expect(r.status === 'FAILED' && r.error).toMatch(
      /^HostError: Error\(Contract, #25\)\n\nEvent log \(newest first\):\n {3}0: \[Diagnostic Event\] contract:C/,
    );
    const read = net.read(a, 'get', []);
    expect(read.status === 'SUCCESS' && toU32(read.returnValue)).toBe(0);
  });

  it('rolls back a failed sub-call the caller catches, keeping the rest', () => {
    const { net, owner, a, b } = setup();
    expect(net.invoke({ source: owner, contractId: b, fn: 'incr', args: [u32(4)] }).status).toBe('SUCCESS');
    const r = net.invoke({ source: owner, contractId: a, fn: 'try_fail', args: [addressToScVal(b)] });
    expect(r.status === 'SUCCESS' && toU32(r.returnValue)).toBe(4);
  });

  it('authorizes the calling contract implicitly, and no one else', () => {
    const { net, owner, a, b } = setup();
    expect(net.invoke({ source: owner, contractId: a, fn: 'poke', args: [addressToScVal(b)] }).status).toBe('SUCCESS');
    const stranger = Keypair.random().publicKey();
    const r = net.read(b, 'guarded', [addressToScVal(stranger)]);
    expect(r.status).toBe('SUCCESS'); // a read records auth instead of enforcing it
    // a contract's auth outside its own calls needs its __check_auth: nobody can sign for it here
    const sim = net.invoke({ source: owner, contractId: b, fn: 'guarded', args: [addressToScVal(a)] });
    expect(sim).toMatchObject({ status: 'FAILED', stage: 'sign' });
  });

  it('deploys at the derived address and refuses a used salt', () => {
    const { net, owner, a } = setup();
    const r = net.invoke({ source: owner, contractId: a, fn: 'spawn', args: [xdr.ScVal.scvBytes(salt(9))] });
    expect(r.status).toBe('SUCCESS');
    const child = r.status === 'SUCCESS' ? addressFromScVal(r.returnValue) : '';
    expect(child).toMatch(/^C/);
    expect(net.read(child, 'get', []).status).toBe('SUCCESS');
    const again = net.invoke({ source: owner, contractId: a, fn: 'spawn', args: [xdr.ScVal.scvBytes(salt(9))] });
    expect(again.status === 'FAILED' && again.error).toMatch(
      /Error\(Storage, ExistingValue\)[\s\S]*contract already exists/,
    );
  });

  it('reports a missing contract and an unknown function as host errors', () => {
    const { net, a } = setup();
    const missing = net.read('CAAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAEAQC526', 'get', []);
    expect(missing.status === 'FAILED' && missing.error).toMatch(/Error\(Storage, MissingValue\)/);
    expect(net.read(a, 'nope', []).status).toBe('FAILED');
  });

  it('expires temporary entries with their TTL', async () => {
    const { c, net, owner, a } = setup();
    expect(net.invoke({ source: owner, contractId: a, fn: 'temp', args: [u32(1)] }).status).toBe('SUCCESS');
    const key = xdr.LedgerKey.contractData(
      new xdr.LedgerKeyContractData({
        contract: codec.toScAddress(a),
        key: xdr.ScVal.scvSymbol('Count'),
        durability: xdr.ContractDataDurability.temporary,
      }),
    );
    const live = (await net.rpc('getLedgerEntries', { keys: [key.toXdr('base64')] })) as {
      entries: { liveUntilLedgerSeq: number }[];
    };
    expect(live.entries).toHaveLength(1);
    // a ledger more than the TTL: the set-up's closes ran a few seconds ahead of this fixed clock
    c.advance(17_282 * 5_000);
    expect(net.ledger.tick().seq).toBeGreaterThan(live.entries[0]!.liveUntilLedgerSeq);
    const before = net.ledger.entries.size;
    const got = (await net.rpc('getLedgerEntries', { keys: [key.toXdr('base64')] })) as { entries: unknown[] };
    expect(got.entries).toEqual([]); // expired: no longer served
    expect(net.ledger.entries.size).toBe(before);
  });

  it('keys storage by an injective ScVal fingerprint, equal for built and parsed values', () => {
    const kp = Keypair.random();
    const S = xdr.ScVal;
    const values = [
      S.scvSymbol('Vc'),
      S.scvString('Vc'),
      S.scvBytes(Buffer.from('Vc')),
      S.scvVec([S.scvSymbol('Vc')]),
      S.scvVec([S.scvSymbol('V'), S.scvSymbol('c')]),
      S.scvVec([S.scvSymbol('Vc'), S.scvString('1')]),
      S.scvVec([S.scvSymbol('Vc'), S.scvString('1;')]),
      S.scvVec([S.scvSymbol('Vc'), S.scvU32(1)]),
      S.scvU32(1),
      S.scvI32(1),
      S.scvString('é'),
      S.scvString(''),
      S.scvVec([]),
      S.scvVoid(),
      S.scvBool(true),
      S.scvBool(false),
      addressToScVal(kp.publicKey()),
      addressToScVal('CAAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAEAQC526'),
      S.scvMap([new xdr.ScMapEntry({ key: S.scvSymbol('a'), val: S.scvU32(1) })]),
      S.scvVec([S.scvSymbol('Rank'), S.scvU32(12)]),
      S.scvVec([S.scvSymbol('Rank'), S.scvU32(1), S.scvU32(2)]),
    ];
    const keys = values.map((v) => codec.scValKey(v));
    expect(new Set(keys).size).toBe(values.length);
    values.forEach((v, i) => expect(codec.scValKey(xdr.ScVal.fromXdr(v.toXdr()))).toBe(keys[i]));
  });

  it('spells bytes one char a byte at every length, and keys XDR-keyed kinds alike when remembered', () => {
    const S = xdr.ScVal;
    for (let n = 0; n <= 40; n++) {
      const bytes = Buffer.from(Array.from({ length: n }, (_, i) => (i * 37 + 200) % 256));
      expect(codec.scValKey(S.scvBytes(bytes))).toBe(`b${n}:${bytes.toString('latin1')}`);
      const ascii = 'abcdefghijklmnopqrstuvwxyz0123456789_ABCD'.slice(0, n);
      expect(codec.scValKey(S.scvSymbol(ascii))).toBe(`y${n}:${ascii}`);
    }
    // kinds keyed by their XDR: remembered per object, the same key for the same object, a copy, and each time
    const xdrKeyed = [
      S.scvLedgerKeyContractInstance(),
      S.scvError(xdr.ScError.sceContract(7)),
      S.scvTimepoint(xdr.Uint64.fromString('5')),
      S.scvVec([S.scvSymbol('At'), S.scvLedgerKeyContractInstance()]),
    ];
    for (const v of xdrKeyed) {
      const first = codec.scValKey(v);
      expect(first).toMatch(/x/);
      expect(codec.scValKey(v)).toBe(first);
      expect(codec.scValKey(S.fromXdr(v.toXdr()))).toBe(first);
      expect(new SimCodec().scValKey(S.fromXdr(v.toXdr()))).toBe(first);
    }
    const direct = S.scvLedgerKeyContractInstance();
    expect(codec.scValKey(direct)).toBe(`x${direct.toXdr().length}:${Buffer.from(direct.toXdr()).toString('latin1')}`);
  });
});
