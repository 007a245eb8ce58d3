// The read cache on its own: lifetime, ledgers, clearing, sharing, failures, bound.
import { describe, expect, it } from 'vitest';
import { xdr } from '@stellar/stellar-sdk';
import { ReadCache, readKey, type ReadResult } from './read-cache.ts';
import { toU32 } from './codec.ts';

const val = (n: number) => xdr.ScVal.scvU32(n);

function loader(ledger = 10) {
  let calls = 0;
  const load = async () => ({ value: val(++calls), ledger });
  return { load, calls: () => calls };
}

describe('ReadCache', () => {
  it('ttlMs 0 is off: every read loads', async () => {
    const c = new ReadCache({ ttlMs: 0 });
    const l = loader();
    await c.read('k', l.load);
    await c.read('k', l.load);
    expect([c.enabled, l.calls(), c.size]).toEqual([false, 2, 0]);
  });

  it('serves an answer for less than ttlMs from when its load began', async () => {
    let t = 0;
    const c = new ReadCache({ ttlMs: 100, now: () => t });
    const l = loader();
    expect((await c.read('k', l.load)).u32).toBe(1);
    t = 99;
    expect((await c.read('k', l.load)).u32).toBe(1);
    t = 100;
    expect((await c.read('k', l.load)).u32).toBe(2);
  });

  it('an answer read at an older ledger than one seen since is not served', async () => {
    const c = new ReadCache({ ttlMs: 60_000 });
    const l = loader(10);
    await c.read('k', l.load);
    c.observeLedger(10);
    expect((await c.read('k', l.load)).u32).toBe(1);
    c.observeLedger(9);
    c.observeLedger(undefined);
    expect((await c.read('k', l.load)).u32).toBe(1);
    c.observeLedger(11);
    expect((await c.read('k', l.load)).u32).toBe(2);
  });

  it('an answer from a newer ledger ends the reuse of older ones', async () => {
    const c = new ReadCache({ ttlMs: 60_000 });
    await c.read('a', loader(10).load);
    await c.read('b', loader(12).load);
    const again = loader(12);
    expect((await c.read('a', again.load)).u32).toBe(1);
    expect(again.calls()).toBe(1);
  });

  it('clear() forgets everything, including loads under way', async () => {
    const c = new ReadCache({ ttlMs: 60_000 });
    let finish = () => {};
    const slow = c.read('k', () => new Promise<ReadResult>((r) => (finish = () => r({ value: val(1), ledger: 10 }))));
    c.clear();
    finish();
    expect(toU32(await slow)).toBe(1);
    expect((await c.read('k', async () => ({ value: val(2), ledger: 10 }))).u32).toBe(2);
  });

  it('concurrent reads of one key share a load; a failure is shared but not kept', async () => {
    const c = new ReadCache({ ttlMs: 60_000 });
    let calls = 0;
    const failing = async () => {
      calls++;
      throw new Error('rpc down');
    };
    await expect(Promise.all([c.read('k', failing), c.read('k', failing)])).rejects.toThrow('rpc down');
    expect(calls).toBe(1);
    expect(c.size).toBe(0);
    expect((await c.read('k', async () => ({ value: val(7), ledger: 10 }))).u32).toBe(7);
  });

  it('keeps at most maxEntries, the least recently used going first (a hit counts as a use)', async () => {
    let t = 0;
    const c = new ReadCache({ ttlMs: 100, maxEntries: 3, now: () => t });
    for (const k of ['a', 'b', 'c']) await c.read(k, loader().load);
    t = 10;
    const a = loader();
    await c.read('a', a.load); // a hit: 'a' is now the most recently used, 'b' the least
    await c.read('d', loader().load);
    expect(c.size).toBe(3);
    const [a2, b, cc] = [loader(), loader(), loader()];
    await c.read('a', a2.load);
    await c.read('c', cc.load);
    await c.read('b', b.load);
    expect([a.calls(), a2.calls(), cc.calls(), b.calls()]).toEqual([0, 0, 0, 1]);
  });

  it('an unused entry drifts to the end: expired ones are reloaded, never served', async () => {
    let t = 0;
    const c = new ReadCache({ ttlMs: 100, maxEntries: 3, now: () => t });
    for (const k of ['a', 'b', 'c']) await c.read(k, loader().load);
    t = 50;
    const d = loader();
    await c.read('d', d.load);
    expect(c.size).toBe(3);
    const a = loader();
    await c.read('a', a.load); // 'a' was the least recently used: gone (and 'b' makes room for it now)
    expect(a.calls()).toBe(1);
    t = 120; // 'c' (t=0) has expired and, unused since, is the least recently used; 'd' and 'a' (t=50) stay
    await c.read('e', loader().load);
    expect(c.size).toBe(3);
    const d2 = loader();
    await c.read('d', d2.load);
    expect(d2.calls()).toBe(0);
  });
});

describe('readKey', () => {
  it('differs by contract, function, source and every argument', () => {
    const base = readKey('C1', 'f', 'G1', [val(1), xdr.ScVal.scvString('x')]);
    expect(
      new Set([
        base,
        readKey('C2', 'f', 'G1', [val(1), xdr.ScVal.scvString('x')]),
        readKey('C1', 'g', 'G1', [val(1), xdr.ScVal.scvString('x')]),
        readKey('C1', 'f', 'G2', [val(1), xdr.ScVal.scvString('x')]),
        readKey('C1', 'f', 'G1', [val(2), xdr.ScVal.scvString('x')]),
        readKey('C1', 'f', 'G1', [val(1), xdr.ScVal.scvString('y')]),
        readKey('C1', 'f', 'G1', [val(1)]),
      ]).size,
    ).toBe(7);
    expect(readKey('C1', 'f', 'G1', [val(1), xdr.ScVal.scvString('x')])).toBe(base);
  });

  it('cannot be forged by argument contents', () => {
    const str = xdr.ScVal.scvString;
    const keys = [
      readKey('C', 'f', 'G', [str('a b')]),
      readKey('C', 'f', 'G', [str('a'), str('b')]),
      readKey('C', 'f', 'G', [str('x" s"y')]),
      readKey('C', 'f', 'G', [str('x'), str('y')]),
      readKey('C', 'f', 'G', [str('1')]),
      readKey('C', 'f', 'G', [val(1)]),
      readKey('C', 'f', 'G', [xdr.ScVal.scvSymbol('1')]),
      readKey('C', 'f', 'G', [xdr.ScVal.scvU64(xdr.Uint64.fromString('1'))]),
    ];
    expect(new Set(keys).size).toBe(keys.length);
    // the same string read back from XDR (bytes, not a JS string) is the same value: a miss at worst, never another value
    const fromXdr = xdr.ScVal.fromXdr(str('é').toXdr());
    expect(readKey('C', 'f', 'G', [fromXdr])).not.toBe(readKey('C', 'f', 'G', [str('x')]));
  });
});
