// The resolver's table of named codes for the platform's one failure mapper (src/platform/failures.ts), and
// its envelope `{code, message, details?}` (did-resolver.yaml "Errors"). What is the resolver's own: an
// invalid DID is `did_invalid` and a record breaking its rules has the record rule's code (the same checks
// the handlers run); the resolution route answers resolution results, not envelopes (resolveDid).
import type { ErrorRequestHandler, Request } from 'express';
import { ChainError } from '../chain/index.ts';
import { type DidRecordInput, validateRecord } from '../did/index.ts';
import { clip } from '../openapi/error-bounds.ts';
import { inWords } from '../openapi/formats.ts';
import { errorHandler as platformErrorHandler } from '../platform/errors.ts';
import {
  type BodyReadError,
  type FailureCodes,
  type FailureOf,
  MALFORMED_PATH_MESSAGE,
  relevantItems,
} from '../platform/failures.ts';
import { operationOf } from '../platform/app.ts';
import type { Operation } from '../platform/operations.ts';
import { requestIdOf } from '../platform/request-id.ts';
import {
  BODY_LIMIT_BYTES,
  invalidRequest,
  recordError,
  type ResolverError,
  type ResolverErrorCode,
  ResolverErrors,
} from './context.ts';
import { isRegistrarPath, registrarValidationState } from './registrar/refusal.ts';
import { RESOLVE_PREFIX, resolutionValidationFailure, sendResolutionFailure } from './routes/resolve.ts';
import { fromChainError, invalidDidIn } from './routes/shared.ts';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What JSON text holds, in words ("null", "a number", "an array"…), or undefined when it is not JSON. */
function jsonKind(text: unknown): string | undefined {
  if (typeof text !== 'string') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** A body the JSON reader refused: valid JSON that is no object or array (`null`, `42`), or text that is no JSON. */
function unreadableBody(err: BodyReadError): ResolverError {
  const kind = err.type === 'entity.parse.failed' ? jsonKind(err.body) : undefined;
  if (kind !== undefined)
    return invalidRequest(`the body must be a JSON object, got ${kind}`, [
      { path: '/body', message: 'must be object' },
    ]);
  const words = err.type === 'entity.parse.failed' ? 'body is not valid JSON' : `the body cannot be read (${err.type})`;
  return invalidRequest(`${words}: ${err.message}`, [{ path: '/body', message: err.message }]);
}

/** A request that fails its schema: `did_invalid`, a record rule's code, else `invalid_request` with the failures. */
function invalid(failure: FailureOf<'invalid'>, req: Request, op: Operation | undefined): ResolverError {
  const body: unknown = req.body;
  if (isObject(body) && 'signedXdr' in body && Object.keys(body).length > 1) {
    const extra = Object.keys(body).filter((k) => k !== 'signedXdr');
    return invalidRequest('body must match the prepare fields or be {signedXdr} alone', [
      { path: '/body', message: `must NOT have additional properties: ${extra.join(', ')}` },
    ]);
  }
  const didError = invalidDidIn(req);
  if (didError) return didError;
  if (isObject(body) && !('signedXdr' in body) && isObject(body.record)) {
    const violations = validateRecord(body.record as unknown as DidRecordInput);
    if (violations.length > 0) return recordError(violations);
  }
  const items = relevantItems(failure.items, op, body);
  const first = items[0];
  const message =
    first && failure.status === 400
      ? `${first.path.replace(/^\//, '').replace(/\//g, '.')} ${inWords(first.message)}`
      : failure.message;
  return invalidRequest(
    message,
    items.map(({ path, message: m }) => ({ path, message: m })),
  );
}

export const notFoundError = (req: Request): ResolverError =>
  ResolverErrors.notFound(`no route ${req.method} ${clip(req.path, 200)}`);

const tooLarge = () => ResolverErrors.payloadTooLarge(`the request body exceeds ${BODY_LIMIT_BYTES} bytes (256 KiB)`);

/** The resolver's named codes (did-resolver.yaml `x-error-codes`) for each kind of refusal. */
export const RESOLVER_FAILURE_CODES: FailureCodes<ResolverErrorCode> = {
  translate: (err) =>
    err instanceof ChainError ? { error: fromChainError(err, err.network ?? 'the ledger') } : undefined,
  refusals: {
    not_found: (_failure, req) => notFoundError(req),
    method_not_allowed: ({ message, allow }) => ResolverErrors.methodNotAllowed(message, undefined, { Allow: allow }),
    malformed_path: () =>
      invalidRequest(MALFORMED_PATH_MESSAGE, [{ path: '/path', message: 'malformed percent-encoding' }]),
    unsupported_media_type: (_failure, req) =>
      invalidRequest(
        `the body must be JSON sent with Content-Type: application/json${req.get('content-type') === undefined ? '; the request has no Content-Type' : `, not ${req.get('content-type')}`}`,
        [{ path: '/headers/content-type', message: 'must be application/json' }],
      ),
    too_large: tooLarge,
    unreadable: ({ read }) => unreadableBody(read),
    invalid,
  },
  // The registrar's operations answer a body the schema refuses with a failed state (spec: RegistrarFailed).
  answers(failure, req, res) {
    if (failure.kind === 'invalid' && isRegistrarPath(req.path)) {
      const mapped = invalid(failure, req, operationOf(req));
      res.status(400).json(registrarValidationState(req, { error: mapped.code, reason: mapped.message }));
      return true;
    }
    if (!req.path.startsWith(RESOLVE_PREFIX)) return false;
    const { error, message } = resolutionValidationFailure(failure, req);
    sendResolutionFailure(req, res, 400, error, message);
    return true;
  },
  internal: (req) => ({
    code: 'internal_error',
    message: `Internal error (request ${(req.res && requestIdOf(req.res)) ?? 'unknown'})`,
  }),
};

/** The resolver's envelope (did-resolver.yaml Error): `{code, message, details?}`; a fault's line to `log`. */
export function errorHandler({ log }: { log?: (entry: Record<string, unknown>) => void }): ErrorRequestHandler {
  return platformErrorHandler<ResolverErrorCode>({
    codes: RESOLVER_FAILURE_CODES,
    body: ({ code, message, details }) => (details === undefined ? { code, message } : { code, message, details }),
    logFault: ({ answer, req, requestId }) => {
      const e = answer.internal;
      log?.({
        event: 'internal_error',
        requestId: requestId ?? 'unknown',
        method: req.method,
        path: req.path,
        error: e instanceof Error ? `${e.name}: ${e.message}${e.stack ? `\n${e.stack}` : ''}` : String(e),
      });
    },
  });
}
