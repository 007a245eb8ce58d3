// The error envelope `{code, message, details?}` (spec "Errors") and the translation of everything that can
// go wrong into it: request-validation failures (mapped onto the spec's codes), body-parser failures, chain
// failures, unknown routes, and unexpected faults (500 `internal_error`, never the fault's own words).
import type { ErrorRequestHandler, Request, Response } from 'express';
import { ChainError, REGISTRY_ERRORS } from '../../chain/index.ts';
import {
  decodeDidParam,
  negotiateRepresentation,
  parseDid,
  resolutionError,
  validateRecord,
  type DidRecordInput,
  type RecordViolation,
} from '../../did/index.ts';
import { FORMAT_WORDS } from '../../openapi/formats.ts';
import { ResolverError, ResolverErrors, type ResolverErrorCode } from '../context.ts';
import { clip, RESOLVER_FAILURES_LISTED } from '../../openapi/error-bounds.ts';
import { errorHandler as platformErrorHandler } from '../../platform/errors.ts';
import { type BodyReadError, type Failure, type FailureCodes, mapFailure } from '../../platform/failures.ts';
import { operationOf } from '../../platform/app.ts';
import { requestIdOf } from '../../platform/request-id.ts';

/** Bodies beyond this are refused with 413 `payload_too_large`; the largest valid body is a 128 KiB signedXdr. */
export const BODY_LIMIT_BYTES = 256 * 1024;

/**
 * A record-rule failure: the first violation's code, the first violations in details and how many there
 * were (spec "Record rules", Error.details).
 */
export function recordError(violations: RecordViolation[]): ResolverError {
  const first = violations[0]!;
  const listed = violations
    .slice(0, RESOLVER_FAILURES_LISTED)
    .map((v) => ({ code: v.code, field: clip(v.field, 200), message: clip(v.message, 400) }));
  return new ResolverError(first.code, clip(first.message, 400), {
    field: clip(first.field, 200),
    violations: listed,
    count: violations.length,
  });
}

export function didInvalid(did: string, message: string): ResolverError {
  return ResolverErrors.didInvalid(clip(message, 400), { did: clip(did) });
}

/** `invalid_request` with the first failures and how many there were (spec Error.details). */
export function invalidRequest(message: string, errors: { path: string; message: string }[]): ResolverError {
  const listed = errors
    .slice(0, RESOLVER_FAILURES_LISTED)
    .map((e) => ({ path: clip(e.path, 200), message: clip(e.message, 400) }));
  return ResolverErrors.invalidRequest(clip(message, 400), {
    errors: listed,
    count: Math.max(1, errors.length),
  });
}

/**
 * Codes the registry's failures keep as they are: the chain already mapped the contract's number
 * (REGISTRY_ERRORS), or recognised a stale footprint (409 `tx_stale`: prepare again).
 */
const CONTRACT_CODES: ReadonlySet<string> = new Set([
  ...Object.values(REGISTRY_ERRORS).map((r) => r.code),
  'tx_stale',
  'tx_expired',
]);
const isContractCode = (code: string): code is ResolverErrorCode => CONTRACT_CODES.has(code);

const CONTRACT_ERROR = /Error\(Contract, #(\d+)\)/;

/** A chain failure in the resolver's words; `network` names the ledger in messages. */
export function fromChainError(e: ChainError, network: string): ResolverError {
  const tx = e.txId ? { txId: e.txId } : {};
  switch (e.code) {
    case 'chain_unavailable':
      return ResolverErrors.ledgerUnavailable(
        e.message.replace(/^chain RPC unavailable(?=[ :])/, `${network} RPC unreachable`),
        e.txId ? tx : undefined,
      );
    case 'tx_timeout':
      return ResolverErrors.ledgerUnavailable(`${network}: ${e.message}`, tx);
    case 'tx_invalid':
      return invalidRequest(e.message, [{ path: '/body/signedXdr', message: e.message }]);
    case 'source_account_not_found':
      return invalidRequest(e.message, [{ path: '/body/sourcePublicKey', message: e.message }]);
    case 'tx_operation_mismatch':
      return ResolverErrors.txOperationMismatch(e.message);
  }
  const text = e.chainMessage ?? e.message;
  const n = CONTRACT_ERROR.exec(text);
  if (isContractCode(e.code)) {
    return new ResolverError(e.code, e.message, { ...(n ? { contractError: Number(n[1]) } : {}), ...tx });
  }
  const rejected = /transaction rejected: (\S+)/.exec(text);
  const failed = /transaction failed: (\S+)/.exec(text);
  const status = rejected ? 'ERROR' : failed ? 'FAILED' : 'SIMULATION_FAILED';
  const resultCode = (rejected ?? failed)?.[1];
  return ResolverErrors.txSubmissionFailed(e.message, {
    status,
    ...(resultCode ? { resultCode } : {}),
    ...tx,
    ...(n ? { contractError: Number(n[1]) } : {}),
    chainMessage: text,
  });
}

/** What JSON text holds, in words ("null", "a number", "a string"…), or undefined when it is not JSON. */
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

/**
 * A body the JSON parser refused, in the spec's codes: over the limit → 413 `payload_too_large`; valid JSON
 * that is not an object or array (`null`, `42`, `"x"`: the parser takes only those two) or text that is
 * not JSON → 400 `invalid_request`.
 */
export function fromBodyParserError(err: BodyReadError): ResolverError {
  if (err.type === 'entity.too.large') {
    return ResolverErrors.payloadTooLarge(`the request body exceeds ${BODY_LIMIT_BYTES} bytes (256 KiB)`);
  }
  if (err.type === 'entity.parse.failed') {
    const kind = jsonKind(err.body);
    if (kind !== undefined) {
      const message = `the body must be a JSON object, got ${kind}`;
      return invalidRequest(message, [{ path: '/body', message: 'must be object' }]);
    }
    return invalidRequest(`body is not valid JSON: ${err.message}`, [{ path: '/body', message: err.message }]);
  }
  return invalidRequest(`the body cannot be read (${err.type}): ${err.message}`, [
    { path: '/body', message: err.message },
  ]);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A request-validation failure in the spec's codes ("Errors"): an invalid DID is `did_invalid`, a record
 * breaking its rules has the record-rule code (the same check the handlers run), anything else is
 * `invalid_request` with the validator's errors.
 */
export function fromValidationError(err: Failure, req: Request): ResolverError {
  const body: unknown = req.body;
  if (isObject(body) && 'signedXdr' in body && Object.keys(body).length > 1) {
    const extra = Object.keys(body).filter((k) => k !== 'signedXdr');
    return invalidRequest('body must match the prepare fields or be {signedXdr} alone', [
      { path: '/body', message: `must NOT have additional properties: ${extra.join(', ')}` },
    ]);
  }
  const didError = invalidDidIn(req, body);
  if (didError) return didError;
  if (isObject(body) && !('signedXdr' in body) && isObject(body.record)) {
    const violations = validateRecord(body.record as unknown as DidRecordInput);
    if (violations.length > 0) return recordError(violations);
  }
  const errors = relevantErrors(err.items, body);
  const first = errors[0];
  const message =
    first && err.status === 400
      ? `${first.path.replace(/^\//, '').replace(/\//g, '.')} ${inWords(first.message)}`
      : err.message;
  return invalidRequest(
    message,
    errors.map(({ path, message: m }) => ({ path, message: m })),
  );
}

/** A validator message in a client's words where the spec's own formats are concerned (`must match format "stellar-account"`). */
function inWords(message: string): string {
  const words = FORMAT_WORDS[/^must match format "([^"]+)"$/.exec(message)?.[1] ?? ''];
  return words ? `is not ${words}` : message;
}

/** The DID of the path, the body or the challenge, when present and invalid. */
function invalidDidIn(req: Request, body: unknown): ResolverError | undefined {
  const candidates: unknown[] = [];
  // The validator runs before the router, so req.params is still empty here: read the path parameter
  // the validator matched (req.openapi.pathParams).
  const openapi = (req as Request & { openapi?: { pathParams?: Record<string, unknown> } }).openapi;
  const param = (req.params as Record<string, unknown> | undefined)?.did ?? openapi?.pathParams?.did;
  if (typeof param === 'string') candidates.push(decodeDidParam(param));
  if (isObject(body) && !('signedXdr' in body)) {
    if ('did' in body) candidates.push(body.did);
    if (isObject(body.challenge) && 'did' in body.challenge) candidates.push(body.challenge.did);
  }
  for (const did of candidates) {
    const parsed = parseDid(did);
    if (!parsed.ok) return didInvalid(typeof did === 'string' ? did : JSON.stringify(did), parsed.message);
  }
  return undefined;
}

/** For a prepare-or-submit body, the errors of the branch the client meant (the oneOf reports both). */
function relevantErrors(errors: Failure['items'], body: unknown): Failure['items'] {
  let kept = errors.filter((e) => e.errorCode !== 'oneOf.openapi.validation');
  if (isObject(body)) {
    kept =
      'signedXdr' in body
        ? kept.filter((e) => e.path.startsWith('/body/signedXdr'))
        : kept.filter((e) => !(e.path === '/body/signedXdr' && e.errorCode === 'required.openapi.validation'));
  }
  return kept.length > 0 ? kept : errors;
}

export function notFoundError(req: Request): ResolverError {
  return ResolverErrors.notFound(`no route ${req.method} ${clip(req.path, 200)}`);
}

const RESOLVE_PREFIX = '/1.0/identifiers/';

const MALFORMED_PATH =
  'the path has a malformed percent-encoding: every % must be followed by two hexadecimal digits (write a literal % as %25)';

/** The chain's, the body reader's and the validator's failures in the resolver's codes. */
export const RESOLVER_FAILURE_CODES: FailureCodes<ResolverErrorCode> = {
  translate: (err) =>
    err instanceof ChainError ? { error: fromChainError(err, err.network ?? 'the ledger') } : undefined,
  notFound: notFoundError,
  methodNotAllowed: (message, allow) => ResolverErrors.methodNotAllowed(message, undefined, { Allow: allow }),
  malformedPath: () => invalidRequest(MALFORMED_PATH, [{ path: '/path', message: 'malformed percent-encoding' }]),
  unsupportedMediaType(req) {
    // A body without Content-Type, or of another media type.
    const type = req.get('content-type');
    const message =
      type === undefined
        ? 'the body must be JSON sent with Content-Type: application/json; the request has no Content-Type'
        : `the body must be JSON sent with Content-Type: application/json, not ${type}`;
    return invalidRequest(message, [{ path: '/headers/content-type', message: 'must be application/json' }]);
  },
  payloadTooLarge: () => ResolverErrors.payloadTooLarge(`the request body exceeds ${BODY_LIMIT_BYTES} bytes (256 KiB)`),
  unreadableBody: fromBodyParserError,
  invalid: (failure, req) => fromValidationError(failure, req),
  // The resolution route answers resolution results, not envelopes (spec: resolveDid).
  answers(failure, req, res) {
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

/** The resolver's envelope (did-resolver.yaml Error): `{code, message, details?}`. */
export function errorHandler({ log }: { log?: (entry: Record<string, unknown>) => void }): ErrorRequestHandler {
  return platformErrorHandler<ResolverErrorCode>({
    toAnswer: (err, req, res) => mapFailure(RESOLVER_FAILURE_CODES, err, req, res, operationOf(req)),
    body: ({ code, message, details }) => (details === undefined ? { code, message } : { code, message, details }),
    logFault: ({ answer, req, requestId }) =>
      log?.({
        event: 'internal_error',
        requestId: requestId ?? 'unknown',
        method: req.method,
        path: req.path,
        error: describe(answer.internal),
      }),
  });
}

/**
 * A request-validation failure of the resolution route in DID Resolution's words: `invalidDid` only when the
 * DID itself fails (its syntax, or its length limit), else `invalidOptions` (an unknown query parameter is
 * an unknown resolution option; the DID may well be valid).
 */
export function resolutionValidationFailure(
  err: Failure,
  req: Request,
): { error: 'invalidDid' | 'invalidOptions'; message: string } {
  const openapi = (req as Request & { openapi?: { pathParams?: Record<string, unknown> } }).openapi;
  const param = openapi?.pathParams?.did ?? req.path.slice(RESOLVE_PREFIX.length);
  const parsed = parseDid(decodeDidParam(String(param)));
  if (!parsed.ok) return { error: 'invalidDid', message: parsed.message };
  const didErrors = err.items.filter((e) => e.path === '/params/did' || e.path.startsWith('/params/did/'));
  if (didErrors.length > 0) return { error: 'invalidDid', message: didErrors[0]!.message };
  return { error: 'invalidOptions', message: err.message };
}

/** A failed resolution as its result body, in the negotiated media type (JSON when none is acceptable). */
export function sendResolutionFailure(
  req: Request,
  res: Response,
  status: number,
  error: 'invalidDid' | 'invalidOptions' | 'notFound' | 'representationNotSupported' | 'internalError',
  message: string,
): void {
  const mediaType =
    (error !== 'representationNotSupported' && negotiateRepresentation(req.headers.accept)?.mediaType) ||
    'application/json';
  res.setHeader('Cache-Control', 'no-store');
  // The body's media type was negotiated on Accept (did-resolver.yaml resolveDid).
  res.setHeader('Vary', 'Accept');
  res.setHeader('Content-Type', `${mediaType}; charset=utf-8`);
  // application/did-resolution is not a `+json` type: the response validator would hold it to another
  // media type's schema (see routes/resolve.ts), so it is sent as text.
  if (mediaType === 'application/did-resolution' || mediaType === 'application/did-url-dereferencing') {
    res.status(status).send(JSON.stringify(resolutionError(error, clip(message, 1000))));
  } else res.status(status).json(resolutionError(error, clip(message, 1000)));
}

function describe(err: unknown): string {
  if (err instanceof Error) return `${err.name}: ${err.message}${err.stack ? `\n${err.stack}` : ''}`;
  return String(err);
}
