// The JSON body reader of both apps: express.json with the content codings stated, and its decoding failures
// answered in the app's envelope. body-parser inflates gzip, deflate and br itself, but a body that does not
// decode (`Content-Encoding: gzip` and the text `notgzip`) reached the error handlers as a bare zlib error, a
// 500; and which codings it takes depends on the Node version (zstd). Here: identity, gzip, deflate and br, on
// every runtime; any other coding (or a list of codings) → 415; a body that does not decode → 400. The size
// limit counts decoded bytes, and reading stops at the limit (raw-body), so a small compressed body that would
// inflate to gigabytes is a 413 after at most the limit. The text is also read as I-JSON (RFC 7493,
// src/http/json-text.ts): a string with a lone surrogate is refused on every route (no hash, JCS or UTF-8
// encoder can take it), and repeated member names are found for the routes that must refuse them
// (`JsonBodyOptions.findDuplicates`, then `duplicateMembersOf`). Elsewhere only a text with a `\u` escape is
// scanned: no other text can hold a lone surrogate.
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { inspectJsonText } from '../http/json-text.ts';

/** The content codings a request body may have (both specs, "Errors"). */
export const CONTENT_CODINGS: readonly string[] = ['identity', 'gzip', 'deflate', 'br'];

export interface BodyDecodingErrors {
  /** `Content-Encoding` names a coding not in CONTENT_CODINGS: 415. */
  unsupported(coding: string): Error;
  /** The body does not decode as its `Content-Encoding` says: 400. */
  corrupt(coding: string): Error;
  /** A request that must carry a body (`JsonBodyOptions.needsBody`) came without one: 400. */
  missing?(): Error;
  /** A string of the body holds a lone surrogate (not I-JSON): 400. `at` is its JSON Pointer. */
  loneSurrogate(at: string): Error;
  /** The body nests deeper than `JsonBodyOptions.maxDepth` (where that applies): 400. */
  tooDeep?(depth: number, max: number): Error;
}

export interface JsonBodyOptions {
  /** The most decoded bytes a body may have: one for every request, or chosen per request (keyless callers). */
  limit: number | ((req: Request) => number);
  strict?: boolean;
  /** Whether this request may carry a body at all; others are not read (default: every request). */
  takesBody?: (req: Request) => boolean;
  /** Whether this request must carry a body (its operation's requestBody is required); default: none must. */
  needsBody?: (req: Request) => boolean;
  /** Whether this request's repeated member names are looked for (`duplicateMembersOf`); default: none. */
  findDuplicates?: (req: Request) => boolean;
  /**
   * The deepest nesting a body scanned for repeated names may have (`[]` and `{"a":1}` are 1 deep). Those
   * bodies hold documents the service canonicalizes, hashes and may answer back: recursion over them must
   * stay far from the stack's end. Default: no bound.
   */
  maxDepth?: number;
}

/** body-parser's own failures carry a `type` (`entity.too.large`, `entity.parse.failed`, …); a decoder's do not. */
const isDecoderFailure = (err: unknown): boolean =>
  typeof err === 'object' && err !== null && typeof (err as { type?: unknown }).type !== 'string';

const hasBody = (req: Request): boolean =>
  req.headers['transfer-encoding'] !== undefined ||
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

/** Members named twice in the body, as JSON Pointers (RFC 6901); empty when none or not read. */
const duplicates = new WeakMap<Request, readonly string[]>();
export const duplicateMembersOf = (req: Request): readonly string[] => duplicates.get(req) ?? [];

/** Thrown from body-parser's `verify` hook, which passes it on: the app's own refusal of the text, inside. */
class Refused extends Error {
  readonly refusal: Error;
  constructor(refusal: Error) {
    super(refusal.message);
    this.refusal = refusal;
  }
}

function inspectBody(req: Request, buf: Buffer, encoding: string | null, o: JsonBodyOptions, e: BodyDecodingErrors) {
  const findDuplicates = o.findDuplicates?.(req) ?? false;
  // express.json only takes UTF-8, -16 and -32; TextDecoder knows their labels.
  const text = !encoding || encoding === 'utf-8' ? buf.toString('utf8') : new TextDecoder(encoding).decode(buf);
  // Only a `\u` escape can make a lone surrogate: other texts are scanned only where names must be checked.
  if (!findDuplicates && !text.includes('\\u')) return;
  const found = inspectJsonText(text);
  if (!found) return; // not JSON: the parser says so
  if (found.loneSurrogateAt !== undefined) throw new Refused(e.loneSurrogate(found.loneSurrogateAt));
  if (findDuplicates && o.maxDepth !== undefined && found.depth > o.maxDepth)
    throw new Refused(e.tooDeep?.(found.depth, o.maxDepth) ?? new Error(`the body nests ${found.depth} deep`));
  if (found.duplicateMembers.length > 0) duplicates.set(req, found.duplicateMembers);
}

export function jsonBody(options: JsonBodyOptions, errors: BodyDecodingErrors): RequestHandler {
  // One body-parser per limit (body-parser takes a fixed one); the limits are a few constants.
  const parsers = new Map<number, RequestHandler>();
  const parserFor = (limit: number): RequestHandler => {
    let parser = parsers.get(limit);
    if (!parser) {
      parser = express.json({
        limit,
        strict: options.strict ?? true,
        verify: ((req: Request, _res: Response, buf: Buffer, encoding: string | null) =>
          inspectBody(req, buf, encoding, options, errors)) as never,
      });
      parsers.set(limit, parser);
    }
    return parser;
  };
  const limitOf = typeof options.limit === 'number' ? () => options.limit as number : options.limit;
  return function readJsonBody(req: Request, res: Response, next: NextFunction): void {
    if (options.takesBody && !options.takesBody(req)) return next();
    const header = req.headers['content-encoding'];
    const coding = header === undefined ? 'identity' : header.trim().toLowerCase();
    // An empty body is no body, whatever its coding says.
    if (!hasBody(req)) return errors.missing && options.needsBody?.(req) ? next(errors.missing()) : next();
    if (!CONTENT_CODINGS.includes(coding)) return next(errors.unsupported(header ?? ''));
    parserFor(limitOf(req))(req, res, (err?: unknown) => {
      if (err instanceof Refused) return next(err.refusal);
      if (err !== undefined && coding !== 'identity' && isDecoderFailure(err)) return next(errors.corrupt(coding));
      next(err as Error | undefined);
    });
  };
}

/** The words of a 415 for `coding`. */
export const unsupportedCodingMessage = (coding: string): string =>
  `Content-Encoding ${JSON.stringify(coding)} is not supported: send the body as is, or compressed with one of gzip, deflate, br`;

/** The words of a 400 for a body that does not decode as `coding`. */
export const corruptBodyMessage = (coding: string): string =>
  `the body is not valid ${coding} data (Content-Encoding: ${coding})`;

/** The words of a 400 for a body nested `depth` levels where `max` are allowed. */
export const tooDeepMessage = (depth: number, max: number): string =>
  `the body nests ${depth} levels deep; a credential or presentation to verify may nest at most ${max} levels (counted from the request body)`;

/** The words of a 400 for a lone surrogate at `at` (a JSON Pointer). */
export const loneSurrogateMessage = (at: string): string =>
  `the body is not I-JSON (RFC 7493): the string at ${at === '' ? 'the top level' : JSON.stringify(at)} holds a lone surrogate escape (\\ud800-\\udfff without its pair); send text that UTF-8 can encode`;
