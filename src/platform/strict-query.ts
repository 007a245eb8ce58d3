// Integer query parameters must be plain decimal digits. The validator coerces with JavaScript's
// Number(), which reads `0x10`, `1e1`, `0b11`, `+5` and `1.0` as integers; the spec means digits.
import type { RequestHandler } from 'express';
import { operationOf } from './app.ts';

const DECIMAL = /^[0-9]+$/;

export function strictIntegerQuery(invalid: (message: string) => Error): RequestHandler {
  return (req, _res, next) => {
    const op = operationOf(req);
    if (!op || op.integerQuery.length === 0) return next();
    const q = req.originalUrl.indexOf('?');
    if (q < 0) return next();
    const raw = new URLSearchParams(req.originalUrl.slice(q + 1));
    for (const name of op.integerQuery) {
      for (const value of raw.getAll(name)) {
        if (!DECIMAL.test(value)) {
          const got = JSON.stringify(value.slice(0, 40));
          return next(invalid(`query.${name} must be a whole number written in decimal digits, got ${got}`));
        }
      }
    }
    next();
  };
}
