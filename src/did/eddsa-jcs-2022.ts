// The cryptosuite `eddsa-jcs-2022` itself (W3C "Data Integrity EdDSA Cryptosuites v1.0" §3.3.3-§3.3.7):
// transformation (JCS of the document), proof configuration (JCS of the proof options), hashing (SHA-256 of
// each, configuration first) and Ed25519 keys. data-integrity.ts builds proofs, proof sets and chains on it.
import { createHash, createPrivateKey, createPublicKey, sign as cryptoSign, type KeyObject } from 'node:crypto';
import { canonicalize } from './jcs.ts';
import { base58btcDecode, encodeMultikey } from './multikey.ts';

export const DATA_INTEGRITY_PROOF = 'DataIntegrityProof';
export const EDDSA_JCS_2022 = 'eddsa-jcs-2022';

/** The error types of Data Integrity §3 ("Processing Errors"), which every problem carries. */
export type DataIntegrityErrorType =
  | 'PROOF_GENERATION_ERROR'
  | 'PROOF_VERIFICATION_ERROR'
  | 'PROOF_TRANSFORMATION_ERROR'
  | 'MALFORMED_PROOF_ERROR'
  | 'MISMATCHED_PROOF_PURPOSE_ERROR'
  | 'INVALID_DOMAIN_ERROR'
  | 'INVALID_CHALLENGE_ERROR';

const SECRET_KEY_PREFIX: readonly number[] = [0x80, 0x26]; // multicodec ed25519-priv (0x1300) as varint
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');
// XML Schema 1.1 dateTimeStamp: a dateTime with its time zone (Data Integrity §2.1 `created`, `expires`).
const DATE_TIME_STAMP = /^-?\d{4,}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

export function isDateTimeStamp(value: unknown): value is string {
  return typeof value === 'string' && DATE_TIME_STAMP.test(value) && !Number.isNaN(Date.parse(value));
}

/** §3.3.3 Transformation: the JCS form of the unsecured document, after the proof options' checks. */
export function transform(unsecuredDocument: unknown, options: { type?: unknown; cryptosuite?: unknown }): string {
  if (options.type !== DATA_INTEGRITY_PROOF || options.cryptosuite !== EDDSA_JCS_2022) {
    throw new DataIntegrityError(
      'PROOF_TRANSFORMATION_ERROR',
      `type must be ${DATA_INTEGRITY_PROOF} and cryptosuite ${EDDSA_JCS_2022}`,
    );
  }
  return canonicalize(unsecuredDocument);
}

/** §3.3.5 Proof Configuration: the JCS form of the proof options (without `proofValue`). */
export function proofConfiguration(options: Record<string, unknown>): string {
  if (options['type'] !== DATA_INTEGRITY_PROOF || options['cryptosuite'] !== EDDSA_JCS_2022) {
    throw new DataIntegrityError(
      'PROOF_GENERATION_ERROR',
      `type must be ${DATA_INTEGRITY_PROOF} and cryptosuite ${EDDSA_JCS_2022}`,
    );
  }
  if (options['created'] !== undefined && !isDateTimeStamp(options['created'])) {
    throw new DataIntegrityError('PROOF_GENERATION_ERROR', 'created must be an XML Schema dateTimeStamp');
  }
  return canonicalize(options);
}

/** §3.3.4 Hashing: SHA-256(canonical proof configuration) || SHA-256(canonical document), 64 bytes. */
export function hashData(transformedDocument: string, canonicalProofConfig: string): Uint8Array {
  const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest();
  return new Uint8Array(Buffer.concat([sha256(canonicalProofConfig), sha256(transformedDocument)]));
}

/** Signs the 64 bytes of hashData; returns the 64-byte Ed25519 signature. */
export type Signer = (data: Uint8Array) => Uint8Array | Promise<Uint8Array>;

/**
 * An Ed25519 secret key: the 32-byte seed, or its Multikey form (`z3u2…`, multicodec ed25519-priv, as
 * the cryptosuite's examples publish it).
 */
export type Ed25519SecretKey = Uint8Array | string;

/** Node's signing key and the Multikey of its public half. */
export function ed25519KeyPair(secretKey: Ed25519SecretKey): { sign: Signer; publicKeyMultibase: string } {
  const seed = seedOf(secretKey);
  const key: KeyObject = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const x = createPublicKey(key).export({ format: 'jwk' }).x!;
  const publicKey = Buffer.from(x, 'base64url');
  return {
    sign: (data) => new Uint8Array(cryptoSign(null, data, key)),
    publicKeyMultibase: encodeMultikey('Ed25519', publicKey),
  };
}

function seedOf(secretKey: Ed25519SecretKey): Buffer {
  if (typeof secretKey === 'string') {
    const bytes = secretKey.startsWith('z') ? base58btcDecode(secretKey.slice(1)) : undefined;
    if (!bytes || bytes.length !== 34 || bytes[0] !== SECRET_KEY_PREFIX[0] || bytes[1] !== SECRET_KEY_PREFIX[1]) {
      throw new DataIntegrityError(
        'PROOF_GENERATION_ERROR',
        'a secret key string must be a Multikey ed25519-priv (z3u2…)',
      );
    }
    return Buffer.from(bytes.slice(2));
  }
  if (!(secretKey instanceof Uint8Array) || secretKey.length !== 32) {
    throw new DataIntegrityError('PROOF_GENERATION_ERROR', 'an Ed25519 secret key is the 32-byte seed');
  }
  return Buffer.from(secretKey);
}

/** A failure of proof creation (verification never throws it). */
export class DataIntegrityError extends Error {
  readonly type: DataIntegrityErrorType;
  constructor(type: DataIntegrityErrorType, message: string) {
    super(message);
    this.type = type;
  }
}
