// The error envelope of both services: every failure, whatever threw it, becomes one answer of the spec's shape.
import type { ErrorRequestHandler, Request } from 'express';
import { clip } from '../openapi/error-bounds.ts';
import { operationOf } from './app.ts';
import { type FailureCodes, mapFailure } from './failures.ts';
import { requestIdOf } from './request-id.ts';

export interface ErrorAnswer<Code extends string = string> {
  status: number;
  code: Code;
  message: string;
  details?: Record<string, unknown>;
  /** `Allow` of a 405. */
  headers?: Record<string, string>;
  /** For the log only (never sent). */
  internal?: unknown;
}

export interface ErrorEnvelope<Code extends string> {
  codes: FailureCodes<Code>;
  /** `{error, message}` or `{code, message, details?}`, as each spec says. */
  body: (answer: ErrorAnswer<Code>) => Record<string, unknown>;
  /** For answers that carry `internal`. */
  logFault?: (fault: { answer: ErrorAnswer<Code>; req: Request; requestId: string | undefined }) => void;
}

/** Longest message sent (both specs bound the envelope's `message`). */
export const MESSAGE_MAX = 1000;

/** For the request log. */
export const errorCodeOf = (req: Request): string | undefined => {
  const code = req.res?.locals['errorCode'] as unknown;
  return typeof code === 'string' ? code : undefined;
};

export function errorHandler<Code extends string>(envelope: ErrorEnvelope<Code>): ErrorRequestHandler {
  return function platformErrorHandler(err, req, res, _next) {
    const started = res.headersSent;
    const answer = mapFailure(envelope.codes, err, req, started ? undefined : res, operationOf(req));
    if (answer === 'answered') return;
    res.locals['errorCode'] = answer.code;
    if (answer.internal !== undefined) envelope.logFault?.({ answer, req, requestId: requestIdOf(res) });
    if (started) {
      res.destroy(); // nothing honest can be sent now
      return;
    }
    if (answer.headers) res.set(answer.headers);
    res.status(answer.status).json(envelope.body({ ...answer, message: clip(answer.message, MESSAGE_MAX) }));
  };
}
