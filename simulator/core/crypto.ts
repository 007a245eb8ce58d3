// Ed25519, hashing and StrKey conversions for the simulator. Node's crypto verifies ~15× faster than the SDK's
// pure-JS code; KeyObjects are built once per key (raw key → DER SPKI / PKCS#8). StrKey decoding checks a CRC each
// time, so the conversions are remembered too: in lru-cache instances owned by one simulator (SimKeys), never in
// module state, so two simulators in one process share nothing.
import crypto, { type KeyObject } from 'node:crypto';
import { StrKey, type Keypair } from '@stellar/stellar-sdk';
import { LRUCache } from 'lru-cache';

const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export const sha256 = (data: Uint8Array): Buffer => crypto.createHash('sha256').update(data).digest();

/** Network id: sha256(passphrase). */
export const networkId = (passphrase: string): Buffer => sha256(Buffer.from(passphrase));

/** A Buffer view of SDK bytes (SDK 17 returns Uint8Array), without copying. */
export const asBuffer = (b: Uint8Array): Buffer =>
  Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/** An XDR value's base64 through Node's native encoder: the SDK's `toXdr('base64')` encodes with btoa over
 *  `String.fromCharCode`, several times slower for the kilobytes of a transaction's data or meta. Same text. */
export const xdrBase64 = (v: { toXdr(): Uint8Array }): string => asBuffer(v.toXdr()).toString('base64');

/** A fresh random non-negative i64 (auth nonces). */
export function randomNonce(): bigint {
  return crypto.randomBytes(8).readBigInt64BE() & 0x7fffffffffffffffn;
}

/** Entry bounds of a simulator's caches (each an LRU). */
export interface KeyCacheSizes {
  /** Public keys (verification KeyObjects) and StrKey ↔ raw key conversions. */
  readonly keys: number;
  /** Signing KeyObjects (the simulator signs only with its own role keys and a test's keypairs). */
  readonly signers: number;
}

export const DEFAULT_KEY_CACHE_SIZES: KeyCacheSizes = { keys: 100_000, signers: 1_000 };

/**
 * An LRU of at most `entries` entries that grows as it fills: bounded by `maxSize` (each entry counting 1) rather
 * than `max`, which would allocate room for every entry up front (tens of ms for 100,000; a simulator is cheap to
 * create, and tests create many).
 */
export function lru<V extends {}>(entries: number): LRUCache<string, V> {
  return new LRUCache<string, V>({ maxSize: entries, sizeCalculation: () => 1 });
}

/** `cache.get(key)`, or `make()` remembered under key. */
export function remember<V extends {}>(cache: LRUCache<string, V>, key: string, make: () => V): V {
  let v = cache.get(key);
  if (v === undefined) {
    v = make();
    cache.set(key, v);
  }
  return v;
}

/** Key conversions and signatures of one simulator, with its caches. */
export class SimKeys {
  private readonly verifiers: LRUCache<string, KeyObject>;
  private readonly signers: LRUCache<string, KeyObject>;
  private readonly accountKeys: LRUCache<string, Buffer>;
  private readonly accountIds: LRUCache<string, string>;
  private readonly contractIds: LRUCache<string, string>;
  private readonly contractHashes: LRUCache<string, Buffer>;
  /** `keypair.publicKey()` (StrKey-encoded on every call by the SDK) per Keypair object. */
  private readonly publicKeys = new WeakMap<Keypair, string>();

  constructor(sizes: KeyCacheSizes = DEFAULT_KEY_CACHE_SIZES) {
    this.verifiers = lru(sizes.keys);
    this.signers = lru(sizes.signers);
    this.accountKeys = lru(sizes.keys);
    this.accountIds = lru(sizes.keys);
    this.contractIds = lru(sizes.keys);
    this.contractHashes = lru(sizes.keys);
  }

  /** Verifies an Ed25519 signature by a raw 32-byte public key; false on any malformed input. */
  verifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
    if (publicKey.length !== 32 || signature.length !== 64) return false;
    try {
      const key = remember(this.verifiers, Buffer.from(publicKey).toString('hex'), () =>
        crypto.createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' }),
      );
      return crypto.verify(null, message, key, signature);
    } catch {
      return false;
    }
  }

  publicKeyOf(keypair: Keypair): string {
    let g = this.publicKeys.get(keypair);
    if (g === undefined) {
      g = keypair.publicKey();
      this.publicKeys.set(keypair, g);
    }
    return g;
  }

  /** Signs with a Keypair's seed through node's crypto (same bytes as Keypair.sign, much faster). */
  signEd25519(keypair: Keypair, message: Uint8Array): Buffer {
    const key = remember(this.signers, this.publicKeyOf(keypair), () =>
      crypto.createPrivateKey({
        key: Buffer.concat([PKCS8_PREFIX, keypair.rawSecretKey()]),
        format: 'der',
        type: 'pkcs8',
      }),
    );
    return crypto.sign(null, message, key);
  }

  /** Raw 32-byte key of a G… account. */
  accountKey(g: string): Buffer {
    return remember(this.accountKeys, g, () => asBuffer(StrKey.decodeEd25519PublicKey(g)));
  }

  accountIdOf(raw: Uint8Array): string {
    return remember(this.accountIds, asBuffer(raw).toString('hex'), () => StrKey.encodeEd25519PublicKey(raw));
  }

  contractIdOf(raw: Uint8Array): string {
    return remember(this.contractIds, asBuffer(raw).toString('hex'), () => StrKey.encodeContract(raw));
  }

  /** Raw 32-byte id of a C… contract. */
  contractHash(c: string): Buffer {
    return remember(this.contractHashes, c, () => asBuffer(StrKey.decodeContract(c)));
  }
}
