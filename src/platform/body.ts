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

/** Thrown from body-parser's `verify` hook; body-parser passes it on with this `type`. */
class LoneSurrogate extends Error {
  readonly type = 'json.lone_surrogate';
  readonly at: string;
  constructor(at: string) {
    super('lone surrogate');
    this.at = at;
  }
}

/** Thrown from the `verify` hook for a body that nests deeper than allowed. */
class TooDeep extends Error {
  readonly type = 'json.too_deep';
  readonly depth: number;
  constructor(depth: number) {
    super('too deep');
    this.depth = depth;
  }
}

function inspectBody(
  req: Request,
  buf: Buffer,
  encoding: string | null,
  findDuplicates: boolean,
  maxDepth: number | undefined,
): void {
  // express.json only takes UTF-8, -16 and -32; TextDecoder knows their labels.
  const text = !encoding || encoding === 'utf-8' ? buf.toString('utf8') : new TextDecoder(encoding).decode(buf);
  // Only a `\u` escape can make a lone surrogate: other texts are scanned only where names must be checked.
  if (!findDuplicates && !text.includes('\\u')) return;
  const found = inspectJsonText(text);
  if (!found) return; // not JSON: the parser says so
  if (found.loneSurrogateAt !== undefined) throw new LoneSurrogate(found.loneSurrogateAt);
  if (findDuplicates && maxDepth !== undefined && found.depth > maxDepth) throw new TooDeep(found.depth);
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
          inspectBody(req, buf, encoding, options.findDuplicates?.(req) ?? false, options.maxDepth)) as never,
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
      if (err instanceof Error && (err as { type?: unknown }).type === 'json.lone_surrogate') {
        return next(errors.loneSurrogate((err as unknown as LoneSurrogate).at ?? ''));
      }
      if (err instanceof Error && (err as { type?: unknown }).type === 'json.too_deep') {
        const depth = (err as unknown as TooDeep).depth;
        return next(errors.tooDeep ? errors.tooDeep(depth, options.maxDepth ?? 0) : err);
      }
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
