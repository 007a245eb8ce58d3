// A JSON answer from text serialized before: the bytes and headers Express's `res.json` sends (its app
// settings `json replacer`, `json spaces` and `json escape` are set by neither service), without what
// `res.json` does per request on top of the write: serializing, looking the media type up, and parsing
// and formatting the Content-Type it has just set to add the charset. Routes whose answer is the same for
// many requests (GET /config) keep its text; others serialize once here.
import type { Request, Response } from 'express';

/** What `res.json` sends as Content-Type. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export interface JsonAnswerOptions {
  /**
   * Through `res.json` after all: response validation (tests and development) hooks it, and so does a
   * pending Idempotency-Key record.
   */
  viaResJson?: boolean;
}

/** A Content-Type Express's send leaves as it is: a lower-case type with the charset alone (its format sorts parameters). */
const PLAIN_UTF8_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+; charset=utf-8$/;

/**
 * Writes `text` with the status already set, as Express's `send` would, and says so; false when the answer
 * needs `send` itself: a conditional GET (If-None-Match, If-Modified-Since: `send` decides a 304), a status
 * without a body, or a Content-Type set before that is not `type`.
 */
function writeText(req: Request, res: Response, text: string, type: string): boolean {
  const conditional =
    (req.method === 'GET' || req.method === 'HEAD') &&
    (req.headers['if-none-match'] !== undefined || req.headers['if-modified-since'] !== undefined);
  const bodiless = res.statusCode === 204 || res.statusCode === 205 || res.statusCode === 304;
  if (conditional || bodiless) return false;
  const set = res.getHeader('Content-Type');
  if (set === undefined) res.setHeader('Content-Type', type);
  else if (set !== type) return false;
  res.setHeader('Content-Length', String(Buffer.byteLength(text)));
  // Node sends no body to a HEAD (it knows the request's method), as after `send`.
  res.end(text);
  return true;
}

/**
 * Answers `body`, whose JSON text is `text`, with the status already set, as `res.json(body)` would. `body` is
 * held to the response's type (an operation's success body, src/platform/typed.ts), as `res.json` holds it.
 */
export function sendJsonText<Body>(
  req: Request,
  res: Response<Body>,
  body: NoInfer<Body>,
  text: string,
  options: JsonAnswerOptions = {},
): void {
  if (options.viaResJson || !writeText(req, res, text, JSON_CONTENT_TYPE)) res.json(body);
}

/**
 * `res.send(text)` for an answer whose Content-Type is set already (`application/did+json; charset=utf-8`):
 * written directly when that type is one `send` would leave unchanged.
 */
export function sendTypedText(req: Request, res: Response, text: string): void {
  const type = res.getHeader('Content-Type');
  if (typeof type !== 'string' || !PLAIN_UTF8_TYPE.test(type) || !writeText(req, res, text, type)) res.send(text);
}
