// express-openapi-validator, the one adapter: it is used through `OpenApiValidator.middleware(options)` and
// the array of middleware that call returns, mounted whole, as its documentation shows. The public options
// it is given, and why:
//   - `apiSpec`: the description of ONE path (ApiModel.validatorDocument), one instance per path, made on the path's
//     first request or, in the started services, before it while the process is idle (the warm-up of
//     src/platform/app.ts, src/platform/idle.ts). Given the whole description, the validator's route lookup compiles
//     every path template of it, in order, on every request (its `lookupRoute`); Express has already matched the
//     path by then (src/platform/app.ts), so one template is all the instance needs. The document also declares HEAD
//     as its GET, so that a HEAD is validated as the GET it is routed to. Each instance, as it loads, compiles the
//     OpenAPI 3.1 meta-schema whatever `validateApiSpec` says (5.6.2 framework/index.js `initialize` makes an
//     `OpenAPISchemaValidator` every time: about 0.1 s of CPU, most of an instance's cost), and on a route's first
//     request its schemas: apps of one description and options (the testnet and mainnet vault APIs) therefore share
//     their instances through one `ValidatorPool`. An instance keeps nothing of an app: the request's state is on
//     the request, and the `app.param` hooks it adds to the first app that runs it do not reach the routes, which
//     are on a router of their own.
//   - `validateRequests` (`allErrors` where the service reports every failure, no unknown query parameters),
//     `validateResponses` (tests and development), `validateSecurity: false` (keys are the service's),
//     `ajvFormats: {mode: 'full'}` (calendar-checked dates), `formats` (whole StrKeys, src/openapi/formats.ts),
//     `fileUploader: false`, `ignoreUndocumented: false`, `validateApiSpec` (on the first path only: the
//     check validates the meta-schema and then the document against it, on top of the compile every instance
//     does; `npm run lint:spec` checks the whole description in CI).
// One upstream defect is worked around here, in this file alone (`canonicalContentType`); it uses no option
// of the validator, because none reaches it. The request validator keeps one compiled validator per method,
// route and Content-Type *as sent* (5.6.2 openapi.request.validator.js: its cache key is
// `ContentType.normalize()`, every media-type parameter but `boundary`), for the life of the process, so
// `application/json; x=1`, `; x=2`, … each compiled the route's schemas again (~50-100 ms and memory per
// value). The body is read before validation, so the middleware `middleware()` returned is shown the body's
// kind as the request's Content-Type (`application/json`, or one type no operation takes, so 415); the
// client's header is put back once it has run.
import express, { type RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { ADDRESS_FORMATS } from '../openapi/formats.ts';
import type { ApiModel, PathRoute } from './operations.ts';

export interface ValidatorOptions {
  /** Report every failure of a request (the vault API picks the most specific code among them), or the first. */
  allErrors: boolean;
  /** Validate responses too (tests and development; never in production). */
  validateResponses: boolean;
}

/** What every non-JSON body is to the validator: a type no operation accepts (so 415). */
const NOT_JSON = 'application/x-not-json';

/** The Content-Type the validator sees for a header: JSON media types with any parameters → `application/json`. */
export function canonicalContentType(header: string): string {
  const media = header.split(';', 1)[0]!.trim().toLowerCase();
  return media === 'application/json' ? 'application/json' : NOT_JSON;
}

function instance(model: ApiModel, route: PathRoute, options: ValidatorOptions): express.Router {
  const router = express.Router();
  router.use(
    OpenApiValidator.middleware({
      apiSpec: model.validatorDocument(route) as never,
      validateApiSpec: route === model.routes[0],
      validateRequests: { allErrors: options.allErrors, allowUnknownQueryParameters: false },
      validateResponses: options.validateResponses ? { allErrors: true } : false,
      validateSecurity: false,
      ajvFormats: { mode: 'full' },
      formats: ADDRESS_FORMATS,
      fileUploader: false,
      ignoreUndocumented: false,
    }),
  );
  return router;
}

export interface PathValidator {
  validate: RequestHandler;
  /** Makes the instance now (it starts loading its description at once); a later call does nothing. */
  make(): void;
}

/** The validator of one path: made on its first request (or by `make`), then run whole as an Express router. */
export function pathValidator(model: ApiModel, route: PathRoute, options: ValidatorOptions): PathValidator {
  let router: express.Router | undefined;
  const make = () => (router ??= instance(model, route, options));
  const validate: RequestHandler = (req, res, next) => {
    const router = make();
    const sent = req.headers['content-type'];
    if (sent === undefined) return router(req, res, next);
    req.headers['content-type'] = canonicalContentType(sent);
    router(req, res, (err?: unknown) => {
      req.headers['content-type'] = sent;
      next(err as Error);
    });
  };
  return { validate, make };
}

/**
 * The path validators of the apps that serve one description with the same options (the testnet and mainnet
 * vault APIs of one process): each instance compiles the OpenAPI meta-schema when made and its route's schemas
 * on first use, so two apps with their own instances do all of that twice. An app given no pool has its own.
 */
export interface ValidatorPool {
  /** The validator of `route` (one of `model.routes`) under `options`: made on the first call, the same one after. */
  of(model: ApiModel, route: PathRoute, options: ValidatorOptions): PathValidator;
}

export function validatorPool(): ValidatorPool {
  // Keyed by the model's own route objects: a model is built once per description (src/platform/spec.ts).
  const made = new WeakMap<PathRoute, Map<string, PathValidator>>();
  return {
    of(model, route, { allErrors, validateResponses }) {
      const key = `${allErrors}/${validateResponses}`;
      const byOptions = made.get(route) ?? new Map<string, PathValidator>();
      made.set(route, byOptions);
      const found = byOptions.get(key) ?? pathValidator(model, route, { allErrors, validateResponses });
      byOptions.set(key, found);
      return found;
    },
  };
}
