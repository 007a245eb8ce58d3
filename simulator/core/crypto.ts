// Ed25519 and hashing for the simulator. Node's crypto verifies ~15× faster than the SDK's pure-JS code; KeyObjects
// are built once per key (raw key → DER SPKI / PKCS#8) and cached.
import crypto, { type KeyObject } from 'node:crypto';
import { StrKey, type Keypair } from '@stellar/stellar-sdk';

const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
const MAX_CACHED = 100_000;

const publicKeys = new Map<string, KeyObject>();
const privateKeys = new Map<string, KeyObject>();

function remember<V>(cache: Map<string, V>, key: string, make: () => V): V {
  let v = cache.get(key);
  if (v === undefined) {
    if (cache.size >= MAX_CACHED) cache.clear();
    v = make();
    cache.set(key, v);
  }
  return v;
}

export const sha256 = (data: Uint8Array): Buffer => crypto.createHash('sha256').update(data).digest();

/** Network id: sha256(passphrase). */
export const networkId = (passphrase: string): Buffer => sha256(Buffer.from(passphrase));

/** Verifies an Ed25519 signature by a raw 32-byte public key; false on any malformed input. */
export function verifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (publicKey.length !== 32 || signature.length !== 64) return false;
  const hex = Buffer.from(publicKey).toString('hex');
  try {
    const key = remember(publicKeys, hex, () =>
      crypto.createPublicKey({ key: Buffer.concat([SPKI_PREFIX, publicKey]), format: 'der', type: 'spki' }),
    );
    return crypto.verify(null, message, key, signature);
  } catch {
    return false;
  }
}

const publicKeys_ = new WeakMap<Keypair, string>();
/** `keypair.publicKey()` (StrKey-encoded on every call by the SDK), memoized per Keypair object. */
export function publicKeyOf(keypair: Keypair): string {
  let g = publicKeys_.get(keypair);
  if (g === undefined) {
    g = keypair.publicKey();
    publicKeys_.set(keypair, g);
  }
  return g;
}

/** Signs with a Keypair's seed through node's crypto (same bytes as Keypair.sign, much faster). */
export function signEd25519(keypair: Keypair, message: Uint8Array): Buffer {
  const key = remember(privateKeys, publicKeyOf(keypair), () =>
    crypto.createPrivateKey({
      key: Buffer.concat([PKCS8_PREFIX, keypair.rawSecretKey()]),
      format: 'der',
      type: 'pkcs8',
    }),
  );
  return crypto.sign(null, message, key);
}

/** A Buffer view of SDK bytes (SDK 17 returns Uint8Array), without copying. */
export const asBuffer = (b: Uint8Array): Buffer =>
  Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);

const accountKeys = new Map<string, Buffer>();
/** Raw 32-byte key of a G… account (cached: StrKey decoding checks a CRC each time). */
export function accountKey(g: string): Buffer {
  return remember(accountKeys, g, () => asBuffer(StrKey.decodeEd25519PublicKey(g)));
}

const accountIds = new Map<string, string>();
export function accountIdOf(raw: Uint8Array): string {
  const hex = Buffer.from(raw).toString('hex');
  return remember(accountIds, hex, () => StrKey.encodeEd25519PublicKey(raw));
}

const contractIds = new Map<string, string>();
export function contractIdOf(raw: Uint8Array): string {
  const hex = Buffer.from(raw).toString('hex');
  return remember(contractIds, hex, () => StrKey.encodeContract(raw));
}

const contractHashes = new Map<string, Buffer>();
export function contractHash(c: string): Buffer {
  return remember(contractHashes, c, () => asBuffer(StrKey.decodeContract(c)));
}

/** A fresh random non-negative i64 (auth nonces). */
export function randomNonce(): bigint {
  return crypto.randomBytes(8).readBigInt64BE() & 0x7fffffffffffffffn;
}
