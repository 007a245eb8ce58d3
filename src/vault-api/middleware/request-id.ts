// X-Request-ID on every answer (vault-api.yaml components.headers.X-Request-ID) and, when the app has no
// `logger` (whose `requestLog` writes the request line then), one structured log line per request through
// `deps.log`: each request is logged once. The line never holds the API key, a body, or a query string.
import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import type { VaultAppDeps } from '../context.ts';

const ids = new WeakMap<Request, string>();

/** The request's correlation id (set by `requestContext`). */
export const requestIdOf = (req: Request): string | undefined => ids.get(req);

/** Printable ASCII, 1 to 200 characters; anything else is replaced by a fresh id. */
const ACCEPTABLE_ID = /^[\x21-\x7e]{1,200}$/;

export interface RequestLogFields {
  /** The route template matched in the description, when one matched. */
  route(req: Request): string | undefined;
  /** The key id of an authenticated request. */
  keyId(req: Request): string | undefined;
  /** The error code answered, when the answer is an error. */
  error(req: Request): string | undefined;
}

export function requestContext(deps: VaultAppDeps, fields: RequestLogFields): RequestHandler {
  return (req, res, next) => {
    const sent = req.get('x-request-id');
    const id = sent !== undefined && ACCEPTABLE_ID.test(sent) ? sent : randomUUID();
    ids.set(req, id);
    res.set('X-Request-ID', id);
    if (deps.log && !deps.logger) {
      const log = deps.log;
      const started = process.hrtime.bigint();
      res.once('close', () => {
        const keyId = fields.keyId(req);
        const error = fields.error(req);
        log({
          level: 'info',
          requestId: id,
          network: deps.profile.network,
          method: req.method,
          route: fields.route(req) ?? req.path.split('/').slice(0, 2).join('/'),
          status: res.statusCode,
          ms: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
          ...(keyId ? { keyId } : {}),
          ...(error ? { error } : {}),
          ...(res.writableFinished ? {} : { aborted: true }),
        });
      });
    }
    next();
  };
}
