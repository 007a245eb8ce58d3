// The JSON body reader of both apps: express.json with the content codings stated, and its decoding
// failures answered in the app's envelope. body-parser inflates gzip, deflate and br itself, but a body
// that does not decode (`Content-Encoding: gzip` and the text `notgzip`) reached the error handlers as a
// bare zlib error, a 500; and which codings it takes depends on the Node version (zstd). Here: identity,
// gzip, deflate and br, on every runtime; any other coding (or a list of codings) → 415; a body that does
// not decode → 400. The size limit counts decoded bytes, and reading stops at the limit (raw-body), so a
// small compressed body that would inflate to gigabytes is a 413 after at most the limit.
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';

/** The content codings a request body may have (both specs, "Errors"). */
export const CONTENT_CODINGS: readonly string[] = ['identity', 'gzip', 'deflate', 'br'];

export interface BodyDecodingErrors {
  /** `Content-Encoding` names a coding not in CONTENT_CODINGS: 415. */
  unsupported(coding: string): Error;
  /** The body does not decode as its `Content-Encoding` says: 400. */
  corrupt(coding: string): Error;
  /** A request that must carry a body (`JsonBodyOptions.needsBody`) came without one: 400. */
  missing?(): Error;
}

export interface JsonBodyOptions {
  limit: number;
  strict?: boolean;
  /** Whether this request may carry a body at all; others are not read (default: every request). */
  takesBody?: (req: Request) => boolean;
  /** Whether this request must carry a body (its operation's requestBody is required); default: none must. */
  needsBody?: (req: Request) => boolean;
}

/** body-parser's own failures carry a `type` (`entity.too.large`, `entity.parse.failed`, …); a decoder's do not. */
const isDecoderFailure = (err: unknown): boolean =>
  typeof err === 'object' && err !== null && typeof (err as { type?: unknown }).type !== 'string';

const hasBody = (req: Request): boolean =>
  req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

export function jsonBody(options: JsonBodyOptions, errors: BodyDecodingErrors): RequestHandler {
  const parse = express.json({ limit: options.limit, strict: options.strict ?? true });
  return function readJsonBody(req: Request, res: Response, next: NextFunction): void {
    if (options.takesBody && !options.takesBody(req)) return next();
    const header = req.headers['content-encoding'];
    const coding = header === undefined ? 'identity' : header.trim().toLowerCase();
    // An empty body is no body, whatever its coding says.
    if (!hasBody(req)) return errors.missing && options.needsBody?.(req) ? next(errors.missing()) : next();
    if (!CONTENT_CODINGS.includes(coding)) return next(errors.unsupported(header ?? ''));
    parse(req, res, (err?: unknown) => {
      if (err !== undefined && coding !== 'identity' && isDecoderFailure(err)) return next(errors.corrupt(coding));
      next(err as Error | undefined);
    });
  };
}

/** The words of a 415 for `coding`. */
export const unsupportedCodingMessage = (coding: string): string =>
  `Content-Encoding ${JSON.stringify(coding)} is not supported: send the body as is, or compressed with one of gzip, deflate, br`;

/** The words of a 400 for a body that does not decode as `coding`. */
export const corruptBodyMessage = (coding: string): string => `the body is not valid ${coding} data (Content-Encoding: ${coding})`;
