// XDR written by hand for what the simulator encodes on every transaction (the ledger entries of stateChanges and
// of the meta, and their ScVals): the bytes js-xdr writes (xdr-write.test.ts holds them equal), without building
// js-xdr's intermediate objects first. Any ScVal arm or entry kind not written here is js-xdr's own encoding.
import type { xdr } from '@stellar/stellar-sdk';
import type { Entry, SimCodec } from './entries.ts';

/** XDR written piece by piece: 4-byte words, 8-byte hypers and already-encoded values. */
export class XdrPieces {
  readonly pieces: Uint8Array[] = [];
  word(n: number): this {
    const b = Buffer.allocUnsafe(4);
    b.writeUInt32BE(n >>> 0);
    this.pieces.push(b);
    return this;
  }
  hyper(n: bigint, signed: boolean): this {
    const b = Buffer.allocUnsafe(8);
    if (signed) b.writeBigInt64BE(n);
    else b.writeBigUInt64BE(n);
    this.pieces.push(b);
    return this;
  }
  bytes(b: Uint8Array): this {
    this.pieces.push(b);
    return this;
  }
  /** Variable-length opaque data: its length, the bytes, zeros to a multiple of 4. */
  opaque(b: Uint8Array): this {
    this.word(b.length).bytes(b);
    if (b.length % 4) this.pieces.push(Buffer.alloc(4 - (b.length % 4)));
    return this;
  }
  /** A variable-length array of encoded values. */
  array(items: readonly Uint8Array[]): this {
    this.word(items.length);
    for (const i of items) this.pieces.push(i);
    return this;
  }
  concat(): Buffer {
    return Buffer.concat(this.pieces);
  }
}

function writeAddress(w: XdrPieces, a: xdr.ScAddress): void {
  if (a.type === 'scAddressTypeAccount') w.word(0).word(0).bytes(a.accountId.ed25519.value);
  else if (a.type === 'scAddressTypeContract') w.word(1).bytes(a.contractId.value);
  else w.bytes(a.toXdr());
}

/** An ScVal (Stellar-contract.x), as js-xdr writes it. */
export function writeScVal(w: XdrPieces, v: xdr.ScVal): void {
  switch (v.type) {
    case 'scvBool':
      w.word(0).word(v.b ? 1 : 0);
      return;
    case 'scvVoid':
      w.word(1);
      return;
    case 'scvU32':
      w.word(3).word(v.u32);
      return;
    case 'scvI32':
      w.word(4).word(v.i32);
      return;
    case 'scvU64':
      w.word(5).hyper(BigInt(v.u64), false);
      return;
    case 'scvI64':
      w.word(6).hyper(BigInt(v.i64), true);
      return;
    case 'scvU128':
      w.word(9).hyper(BigInt(v.u128.hi), false).hyper(BigInt(v.u128.lo), false);
      return;
    case 'scvI128':
      w.word(10).hyper(BigInt(v.i128.hi), true).hyper(BigInt(v.i128.lo), false);
      return;
    case 'scvBytes':
      w.word(13).opaque(v.bytes.value);
      return;
    case 'scvString':
      w.word(14).opaque(v.str.bytes);
      return;
    case 'scvSymbol':
      w.word(15).opaque(v.sym.bytes);
      return;
    case 'scvVec':
      w.word(16);
      if (!v.vec) w.word(0);
      else {
        w.word(1).word(v.vec.length);
        for (const x of v.vec) writeScVal(w, x);
      }
      return;
    case 'scvMap':
      w.word(17);
      if (!v.map) w.word(0);
      else writeMap(w, v.map);
      return;
    case 'scvAddress':
      w.word(18);
      writeAddress(w, v.address);
      return;
    default:
      w.bytes(v.toXdr());
  }
}

/** A present ScMap (after its optional's `1`). */
function writeMap(w: XdrPieces, map: readonly xdr.ScMapEntry[]): void {
  w.word(1).word(map.length);
  for (const e of map) {
    writeScVal(w, e.key);
    writeScVal(w, e.val);
  }
}

/** `codec.entryXdr(e).toXdr()`: contract data, contract instances and accounts by hand, trustlines by js-xdr. */
export function entryXdrBytes(codec: SimCodec, e: Entry): Uint8Array {
  const w = new XdrPieces().word(e.lm);
  switch (e.t) {
    case 'data':
    case 'instance':
      w.word(6).word(0); // CONTRACT_DATA, ExtensionPoint v0
      writeAddress(w, codec.toScAddress(e.contract));
      if (e.t === 'data') {
        writeScVal(w, e.key);
        w.word(e.durability === 'temporary' ? 0 : 1);
        writeScVal(w, e.val);
      } else {
        w.word(20).word(1).word(19); // SCV_LEDGER_KEY_CONTRACT_INSTANCE, PERSISTENT, SCV_CONTRACT_INSTANCE
        if (e.exec.kind === 'wasm') w.word(0).bytes(Buffer.from(e.exec.hash, 'hex'));
        else w.word(1);
        if (e.storage.size) writeMap(w, codec.sortedMap(e.storage));
        else w.word(0);
      }
      break;
    case 'account':
      w.word(0).word(0).bytes(codec.accountKey(e.id)); // ACCOUNT, PUBLIC_KEY_TYPE_ED25519
      w.hyper(e.balance, true).hyper(e.seqNum, true).word(e.numSubEntries);
      w.word(0).word(0).word(0); // no inflationDest, flags, homeDomain ""
      w.bytes(THRESHOLDS).word(0).word(0); // thresholds, no signers, AccountEntryExt v0
      break;
    default:
      return codec.entryXdr(e).toXdr();
  }
  return w.word(0).concat(); // LedgerEntryExt v0
}

const THRESHOLDS = new Uint8Array([1, 0, 0, 0]);
