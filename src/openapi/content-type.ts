// express-openapi-validator builds a request validator for each method, route and Content-Type header *as
// sent*, and keeps every one: `application/json; x=1`, `; x=2`, … each made it compile the route's schemas
// again (~50-100 ms) and hold them for the life of the process, on any route, before any key check on the
// public ones. The body is parsed before validation, so the validator needs only what kind of body it is:
// JSON is `application/json`, anything else one unsupported type. The client's header is put back for
// everything after (error messages, logs).
import type { RequestHandler } from 'express';

/** What every non-JSON body is to the validator: a type no operation accepts (so 415, as before). */
const NOT_JSON = 'application/x-not-json';

/** The Content-Type the validator sees for a header: JSON media types with any parameters → `application/json`. */
export function canonicalContentType(header: string): string {
  const media = header.split(';', 1)[0]!.trim().toLowerCase();
  return media === 'application/json' ? 'application/json' : NOT_JSON;
}

/** `validate` run with the canonical Content-Type, and the client's header restored afterwards. */
export function withCanonicalContentType(validate: RequestHandler): RequestHandler {
  return function canonicalContentTypeValidation(req, res, next) {
    const sent = req.headers['content-type'];
    if (sent === undefined) return validate(req, res, next);
    req.headers['content-type'] = canonicalContentType(sent);
    let restored = false;
    const restore = () => {
      if (!restored) req.headers['content-type'] = sent;
      restored = true;
    };
    try {
      return validate(req, res, (err?: unknown) => {
        restore();
        next(err as Error);
      });
    } catch (err) {
      restore();
      throw err;
    }
  };
}
