// X-Request-ID on every answer (vault-api.yaml components.headers.X-Request-ID): the client's when it is
// 1 to 200 visible ASCII characters, else a fresh UUID. The request line itself is the observability
// `requestLog`'s, mounted after this so that it logs the id chosen here.
import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler } from 'express';

const ids = new WeakMap<Request, string>();

/** The request's correlation id (set by `requestContext`). */
export const requestIdOf = (req: Request): string | undefined => ids.get(req);

/** Printable ASCII, 1 to 200 characters; anything else is replaced by a fresh id. */
const ACCEPTABLE_ID = /^[\x21-\x7e]{1,200}$/;

export function requestContext(): RequestHandler {
  return (req, res, next) => {
    const sent = req.get('x-request-id');
    const id = sent !== undefined && ACCEPTABLE_ID.test(sent) ? sent : randomUUID();
    ids.set(req, id);
    res.set('X-Request-ID', id);
    next();
  };
}
