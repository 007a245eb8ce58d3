// Every failure → `{error, message}` with the spec's stable code (vault-api.yaml "Errors"). Internals never
// reach the client: an unexpected error is 500 `internal_error`, and its details go to the log only.
import type { ErrorRequestHandler, Request } from 'express';
import { ApiError, isVaultErrorCode, VaultErrors, type VaultAppDeps, type VaultErrorCode } from '../context.ts';
import { ChainError } from '../../chain/index.ts';
import { clip } from '../../openapi/error-bounds.ts';
import { StoreInputError, StoreUnavailableError } from '../../stores/index.ts';
import { operationOf, type OperationInfo } from './openapi.ts';
import { mapValidationFailure } from './validation.ts';
import { errorHandler as platformErrorHandler, type ErrorAnswer } from '../../platform/errors.ts';
import { describeValidatorFailure } from '../../platform/validator.ts';
import { methodNotAllowedMessage, type AllowLookup } from '../../openapi/allow.ts';

/** Longest accepted request body (vault-api.yaml "Errors": 512 KiB, else 413 `payload_too_large`). */
export const BODY_LIMIT_BYTES = 512 * 1024;
/**
 * The body limit of a keyless request where a key is optional (the verification routes): what keeps every
 * keyless request within 50 ms of service CPU (vault-api.yaml "Verification limits"; docs/benchmarks.md).
 */
export const KEYLESS_BODY_LIMIT_BYTES = 64 * 1024;

/** An error answer in the vault API's codes. */
export type VaultErrorAnswer = ErrorAnswer<VaultErrorCode>;

/** Errors of express.json (body-parser): `type` and `status`. */
interface BodyParserError {
  type: string;
  status: number;
}
const isBodyParserError = (e: unknown): e is BodyParserError =>
  typeof e === 'object' &&
  e !== null &&
  typeof (e as BodyParserError).type === 'string' &&
  typeof (e as BodyParserError).status === 'number';

const STORE_WORDS: Record<string, string> = {
  keys: 'the key store is unavailable',
  idempotency: 'the idempotency store is unavailable',
  rate_limit: 'the rate-limit store is unavailable',
  cache: 'the cache is unavailable',
  challenges: 'the challenge store is unavailable',
};

/** Maps any thrown value onto the spec's error answers. */
export function toErrorAnswer(
  err: unknown,
  req: Request,
  index: Map<string, OperationInfo>,
  allowOf?: AllowLookup,
): VaultErrorAnswer {
  if (err instanceof ApiError) return { status: err.status, code: err.code, message: err.message };
  // The chain's codes are the spec's; one it lacks must not reach a client (a 500, logged).
  if (err instanceof ChainError && isVaultErrorCode(err.code))
    return { status: err.status, code: err.code, message: err.message };
  if (err instanceof StoreUnavailableError) {
    // Rate limits fail closed (vault-api.yaml "Rate limits"); keys and idempotency records cannot be
    // checked without their store, so those requests fail too.
    const code = err.store === 'rate_limit' ? 'rate_limit_unavailable' : 'store_unavailable';
    return { status: 503, code, message: STORE_WORDS[err.store] ?? 'a backing store is unavailable', internal: err };
  }
  if (err instanceof StoreInputError) return { status: 400, code: 'invalid_request', message: err.message };
  const failure = describeValidatorFailure(err, req, allowOf ?? (() => undefined));
  switch (failure?.kind) {
    case 'method_not_allowed':
      // A method the path does not declare (vault-api.yaml "Routing note").
      return {
        status: 405,
        code: 'method_not_allowed',
        message: methodNotAllowedMessage(req.method, req.path, failure.allow!),
        headers: { Allow: failure.allow! },
      };
    case 'not_found':
      return { status: 404, code: 'not_found', message: `no route ${req.method} ${clip(req.path, 200)}` };
    case 'malformed_path':
      // A path segment whose percent-encoding does not decode (`/contracts/vault/%`).
      return { status: 400, code: 'invalid_request', message: MALFORMED_PATH };
    case 'invalid':
      return fromApiError(mapValidationFailure(failure.items, operationOf(index, req), req.body));
    case 'unsupported_media_type':
      return {
        status: 400,
        code: 'invalid_request',
        message: 'send the body as JSON with Content-Type: application/json',
      };
    case 'other':
      if (failure.status === 413) return payloadTooLarge();
  }
  if (isBodyParserError(err)) {
    if (err.type === 'entity.too.large') return payloadTooLarge((err as { limit?: number }).limit);
    if (err.type === 'entity.parse.failed')
      return { status: 400, code: 'invalid_json', message: 'the body is not valid JSON' };
    if (err.status >= 400 && err.status < 500) {
      return { status: 400, code: 'invalid_request', message: `the body cannot be read (${err.type})` };
    }
  }
  return {
    status: 500,
    code: 'internal_error',
    message: 'internal error; quote the X-Request-ID when reporting it',
    internal: err,
  };
}

const MALFORMED_PATH =
  'the path has a malformed percent-encoding: every % must be followed by two hexadecimal digits (write a literal % as %25)';
const fromApiError = (e: ApiError): VaultErrorAnswer => ({ status: e.status, code: e.code, message: e.message });
const payloadTooLarge = (limit = BODY_LIMIT_BYTES): VaultErrorAnswer => ({
  status: 413,
  code: 'payload_too_large',
  message:
    limit === KEYLESS_BODY_LIMIT_BYTES
      ? `request body exceeds ${limit} bytes, the limit without an API key; with one it is ${BODY_LIMIT_BYTES}`
      : `request body exceeds ${limit} bytes`,
});

/** The vault API's envelope (vault-api.yaml ErrorBody): `{error, message}`. */
export function errorHandler(
  deps: VaultAppDeps,
  index: Map<string, OperationInfo>,
  allowOf?: AllowLookup,
): ErrorRequestHandler {
  return platformErrorHandler<VaultErrorCode>({
    toAnswer: (err, req) => toErrorAnswer(err, req, index, allowOf),
    body: (answer) => ({ error: answer.code, message: answer.message }),
    logFault: ({ answer, requestId }) => {
      const e = answer.internal as { name?: string; message?: string; stack?: string };
      deps.log?.({
        level: answer.status >= 500 && answer.code === 'internal_error' ? 'error' : 'warn',
        msg: `request failed: ${answer.code}`,
        requestId,
        error: answer.code,
        detail: `${e?.name ?? 'Error'}: ${e?.message ?? String(e)}`,
        ...(answer.code === 'internal_error' && e?.stack ? { stack: e.stack } : {}),
      });
    },
  });
}

/** The error of a request no route answered. */
export const notFoundError = (req: Request): ApiError =>
  VaultErrors.notFound(`no route ${req.method} ${clip(req.path, 200)}`);
