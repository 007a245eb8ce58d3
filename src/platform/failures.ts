// The one failure-to-answer mapper of both services: a refusal, whoever made it, is described neutrally (a
// `Failure`), then answered from the service's table of named codes (`FailureCodes`).
import type { Request, Response } from 'express';
import type { ErrorAnswer } from './errors.ts';
import type { Json } from './bounds.ts';
import type { BodyBranch, Operation } from './operations.ts';

/** An error with a status. Below 500 it is an answer, not a fault: its stack, dozens of Express frames, is never
 * read, and taking it was ~15 % of a 405's CPU, so it is made without one (the limit is read when it is made). */
class StatusError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    const limit = Error.stackTraceLimit;
    if (status < 500) Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.status = status;
  }
}

/** An error with a code of a service's catalogue; the code's status comes from the same catalogue. */
export class ServiceError<Code extends string = string> extends StatusError {
  readonly code: Code;
  readonly details?: Json;
  /** `Allow` of a 405. */
  readonly headers?: Record<string, string>;
  constructor(status: number, code: Code, message: string, details?: Json, headers?: Record<string, string>) {
    super(status, message);
    this.code = code;
    if (details !== undefined) this.details = details;
    if (headers !== undefined) this.headers = headers;
  }
}

/** `invalid`: parameters, headers or body fail their schema (or another refusal of the validator below 500);
 * `too_large` and `unreadable`: the body's size or text. */
export type FailureKind = Failure['kind'];

export interface FailureItem {
  /** `/body/vcs/2/vcId`, `/query/limit`, `/headers/x`, `/params/did`. */
  path: string;
  segments: string[];
  /** `maxLength`, `required`; empty for the validator's own checks. */
  keyword: string;
  message: string;
}

/** One per kind of a union (distributes). */
type Refusal<K> = K extends string ? { status: number; kind: K; message: string; items: FailureItem[] } : never;
/** A refusal, described without any service's codes or envelope: `allow` is the 405's `Allow`, `read` the body
 * reader's error (the validator's own 413 has none). */
export type Failure =
  | Refusal<'not_found' | 'unsupported_media_type' | 'malformed_path' | 'invalid'>
  | (Refusal<'method_not_allowed'> & { allow: string })
  | (Refusal<'too_large'> & { read?: BodyReadError })
  | (Refusal<'unreadable'> & { read: BodyReadError });
/** The variant of one kind. */
export type FailureOf<K> = Extract<Failure, { kind: K }>;

/** The platform's own refusal (405, an oversized collection, a query integer not in digits). */
export class RequestFailure extends StatusError {
  readonly failure: Failure;
  constructor(failure: Failure) {
    super(failure.status, failure.message);
    this.failure = failure;
  }
}

export function failureItem(e: { path?: unknown; message?: unknown; errorCode?: unknown }): FailureItem {
  const path = String(e?.path ?? '');
  const errorCode = typeof e?.errorCode === 'string' ? e.errorCode : undefined; // `<keyword>.openapi.validation`
  return {
    path,
    segments: path.split('/').filter((s) => s !== ''),
    keyword: errorCode?.replace(/\.openapi\.validation$/, '') ?? '',
    message: String(e?.message ?? ''),
  };
}

const MALFORMED_URI = /^malformed uri/;

/** The router's or the validator's words for a percent-encoding that does not decode. */
export function isMalformedPath(err: unknown): boolean {
  const e = err as { status?: unknown; message?: unknown; errors?: { message?: unknown }[] } | null;
  if (typeof e !== 'object' || e === null || e.status !== 400) return false;
  if (typeof e.message === 'string' && e.message.startsWith('Failed to decode param')) return true;
  return Array.isArray(e.errors) && e.errors.some((x) => MALFORMED_URI.test(String(x?.message)));
}

type Thrown = { status: number; message: string; errors: { path?: unknown; message?: unknown; errorCode?: unknown }[] };
const thrownByValidator = (err: unknown): err is Thrown =>
  typeof (err as Thrown | null)?.status === 'number' && Array.isArray((err as Thrown).errors);

/** Undefined for anything but a refusal of the platform, the validator, the router or the body reader. */
export function describeFailure(err: unknown): Failure | undefined {
  if (err instanceof RequestFailure) return err.failure;
  if (thrownByValidator(err)) {
    if (err.status >= 500) return undefined;
    const items = err.errors.map(failureItem);
    const kind: Exclude<FailureKind, 'method_not_allowed' | 'unreadable'> =
      err.status === 404 || err.status === 405
        ? 'not_found'
        : err.status === 415
          ? 'unsupported_media_type'
          : err.status === 413
            ? 'too_large'
            : items.some((i) => MALFORMED_URI.test(i.message))
              ? 'malformed_path'
              : 'invalid';
    return { status: err.status, kind, message: err.message, items };
  }
  if (isMalformedPath(err)) {
    const items = [failureItem({ path: '/path', message: 'malformed uri' })];
    return { status: 400, kind: 'malformed_path', message: 'malformed uri', items };
  }
  if (!isBodyReadError(err)) return undefined;
  const kind = err.type === 'entity.too.large' ? 'too_large' : 'unreadable';
  return { status: err.status, kind, message: err.message, items: [], read: err };
}

/** The branch of a prepare | submit body the client meant: `signedXdr` present → submit. */
export function branchFor(op: Operation | undefined, body: unknown): BodyBranch | undefined {
  const branches = op?.body?.branches ?? [];
  if (branches.length < 2) return undefined;
  const submit = typeof body === 'object' && body !== null && !Array.isArray(body) && Object.hasOwn(body, 'signedXdr');
  return branches.find((b) => b.mode === (submit ? 'submit' : 'prepare'));
}

/** A body failure belongs to `branch` (the branches of a body have disjoint fields). */
function inBranch(f: FailureItem, branch: BodyBranch): boolean {
  if (f.segments[0] !== 'body') return true;
  if (f.keyword === 'oneOf') return false;
  const field = f.segments[1];
  if (field === undefined) return true;
  if (f.keyword === 'additionalProperties' && f.segments.length === 2) return !branch.fields.has(field);
  if (f.keyword === 'required' && f.segments.length === 2) return branch.required.has(field);
  return branch.fields.has(field);
}

/** The validator reports the failures of every `oneOf` branch; only the branch the client meant matters. */
export function relevantItems(items: readonly FailureItem[], op: Operation | undefined, body: unknown): FailureItem[] {
  const branch = branchFor(op, body);
  const kept = branch ? items.filter((f) => inBranch(f, branch)) : items.filter((f) => f.keyword !== 'oneOf');
  return kept.length > 0 ? kept : [...items];
}

/** Both services' words for a path whose percent-encoding does not decode. */
export const MALFORMED_PATH_MESSAGE =
  'the path has a malformed percent-encoding: every % must be followed by two hexadecimal digits (write a literal % as %25)';

/** body-parser's errors. */
export interface BodyReadError {
  type: string;
  status: number;
  message: string;
  /** The raw text, on a parse failure. */
  body?: unknown;
  limit?: number;
}
const isBodyReadError = (e: unknown): e is BodyReadError => {
  const { type, status } = (e ?? {}) as Partial<BodyReadError>;
  return typeof type === 'string' && typeof status === 'number' && status < 500;
};

type Refuse<C extends string, K> = (failure: FailureOf<K>, req: Request, op: Operation | undefined) => ServiceError<C>;

/** The entry of each kind is given that kind's failure. */
type Refusals<C extends string> = { [K in FailureKind]: Refuse<C, K> };

/** A service's named codes, one per kind of refusal: the one thing that differs between the services. */
export interface FailureCodes<Code extends string> {
  /** The service's own faults (chain, stores), `logged` when the fault goes to the log too. */
  translate?: (err: unknown, req: Request) => { error: ServiceError<Code>; logged?: boolean } | undefined;
  refusals: Refusals<Code>;
  /** A 400 the service answers itself in another shape (the resolver's resolution results); true when it did. */
  answers?: (failure: Failure, req: Request, res: Response) => boolean;
  internal: (req: Request) => { code: Code; message: string };
}

const answerOf = <Code extends string>(e: ServiceError<Code>): ErrorAnswer<Code> => ({
  status: e.status,
  code: e.code,
  message: e.message,
  ...(e.details === undefined ? {} : { details: e.details }),
  ...(e.headers ? { headers: e.headers } : {}),
});

/** Any thrown value in the service's codes (`answered` when the service wrote it itself). */
export function mapFailure<Code extends string>(
  codes: FailureCodes<Code>,
  err: unknown,
  req: Request,
  res: Response | undefined,
  operation: Operation | undefined,
): ErrorAnswer<Code> | 'answered' {
  if (err instanceof ServiceError) return answerOf(err as ServiceError<Code>);
  const own = codes.translate?.(err, req);
  if (own) return { ...answerOf(own.error), ...(own.logged ? { internal: err } : {}) };
  const failure = describeFailure(err);
  if (!failure) return { status: 500, ...codes.internal(req), internal: err };
  if (res && failure.status === 400 && failure.kind !== 'unreadable' && codes.answers?.(failure, req, res))
    return 'answered';
  return answerOf(refuse(codes.refusals, failure, req, operation));
}

/** The failure's own entry. The kind is read from the failure, so entry and failure cannot be paired wrongly: here
 * K is one generic kind, but at the call it is the whole union, where TypeScript checks no pairing. */
const refuse = <C extends string, K extends FailureKind>(
  r: Refusals<C>,
  failure: FailureOf<K> & { kind: K },
  req: Request,
  op: Operation | undefined,
) => r[failure.kind](failure, req, op);
