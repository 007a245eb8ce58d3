// express-openapi-validator, the one adapter: `OpenApiValidator.middleware(options)` mounted whole, as its
// documentation shows. The public options, and why:
//   - `apiSpec`: ONE path's description (ApiModel.validatorDocument), one instance per path, made on first use or
//     while idle. Given the whole description, its `lookupRoute` compiles every path template on every request.
//     Each instance compiles the OpenAPI 3.1 meta-schema (5.6.2 framework/index.js `initialize`, ~0.1 s of CPU),
//     so apps of one description share instances through a `ValidatorPool`. An instance keeps nothing of an app:
//     the request's state is on the request, and the `app.param` hooks it adds do not reach the routes.
//   - `validateRequests` (`allErrors` where the service reports every failure), `validateResponses` (tests and
//     development), `validateSecurity: false` (keys are the service's), `ajvFormats: {mode: 'full'}`
//     (calendar-checked dates), `formats` (whole StrKeys), `fileUploader: false`, `ignoreUndocumented: false`,
//     `validateApiSpec` on the first path only (the document once; `npm run lint:spec` checks it in CI).
// Upstream defect worked around (`canonicalContentType`; no option reaches it): 5.6.2 openapi.request.validator.js
// keys its compiled validators by Content-Type *as sent*, for the life of the process, so each new
// `application/json; x=1` compiled the route's schemas again (~50-100 ms). The body is read before validation, so
// the validator is shown its kind instead, and the client's header is put back after.
import express, { type RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { ADDRESS_FORMATS } from '../openapi/formats.ts';
import type { ApiModel, PathRoute } from './operations.ts';

export interface ValidatorOptions {
  /** Every failure of a request (the vault API picks the most specific code among them), or the first. */
  allErrors: boolean;
  /** Never in production. */
  validateResponses: boolean;
}

/** `application/json` with any parameters as it; any other type as one no operation accepts (so 415). */
export function canonicalContentType(header: string): string {
  const media = header.split(';', 1)[0]!.trim().toLowerCase();
  return media === 'application/json' ? 'application/json' : 'application/x-not-json';
}

function instance(model: ApiModel, route: PathRoute, options: ValidatorOptions): express.Router {
  return express.Router().use(
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
}

export interface PathValidator {
  validate: RequestHandler;
  /** Makes the instance now; a later call does nothing. */
  make(): void;
}

/** Made on its first request (or by `make`). */
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

/** The path validators of the apps that serve one description with the same options. */
export interface ValidatorPool {
  of(model: ApiModel, route: PathRoute, options: ValidatorOptions): PathValidator;
}

export function validatorPool(): ValidatorPool {
  // A model, and so its routes, is built once per description.
  const made = new WeakMap<PathRoute, Record<string, PathValidator>>();
  return {
    of(model, route, options) {
      const byOptions = made.get(route) ?? {};
      made.set(route, byOptions);
      return (byOptions[`${options.allErrors}/${options.validateResponses}`] ??= pathValidator(model, route, options));
    },
  };
}
