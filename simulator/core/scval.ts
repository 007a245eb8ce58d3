// The simulator's own ScVal codec for the `contracttype` conventions of docs/chain-abi.md ("Encoding conventions"),
// built from the XDR constructors of @stellar/stellar-sdk alone. The service has its own (src/chain); the two are
// written apart on purpose, so that a test where the service talks to the simulator checks one against the other.
import { StrKey, xdr } from '@stellar/stellar-sdk';

const U64 = 1n << 64n;

export const sym = (s: string): xdr.ScVal => xdr.ScVal.scvSymbol(s);
export const str = (s: string): xdr.ScVal => xdr.ScVal.scvString(s);
export const u32 = (n: number): xdr.ScVal => xdr.ScVal.scvU32(n);
export const bool = (b: boolean): xdr.ScVal => xdr.ScVal.scvBool(b);
export const unit = (): xdr.ScVal => xdr.ScVal.scvVoid();
export const vec = (items: xdr.ScVal[]): xdr.ScVal => xdr.ScVal.scvVec(items);
export const bytes = (b: Uint8Array): xdr.ScVal => xdr.ScVal.scvBytes(Buffer.from(b));

/** u64: the low 64 bits of a non-negative integer (the XDR's unsigned hyper). */
export function u64(n: bigint | number): xdr.ScVal {
  const v = BigInt(n);
  if (v < 0n || v >= U64) throw new RangeError(`u64 out of range: ${v}`);
  return xdr.ScVal.scvU64(v);
}

/** i128 as two's complement split into a signed high and an unsigned low 64-bit half (Int128Parts). */
export function i128(n: bigint | number): xdr.ScVal {
  const v = BigInt(n);
  if (v < -(1n << 127n) || v >= 1n << 127n) throw new RangeError(`i128 out of range: ${v}`);
  const lo = BigInt.asUintN(64, v);
  const hi = BigInt.asIntN(64, v >> 64n);
  return xdr.ScVal.scvI128(new xdr.Int128Parts({ hi, lo }));
}

/** A G… account or C… contract StrKey as an ScAddress (throws on anything else, or on a bad checksum). */
export function scAddressOf(a: string): xdr.ScAddress {
  // decoding checks the version byte and the checksum: one decode, not a validation and then a decode
  if (a.startsWith('C')) return xdr.ScAddress.scAddressTypeContract(new xdr.ContractId(StrKey.decodeContract(a)));
  if (a.startsWith('G'))
    return xdr.ScAddress.scAddressTypeAccount(xdr.PublicKey.publicKeyTypeEd25519(StrKey.decodeEd25519PublicKey(a)));
  throw new TypeError(`not an account or contract address: ${a}`);
}

/** ScAddress → its StrKey (accounts and contracts; other address types are not held by the simulator). */
export function strKeyOf(a: xdr.ScAddress): string {
  if (a.type === 'scAddressTypeAccount') return StrKey.encodeEd25519PublicKey(a.accountId.ed25519.value);
  if (a.type === 'scAddressTypeContract') return StrKey.encodeContract(a.contractId.value);
  throw new TypeError(`unsupported address type ${a.type}`);
}

export const address = (a: string): xdr.ScVal => xdr.ScVal.scvAddress(scAddressOf(a));
/** Address ScVal → its StrKey. */
export const addressOfScVal = (v: xdr.ScVal): string =>
  v.type === 'scvAddress' ? strKeyOf(v.address) : wrongType(v, 'address');

/** struct → ScMap keyed by Symbol field names, in ascending order (what `contracttype` structs serialize as). */
export function struct(fields: Record<string, xdr.ScVal>): xdr.ScVal {
  return xdr.ScVal.scvMap(
    Object.entries(fields)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([k, val]) => new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol(k), val })),
  );
}

/** Enum variant: `[Symbol(name), …payload]`. */
export const enumVariant = (name: string, ...payload: xdr.ScVal[]): xdr.ScVal =>
  xdr.ScVal.scvVec([xdr.ScVal.scvSymbol(name), ...payload]);

/** Option<T>: Void for none. */
export function option<T>(v: T | null | undefined, encode: (x: T) => xdr.ScVal): xdr.ScVal {
  return v === null || v === undefined ? xdr.ScVal.scvVoid() : encode(v);
}

// ---- decoders ------------------------------------------------------------------------------------------------

function wrongType(v: xdr.ScVal, want: string): never {
  throw new TypeError(`expected ${want}, got ${v.type}`);
}

/** String or Symbol → JS string. */
export function toStr(v: xdr.ScVal): string {
  switch (v.type) {
    case 'scvString':
      return v.str.toString();
    case 'scvSymbol':
      return v.sym.toString();
    default:
      return wrongType(v, 'string or symbol');
  }
}
export const toU32 = (v: xdr.ScVal): number => (v.type === 'scvU32' ? v.u32 : wrongType(v, 'u32'));
export const toBytes = (v: xdr.ScVal): Buffer =>
  v.type === 'scvBytes' ? Buffer.from(v.bytes.value) : wrongType(v, 'bytes');
export const toVec = (v: xdr.ScVal): xdr.ScVal[] => (v.type === 'scvVec' ? (v.vec ?? []) : wrongType(v, 'vec'));

/** ScMap with Symbol (or String) keys → its fields by name. */
export function fromStruct(v: xdr.ScVal): Record<string, xdr.ScVal> {
  if (v.type !== 'scvMap') return wrongType(v, 'struct map');
  return Object.fromEntries((v.map ?? []).map((e) => [toStr(e.key), e.val]));
}

/** A field a decoded struct must have. */
export function field(fields: Record<string, xdr.ScVal>, name: string): xdr.ScVal {
  const f = fields[name];
  if (f === undefined) throw new TypeError(`missing field ${name}`);
  return f;
}
