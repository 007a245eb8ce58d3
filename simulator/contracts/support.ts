// Plumbing shared by the simulator's contracts: strict argument decoding (a Soroban contract rejects a wrong
// argument type before running: HostError 'Value'), function tables, and an ordered index with O(limit) pages.
import { scValToBigInt, xdr } from '@stellar/stellar-sdk';
import { HostError, addressFromScVal, type ContractContext, type ContractImpl, type ContractStorage } from '../host.ts';
import { sym, u32, vec } from '../core/scval.ts';

function badArg(what: string, v: xdr.ScVal): never {
  throw new HostError(`Error(Value, UnexpectedType): expected ${what}, got ${v.type}`, 'Value');
}

/** Strict decoders for contract arguments and stored values. */
export const arg = {
  string(v: xdr.ScVal): string {
    return v.type === 'scvString' ? v.str.toString() : badArg('String', v);
  },
  /** `v` itself once it is a String (a cheap check for values used only as storage keys). */
  isString(v: xdr.ScVal): xdr.ScVal {
    return v.type === 'scvString' ? v : badArg('String', v);
  },
  /** Byte length of a Soroban String (what on-chain limits count). */
  stringBytes(v: xdr.ScVal): number {
    return v.type === 'scvString' ? v.str.length : badArg('String', v);
  },
  symbol(v: xdr.ScVal): string {
    return v.type === 'scvSymbol' ? v.sym.toString() : badArg('Symbol', v);
  },
  address(v: xdr.ScVal): string {
    return v.type === 'scvAddress' ? addressFromScVal(v) : badArg('Address', v);
  },
  u32(v: xdr.ScVal): number {
    return v.type === 'scvU32' ? v.u32 : badArg('u32', v);
  },
  bool(v: xdr.ScVal): boolean {
    return v.type === 'scvBool' ? v.b : badArg('bool', v);
  },
  i128(v: xdr.ScVal): bigint {
    return v.type === 'scvI128' ? scValToBigInt(v) : badArg('i128', v);
  },
  u64(v: xdr.ScVal): bigint {
    return v.type === 'scvU64' ? scValToBigInt(v) : badArg('u64', v);
  },
  bytesN(v: xdr.ScVal, n: number): Buffer {
    if (v.type !== 'scvBytes' || v.bytes.value.length !== n) return badArg(`BytesN<${n}>`, v);
    return Buffer.from(v.bytes.value);
  },
  vec(v: xdr.ScVal): xdr.ScVal[] {
    return v.type === 'scvVec' ? (v.vec ?? []) : badArg('Vec', v);
  },
  /** A tuple `(A, B, …)` of n elements: an ScVec of exactly n. */
  tuple(v: xdr.ScVal, n: number): xdr.ScVal[] {
    const items = v.type === 'scvVec' ? (v.vec ?? []) : badArg('tuple Vec', v);
    return items.length === n ? items : badArg(`tuple of ${n}`, v);
  },
  /** A contracttype enum value → its variant name and payload. */
  variant(v: xdr.ScVal): { tag: string; values: xdr.ScVal[] } {
    const items = v.type === 'scvVec' ? (v.vec ?? []) : badArg('enum Vec', v);
    return { tag: items[0] ? arg.symbol(items[0]) : badArg('enum variant', v), values: items.slice(1) };
  },
  /** A contracttype struct: an ScMap whose Symbol keys are exactly `fields`. */
  struct(v: xdr.ScVal, fields: readonly string[]): Record<string, xdr.ScVal> {
    if (v.type !== 'scvMap') return badArg('struct map', v);
    const entries = v.map ?? [];
    const out: Record<string, xdr.ScVal> = {};
    for (const e of entries) {
      if (e.key.type !== 'scvSymbol') return badArg('struct field Symbol', e.key);
      out[e.key.sym.toString()] = e.val;
    }
    if (entries.length !== fields.length || !fields.every((f) => f in out)) {
      throw new HostError(`Error(Value, UnexpectedType): struct fields must be ${fields.join(', ')}`, 'Value');
    }
    return out;
  },
  option<R>(v: xdr.ScVal, dec: (x: xdr.ScVal) => R): R | undefined {
    return v.type === 'scvVoid' ? undefined : dec(v);
  },
};

export type Fn = (ctx: ContractContext, args: xdr.ScVal[]) => xdr.ScVal;

/** A ContractImpl from a table `fn name → [arity, body]`; unknown names and wrong arity fail as the host does. */
export function defineContract(
  name: string,
  fns: Record<string, readonly [number, Fn]>,
  construct?: readonly [number, (ctx: ContractContext, args: xdr.ScVal[]) => void],
): ContractImpl {
  const table = new Map(Object.entries(fns));
  const arity = (fn: string, want: number, args: xdr.ScVal[]): void => {
    if (args.length !== want) {
      throw new HostError(`Error(WasmVm, InvalidAction): ${fn} takes ${want} arguments, got ${args.length}`, 'Value');
    }
  };
  return {
    name,
    functions: new Map([...table].map(([fn, [n]]) => [fn, n])),
    construct: construct
      ? (ctx, args) => {
          arity('__constructor', construct[0], args);
          construct[1](ctx, args);
        }
      : undefined,
    invoke(ctx, fn, args) {
      const entry = table.get(fn);
      if (!entry) throw new HostError(`trying to invoke non-existent contract function: ${fn}`, 'Context');
      arity(fn, entry[0], args);
      return entry[1](ctx, args);
    },
  };
}

const U32_MAX = 0xffffffff;
/** A stored u32 (absent: undefined). */
const storedU32 = (v: xdr.ScVal | undefined): number | undefined => (v === undefined ? undefined : arg.u32(v));
const lowbit = (i: number): number => (i & -i) >>> 0; // exact for 1 ≤ i < 2^32

/**
 * An insertion-ordered set of ScVal items in contract storage, with O(1) membership, O(log n) insert/remove and
 * O(log n + limit) pages by offset. Positions 1, 2, … are handed out in insertion order and never reused; a
 * removed position becomes a tombstone. Live positions form a linked list (`Next(0)` is the head), and a Fenwick
 * tree over positions (`Rank`) counts live ones, so the offset-th live item is found without a scan.
 * Keys (persistent): `<N>Pos(item) → u32`, `<N>At(pos) → item`, `<N>Next(pos) → u32`, `<N>Rank(pos) → u32`;
 * (instance): `<N>Len` (positions handed out), `<N>Count` (live items), `<N>Tail` (last live position).
 */
export class OrderedIndex {
  private readonly pos: xdr.ScVal;
  private readonly at: xdr.ScVal;
  private readonly next: xdr.ScVal;
  private readonly rank: xdr.ScVal;
  private readonly len: xdr.ScVal;
  private readonly cnt: xdr.ScVal;
  private readonly tail: xdr.ScVal;

  constructor(name: string) {
    this.pos = sym(`${name}Pos`);
    this.at = sym(`${name}At`);
    this.next = sym(`${name}Next`);
    this.rank = sym(`${name}Rank`);
    this.len = vec([sym(`${name}Len`)]);
    this.cnt = vec([sym(`${name}Count`)]);
    this.tail = vec([sym(`${name}Tail`)]);
  }

  count(s: ContractStorage): number {
    return this.meta(s, this.cnt);
  }

  has(s: ContractStorage, item: xdr.ScVal): boolean {
    return s.has(vec([this.pos, item]));
  }

  /** Appends `item` (caller checked it is absent); false when positions are exhausted (u32). */
  append(s: ContractStorage, item: xdr.ScVal): boolean {
    const len = this.meta(s, this.len);
    if (len === U32_MAX) return false;
    const n = len + 1;
    // Fenwick node n covers (n - lowbit(n), n]: the new item plus the nodes that tile (n - lowbit(n), n - 1].
    let r = 1;
    for (let j = n - 1, stop = n - lowbit(n); j > stop; j -= lowbit(j)) r += this.rankAt(s, j);
    s.set(this.key(this.rank, n), u32(r));
    s.set(this.key(this.at, n), item);
    s.set(vec([this.pos, item]), u32(n));
    s.set(this.key(this.next, this.meta(s, this.tail)), u32(n));
    s.set(this.tail, u32(n), 'instance');
    s.set(this.len, u32(n), 'instance');
    s.set(this.cnt, u32(this.count(s) + 1), 'instance');
    return true;
  }

  /** Removes `item`; false when it was absent. Order of the others is unchanged. */
  remove(s: ContractStorage, item: xdr.ScVal): boolean {
    const posKey = vec([this.pos, item]);
    const p = storedU32(s.get(posKey));
    if (p === undefined) return false;
    const len = this.meta(s, this.len);
    const rank = this.prefix(s, p);
    const prev = rank > 1 ? this.find(s, rank - 1, len) : 0;
    const nxt = storedU32(s.get(this.key(this.next, p)));
    if (nxt === undefined) s.remove(this.key(this.next, prev));
    else s.set(this.key(this.next, prev), u32(nxt));
    s.remove(this.key(this.next, p));
    s.remove(this.key(this.at, p));
    s.remove(posKey);
    for (let i = p; i <= len; i += lowbit(i)) s.set(this.key(this.rank, i), u32(this.rankAt(s, i) - 1));
    if (this.meta(s, this.tail) === p) s.set(this.tail, u32(prev), 'instance');
    s.set(this.cnt, u32(this.count(s) - 1), 'instance');
    return true;
  }

  /** Live items `offset … offset + limit - 1` in insertion order. */
  page(s: ContractStorage, offset: number, limit: number): xdr.ScVal[] {
    const count = this.count(s);
    if (limit === 0 || offset >= count) return [];
    const out: xdr.ScVal[] = [];
    let p = this.find(s, offset + 1, this.meta(s, this.len));
    while (p !== 0 && out.length < limit) {
      out.push(s.get(this.key(this.at, p))!);
      p = storedU32(s.get(this.key(this.next, p))) ?? 0;
    }
    return out;
  }

  private key(tag: xdr.ScVal, n: number): xdr.ScVal {
    return vec([tag, u32(n)]);
  }
  private meta(s: ContractStorage, k: xdr.ScVal): number {
    return storedU32(s.get(k, 'instance')) ?? 0;
  }
  private rankAt(s: ContractStorage, i: number): number {
    return storedU32(s.get(this.key(this.rank, i))) ?? 0;
  }
  /** Live items at positions 1..p. */
  private prefix(s: ContractStorage, p: number): number {
    let sum = 0;
    for (let i = p; i > 0; i -= lowbit(i)) sum += this.rankAt(s, i);
    return sum;
  }
  /** Position of the k-th live item (1-based k ≤ count). */
  private find(s: ContractStorage, k: number, len: number): number {
    let step = 1;
    while (step * 2 <= len) step *= 2;
    let p = 0;
    for (; step >= 1; step = Math.floor(step / 2)) {
      if (p + step > len) continue;
      const r = this.rankAt(s, p + step);
      if (r < k) {
        p += step;
        k -= r;
      }
    }
    return p + 1;
  }
}
