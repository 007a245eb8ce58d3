// ScVal codecs for the Soroban `contracttype` conventions of docs/chain-abi.md ("Encoding conventions").
// Shared by src/chain (the service) and simulator/ (the contracts), so both sides encode identically.
import { Address, xdr, nativeToScVal, scValToBigInt } from '@stellar/stellar-sdk';

export const sym = (s: string): xdr.ScVal => xdr.ScVal.scvSymbol(s);
export const str = (s: string): xdr.ScVal => xdr.ScVal.scvString(s);
export const u32 = (n: number): xdr.ScVal => xdr.ScVal.scvU32(n);
export const u64 = (n: bigint | number): xdr.ScVal => nativeToScVal(BigInt(n), { type: 'u64' });
export const i128 = (n: bigint | number): xdr.ScVal => nativeToScVal(BigInt(n), { type: 'i128' });
export const bool = (b: boolean): xdr.ScVal => xdr.ScVal.scvBool(b);
export const bytes = (b: Uint8Array): xdr.ScVal => xdr.ScVal.scvBytes(Uint8Array.from(b));
/** Address → ScVal; throws on an invalid address. About 8 µs each on the bench machine (the StrKey's checksum). */
export function address(a: string): xdr.ScVal {
  return new Address(a).toScVal();
}
export const vec = (items: xdr.ScVal[]): xdr.ScVal => xdr.ScVal.scvVec(items);
export const unit = (): xdr.ScVal => xdr.ScVal.scvVoid();

/** struct → ScMap with Symbol keys (snake_case field names), keys sorted. */
export function struct(fields: Record<string, xdr.ScVal>): xdr.ScVal {
  const keys = Object.keys(fields).sort();
  return xdr.ScVal.scvMap(keys.map((k) => new xdr.ScMapEntry({ key: sym(k), val: fields[k]! })));
}

/** Unit variant `V` → ScVec[Symbol("V")]; tuple variant `V(x, …)` → ScVec[Symbol("V"), x, …]. */
export const enumVariant = (name: string, ...values: xdr.ScVal[]): xdr.ScVal => vec([sym(name), ...values]);

/** Option<T>: ScVoid for None, the value itself for Some. */
export const option = <T>(v: T | undefined | null, enc: (x: T) => xdr.ScVal): xdr.ScVal =>
  v === undefined || v === null ? unit() : enc(v);

export class CodecError extends Error {}

function expect(v: xdr.ScVal, kind: string): never {
  throw new CodecError(`expected ${kind}, got ${v.type}`);
}

export function toStr(v: xdr.ScVal): string {
  if (v.type === 'scvString') return v.str.toString();
  if (v.type === 'scvSymbol') return v.sym.toString();
  return expect(v, 'string');
}
export function toU32(v: xdr.ScVal): number {
  return v.type === 'scvU32' ? v.u32 : expect(v, 'u32');
}
export function toBigInt(v: xdr.ScVal): bigint {
  return scValToBigInt(v);
}
export function toBool(v: xdr.ScVal): boolean {
  return v.type === 'scvBool' ? v.b : expect(v, 'bool');
}
export function toBytes(v: xdr.ScVal): Buffer {
  return v.type === 'scvBytes' ? Buffer.from(v.bytes.value) : expect(v, 'bytes');
}
export function toAddress(v: xdr.ScVal): string {
  return v.type === 'scvAddress' ? Address.fromScVal(v).toString() : expect(v, 'address');
}
export function toVec(v: xdr.ScVal): xdr.ScVal[] {
  return v.type === 'scvVec' ? (v.vec ?? []) : expect(v, 'vec');
}
export function isVoid(v: xdr.ScVal): boolean {
  return v.type === 'scvVoid';
}
export function fromOption<T>(v: xdr.ScVal, dec: (x: xdr.ScVal) => T): T | undefined {
  return isVoid(v) ? undefined : dec(v);
}
/** ScMap with Symbol keys → record of field ScVals. */
export function fromStruct(v: xdr.ScVal): Record<string, xdr.ScVal> {
  if (v.type !== 'scvMap') return expect(v, 'struct map');
  const out: Record<string, xdr.ScVal> = {};
  for (const e of v.map ?? []) out[toStr(e.key)] = e.val;
  return out;
}
/** ScVec[Symbol(tag), …values] → { tag, values }. */
export function fromEnum(v: xdr.ScVal): { tag: string; values: xdr.ScVal[] } {
  const items = toVec(v);
  const head = items[0];
  if (!head || head.type !== 'scvSymbol') return expect(v, 'enum vec');
  return { tag: toStr(head), values: items.slice(1) };
}
/** A required field of a decoded struct. */
export function field(s: Record<string, xdr.ScVal>, name: string): xdr.ScVal {
  const f = s[name];
  if (!f) throw new CodecError(`missing field ${name}`);
  return f;
}
