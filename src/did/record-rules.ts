// Record rules checked before any transaction is built (docs/did-resolver.md, "Record rules"),
// mirroring the registry contract's own checks (docs/chain-abi.md, "DID registry") so that what passes here is
// not rejected on-chain for its shape. The codes are the resolver spec's error codes.
import { StrKey } from '@stellar/stellar-sdk';
import { decodeMultikey, MULTIBASE_MAX_LENGTH, MULTIKEY_PREFIX, type MultikeyType } from './multikey.ts';
import type { DidRecordInput } from './types.ts';

export type RecordRuleCode =
  | 'invalid_record'
  | 'key_count_invalid'
  | 'key_invalid'
  | 'duplicate_key'
  | 'service_invalid'
  | 'url_not_https'
  | 'metadata_inconsistent';

export interface RecordViolation {
  code: RecordRuleCode;
  /** JSON path inside the record, e.g. `authentication[1].publicKeyMultibase`. */
  field: string;
  message: string;
}

export const RECORD_LIMITS = {
  authentication: { min: 1, max: 3 },
  assertionMethod: { min: 0, max: 3 },
  keyAgreement: { min: 0, max: 1 },
  services: { min: 0, max: 3 },
  keyMultibaseLength: MULTIBASE_MAX_LENGTH,
  idSuffixLength: 32,
  serviceTypeLength: 64,
  urlLength: 255,
} as const;

/**
 * Items of one list checked one by one. Far more than a valid list holds (3), so a list near its limit has
 * every problem named; a list of thousands costs no more than this: bounded work and answers.
 */
const ITEMS_CHECKED = 10;

export const ID_SUFFIX_PATTERN = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
const METADATA_HASH_PATTERN = /^[0-9a-f]{64}$/;

const KEY_TYPE: Record<'authentication' | 'assertionMethod' | 'keyAgreement', MultikeyType> = {
  authentication: 'Ed25519',
  assertionMethod: 'Ed25519',
  keyAgreement: 'X25519',
};

/** Records a violation: the checks below append to one list, in field order. */
export type AddViolation = (code: RecordRuleCode, field: string, message: string) => void;

/**
 * Every violation of the record rules, in field order; an empty list means the record may be sent.
 * Lengths are counted in UTF-8 bytes, as the contract counts its Soroban strings (for the ASCII a valid
 * value holds, bytes and characters agree).
 */
export function validateRecord(record: DidRecordInput): RecordViolation[] {
  const out: RecordViolation[] = [];
  const add: AddViolation = (code, field, message) => out.push({ code, field, message });
  const r = record as unknown as Record<string, unknown>;

  if (typeof r.controller !== 'string' || !StrKey.isValidEd25519PublicKey(r.controller)) {
    add('invalid_record', 'controller', 'controller must be a classic G… account address');
  }
  for (const rel of ['authentication', 'assertionMethod', 'keyAgreement'] as const) checkKeys(rel, r[rel], add);
  checkServices(r.services, add);
  checkMetadata(r.metadataUri, r.metadataHash, add);
  return out;
}

/** One verification relationship: an array of `min` to `max` distinct Multikeys of the relationship's type. */
export function checkKeys(rel: keyof typeof KEY_TYPE, keys: unknown, add: AddViolation): void {
  const { min, max } = RECORD_LIMITS[rel];
  if (!Array.isArray(keys)) return add('invalid_record', rel, `${rel} must be an array`);
  if (keys.length < min || keys.length > max) {
    add('key_count_invalid', rel, `${rel} holds ${min} to ${max} keys, got ${keys.length}`);
  }
  const seen = new Set<string>();
  keys.slice(0, ITEMS_CHECKED).forEach((key: unknown, i) => {
    const field = `${rel}[${i}].publicKeyMultibase`;
    const mb = (key as { publicKeyMultibase?: unknown } | null)?.publicKeyMultibase;
    if (typeof mb !== 'string') return add('invalid_record', field, 'publicKeyMultibase must be a string');
    const type = KEY_TYPE[rel];
    const decoded = decodeMultikey(mb, type);
    if (!decoded.ok) {
      return add(
        'key_invalid',
        field,
        `${rel} keys are ${type} Multikeys (${MULTIKEY_PREFIX[type]}…): ${decoded.message}`,
      );
    }
    if (seen.has(mb)) return add('duplicate_key', field, `the same key appears twice in ${rel}`);
    seen.add(mb);
  });
}

/** The services: an array of at most three, each with a distinct id suffix, a type and an https endpoint. */
export function checkServices(services: unknown, add: AddViolation): void {
  if (!Array.isArray(services)) return add('invalid_record', 'services', 'services must be an array');
  if (services.length > RECORD_LIMITS.services.max) {
    add('service_invalid', 'services', `at most ${RECORD_LIMITS.services.max} services, got ${services.length}`);
  }
  const suffixes = new Set<string>();
  services.slice(0, ITEMS_CHECKED).forEach((svc: unknown, i) => {
    const s = (svc ?? {}) as Record<string, unknown>;
    const at = `services[${i}]`;
    checkIdSuffix(s.idSuffix, `${at}.idSuffix`, suffixes, add);
    checkServiceType(s.serviceType, `${at}.serviceType`, add);
    checkUrl(s.serviceEndpoint, `${at}.serviceEndpoint`, 'service_invalid', add);
  });
}

/** A service's id suffix: a bounded DNS-label-like string not used by an earlier service (`seen`, then added). */
function checkIdSuffix(value: unknown, field: string, seen: Set<string>, add: AddViolation): void {
  if (typeof value !== 'string') return add('invalid_record', field, 'idSuffix must be a string');
  if (bytes(value) > RECORD_LIMITS.idSuffixLength) {
    return add('service_invalid', field, `idSuffix is at most ${RECORD_LIMITS.idSuffixLength} characters`);
  }
  if (!ID_SUFFIX_PATTERN.test(value)) {
    return add('service_invalid', field, 'idSuffix must match ^[a-z0-9]([a-z0-9-]*[a-z0-9])?$');
  }
  if (seen.has(value)) return add('service_invalid', field, `idSuffix ${value} is used twice`);
  seen.add(value);
}

function checkServiceType(value: unknown, field: string, add: AddViolation): void {
  if (typeof value !== 'string') return add('invalid_record', field, 'serviceType must be a string');
  if (value.length === 0) return add('service_invalid', field, 'serviceType must not be empty');
  if (bytes(value) > RECORD_LIMITS.serviceTypeLength) {
    add('service_invalid', field, `serviceType is at most ${RECORD_LIMITS.serviceTypeLength} characters`);
  }
}

/** The optional metadata: an https URI, and a SHA-256 hex digest that only comes with one. */
export function checkMetadata(uri: unknown, hash: unknown, add: AddViolation): void {
  if (uri !== undefined) checkUrl(uri, 'metadataUri', 'invalid_record', add);
  if (hash === undefined) return;
  if (typeof hash !== 'string' || !METADATA_HASH_PATTERN.test(hash)) {
    add('invalid_record', 'metadataHash', 'metadataHash is a SHA-256 digest: 64 lowercase hex characters');
  } else if (uri === undefined) {
    add('metadata_inconsistent', 'metadataHash', 'metadataHash requires metadataUri');
  }
}

/** An absolute `https://` URL with a host, at most 255 bytes. */
function checkUrl(value: unknown, field: string, tooLongCode: RecordRuleCode, add: AddViolation): void {
  if (typeof value !== 'string') return add('invalid_record', field, `${field} must be a string`);
  if (!isHttpsUrl(value)) return add('url_not_https', field, `${field} must be an absolute https:// URL`);
  if (bytes(value) > RECORD_LIMITS.urlLength) {
    add(tooLongCode, field, `${field} is at most ${RECORD_LIMITS.urlLength} characters`);
  }
}

// Lowercase scheme, a non-empty authority, no whitespace: the WHATWG parser alone would accept
// `https:///x` and trim surrounding spaces.
const HTTPS_URL = /^https:\/\/[^\s/?#\\]+(?:[/?#]\S*)?$/;

export function isHttpsUrl(value: string): boolean {
  if (!HTTPS_URL.test(value)) return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.hostname.length > 0;
  } catch {
    return false;
  }
}

function bytes(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** A registry contract error (`Error(Contract, #N)`) in the resolver's words. */
export interface RegistryError {
  name: string;
  code: string;
  status: number;
}

/**
 * The registry's error table (docs/chain-abi.md) mapped to the resolver's codes: the shape errors map to the
 * record-rule codes above, which catch them before a transaction is built.
 */
export const REGISTRY_ERRORS: Readonly<Record<number, RegistryError>> = {
  1: { name: 'DidAlreadyExists', code: 'did_already_exists', status: 409 },
  2: { name: 'DidNotFound', code: 'did_not_found', status: 404 },
  3: { name: 'VersionMismatch', code: 'version_mismatch', status: 409 },
  4: { name: 'DidDeactivated', code: 'did_deactivated', status: 409 },
  5: { name: 'InvalidAuthKeyCount', code: 'key_count_invalid', status: 400 },
  6: { name: 'InvalidAssertionKeyCount', code: 'key_count_invalid', status: 400 },
  7: { name: 'InvalidKeyAgreementCount', code: 'key_count_invalid', status: 400 },
  8: { name: 'InvalidServiceCount', code: 'service_invalid', status: 400 },
  9: { name: 'DuplicateKey', code: 'duplicate_key', status: 400 },
  10: { name: 'KeyTooLong', code: 'key_invalid', status: 400 },
  11: { name: 'KeyEmpty', code: 'key_invalid', status: 400 },
  12: { name: 'ServiceTypeTooLong', code: 'service_invalid', status: 400 },
  13: { name: 'ServiceIdTooLong', code: 'service_invalid', status: 400 },
  14: { name: 'ServiceIdInvalidFormat', code: 'service_invalid', status: 400 },
  15: { name: 'ServiceEndpointInvalid', code: 'url_not_https', status: 400 },
  16: { name: 'MetadataUriInvalid', code: 'url_not_https', status: 400 },
  17: { name: 'NoProposedAdmin', code: 'tx_submission_failed', status: 400 },
  18: { name: 'ServiceTypeEmpty', code: 'service_invalid', status: 400 },
  19: { name: 'VersionOverflow', code: 'tx_submission_failed', status: 400 },
  20: { name: 'MetadataInconsistent', code: 'metadata_inconsistent', status: 400 },
  21: { name: 'DuplicateServiceId', code: 'service_invalid', status: 400 },
};
