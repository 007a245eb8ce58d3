// Canonical strings for storage keys: an ScVal's fingerprint (entries.ts SimCodec.scValKey), built from its parts
// without encoding XDR for the kinds the simulator's contracts use as keys.
import type { xdr } from '@stellar/stellar-sdk';
import { asBuffer } from './crypto.ts';

/** Bytes (or a string's UTF-8) as `length:` and one char a byte. */
export const bytesKey = (b: Uint8Array | string): string => {
  const bytes = typeof b === 'string' ? Buffer.from(b, 'utf8') : b;
  return `${bytes.length}:${latin1(bytes)}`;
};

/** Bytes as a latin1 string (one char a byte): short ones (symbols) by a loop, cheaper than a Buffer view's
 *  toString, which costs about the same from 1 to 45 bytes. */
function latin1(b: Uint8Array): string {
  const n = b.length;
  if (n > 24) return asBuffer(b).toString('latin1');
  let s = '';
  let i = 0;
  for (; i + 4 <= n; i += 4) s += String.fromCharCode(b[i]!, b[i + 1]!, b[i + 2]!, b[i + 3]!);
  for (; i < n; i++) s += String.fromCharCode(b[i]!);
  return s;
}

/** An injective string for an ScVal (a prefix code: every part is tagged and length- or ';'-delimited), equal for
 *  equal values whether built in JS or parsed from XDR. Much cheaper than encoding XDR for every storage access;
 *  the kinds it does encode take their XDR's key from `xdrKey`. */
export function fingerprint(v: xdr.ScVal, xdrKey: (v: xdr.ScVal) => string): string {
  switch (v.type) {
    case 'scvBool':
      return v.b ? 'T' : 'F';
    case 'scvVoid':
      return 'V';
    case 'scvU32':
      return `u${v.u32};`;
    case 'scvI32':
      return `i${v.i32};`;
    case 'scvU64':
      return `U${v.u64.toString()};`;
    case 'scvI64':
      return `L${v.i64.toString()};`;
    case 'scvU128':
      return `q${v.u128.hi.toString()},${v.u128.lo.toString()};`;
    case 'scvI128':
      return `Q${v.i128.hi.toString()},${v.i128.lo.toString()};`;
    case 'scvSymbol':
      return `y${bytesKey(v.sym.bytes)}`;
    case 'scvString':
      return `s${bytesKey(v.str.bytes)}`;
    case 'scvBytes':
      return `b${bytesKey(v.bytes.value)}`;
    case 'scvVec': {
      const items = v.vec;
      if (!items) return 'n';
      let out = `[${items.length};`;
      for (const x of items) out += fingerprint(x, xdrKey);
      return out;
    }
    case 'scvMap': {
      const m = v.map;
      if (!m) return 'N';
      let out = `{${m.length};`;
      for (const e of m) out += fingerprint(e.key, xdrKey) + fingerprint(e.val, xdrKey);
      return out;
    }
    case 'scvAddress': {
      const a = v.address;
      if (a.type === 'scAddressTypeAccount') return `g${bytesKey(a.accountId.ed25519.value)}`;
      if (a.type === 'scAddressTypeContract') return `c${bytesKey(a.contractId.value)}`;
      return xdrKey(v);
    }
    case 'scvLedgerKeyNonce':
      return `o${v.nonceKey.nonce.toString()};`;
    default:
      return xdrKey(v);
  }
}
