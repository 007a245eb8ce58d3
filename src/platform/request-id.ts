// X-Request-ID: the client's value when it is 1 to `maxLength` visible ASCII characters (each spec's header
// says how many), else a fresh UUID.
import { randomUUID } from 'node:crypto';
import type { RequestHandler, Response } from 'express';

export interface RequestIdOptions {
  maxLength: number;
  newId?: () => string;
}

export function requestIds({ maxLength, newId = randomUUID }: RequestIdOptions): RequestHandler {
  const acceptable = new RegExp(`^[\\x21-\\x7e]{1,${maxLength}}$`);
  return function requestId(req, res, next) {
    const sent = req.headers['x-request-id'];
    const id = typeof sent === 'string' && acceptable.test(sent) ? sent : newId();
    res.locals['requestId'] = id;
    res.setHeader('X-Request-ID', id);
    next();
  };
}

export function requestIdOf(res: Response): string | undefined {
  const id = res.locals?.['requestId'] as unknown;
  return typeof id === 'string' ? id : undefined;
}
