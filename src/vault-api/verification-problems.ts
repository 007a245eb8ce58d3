// The problems a verification reports (vault-api.yaml ProblemDetails): RFC 9457 objects whose `type` names a
// VC Data Model 2.0 §7.1 or Data Integrity §4 processing error where one fits, else this service's own, with
// the stable `reason` beside. One catalogue, so a title always travels with its type.
import { clip } from '../openapi/error-bounds.ts';
import type { components } from '../generated/vault-api.ts';
import type { DataIntegrityErrorType, ProofProblem } from '../did/index.ts';

type Schemas = components['schemas'];
export type ProblemDetails = Schemas['ProblemDetails'];
export type ProblemTitle = ProblemDetails['title'];
export type ProblemReason = ProblemDetails['reason'];
export type CheckName = Schemas['VerificationCheckName'];
export type CredentialCheckName = Schemas['CredentialCheckName'];

const VC_DATA_MODEL = 'https://www.w3.org/TR/vc-data-model#';
const DATA_INTEGRITY = 'https://w3id.org/security#';
const OWN = 'urn:credential-vault:problem:';

const TYPES: Record<ProblemTitle, ProblemDetails['type']> = {
  PARSING_ERROR: `${VC_DATA_MODEL}PARSING_ERROR`,
  MALFORMED_VALUE_ERROR: `${VC_DATA_MODEL}MALFORMED_VALUE_ERROR`,
  PROOF_VERIFICATION_ERROR: `${DATA_INTEGRITY}PROOF_VERIFICATION_ERROR`,
  PROOF_TRANSFORMATION_ERROR: `${DATA_INTEGRITY}PROOF_TRANSFORMATION_ERROR`,
  PROOF_GENERATION_ERROR: `${DATA_INTEGRITY}PROOF_GENERATION_ERROR`,
  MALFORMED_PROOF_ERROR: `${DATA_INTEGRITY}MALFORMED_PROOF_ERROR`,
  MISMATCHED_PROOF_PURPOSE_ERROR: `${DATA_INTEGRITY}MISMATCHED_PROOF_PURPOSE_ERROR`,
  INVALID_DOMAIN_ERROR: `${DATA_INTEGRITY}INVALID_DOMAIN_ERROR`,
  INVALID_CHALLENGE_ERROR: `${DATA_INTEGRITY}INVALID_CHALLENGE_ERROR`,
  UNSUPPORTED_DID_METHOD: `${OWN}UNSUPPORTED_DID_METHOD`,
  ISSUER_DID_INVALID: `${OWN}ISSUER_DID_INVALID`,
  CREDENTIAL_NOT_YET_VALID: `${OWN}CREDENTIAL_NOT_YET_VALID`,
  CREDENTIAL_EXPIRED: `${OWN}CREDENTIAL_EXPIRED`,
  CREDENTIAL_REVOKED: `${OWN}CREDENTIAL_REVOKED`,
  STATUS_VERIFICATION_ERROR: `${OWN}STATUS_VERIFICATION_ERROR`,
  ISSUER_DENIED: `${OWN}ISSUER_DENIED`,
  HOLDER_BINDING_ERROR: `${OWN}HOLDER_BINDING_ERROR`,
  STATUS_NOT_CHECKED: `${OWN}STATUS_NOT_CHECKED`,
  ISSUER_ACCESS_NOT_CHECKED: `${OWN}ISSUER_ACCESS_NOT_CHECKED`,
  HOLDER_BINDING_NOT_CHECKED: `${OWN}HOLDER_BINDING_NOT_CHECKED`,
  HOLDER_NOT_SUBJECT: `${OWN}HOLDER_NOT_SUBJECT`,
  ISSUER_BINDING_NOT_CHECKED: `${OWN}ISSUER_BINDING_NOT_CHECKED`,
};

/** Titles that are warnings: reported, never a reason for `verified: false`. */
const WARNINGS: ReadonlySet<ProblemTitle> = new Set([
  'STATUS_NOT_CHECKED',
  'ISSUER_ACCESS_NOT_CHECKED',
  'HOLDER_BINDING_NOT_CHECKED',
  'HOLDER_NOT_SUBJECT',
  'ISSUER_BINDING_NOT_CHECKED',
]);

export function problem(
  title: ProblemTitle,
  check: CheckName | undefined,
  reason: ProblemReason,
  detail: string,
): ProblemDetails {
  return {
    type: TYPES[title],
    title,
    detail: clip(detail, 1000),
    level: WARNINGS.has(title) ? 'warning' : 'error',
    ...(check !== undefined ? { check } : {}),
    reason,
  };
}

export const isError = (p: ProblemDetails): boolean => p.level === 'error';

/**
 * A Data Integrity problem of a proof as a problem detail. An unsupported DID method is this service's own
 * type; a proof by another key than the issuer's (or holder's) stays a proof verification error.
 */
export function proofProblem(p: ProofProblem, check: CheckName = 'proof'): ProblemDetails {
  if (p.reason === 'did_method_not_supported') return problem('UNSUPPORTED_DID_METHOD', check, p.reason, p.message);
  return problem(p.type as Extract<ProblemTitle, DataIntegrityErrorType>, check, p.reason, p.message);
}

/** `text` cut to `max` characters, marked with an ellipsis when cut: an answer echoes bounded inputs. */
export function clipText(text: string, max = 256): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}
