// Every failure → `{error, message}` with the spec's stable code (vault-api.yaml "Errors"): the vault API's
// table of named codes for the platform's one mapper (src/platform/failures.ts). Internals never reach the
// client: an unexpected error is 500 `internal_error`, and its details go to the log only.
import type { ErrorRequestHandler, Request } from 'express';
import { ApiError, isVaultErrorCode, VaultErrors, type VaultAppDeps, type VaultErrorCode } from '../context.ts';
import { ChainError } from '../../chain/index.ts';
import { clip } from '../../openapi/error-bounds.ts';
import { StoreInputError, StoreUnavailableError } from '../../stores/index.ts';
import { mapValidationFailure } from './validation.ts';
import { errorHandler as platformErrorHandler } from '../../platform/errors.ts';
import { type FailureCodes, MALFORMED_PATH_MESSAGE } from '../../platform/failures.ts';

/** Longest accepted request body (vault-api.yaml "Errors": 512 KiB, else 413 `payload_too_large`). */
export const BODY_LIMIT_BYTES = 512 * 1024;
/**
 * The body limit of a keyless request where a key is optional (the verification routes): what keeps every
 * keyless request within 50 ms of service CPU (vault-api.yaml "Verification limits"; docs/benchmarks.md).
 */
export const KEYLESS_BODY_LIMIT_BYTES = 64 * 1024;

const STORE_WORDS: Record<string, string> = {
  keys: 'the key store is unavailable',
  idempotency: 'the idempotency store is unavailable',
  rate_limit: 'the rate-limit store is unavailable',
  cache: 'the cache is unavailable',
  challenges: 'the challenge store is unavailable',
};

/** The chain's, the stores' and the validator's failures in the vault API's codes. */
export const VAULT_FAILURE_CODES: FailureCodes<VaultErrorCode> = {
  translate(err) {
    // The chain's codes are the spec's; one it lacks must not reach a client (a 500, logged).
    if (err instanceof ChainError && isVaultErrorCode(err.code)) return { error: new ApiError(err.code, err.message) };
    if (err instanceof StoreUnavailableError) {
      // Rate limits fail closed (vault-api.yaml "Rate limits"); keys and idempotency records cannot be
      // checked without their store, so those requests fail too.
      const words = STORE_WORDS[err.store] ?? 'a backing store is unavailable';
      const error =
        err.store === 'rate_limit' ? VaultErrors.rateLimitUnavailable(words) : VaultErrors.storeUnavailable(words);
      return { error, logged: true };
    }
    if (err instanceof StoreInputError) return { error: VaultErrors.invalidRequest(err.message) };
    return undefined;
  },
  refusals: {
    not_found: (_failure, req) => notFoundError(req),
    method_not_allowed: ({ message, allow }) => VaultErrors.methodNotAllowed(message, { Allow: allow }),
    malformed_path: () => VaultErrors.invalidRequest(MALFORMED_PATH_MESSAGE),
    unsupported_media_type: () =>
      VaultErrors.invalidRequest('send the body as JSON with Content-Type: application/json'),
    too_large: ({ read }) => {
      const limit = read?.limit ?? BODY_LIMIT_BYTES;
      return VaultErrors.payloadTooLarge(
        limit === KEYLESS_BODY_LIMIT_BYTES
          ? `request body exceeds ${limit} bytes, the limit without an API key; with one it is ${BODY_LIMIT_BYTES}`
          : `request body exceeds ${limit} bytes`,
      );
    },
    unreadable: ({ read }) =>
      read.type === 'entity.parse.failed'
        ? VaultErrors.invalidJson('the body is not valid JSON')
        : VaultErrors.invalidRequest(`the body cannot be read (${read.type})`),
    invalid: (failure, req, op) => mapValidationFailure(failure.items, op, req.body),
  },
  internal: () => ({ code: 'internal_error', message: 'internal error; quote the X-Request-ID when reporting it' }),
};

/** The vault API's envelope (vault-api.yaml ErrorBody): `{error, message}`. */
export function errorHandler(deps: VaultAppDeps): ErrorRequestHandler {
  return platformErrorHandler<VaultErrorCode>({
    codes: VAULT_FAILURE_CODES,
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
