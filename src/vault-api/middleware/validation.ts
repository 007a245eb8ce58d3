// Request-validation failures of express-openapi-validator → the spec's `{error, message}` (vault-api.yaml
// "Errors": the named codes where the schema descriptions say so, otherwise `invalid_request`).
import { FORMAT_WORDS } from '../../openapi/formats.ts';
import { clip, VAULT_FAILURES_LISTED } from '../../openapi/error-bounds.ts';
import { ApiError, VaultErrors, type VaultErrorCode } from '../context.ts';
import { MAX_PAGE } from '../routes/contract-common.ts';
import { MAX_BATCH_SIZE, MAX_VC_DATA, MAX_VC_ID } from '../routes/issue-rules.ts';
import { branchFor, type FailureItem, relevantItems } from '../../platform/failures.ts';
import type { Operation } from '../../platform/operations.ts';

type Failure = Pick<FailureItem, 'segments' | 'keyword' | 'message'>;

const at = (f: Failure, ...want: (string | RegExp)[]) =>
  f.segments.length === want.length &&
  want.every((w, i) => (typeof w === 'string' ? f.segments[i] === w : w.test(f.segments[i]!)));

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** `{signedXdr}` alone, holding base64. */
function isBase64Submit(body: unknown): boolean {
  if (typeof body !== 'object' || body === null || Object.keys(body).length !== 1 || !('signedXdr' in body))
    return false;
  return typeof body.signedXdr === 'string' && BASE64.test(body.signedXdr);
}

/** The `maxLength` the operation's body declares for a top-level field (the branch that names it). */
function maxLengthOf(op: Operation | undefined, field: string): number | undefined {
  for (const branch of op?.body?.branches ?? []) {
    const max = branch.fields.get(field)?.maxLength;
    if (max !== undefined) return max;
  }
  return undefined;
}

/** A named code for a failure, or undefined (vault-api.yaml schema descriptions). */
function namedCode(
  f: Failure,
  body: unknown,
  op: Operation | undefined,
): { code: VaultErrorCode; message: string; rank: number } | undefined {
  const k = f.keyword;
  if ((k === 'minItems' || k === 'maxItems') && at(f, 'body', 'vcs')) {
    const vcs = typeof body === 'object' && body !== null && 'vcs' in body ? body.vcs : undefined;
    const n = Array.isArray(vcs) ? vcs.length : 0;
    return { code: 'batch_too_large', message: `vcs must hold 1 to ${MAX_BATCH_SIZE} credentials, got ${n}`, rank: 0 };
  }
  if (k === 'maxLength' && at(f, 'body', 'vcs', /^\d+$/, /^(vcId|vcData)$/)) {
    // The pattern above admits only these two fields and a decimal index.
    const [, , index, field] = f.segments as [string, string, string, 'vcId' | 'vcData'];
    const i = Number(index);
    const max = field === 'vcId' ? MAX_VC_ID : MAX_VC_DATA;
    return {
      code: `vcs[${i}].${field}_too_long`,
      message: `vcs[${i}].${field} is longer than ${max} characters`,
      rank: 1 + Number(i) * 2 + (field === 'vcId' ? 0 : 1),
    };
  }
  if (k === 'maxLength' && at(f, 'body', 'vcId'))
    return { code: 'vcId_too_long', message: `vcId is longer than ${MAX_VC_ID} characters`, rank: 20 };
  if (k === 'maxLength' && at(f, 'body', 'vcData'))
    return { code: 'vcData_too_long', message: `vcData is longer than ${MAX_VC_DATA} characters`, rank: 21 };
  if (k === 'maximum' && (at(f, 'body', 'limit') || at(f, 'query', 'limit')))
    return { code: 'limit_too_large', message: `limit must be at most ${MAX_PAGE}`, rank: 22 };
  if (k === 'pattern' && at(f, 'body', 'issuerDid')) {
    return {
      code: 'issuerDid_invalid',
      message:
        'issuerDid must be a did:ledger DID (did:ledger:testnet|mainnet:<26 base32 characters>); did:pkh and bare addresses are not accepted',
      rank: 23,
    };
  }
  // vault-api.yaml SignedTxXdr: base64 that cannot be a TransactionEnvelope is tx_invalid, as when it fails to
  // decode; text that is not base64 stays invalid_request, and so does a submit with other members.
  if ((k === 'pattern' || k === 'minLength') && at(f, 'body', 'signedXdr') && isBase64Submit(body))
    return {
      code: 'tx_invalid',
      message: 'signedXdr is not a transaction envelope (base64 XDR of a TransactionEnvelope, at least 128 bytes)',
      rank: 25,
    };
  if (k === 'maxLength' && (at(f, 'body', 'didUri') || at(f, 'body', 'date'))) {
    const field = f.segments[1]!;
    return {
      code: 'input_too_long',
      message: `${field} is longer than ${maxLengthOf(op, field)} characters`,
      rank: 24,
    };
  }
  return undefined;
}

/** A human line for one failure: the location in the request, then what is wrong (the client's names cut short). */
function describe(f: Failure): string {
  const where = clip(f.segments.join('/'));
  const field = clip(f.segments.slice(1).join('/'));
  if (f.keyword === '') return clip(f.message, 300);
  if (f.keyword === 'additionalProperties') return `unknown field "${field}" in ${f.segments[0]}`;
  if (f.keyword === 'required') return `missing required field "${field}" in ${f.segments[0]}`;
  if (f.keyword === 'format') {
    const words = FORMAT_WORDS[/format "([^"]+)"/.exec(f.message)?.[1] ?? ''];
    if (words) return `${where} is not ${words}`;
  }
  return where ? `${where} ${f.message}` : f.message;
}

/** The ApiError for a request-validation failure (status 400) of `op`. */
export function mapValidationFailure(all: readonly FailureItem[], op: Operation | undefined, body: unknown): ApiError {
  const branch = branchFor(op, body);
  const failures = relevantItems(all, op, body);

  const named = failures
    .map((f) => namedCode(f, body, op))
    .filter((n): n is NonNullable<typeof n> => n !== undefined)
    .sort((a, b) => a.rank - b.rank)[0];
  if (named) return new ApiError(named.code, named.message);

  // The first few failures and how many more (vault-api.yaml ErrorBody.message): a few KB at most.
  const lines = [...new Set(failures.map(describe))];
  const more = lines.length - VAULT_FAILURES_LISTED;
  const listed =
    lines.slice(0, VAULT_FAILURES_LISTED).join('; ') +
    (more > 0 ? `; … and ${more} more failure${more === 1 ? '' : 's'}` : '');
  const prefix = branch?.mode === 'submit' ? 'submit takes {signedXdr} alone: ' : 'request validation failed: ';
  return VaultErrors.invalidRequest(prefix + listed);
}
