// A JSON answer from text serialized before: the bytes and headers `res.json` sends (neither service sets `json
// replacer`, `json spaces` or `json escape`), without its per-request work of serializing and content typing.
import type { Request, Response } from 'express';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export interface JsonAnswerOptions {
  /** Response validation and a pending Idempotency-Key record hook `res.json`. */
  viaResJson?: boolean;
}

/** A Content-Type Express's send leaves as it is (its format sorts parameters). */
const PLAIN_UTF8_TYPE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+; charset=utf-8$/;

/** As Express's `send` would; false when the answer needs `send` itself (a conditional GET, no body, a type). */
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
  res.end(text);
  return true;
}

/** `res.json(body)`, whose JSON text is `text`; `body` is held to the response's type as `res.json` holds it. */
export function sendJsonText<Body>(
  req: Request,
  res: Response<Body>,
  body: NoInfer<Body>,
  text: string,
  options: JsonAnswerOptions = {},
): void {
  if (options.viaResJson || !writeText(req, res, text, JSON_CONTENT_TYPE)) res.json(body);
}

/** `res.send(text)` for an answer whose Content-Type is set already (`application/did+json; charset=utf-8`). */
export function sendTypedText(req: Request, res: Response, text: string): void {
  const type = res.getHeader('Content-Type');
  if (typeof type !== 'string' || !PLAIN_UTF8_TYPE.test(type) || !writeText(req, res, text, type)) res.send(text);
}
