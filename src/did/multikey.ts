// Multikey (W3C Controlled Identifiers §2.2.2): multibase base58btc (`z`) of multicodec varint prefix + raw key.
// Ed25519 public key: multicodec 0xed → varint ed 01 → `z6Mk…`; X25519 public key: 0xec → ec 01 → `z6LS…`.
import { base58 } from '@scure/base';

export type MultikeyType = 'Ed25519' | 'X25519';

/** Raw public key length of both curves. */
export const RAW_KEY_BYTES = 32;
/** The registry's limit on a stored multibase string. */
export const MULTIBASE_MAX_LENGTH = 128;

const MULTICODEC: Record<MultikeyType, readonly [number, number]> = {
  Ed25519: [0xed, 0x01],
  X25519: [0xec, 0x01],
};

/** The string every encoded key of the type starts with. */
export const MULTIKEY_PREFIX: Record<MultikeyType, string> = { Ed25519: 'z6Mk', X25519: 'z6LS' };

/** Base58btc (Bitcoin alphabet) with @scure/base, the audited codec of the @noble family. */
export function base58btcEncode(bytes: Uint8Array): string {
  return base58.encode(bytes);
}

/** undefined when a character is outside the alphabet. */
export function base58btcDecode(text: string): Uint8Array | undefined {
  try {
    return base58.decode(text);
  } catch {
    return undefined;
  }
}

export function encodeMultikey(type: MultikeyType, publicKey: Uint8Array): string {
  if (publicKey.length !== RAW_KEY_BYTES) {
    throw new RangeError(`${type} public key must be ${RAW_KEY_BYTES} bytes, got ${publicKey.length}`);
  }
  const [a, b] = MULTICODEC[type];
  const buf = new Uint8Array(2 + RAW_KEY_BYTES);
  buf[0] = a;
  buf[1] = b;
  buf.set(publicKey, 2);
  return 'z' + base58btcEncode(buf);
}

export type DecodeMultikeyResult =
  | { ok: true; type: MultikeyType; publicKey: Uint8Array }
  | { ok: false; message: string };

/**
 * Decodes a Multikey. With `expected`, any other key type is an error.
 * Errors are values: the record rules and proof verification report them without a throw.
 */
export function decodeMultikey(multibase: unknown, expected?: MultikeyType): DecodeMultikeyResult {
  if (typeof multibase !== 'string' || multibase.length === 0) return fail('empty multibase');
  if (multibase.length > MULTIBASE_MAX_LENGTH) return fail(`longer than ${MULTIBASE_MAX_LENGTH} characters`);
  if (multibase[0] !== 'z') return fail('multibase must be base58btc (prefix z)');
  const bytes = base58btcDecode(multibase.slice(1));
  if (!bytes) return fail('not base58btc');
  const type = (Object.keys(MULTICODEC) as MultikeyType[]).find(
    (t) => bytes[0] === MULTICODEC[t][0] && bytes[1] === MULTICODEC[t][1],
  );
  if (!type) return fail('unsupported multicodec (expected ed25519-pub 0xed or x25519-pub 0xec)');
  if (expected && type !== expected)
    return fail(`expected an ${expected} key (${MULTIKEY_PREFIX[expected]}…), got ${type}`);
  if (bytes.length !== 2 + RAW_KEY_BYTES)
    return fail(`raw key must be ${RAW_KEY_BYTES} bytes, got ${bytes.length - 2}`);
  return { ok: true, type, publicKey: bytes.slice(2) };
}

function fail(message: string): DecodeMultikeyResult {
  return { ok: false, message };
}

/** The public keys a Data Integrity proof may be verified with (Controlled Identifiers §2.2.2, Multikey). */
export type SigningKeyType = 'Ed25519' | 'P-256' | 'P-384';

// multicodec ed25519-pub 0xed, p256-pub 0x1200, p384-pub 0x1201 as varints; P-256 and P-384 keys compressed
// (SEC 1 §2.3.3: 0x02/0x03 then x), as the ECDSA cryptosuites' Multikeys are (`zDn…`, `z82…`).
const SIGNING_MULTICODEC: readonly { type: SigningKeyType; prefix: readonly number[]; length: number }[] = [
  { type: 'Ed25519', prefix: [0xed, 0x01], length: 32 },
  { type: 'P-256', prefix: [0x80, 0x24], length: 33 },
  { type: 'P-384', prefix: [0x81, 0x24], length: 49 },
];

export type DecodeSigningKeyResult =
  | { ok: true; type: SigningKeyType; publicKey: Uint8Array }
  | { ok: false; message: string };

/** Decodes the Multikey of a verification key: Ed25519, or P-256 / P-384 in compressed form. */
export function decodeSigningMultikey(multibase: unknown): DecodeSigningKeyResult {
  if (typeof multibase !== 'string' || multibase.length === 0) return { ok: false, message: 'empty multibase' };
  if (multibase.length > MULTIBASE_MAX_LENGTH) return { ok: false, message: 'too long for a Multikey' };
  if (multibase[0] !== 'z') return { ok: false, message: 'multibase must be base58btc (prefix z)' };
  const bytes = base58btcDecode(multibase.slice(1));
  if (!bytes) return { ok: false, message: 'not base58btc' };
  const codec = SIGNING_MULTICODEC.find((c) => c.prefix.every((b, i) => bytes[i] === b));
  if (!codec) return { ok: false, message: 'not an Ed25519, P-256 or P-384 public key' };
  const key = bytes.slice(codec.prefix.length);
  const compressed = codec.type === 'Ed25519' || key[0] === 0x02 || key[0] === 0x03;
  if (key.length !== codec.length || !compressed)
    return { ok: false, message: `not a ${codec.length}-byte ${codec.type} public key` };
  return { ok: true, type: codec.type, publicKey: key };
}
