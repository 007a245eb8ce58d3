// X-Request-ID (spec "Headers, limits and caching"): a client value of 1 to 128 visible ASCII characters is
// echoed; anything else, or none, is replaced by a generated UUID. Every response carries it.
import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

const VALID = /^[\x21-\x7e]{1,128}$/;

export function requestId() {
  return function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
    const given = req.headers['x-request-id'];
    const id = typeof given === 'string' && VALID.test(given) ? given : randomUUID();
    res.locals.requestId = id;
    res.setHeader('X-Request-ID', id);
    next();
  };
}

export function requestIdOf(res: Response): string {
  return (res.locals.requestId as string | undefined) ?? 'unknown';
}
