// Encryption of credential payloads before they go on-chain (docs/dependencies.md, the cv2
// envelope layout).
//
//   cv1.<kid>.<base64url iv>.<base64url ciphertext || tag>
//   cv2.<kid>.<issuer G…>.<base64url iv>.<base64url ciphertext || tag>
//
// cv2 records the wallet that issued the credential: the vault contract keeps no issuer, and issuer access
// must still be judged by that wallet once the issuer DID has moved to another controller. The wallet is
// bound by the associated data, so it cannot be changed without the envelope failing to open.
//
// The vcData is compressed with Brotli (quality 6, or 11 when that is needed to fit on-chain; text mode), then encrypted with AES-256-GCM under the
// keyring's active key and a fresh random 96-bit IV. The associated data binds the envelope to its version,
// key id, owner and vcId, so a payload copied to another vault or another vcId does not decrypt; a push
// between two vaults of the same owner keeps owner and vcId, so pushed credentials stay readable.
// Brotli was measured against deflate-raw (level 9) on W3C v2 credential JSON: 2,283 vs 2,751 bytes at
// 10,000 characters, 812 vs 926 at 2,100 (about 15% smaller), at ~14 ms vs 0.1 ms per 10 kB to compress;
// on-chain bytes cost fees for the credential's lifetime, a few milliseconds at issuance do not.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { brotliCompressSync, brotliDecompressSync, constants as zlib } from 'node:zlib';

/** Longest vcData string the vault contract stores (vault-api.yaml VcData maxLength). */
export const MAX_ONCHAIN_VC_DATA = 10_000;

export const ENVELOPE_VERSION = 'cv1';
/** The version that also records the issuing wallet. */
export const ENVELOPE_VERSION_ISSUER = 'cv2';
const ACCOUNT_RE = /^G[A-Z2-7]{55}$/;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
/** Decompressed payloads beyond this are refused (a vcData is at most 10,000 characters). */
const MAX_PLAINTEXT_BYTES = 1 << 20;
const KID_RE = /^[A-Za-z0-9_-]{1,32}$/;
const B64URL_RE = /^[A-Za-z0-9_-]+$/;

/** Encryption keys by id; new envelopes use the active one, any listed one decrypts. */
export interface Keyring {
  readonly activeKid: string;
  readonly kids: readonly string[];
  key(kid: string): Buffer | undefined;
}

export interface KeyringEntry {
  /** 1 to 32 characters of [A-Za-z0-9_-]. */
  kid: string;
  /** 32 bytes (AES-256). */
  key: Buffer;
}

export function createKeyring(options: { keys: KeyringEntry[]; activeKid: string }): Keyring {
  const byKid = new Map<string, Buffer>();
  for (const { kid, key } of options.keys) {
    if (!KID_RE.test(kid)) throw new RangeError(`invalid key id ${JSON.stringify(kid)}: use 1-32 of [A-Za-z0-9_-]`);
    if (key.length !== KEY_BYTES) throw new RangeError(`key ${kid} must be ${KEY_BYTES} bytes, got ${key.length}`);
    if (byKid.has(kid)) throw new RangeError(`duplicate key id ${kid}`);
    byKid.set(kid, Buffer.from(key));
  }
  if (!byKid.has(options.activeKid)) throw new RangeError(`active key id ${options.activeKid} is not in the keyring`);
  const kids = Object.freeze([...byKid.keys()]);
  return {
    activeKid: options.activeKid,
    kids,
    key: (kid) => byKid.get(kid),
  };
}

export type VcDecryptErrorCode = 'malformed' | 'unknown_kid' | 'authentication_failed' | 'decompression_failed';

/** The envelope cannot be opened: not an envelope, a key id not in the keyring, or tampered/misbound. */
export class VcDecryptError extends Error {
  override readonly name = 'VcDecryptError';
  readonly code: VcDecryptErrorCode;
  constructor(code: VcDecryptErrorCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** The encrypted envelope would not fit the contract's vcData limit. */
export class VcDataTooLargeError extends Error {
  override readonly name = 'VcDataTooLargeError';
  readonly length: number;
  readonly max: number;
  constructor(length: number, max: number) {
    super(`encrypted vcData is ${length} characters; the vault stores at most ${max}`);
    this.length = length;
    this.max = max;
  }
}

export interface VcBinding {
  /** The vault owner's account address. */
  owner: string;
  vcId: string;
}

function associatedData(kid: string, { owner, vcId }: VcBinding, issuer?: string): Buffer {
  // JSON array: unambiguous whatever characters owner and vcId contain.
  const parts =
    issuer === undefined ? [ENVELOPE_VERSION, kid, owner, vcId] : [ENVELOPE_VERSION_ISSUER, kid, owner, vcId, issuer];
  return Buffer.from(JSON.stringify(parts), 'utf8');
}

/**
 * Compresses and encrypts a vcData string. Throws VcDataTooLargeError when the envelope would exceed
 * MAX_ONCHAIN_VC_DATA, so an oversized payload is refused at prepare and never fails on-chain.
 */
const FAST_QUALITY = 6;
const MAX_QUALITY = 11;

export function encryptVcData(keyring: Keyring, input: VcBinding & { plaintext: string; issuer?: string }): string {
  if (input.issuer !== undefined && !ACCOUNT_RE.test(input.issuer))
    throw new RangeError('the issuer must be an account address (G…)');
  const kid = keyring.activeKid;
  const key = keyring.key(kid)!;
  const raw = Buffer.from(input.plaintext, 'utf8');
  const seal = (quality: number): string => {
    const compressed = brotliCompressSync(raw, {
      params: {
        [zlib.BROTLI_PARAM_QUALITY]: quality,
        [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
        [zlib.BROTLI_PARAM_SIZE_HINT]: raw.length,
      },
    });
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(associatedData(kid, input, input.issuer));
    const sealed = Buffer.concat([cipher.update(compressed), cipher.final(), cipher.getAuthTag()]);
    const head =
      input.issuer === undefined ? `${ENVELOPE_VERSION}.${kid}` : `${ENVELOPE_VERSION_ISSUER}.${kid}.${input.issuer}`;
    return `${head}.${iv.toString('base64url')}.${sealed.toString('base64url')}`;
  };
  // Quality 6 costs ~0.05 ms and is within a few percent of quality 11 (~0.7-2 ms); the slow, tighter
  // setting is spent only on payloads that would not otherwise fit on-chain.
  let data = seal(FAST_QUALITY);
  if (data.length > MAX_ONCHAIN_VC_DATA) data = seal(MAX_QUALITY);
  if (data.length > MAX_ONCHAIN_VC_DATA) throw new VcDataTooLargeError(data.length, MAX_ONCHAIN_VC_DATA);
  return data;
}

/** True when data has the shape of an envelope (it may still fail to decrypt). */
export function isEnvelope(data: string): boolean {
  return data.startsWith(`${ENVELOPE_VERSION}.`) || data.startsWith(`${ENVELOPE_VERSION_ISSUER}.`);
}

function decodePart(part: string | undefined, what: string): Buffer {
  const buf = part !== undefined && B64URL_RE.test(part) ? Buffer.from(part, 'base64url') : undefined;
  // Canonical encoding only, so one payload has exactly one envelope string.
  if (!buf || buf.toString('base64url') !== part)
    throw new VcDecryptError('malformed', `envelope ${what} is not base64url`);
  return buf;
}

/** Opens an envelope made by encryptVcData for the same owner and vcId. */
export function decryptVcData(keyring: Keyring, input: VcBinding & { data: string }): string {
  return openVcData(keyring, input).plaintext;
}

/** Opens an envelope; answers the plaintext and, for cv2, the wallet that issued it. */
export function openVcData(
  keyring: Keyring,
  input: VcBinding & { data: string },
): { plaintext: string; issuer?: string } {
  let parts = input.data.split('.');
  let issuer: string | undefined;
  if (parts.length === 5 && parts[0] === ENVELOPE_VERSION_ISSUER) {
    issuer = parts[2]!;
    if (!ACCOUNT_RE.test(issuer)) throw new VcDecryptError('malformed', 'envelope issuer is not an account address');
    parts = [parts[0], parts[1]!, parts[3]!, parts[4]!];
  } else if (parts.length !== 4 || parts[0] !== ENVELOPE_VERSION) {
    throw new VcDecryptError('malformed', `not a ${ENVELOPE_VERSION} or ${ENVELOPE_VERSION_ISSUER} envelope`);
  }
  const kid = parts[1]!;
  if (!KID_RE.test(kid)) throw new VcDecryptError('malformed', 'envelope key id is invalid');
  const key = keyring.key(kid);
  if (!key) throw new VcDecryptError('unknown_kid', `no key with id ${kid} in the keyring`);
  const iv = decodePart(parts[2], 'iv');
  const sealed = decodePart(parts[3], 'ciphertext');
  if (iv.length !== IV_BYTES || sealed.length < TAG_BYTES)
    throw new VcDecryptError('malformed', 'envelope is truncated');

  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAAD(associatedData(kid, input, issuer));
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  let compressed: Buffer;
  try {
    compressed = Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)), decipher.final()]);
  } catch {
    throw new VcDecryptError('authentication_failed', 'envelope does not authenticate for this owner and vcId');
  }
  try {
    const raw = brotliDecompressSync(compressed, { maxOutputLength: MAX_PLAINTEXT_BYTES });
    const plaintext = new TextDecoder('utf-8', { fatal: true }).decode(raw);
    return issuer === undefined ? { plaintext } : { plaintext, issuer };
  } catch {
    throw new VcDecryptError('decompression_failed', 'envelope payload does not decompress');
  }
}
