// Errors of both APIs as one typed value. The vault API answers `{error, message}` (vault-api.yaml
// ErrorBody); the resolver answers `{code, message, details?}` (did-resolver.yaml Error). Clients branch on
// `code`, never on `message`.
import type { components as ResolverComponents } from '../generated/did-resolver.ts';

/** Every `code` of the resolver's error envelope (did-resolver.yaml `ErrorCode`). */
export type ResolverErrorCode = ResolverComponents['schemas']['ErrorCode'];

/** The code given to a response that carries no error envelope (an HTML page from a proxy, an empty body). */
export const UNEXPECTED_RESPONSE = 'unexpected_response';

/** A failed call: the HTTP status, the spec's stable error code, and the human message. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  readonly status: number;
  /** `error` of a vault API body, `code` of a resolver body, or `unexpected_response`. */
  readonly code: string;
  /** The resolver's `details`, when given. */
  readonly details: Record<string, unknown> | undefined;
  /** `X-Request-ID` of the response, to quote when reporting a problem. */
  readonly requestId: string | undefined;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    details?: Record<string, unknown>;
    requestId?: string;
  }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.requestId = init.requestId;
  }

  override toString(): string {
    return `${this.status} ${this.code}: ${this.message}`;
  }
}

/** True when `err` is an ApiError, and, when `code` is given, carries that code. */
export function isApiError(err: unknown, code?: string): err is ApiError {
  return err instanceof ApiError && (code === undefined || err.code === code);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The ApiError a failed response stands for; `body` is the parsed JSON, the raw text, or undefined. */
export function apiErrorFrom(response: Pick<Response, 'status' | 'headers'>, body: unknown): ApiError {
  const requestId = response.headers.get('x-request-id') ?? undefined;
  const base = { status: response.status, ...(requestId ? { requestId } : {}) };
  if (isRecord(body) && typeof body['message'] === 'string') {
    const code =
      typeof body['error'] === 'string' ? body['error'] : typeof body['code'] === 'string' ? body['code'] : undefined;
    if (code !== undefined) {
      return new ApiError({
        ...base,
        code,
        message: body['message'],
        ...(isRecord(body['details']) ? { details: body['details'] } : {}),
      });
    }
  }
  const text = typeof body === 'string' ? body : body === undefined ? '' : JSON.stringify(body);
  const excerpt = text.length > 200 ? `${text.slice(0, 200)}…` : text;
  return new ApiError({
    ...base,
    code: UNEXPECTED_RESPONSE,
    message: `HTTP ${response.status} without an error envelope${excerpt ? `: ${excerpt}` : ''}`,
  });
}

/** What openapi-fetch resolves to: `data` on success, `error` (parsed body) otherwise. */
export interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The data of a successful call; throws ApiError otherwise.
 *
 *     const config = unwrap(await vault.GET('/config'));
 */
export function unwrap<R extends FetchResult<unknown>>(result: R): Exclude<R['data'], undefined> {
  if (result.response.ok && result.error === undefined) return result.data as Exclude<R['data'], undefined>;
  throw apiErrorFrom(result.response, result.error);
}
