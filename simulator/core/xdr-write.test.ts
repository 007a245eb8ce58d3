// The hand-written XDR of xdr-write.ts must be js-xdr's, byte for byte: every entry of a bootstrapped network after
// a workload, and one contract data entry per ScVal arm (the ones written by hand and some left to js-xdr).
import { StrKey, xdr } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { addressToScVal } from '../host.ts';
import type { DataEntry } from './entries.ts';
import { COUNTER_HASH, funded, testNetwork } from './testing.ts';
import { XdrPieces, entryXdrBytes, writeScVal } from './xdr-write.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const S = xdr.ScVal;

const values: xdr.ScVal[] = [
  S.scvBool(true),
  S.scvBool(false),
  S.scvVoid(),
  S.scvU32(0xffffffff),
  S.scvI32(-7),
  S.scvU64(2n ** 64n - 1n),
  S.scvI64(-(2n ** 63n)),
  S.scvU128(new xdr.Uint128Parts({ hi: 2n ** 64n - 1n, lo: 5n })),
  S.scvI128(new xdr.Int128Parts({ hi: -1n, lo: 2n ** 64n - 2n })),
  S.scvBytes(Buffer.from([1, 2, 3, 4, 5])),
  S.scvBytes(Buffer.alloc(0)),
  S.scvString('é — ü'),
  S.scvSymbol('vc_issued'),
  S.scvVec(null),
  S.scvVec([S.scvU32(1), S.scvVec([S.scvSymbol('a')])]),
  S.scvMap(null),
  S.scvMap([new xdr.ScMapEntry({ key: S.scvSymbol('k'), val: S.scvString('v') })]),
  addressToScVal(StrKey.encodeEd25519PublicKey(Buffer.alloc(32, 9))),
  addressToScVal(StrKey.encodeContract(Buffer.alloc(32, 3))),
  S.scvTimepoint(123n),
  S.scvLedgerKeyContractInstance(),
];

describe('xdr-write', () => {
  it('writes every ScVal arm as js-xdr does', () => {
    for (const v of values) {
      const w = new XdrPieces();
      writeScVal(w, v);
      expect(hex(w.concat()), v.type).toBe(hex(v.toXdr()));
    }
  });

  it('writes every entry of a network as js-xdr does', () => {
    const net = testNetwork({ name: 'mainnet' }); // mainnet has USDC: a trustline too
    const owner = funded(net);
    net.fund(owner.publicKey(), 10n, 'USDC');
    const counterId = net.deploy(COUNTER_HASH, Buffer.alloc(32, 1), [addressToScVal(owner.publicKey())]);
    for (const by of [1, 2]) net.invoke({ source: owner, contractId: counterId, fn: 'incr', args: [S.scvU32(by)] });
    net.invoke({ source: owner, contractId: counterId, fn: 'temp', args: [S.scvU32(3)] });
    const codec = net.ledger.codec;
    const entries = [...net.ledger.entries.values()];
    expect(new Set(entries.map((e) => e.t))).toEqual(new Set(['account', 'trustline', 'data', 'instance']));
    const data = entries.find((e): e is DataEntry => e.t === 'data')!;
    for (const [i, val] of values.entries()) entries.push({ ...data, key: S.scvU32(i), val, durability: 'temporary' });
    for (const e of entries) expect(hex(entryXdrBytes(codec, e))).toBe(hex(codec.entryXdr(e).toXdr()));
  });
});
