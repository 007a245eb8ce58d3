// Prepare or submit on one endpoint (vault-api.yaml "Write routes", did-resolver.yaml "Writes: prepare and
// submit"): choosing the mode and counting each submit's outcome happen here, once.
import type { Request, Response } from 'express';
import type { OperationHandler, OperationRequest, OperationResponse, RequestBodyOf } from './typed.ts';

export interface WriteModes<B, Req extends Request = Request, Res extends Response = Response> {
  prepare(body: B, req: Req, res: Res): Promise<void>;
  submit(signedXdr: string, req: Req, res: Res): Promise<void>;
}

export interface WriteOptions {
  /** `outcome`: `success` or the error code. */
  submitted?: (route: string, outcome: string) => void;
  routeOf: (req: Request) => string;
  /** Undefined counts as `internal_error`. */
  codeOf: (err: unknown) => string | undefined;
}

/** Undefined when the body prepares. */
export function signedXdrOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || !('signedXdr' in body)) return undefined;
  const xdr = body.signedXdr;
  return typeof xdr === 'string' ? xdr : undefined;
}

export type PrepareOf<Body> = Exclude<Body, { signedXdr: string }>;

/** A body with a string `signedXdr` → `submit`, anything else → `prepare`. */
export function prepareOrSubmit<Req extends Request = Request, Res extends Response = Response>(
  options: WriteOptions,
  route: WriteModes<PrepareOf<Req['body']>, Req, Res>,
): (req: Req, res: Res) => Promise<void> {
  return async (req, res) => {
    const signedXdr = signedXdrOf(req.body);
    // PrepareOf is that same test, as a type.
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

export type PrepareBodyOf<Op> = PrepareOf<RequestBodyOf<Op>>;

/** `prepareOrSubmit` typed from one operation of a spec's generated `operations`. */
export function writeOperation<Op>(
  options: WriteOptions,
  route: WriteModes<PrepareBodyOf<Op>, OperationRequest<Op>, OperationResponse<Op>>,
): OperationHandler<Op> {
  return prepareOrSubmit(options, route);
}
