// Prepare or submit on one endpoint, for both services (vault-api.yaml "Write routes", did-resolver.yaml
// "Writes: prepare and submit"): a body with `signedXdr` submits the signed transaction after the route's
// safe-submit checks; any other body prepares the unsigned transaction. What is built, what is checked and
// the answers are each service's; choosing the mode and counting each submit's outcome in the metrics
// (success, or the error code) happen here, once.
import type { Request, Response } from 'express';
import type { OperationHandler, OperationRequest, OperationResponse, RequestBodyOf } from './typed.ts';

/** The two halves of a write endpoint's handler. */
export interface WriteModes<B, Req extends Request = Request, Res extends Response = Response> {
  /** Builds the unsigned transaction from a prepare body and answers it. */
  prepare(body: B, req: Req, res: Res): Promise<void>;
  /** Checks and sends a signed transaction, and answers it. */
  submit(signedXdr: string, req: Req, res: Res): Promise<void>;
}

export interface WriteOptions {
  /** Counts a submit: the route template and `success` or the error code. */
  submitted?: (route: string, outcome: string) => void;
  /** The route template of a request, for the count. */
  routeOf: (req: Request) => string;
  /** The code of a failed submit (`internal_error` when it has none). */
  codeOf: (err: unknown) => string | undefined;
}

/** The signed transaction of a submit body, or undefined when the body prepares. */
export function signedXdrOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || !('signedXdr' in body)) return undefined;
  const xdr = body.signedXdr;
  return typeof xdr === 'string' ? xdr : undefined;
}

/** The prepare branch of a write body: the members of its union without a string `signedXdr`. */
export type PrepareOf<Body> = Exclude<Body, { signedXdr: string }>;

/**
 * The handler of a write route: a body with a string `signedXdr` → `submit`, anything else → `prepare`, which
 * takes the prepare branch of the request's body type (request validation has held the body to it).
 */
export function prepareOrSubmit<Req extends Request = Request, Res extends Response = Response>(
  options: WriteOptions,
  route: WriteModes<PrepareOf<Req['body']>, Req, Res>,
): (req: Req, res: Res) => Promise<void> {
  return async (req, res) => {
    const signedXdr = signedXdrOf(req.body);
    // Without a string `signedXdr` the body is the prepare branch (PrepareOf is that same test, as a type).
    if (signedXdr === undefined) return route.prepare(req.body as PrepareOf<Req['body']>, req, res);
    try {
      await route.submit(signedXdr, req, res);
    } catch (err) {
      options.submitted?.(options.routeOf(req), options.codeOf(err) ?? 'internal_error');
      throw err;
    }
    options.submitted?.(options.routeOf(req), 'success');
  };
}

/** The prepare branch of an operation's body (the body without `signedXdr`). */
export type PrepareBodyOf<Op> = PrepareOf<RequestBodyOf<Op>>;

/** `prepareOrSubmit` typed from one operation of a spec's generated `operations`. */
export function writeOperation<Op>(
  options: WriteOptions,
  route: WriteModes<PrepareBodyOf<Op>, OperationRequest<Op>, OperationResponse<Op>>,
): OperationHandler<Op> {
  return prepareOrSubmit(options, route);
}
