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

/**
 * Answers `body` (whose JSON text is `text`) with the status already set, as `res.json(body)` would. A
 * conditional GET (If-None-Match, If-Modified-Since) and an answer whose type a handler set go through
 * `res.json`, which decides them.
 */
export function sendJsonText(
  req: Request,
  res: Response,
  body: unknown,
  text: string,
  options: JsonAnswerOptions = {},
): void {
  const conditional =
    (req.method === 'GET' || req.method === 'HEAD') &&
    (req.headers['if-none-match'] !== undefined || req.headers['if-modified-since'] !== undefined);
  const bodiless = res.statusCode === 204 || res.statusCode === 205 || res.statusCode === 304;
  if (options.viaResJson || conditional || bodiless || res.hasHeader('Content-Type')) {
    res.json(body);
    return;
  }
  res.setHeader('Content-Type', JSON_CONTENT_TYPE);
  res.setHeader('Content-Length', String(Buffer.byteLength(text)));
  // Node sends no body to a HEAD (it knows the request's method), as after res.json.
  res.end(text);
}
