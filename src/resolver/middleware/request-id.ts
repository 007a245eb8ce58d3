// X-Request-ID (spec "Headers, limits and caching"): a client value of 1 to 128 visible ASCII characters is
// echoed; anything else, or none, is replaced by a generated UUID. Every response carries it. The rule is
// the observability request log's (assignRequestId); this runs whether or not a logger is mounted.
import type { NextFunction, Request, Response } from 'express';
import { assignRequestId, requestIdOf as requestIdOfResponse } from '../../observability/index.ts';

export function requestId() {
  return function requestIdMiddleware(req: Request, res: Response, next: NextFunction): void {
    res.locals.requestId = assignRequestId(req, res);
    next();
  };
}

export function requestIdOf(res: Response): string {
  return requestIdOfResponse(res) ?? 'unknown';
}
