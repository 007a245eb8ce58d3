// Bitstring Status List v1.0 (W3C Recommendation, May 2025) for the `credentialStatus` check: a
// BitstringStatusListEntry names a bit of a list credential that its issuer publishes. The list is read under the
// web fetch rules (src/vault-api/web-fetch.ts, config CV_WEB_FETCH); its proof must verify, by the credential's own
// issuer; its purpose must be the entry's; its bit (§3.2, the left-most bit of the first byte is index 0) set
// means revoked or suspended, for that purpose. Only `statusSize` 1 is read.
import { decodeStatusList, statusBit } from '../did/bitstring.ts';
import { verifyDataIntegrity } from '../did/index.ts';
import type { VaultAppDeps } from './context.ts';
import { contextSource } from './json-ld-contexts.ts';
import { KEYLESS_CANONICALIZATION_LIMITS } from '../did/library-suites.ts';
import { carriesRdfProof, compactSize, KEYLESS_RDF_BODY_LIMIT_BYTES } from './keyless-rdf.ts';
import type { RequestResolver } from './verification-resolver.ts';
import { problem, type ProblemDetails } from './verification-problems.ts';
import type { EntryParse, StatusInput } from './verification-status.ts';
import type { components } from '../generated/vault-api.ts';

type StatusResult = components['schemas']['StatusResult'];

export const BITSTRING_STATUS_LIST_ENTRY = 'BitstringStatusListEntry';
/** §2.1: a list of at least 131,072 bits; this verifier reads lists of up to 2^24 bytes. */
const MAX_LIST_BYTES = 1 << 24;

export interface BitstringEntry {
  statusPurpose: 'revocation' | 'suspension';
  statusListIndex: number;
  statusListCredential: string;
}

export type BitstringOutcome =
  | { ok: true; set: boolean }
  | { ok: false; reason: 'status_list_unavailable' | 'status_list_invalid'; detail: string };

/** The entry's members (§2.1), or why they cannot be read. */
export function bitstringEntry(e: Record<string, unknown>): BitstringEntry | string {
  const purpose = e['statusPurpose'];
  if (purpose !== 'revocation' && purpose !== 'suspension')
    return `${BITSTRING_STATUS_LIST_ENTRY}.statusPurpose must be revocation or suspension (the purposes this verifier honours)`;
  const index = e['statusListIndex'];
  if (typeof index !== 'string' || !/^(0|[1-9]\d{0,9})$/.test(index))
    return `${BITSTRING_STATUS_LIST_ENTRY}.statusListIndex must be a non-negative integer as a string`;
  const list = e['statusListCredential'];
  if (typeof list !== 'string' || !/^https?:\/\//.test(list) || list.length > 2048)
    return `${BITSTRING_STATUS_LIST_ENTRY}.statusListCredential must be an HTTPS URL`;
  if (e['statusSize'] !== undefined && e['statusSize'] !== 1)
    return `${BITSTRING_STATUS_LIST_ENTRY}.statusSize other than 1 is not read by this verifier`;
  return { statusPurpose: purpose, statusListIndex: Number(index), statusListCredential: list };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const listOf = (v: unknown): unknown[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]);

/** The list credential's subject when it is a verified list of the issuer for the purpose; else why not. */
async function readList(
  deps: VaultAppDeps,
  entry: BitstringEntry,
  issuer: string,
  resolver: RequestResolver,
  now: Date,
): Promise<{ ok: true; subject: Record<string, unknown> } | Extract<BitstringOutcome, { ok: false }>> {
  const invalid = (detail: string) => ({ ok: false as const, reason: 'status_list_invalid' as const, detail });
  if (!deps.fetchJson)
    return {
      ok: false,
      reason: 'status_list_unavailable',
      detail: 'this service does not read status lists from the web (CV_WEB_FETCH is off)',
    };
  if (!resolver.takeStatusList())
    return {
      ok: false,
      reason: 'status_list_unavailable',
      detail: 'a request without an API key may have one status list read; an API key lifts the limit',
    };
  const got = await deps.fetchJson(entry.statusListCredential);
  if (!got.ok)
    return { ok: false, reason: 'status_list_unavailable', detail: `the status list could not be read: ${got.reason}` };
  const list = got.json;
  if (!isObject(list) || !listOf(list['type']).includes('BitstringStatusListCredential'))
    return invalid('the status list is not a BitstringStatusListCredential');
  const listIssuer = typeof list['issuer'] === 'string' ? list['issuer'] : (list['issuer'] as { id?: unknown })?.id;
  if (listIssuer !== issuer) return invalid("the status list's issuer is not the credential's issuer");
  const keyless = resolver.keyless && carriesRdfProof(list);
  // A keyless request gets the keyless RDF bounds for the list it makes this service read: the list has what the
  // request's own RDF-proved body left of the limit (two canonicalizations at the limit would cost twice the bound).
  const size = keyless ? compactSize(list) : 0;
  if (keyless && size + resolver.rdfBytes > KEYLESS_RDF_BODY_LIMIT_BYTES)
    return {
      ok: false,
      reason: 'status_list_unavailable',
      detail: `the status list carries an RDF-canonicalized proof and is ${size} bytes as compact JSON; with the ${resolver.rdfBytes} of the request's own that is over ${KEYLESS_RDF_BODY_LIMIT_BYTES}, the most a request without an API key may have verified; an API key lifts the limit`,
    };
  const proof = await verifyDataIntegrity({
    document: list,
    resolve: resolver.resolve,
    now,
    expectedController: issuer,
    contexts: contextSource(deps),
    ...(keyless ? { canonicalization: KEYLESS_CANONICALIZATION_LIMITS } : {}),
  });
  resolver.rethrow();
  if (!proof.verified)
    return invalid(
      `the status list's proof does not verify: ${proof.errors[0]?.message ?? 'no proof'} (${proof.errors[0]?.reason ?? 'no_proof'})`,
    );
  const validUntil = list['validUntil'];
  if (typeof validUntil === 'string' && Date.parse(validUntil) < now.getTime())
    return invalid(`the status list expired at ${validUntil.slice(0, 64)}`);
  const subject = list['credentialSubject'];
  if (!isObject(subject) || subject['type'] !== 'BitstringStatusList')
    return invalid('the status list credential does not hold a BitstringStatusList');
  if (!listOf(subject['statusPurpose']).includes(entry.statusPurpose))
    return invalid(`the status list is not for the purpose ${entry.statusPurpose}`);
  return { ok: true, subject };
}

/** §3.2 Validate Algorithm: whether the entry's bit is set in the list its issuer published. */
export async function bitstringStatus(
  deps: VaultAppDeps,
  entry: BitstringEntry,
  issuer: string,
  resolver: RequestResolver,
  now: Date,
): Promise<BitstringOutcome> {
  const read = await readList(deps, entry, issuer, resolver, now);
  if (!read.ok) return read;
  const { subject } = read;
  const invalid = (detail: string) => ({ ok: false as const, reason: 'status_list_invalid' as const, detail });
  const decoded = decodeStatusList(subject['encodedList'], MAX_LIST_BYTES);
  if ('error' in decoded) return invalid(decoded.error);
  const set = statusBit(decoded.bits, entry.statusListIndex);
  if (set === undefined)
    return invalid(`statusListIndex ${entry.statusListIndex} is beyond the list's ${decoded.bits.length * 8} bits`);
  return { ok: true, set };
}

/** A BitstringStatusListEntry's result and problem, for credentialStatus (verification-credential-status.ts). */
async function bitstringResult(
  deps: VaultAppDeps,
  raw: Record<string, unknown>,
  issuer: string,
  resolver: RequestResolver,
  input: StatusInput,
): Promise<{ result: StatusResult; problem?: ProblemDetails }> {
  const entry = bitstringEntry(raw);
  if (typeof entry === 'string')
    return {
      result: { verified: false, input },
      problem: problem('MALFORMED_VALUE_ERROR', 'credentialStatus', 'status_entry_invalid', entry),
    };
  const outcome = await bitstringStatus(deps, entry, issuer, resolver, new Date(deps.now()));
  if (!outcome.ok)
    return {
      result: { verified: false, input },
      problem: problem('STATUS_VERIFICATION_ERROR', 'credentialStatus', outcome.reason, outcome.detail),
    };
  if (!outcome.set) return { result: { verified: true, status: 'valid', input } };
  const at = `bit ${entry.statusListIndex} of ${entry.statusListCredential.slice(0, 200)}`;
  return entry.statusPurpose === 'revocation'
    ? {
        result: { verified: false, status: 'revoked', input },
        problem: problem(
          'CREDENTIAL_REVOKED',
          'credentialStatus',
          'revoked',
          `the issuer revoked the credential (${at})`,
        ),
      }
    : {
        result: { verified: false, status: 'suspended', input },
        problem: problem(
          'STATUS_VERIFICATION_ERROR',
          'credentialStatus',
          'suspended',
          `the issuer suspended the credential (${at})`,
        ),
      };
}

/**
 * A status entry of another type than LedgerVaultStatusEntry: a BitstringStatusListEntry is read (only under a
 * verified proof); any other type fails, never a pass (status is dispatched by type, as digitalbazaar/vc does).
 */
export async function otherStatusEntry(
  deps: VaultAppDeps,
  e: Extract<EntryParse, { kind: 'other' }>,
  issuer: string,
  proofVerified: boolean,
  resolver: RequestResolver | undefined,
): Promise<{ result: StatusResult; problem?: ProblemDetails }> {
  const failed = { verified: false, input: e.input };
  if (e.input.type !== BITSTRING_STATUS_LIST_ENTRY || !resolver) {
    const type = (e.input.type ?? '?').slice(0, 100);
    const why = `credentialStatus of type ${type} cannot be checked: this verifier reads LedgerVaultStatusEntry and ${BITSTRING_STATUS_LIST_ENTRY}`;
    return {
      result: failed,
      problem: problem('STATUS_VERIFICATION_ERROR', 'credentialStatus', 'status_type_unsupported', why),
    };
  }
  if (!proofVerified) {
    const why = `the ${BITSTRING_STATUS_LIST_ENTRY} is trusted only under a verified proof, and the proof did not verify: the status was not read`;
    return {
      result: failed,
      problem: problem('STATUS_VERIFICATION_ERROR', 'credentialStatus', 'status_unconfirmed', why),
    };
  }
  return bitstringResult(deps, e.entry, issuer, resolver, e.input);
}
