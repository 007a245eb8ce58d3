// The shape a credential or presentation must have before anything about it is verified (VC Data Model 2.0
// §4: `@context`, `type`, `issuer`, `credentialSubject`, a well-formed validity period; §4.13 presentations: an
// optional `holder`, `verifiableCredential`) and the I-JSON rule for its JSON text. A document that fails here is answered at once, with the W3C suites'
// MALFORMED_VALUE_ERROR or PARSING_ERROR, and nothing costly runs for it.
import { isDateTimeStamp } from '../did/index.ts';
import { problem, type ProblemDetails } from './verification-problems.ts';

export const VC_CONTEXT_V2 = 'https://www.w3.org/ns/credentials/v2';
export const VC_CONTEXT_V1 = 'https://www.w3.org/2018/credentials/v1';
/** The most credentials one presentation may carry (vault-api.yaml VerifyPresentationRequest). */
export const MAX_PRESENTED_CREDENTIALS = 10;
/** The most `credentialStatus` entries looked at per credential (vault-api.yaml VerifyCredentialResults). */
export const MAX_STATUS_ENTRIES = 4;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNonEmptyString = (v: unknown): v is string => typeof v === 'string' && v !== '';

/** Repeated member names under `pointer` (JSON Pointers of the request body) as PARSING_ERROR problems. */
export function duplicateProblems(duplicates: readonly string[], pointer: string, what: string): ProblemDetails[] {
  const inside = duplicates.filter((d) => d === pointer || d.startsWith(`${pointer}/`));
  return inside
    .slice(0, 1)
    .map((d) =>
      problem(
        'PARSING_ERROR',
        undefined,
        'duplicate_member',
        `the ${what} is not I-JSON: the member ${JSON.stringify(d === pointer ? d : d.slice(pointer.length))} appears twice, and readers disagree on which one counts`,
      ),
    );
}

function contextProblem(doc: Record<string, unknown>): ProblemDetails | undefined {
  const ctx = doc['@context'];
  const bad = (why: string) => problem('MALFORMED_VALUE_ERROR', undefined, 'context_invalid', `@context ${why}`);
  if (!Array.isArray(ctx) || ctx.length === 0) return bad(`must be a list that starts with ${VC_CONTEXT_V2}`);
  if (ctx[0] !== VC_CONTEXT_V2 && ctx[0] !== VC_CONTEXT_V1)
    return bad(`must start with ${VC_CONTEXT_V2} (or, VC 1.1, ${VC_CONTEXT_V1})`);
  // VC Data Model 2.0 §4.3: the items after the first are URLs and/or context objects.
  if (!ctx.every((c) => (isNonEmptyString(c) && URL.canParse(c)) || isObject(c)))
    return bad('items must be URLs or context objects');
  return undefined;
}

function typeProblem(doc: Record<string, unknown>, required: string): ProblemDetails | undefined {
  const type = doc['type'];
  const types = typeof type === 'string' ? [type] : Array.isArray(type) ? type : undefined;
  if (!types || types.length === 0 || !types.every(isNonEmptyString) || !types.includes(required)) {
    return problem(
      'MALFORMED_VALUE_ERROR',
      undefined,
      'type_invalid',
      `type must be a list of names that includes ${required}`,
    );
  }
  return undefined;
}

/**
 * VC Data Model 2.0 §4.9: `validFrom` and `validUntil` are dateTimeStamps (a time zone required), and the
 * credential is not valid until after it stops being valid. A MUST of the credential, whatever the checks asked.
 */
function validityPeriodProblems(vc: Record<string, unknown>): ProblemDetails[] {
  const out: ProblemDetails[] = [];
  for (const name of ['validFrom', 'validUntil'] as const) {
    const v = vc[name];
    if (v !== undefined && !isDateTimeStamp(v))
      out.push(
        problem(
          'MALFORMED_VALUE_ERROR',
          name,
          'invalid_date',
          `${name} is not a date-time with a time zone (XML Schema dateTimeStamp)`,
        ),
      );
  }
  if (out.length > 0) return out;
  const from = vc['validFrom'] ?? vc['issuanceDate'];
  const until = vc['validUntil'] ?? vc['expirationDate'];
  if (isDateTimeStamp(from) && isDateTimeStamp(until) && Date.parse(from) > Date.parse(until)) {
    out.push(
      problem(
        'MALFORMED_VALUE_ERROR',
        'validUntil',
        'valid_until_before_valid_from',
        `the credential is valid from ${from}, after it stops being valid (${until})`,
      ),
    );
  }
  return out;
}

/** Structure problems of a credential (empty when well-formed). */
export function credentialStructureProblems(vc: Record<string, unknown>): ProblemDetails[] {
  const out: ProblemDetails[] = [];
  const push = (p: ProblemDetails | undefined) => p && out.push(p);
  push(contextProblem(vc));
  push(typeProblem(vc, 'VerifiableCredential'));
  const issuer = vc['issuer'];
  if (!isNonEmptyString(issuer) && !(isObject(issuer) && isNonEmptyString(issuer['id']))) {
    push(
      problem(
        'MALFORMED_VALUE_ERROR',
        undefined,
        'issuer_invalid',
        'issuer must be a URL, or an object whose id is one',
      ),
    );
  }
  const subject = vc['credentialSubject'];
  if (!isObject(subject) && !(Array.isArray(subject) && subject.length > 0 && subject.every(isObject))) {
    push(
      problem(
        'MALFORMED_VALUE_ERROR',
        undefined,
        'credential_subject_invalid',
        'credentialSubject must be an object or a non-empty list of objects',
      ),
    );
  }
  out.push(...validityPeriodProblems(vc));
  const status = vc['credentialStatus'];
  if (status !== undefined) {
    const entries = Array.isArray(status) ? status : [status];
    if (
      entries.length === 0 ||
      entries.length > MAX_STATUS_ENTRIES ||
      !entries.every((e) => isObject(e) && isNonEmptyString(e['type']))
    ) {
      push(
        problem(
          'MALFORMED_VALUE_ERROR',
          undefined,
          'status_entry_invalid',
          `credentialStatus must be 1 to ${MAX_STATUS_ENTRIES} objects, each with a type`,
        ),
      );
    }
  }
  return out;
}

/** Structure problems of a presentation: its own members, not the credentials inside. */
export function presentationStructureProblems(vp: Record<string, unknown>): ProblemDetails[] {
  const out: ProblemDetails[] = [];
  const push = (p: ProblemDetails | undefined) => p && out.push(p);
  push(contextProblem(vp));
  push(typeProblem(vp, 'VerifiablePresentation'));
  const holder = vp['holder'];
  const holderId = isObject(holder) ? holder['id'] : holder;
  if (holder !== undefined && (!isNonEmptyString(holderId) || !holderId.startsWith('did:'))) {
    push(
      problem(
        'MALFORMED_VALUE_ERROR',
        'holder',
        'holder_invalid',
        'holder, when present, must be the DID whose key makes the presentation proof',
      ),
    );
  }
  const vcs = vp['verifiableCredential'];
  const list = vcs === undefined ? [] : Array.isArray(vcs) ? vcs : [vcs];
  if (list.length > MAX_PRESENTED_CREDENTIALS || !list.every(isObject)) {
    push(
      problem(
        'MALFORMED_VALUE_ERROR',
        undefined,
        'credentials_invalid',
        `verifiableCredential must be a credential or a list of at most ${MAX_PRESENTED_CREDENTIALS} credentials (objects)`,
      ),
    );
  }
  return out;
}

/** The holder DID of a well-formed presentation, when it names one (VC Data Model 2.0: `holder` is optional). */
export function holderOf(vp: Record<string, unknown>): string | undefined {
  const holder = vp['holder'];
  if (holder === undefined) return undefined;
  return String(isObject(holder) ? holder['id'] : holder);
}

/** The `id`s of a well-formed credential's subjects. */
export function subjectIdsOf(vc: Record<string, unknown>): string[] {
  const subject = vc['credentialSubject'];
  const subjects = Array.isArray(subject) ? subject : [subject];
  return subjects.flatMap((s) => (isObject(s) && typeof s['id'] === 'string' ? [s['id']] : []));
}

/** The credentials of a well-formed presentation. */
export function credentialsOf(vp: Record<string, unknown>): Record<string, unknown>[] {
  const vcs = vp['verifiableCredential'];
  return (vcs === undefined ? [] : Array.isArray(vcs) ? vcs : [vcs]) as Record<string, unknown>[];
}
