// The bounded inputs a verification answer reports (vault-api.yaml ProofSummary, ProofResult) and the validity
// period checks (validFrom, validUntil) of a credential.
import { isDateTimeStamp, type ProofVerification } from '../did/index.ts';
import type { components } from '../generated/vault-api.ts';
import { clipText, problem, type ProblemDetails } from './verification-problems.ts';

type Schemas = components['schemas'];
type ProofResult = Schemas['ProofResult'];

type ProofSummary = Schemas['ProofSummary'];
const SUMMARY_STRINGS = [
  'id',
  'type',
  'cryptosuite',
  'created',
  'expires',
  'verificationMethod',
  'proofPurpose',
  'challenge',
  'nonce',
  'proofValue',
] as const;

/** A proof's Data Integrity members, bounded (vault-api.yaml ProofSummary); null for what is not an object. */
export function proofSummary(proof: unknown): ProofSummary | null {
  if (typeof proof !== 'object' || proof === null || Array.isArray(proof)) return null;
  const p = proof as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of SUMMARY_STRINGS) if (typeof p[k] === 'string') out[k] = clipText(p[k]);
  for (const k of ['domain', 'previousProof'] as const) {
    const v = p[k];
    if (typeof v === 'string') out[k] = clipText(v);
    else if (Array.isArray(v) && v.every((x) => typeof x === 'string')) out[k] = v.slice(0, 8).map((x) => clipText(x));
  }
  return out as ProofSummary;
}

/** One result per proof (none for a document that carries none, or more than may be verified). */
export function proofResults(verified: ProofVerification[]): ProofResult[] {
  return verified.map((r) => ({ verified: r.verified, input: proofSummary(r.proof) }));
}

/** The credential's validFrom (or issuanceDate) or validUntil (or expirationDate) against `now`; none if absent. */
export function validityOf(
  credential: Record<string, unknown>,
  check: 'validFrom' | 'validUntil',
  now: Date,
): { input: string; problem?: ProblemDetails } | undefined {
  const value =
    check === 'validFrom'
      ? (credential['validFrom'] ?? credential['issuanceDate'])
      : (credential['validUntil'] ?? credential['expirationDate']);
  if (value === undefined) return undefined;
  // VC Data Model 2.0 §4.9: an XML Schema dateTimeStamp (time zone included). Date.parse alone takes "1",
  // "2099" or "March 7" for dates, and a time without zone in the server's local time.
  if (!isDateTimeStamp(value)) {
    const input = typeof value === 'string' ? value : (JSON.stringify(value) ?? '');
    return {
      input,
      problem: problem(
        'MALFORMED_VALUE_ERROR',
        check,
        'invalid_date',
        `${check} is not a date-time with a time zone (XML Schema dateTimeStamp)`,
      ),
    };
  }
  const t = Date.parse(value);
  if (check === 'validFrom' && t > now.getTime())
    return {
      input: value,
      problem: problem('CREDENTIAL_NOT_YET_VALID', check, 'not_yet_valid', `the credential is valid from ${value}`),
    };
  if (check === 'validUntil' && t < now.getTime())
    return {
      input: value,
      problem: problem('CREDENTIAL_EXPIRED', check, 'expired', `the credential expired at ${value}`),
    };
  return { input: value };
}
