// X-Request-ID, the same rule in both services: the client's value when it is 1 to `maxLength` visible ASCII
// characters (each spec's `X-Request-ID` header says how many: 200 in vault-api.yaml, 128 in
// did-resolver.yaml; ApiModel.requestIdMaxLength), else a fresh UUID. Every answer carries it; it is kept in `res.locals.requestId`,
// which the request log reads too (src/observability/logging.ts).
import { randomUUID } from 'node:crypto';
import type { RequestHandler, Response } from 'express';

export interface RequestIdOptions {
  /** Longest client id echoed. */
  maxLength: number;
  /** Fresh ids (tests pass their own). */
  newId?: () => string;
}

export function requestIds({ maxLength, newId = randomUUID }: RequestIdOptions): RequestHandler {
  if (!Number.isInteger(maxLength) || maxLength < 1)
    throw new RangeError('requestIds: maxLength must be a positive integer');
  const acceptable = new RegExp(`^[\\x21-\\x7e]{1,${maxLength}}$`);
  return function requestId(req, res, next) {
    const sent = req.headers['x-request-id'];
    const id = typeof sent === 'string' && acceptable.test(sent) ? sent : newId();
    res.locals['requestId'] = id;
    res.setHeader('X-Request-ID', id);
    next();
  };
}

/** The request's correlation id (set by `requestIds`). */
export function requestIdOf(res: Response): string | undefined {
  const id = res.locals?.['requestId'] as unknown;
  return typeof id === 'string' ? id : undefined;
}
