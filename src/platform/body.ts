// The JSON body reader of both apps: express.json with the codings fixed (which ones body-parser takes depends on
// the Node version, and a body that did not decode was a bare zlib error, a 500), and the text read as I-JSON
// (RFC 7493, src/http/json-text.ts).
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { inspectJsonText } from '../http/json-text.ts';
import { operationOf } from './app.ts';

/** The content codings a request body may have (both specs, "Errors"). */
export const CONTENT_CODINGS: readonly string[] = ['identity', 'gzip', 'deflate', 'br'];

/** 415 for `unsupported`, 400 for the others. */
export interface BodyDecodingErrors {
  unsupported(coding: string): Error;
  corrupt(coding: string): Error;
  /** The request's operation requires a body (`requestBody.required`) and it came without one. */
  missing?(): Error;
  /** `at` is a JSON Pointer. */
  loneSurrogate(at: string): Error;
  tooDeep?(depth: number, max: number): Error;
}

export interface JsonBodyOptions {
  /** Decoded bytes (reading stops there, so a compressed bomb is a 413), or per request (keyless callers). */
  limit: number | ((req: Request) => number);
  strict?: boolean;
  /** Which requests' repeated member names are looked for (`duplicateMembersOf`). */
  findDuplicates?: (req: Request) => boolean;
  /** For those: the documents are canonicalized and hashed by recursion, which must stay far from the stack's end. */
  maxDepth?: number;
}

/** body-parser's own failures carry a `type`; a decoder's do not. */
const isDecoderFailure = (err: unknown): boolean =>
  typeof err === 'object' && err !== null && typeof (err as { type?: unknown }).type !== 'string';

const hasBody = (req: Request): boolean =>
  req.headers['transfer-encoding'] !== undefined ||
  (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');

const DUPLICATES = Symbol('duplicateMembers');
type WithDuplicates = Request & { [DUPLICATES]?: readonly string[] };

/** Members named twice in the body, as JSON Pointers: looked for where `findDuplicates` says, and in any text with a
 *  `\u` escape; empty when none or not looked for. */
export const duplicateMembersOf = (req: Request): readonly string[] => (req as WithDuplicates)[DUPLICATES] ?? [];

/** Thrown from body-parser's `verify` hook, which passes it on. */
class Refused extends Error {
  readonly refusal: Error;
  constructor(refusal: Error) {
    super(refusal.message);
    this.refusal = refusal;
  }
}

function inspectBody(req: Request, buf: Buffer, encoding: string | null, o: JsonBodyOptions, e: BodyDecodingErrors) {
  const findDuplicates = o.findDuplicates?.(req) ?? false;
  const text = !encoding || encoding === 'utf-8' ? buf.toString('utf8') : new TextDecoder(encoding).decode(buf);
  // Only a `\u` escape can make a lone surrogate.
  if (!findDuplicates && !text.includes('\\u')) return;
  const found = inspectJsonText(text);
  if (!found) return; // not JSON: the parser says so
  if (found.loneSurrogateAt !== undefined) throw new Refused(e.loneSurrogate(found.loneSurrogateAt));
  if (findDuplicates && o.maxDepth !== undefined && found.depth > o.maxDepth)
    throw new Refused(e.tooDeep?.(found.depth, o.maxDepth) ?? new Error(`the body nests ${found.depth} deep`));
  if (found.duplicateMembers.length > 0) (req as WithDuplicates)[DUPLICATES] = found.duplicateMembers;
}

export function jsonBody(options: JsonBodyOptions, errors: BodyDecodingErrors): RequestHandler {
  // body-parser takes a fixed limit; the limits are a few constants.
  const parsers = new Map<number, RequestHandler>();
  const verify = (req: Request, _res: Response, buf: Buffer, encoding: string | null) =>
    inspectBody(req, buf, encoding, options, errors);
  const parserFor = (limit: number): RequestHandler => {
    const made = parsers.get(limit);
    if (made) return made;
    const parser = express.json({ limit, strict: options.strict ?? true, verify: verify as never });
    parsers.set(limit, parser);
    return parser;
  };
  const limitOf = typeof options.limit === 'number' ? () => options.limit as number : options.limit;
  return function readJsonBody(req: Request, res: Response, next: NextFunction): void {
    const header = req.headers['content-encoding'];
    const coding = header === undefined ? 'identity' : header.trim().toLowerCase();
    // An empty body is no body, whatever its coding says; only an operation that requires one refuses it.
    if (!hasBody(req)) return next(operationOf(req)?.body?.required ? errors.missing?.() : undefined);
    if (!CONTENT_CODINGS.includes(coding)) return next(errors.unsupported(header ?? ''));
    parserFor(limitOf(req))(req, res, (err?: unknown) => {
      if (err instanceof Refused) return next(err.refusal);
      if (err !== undefined && coding !== 'identity' && isDecoderFailure(err)) return next(errors.corrupt(coding));
      next(err as Error | undefined);
    });
  };
}

export const unsupportedCodingMessage = (coding: string): string =>
  `Content-Encoding ${JSON.stringify(coding)} is not supported: send the body as is, or compressed with one of gzip, deflate, br`;

export const corruptBodyMessage = (coding: string): string =>
  `the body is not valid ${coding} data (Content-Encoding: ${coding})`;

export const tooDeepMessage = (depth: number, max: number): string =>
  `the body nests ${depth} levels deep; a credential or presentation to verify may nest at most ${max} levels (counted from the request body)`;

export const loneSurrogateMessage = (at: string): string =>
  `the body is not I-JSON (RFC 7493): the string at ${at === '' ? 'the top level' : JSON.stringify(at)} holds a lone surrogate escape (\\ud800-\\udfff without its pair); send text that UTF-8 can encode`;
