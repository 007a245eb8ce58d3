// express-openapi-validator, set up once for both services, through its public options only.
//
// Routing runs once per request, in Express's router: each path of the description is an Express route
// (`app.route('/contracts/vault/:owner')`, src/platform/app.ts) whose chain starts with a validator instance
// given a copy of the description that declares that one path. The validator's own route lookup then tries a single
// template instead of compiling every template of the description, in order, on every request (its
// `lookupRoute`); the routes are ordered as the validator orders them (a literal segment before a
// parameter), so the same template wins. A request for an undeclared path matches no route and meets the
// app's 404; a declared path with an undeclared method is the validator's 405. What the validator throws
// reaches each service as one neutral description (describeValidatorFailure, at the end), which the service
// answers in its own codes and envelope.
import type { RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { type AllowLookup, answers405 } from '../openapi/allow.ts';
import { collectionBounds } from '../openapi/collection-bounds.ts';
import { withCanonicalContentType } from '../openapi/content-type.ts';
import { ADDRESS_FORMATS } from '../openapi/formats.ts';
import type { OpenApiDocument } from './spec.ts';

export interface ValidatorOptions {
  /**
   * Report every failure of a request (the vault API's error mapping picks the most specific code among
   * them), or stop at the first.
   */
  allErrors: boolean;
  /** Validate responses too (tests and development; never in production). */
  validateResponses: boolean;
}

/** One path of the description as an Express route and the validator pieces that serve it. */
export interface OperationRoute {
  /** The description's template, `/contracts/vault/{owner}`. */
  template: string;
  /** The same as an Express path, `/contracts/vault/:owner`. */
  expressPath: string;
  /** Route matching: sets `req.openapi` and `req.params`; an undeclared method → the validator's 405. */
  match: RequestHandler[];
  /** Request validation (parameters, headers, body): oversized collections first, then the full check. */
  requests: RequestHandler[];
  /** Response validation, when asked for. */
  responses?: RequestHandler;
  /** Makes the route's validator instance now and resolves once it has loaded its description. */
  warm(): Promise<void>;
  /** Whether the route's validator instance has been made. */
  made(): boolean;
}

const METHODS: ReadonlySet<string> = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** `{owner}` → `:owner`, as the validator converts templates. */
export const toExpressPath = (template: string): string => template.replace(/\{([^}/]+)\}/g, ':$1');

/**
 * Most specific first, the validator's rule: a parameter segment sorts after every literal (`:` read as
 * `~`), and a route sorts before the routes it is a prefix of.
 */
export function compareRoutes(a: string, b: string): number {
  const e1 = a.replace(/\/:/g, '/~');
  const e2 = b.replace(/\/:/g, '/~');
  if (e1.startsWith(e2)) return -1;
  if (e2.startsWith(e1)) return 1;
  return e1 > e2 ? 1 : -1;
}

type Json = Record<string, unknown>;

/** The `#/components/<kind>/<name>` references reachable from `node`, followed through the components. */
function reachableComponents(doc: OpenApiDocument, node: unknown): Map<string, Set<string>> {
  const found = new Map<string, Set<string>>();
  const stack: unknown[] = [node];
  while (stack.length > 0) {
    const at = stack.pop();
    if (Array.isArray(at)) {
      stack.push(...at);
      continue;
    }
    if (typeof at !== 'object' || at === null) continue;
    for (const [key, value] of Object.entries(at as Json)) {
      if (key === '$ref' && typeof value === 'string') {
        const m = /^#\/components\/([^/]+)\/([^/]+)$/.exec(value);
        if (!m) continue;
        const [, kind, name] = m as unknown as [string, string, string];
        const names = found.get(kind) ?? new Set<string>();
        found.set(kind, names);
        if (names.has(name)) continue;
        names.add(name);
        stack.push((doc.components[kind] as Json | undefined)?.[name]);
      } else stack.push(value);
    }
  }
  return found;
}

/**
 * A copy of `doc` that declares only `template`, with the components that path reaches (every security
 * scheme, every extension): the validator annotates what it is given, and dereferences all of it.
 */
function withOnePath(doc: OpenApiDocument, template: string): OpenApiDocument {
  const item = doc.paths[template]!;
  const reached = reachableComponents(doc, item);
  const components: Json = {};
  for (const [kind, all] of Object.entries(doc.components)) {
    const names = reached.get(kind);
    if (kind === 'securitySchemes' || kind.startsWith('x-')) components[kind] = all;
    else if (names) components[kind] = Object.fromEntries([...names].map((n) => [n, (all as Json)[n]]));
  }
  return structuredClone({ ...doc, components, paths: { [template]: item } });
}

/**
 * The description's paths as routes, most specific first. The validator checks the description itself on
 * the first route's instance only (each check compiles the OpenAPI meta-schema, about 0.1 s): the whole
 * description is checked by `npm run lint:spec` in CI, and the platform tests make every instance.
 */
export function operationRoutes(doc: OpenApiDocument, options: ValidatorOptions): OperationRoute[] {
  // Compiled before the validator sees any copy of the description.
  const bounds = collectionBounds(doc);
  const templates = Object.keys(doc.paths).filter((t) => Object.keys(doc.paths[t]!).some((k) => METHODS.has(k)));
  return templates
    .map((template) => ({ template, expressPath: toExpressPath(template) }))
    .sort((a, b) => compareRoutes(a.expressPath, b.expressPath))
    .map(({ template, expressPath }, i) => {
      // Each instance is made on its path's first request, or before by warmRoutes (the started services warm
      // every route in the background): an instance starts loading its description (and, for the first,
      // checking it) as soon as it is made. Tests, which make many apps and use few paths, make them lazily.
      let pieces: RequestHandler[] | undefined;
      const piece = (name: string): RequestHandler => {
        pieces ??= OpenApiValidator.middleware({
          apiSpec: withOnePath(doc, template) as never,
          validateApiSpec: i === 0,
          // allErrors costs ajv a pass over every item, so `bounds` first refuses any collection over its
          // spec bound (src/openapi/collection-bounds.ts).
          validateRequests: options.allErrors
            ? { allErrors: true, allowUnknownQueryParameters: false }
            : { allowUnknownQueryParameters: false },
          validateResponses: options.validateResponses ? { allErrors: true } : false,
          validateSecurity: false,
          // 'full': calendar-checked dates and strict URIs; the default 'fast' checks only their shape.
          ajvFormats: { mode: 'full' },
          // stellar-account, stellar-contract: whole StrKeys, checksum included (src/openapi/formats.ts).
          formats: ADDRESS_FORMATS,
          fileUploader: false,
          ignoreUndocumented: false,
        }) as unknown as RequestHandler[];
        const found = pieces.find((m) => m.name === name);
        if (!found) throw new Error(`express-openapi-validator has no ${name}: check its version`);
        return found;
      };
      /** The instance's middleware `name`, looked up once, the instance made on first use. */
      const lazy = (name: string): RequestHandler => {
        let handler: RequestHandler | undefined;
        return (req, res, next) => (handler ??= piece(name))(req, res, next);
      };
      // A request for no path of the description: the metadata middleware answers it (next) only after the
      // instance has loaded its description, so awaiting it awaits the load. Nothing else reads the request.
      const warm = () =>
        new Promise<void>((resolve) => {
          const probe = { method: 'GET', url: '/', originalUrl: '/', path: '/', baseUrl: '', headers: {}, query: {} };
          piece('metadataMiddleware')(probe as never, {} as never, () => resolve());
        });
      return {
        template,
        expressPath,
        warm,
        made: () => pieces !== undefined,
        match: [lazy('pathParamsMiddleware'), lazy('metadataMiddleware')],
        // One compiled validator per route and kind of body, not per Content-Type string (src/openapi/content-type.ts).
        requests: [bounds, withCanonicalContentType(lazy('requestMiddleware'))],
        ...(options.validateResponses ? { responses: lazy('responseMiddleware') } : {}),
      };
    });
}

/**
 * First step of every route's chain: a request that an earlier, more specific route already matched skips
 * the less specific ones (`next('route')`), so each request runs one chain.
 */
export const firstMatchOnly: RequestHandler = function firstMatchOnly(req, _res, next) {
  next((req as { openapi?: unknown }).openapi === undefined ? undefined : 'route');
};

/** A path segment whose percent-encoding does not decode: the router's words, or the validator's. */
export function isMalformedPath(err: unknown): boolean {
  const e = err as { status?: unknown; message?: unknown; errors?: { message?: unknown }[] } | null;
  if (typeof e !== 'object' || e === null || e.status !== 400) return false;
  if (typeof e.message === 'string' && e.message.startsWith('Failed to decode param')) return true;
  return Array.isArray(e.errors) && e.errors.some((x) => /^malformed uri/.test(String(x?.message)));
}

/**
 * Makes every route's validator instance in the background, one per turn of the event loop, so that no request,
 * keyless ones included, pays for making one (tens of milliseconds each, about 1.4 s for the vault API's paths)
 * and requests in between are answered. A route whose instance a request already made is skipped at no cost.
 * Stops at the first failure (the request that meets it reports it), and once the service drains: a process told
 * to stop during start-up would otherwise wait for the warming (half a minute on a loaded host) before it exits.
 */
export async function warmRoutes(routes: readonly OperationRoute[], draining?: () => boolean): Promise<void> {
  for (const route of routes) {
    await new Promise((resolve) => setImmediate(resolve));
    if (draining?.()) return;
    await route.warm();
  }
}

/** What a validator failure is about, whichever service answers it. */
export type ValidatorFailureKind =
  /** A method the path does not declare, which earns a 405 with `Allow` (not OPTIONS). */
  | 'method_not_allowed'
  /** No operation: an undeclared path, or an undeclared method that earns no 405. */
  | 'not_found'
  /** A body without Content-Type, or of a media type the operation does not take. */
  | 'unsupported_media_type'
  /** A path segment whose percent-encoding does not decode. */
  | 'malformed_path'
  /** A request that fails the operation's parameters, headers or body schema (400). */
  | 'invalid'
  /** Any other refusal of the validator (status 413, …). */
  | 'other';

/** One failing location as the validator reports it. */
export interface ValidatorFailureItem {
  /** `/body/vcs/2/vcId`, `/query/limit`, `/headers/x`, `/params/did`. */
  path: string;
  /** The path's segments (`['body', 'vcs', '2', 'vcId']`). */
  segments: string[];
  /** The failing schema keyword (`maxLength`, `required`); empty for the validator's own checks. */
  keyword: string;
  message: string;
  /** `<keyword>.openapi.validation`, as the validator reports it. */
  errorCode?: string;
}

/** A validator failure, described without any service's codes or envelope. */
export interface ValidatorFailure {
  status: number;
  kind: ValidatorFailureKind;
  /** The validator's own summary. */
  message: string;
  items: ValidatorFailureItem[];
  /** The path's declared methods, on a `method_not_allowed`. */
  allow?: string;
}

/** A path segment whose percent-encoding does not decode: the router's words, or the validator's. */
const MALFORMED_URI = /^malformed uri/;

interface ThrownByValidator {
  status: number;
  message: string;
  errors: { path?: unknown; message?: unknown; errorCode?: unknown }[];
}

const thrownByValidator = (err: unknown): err is ThrownByValidator => {
  const e = err as Partial<ThrownByValidator> | null;
  return typeof e === 'object' && e !== null && typeof e.status === 'number' && Array.isArray(e.errors);
};

function item(e: ThrownByValidator['errors'][number]): ValidatorFailureItem {
  const path = String(e?.path ?? '');
  const errorCode = typeof e?.errorCode === 'string' ? e.errorCode : undefined;
  return {
    path,
    segments: path.split('/').filter((s) => s !== ''),
    keyword: errorCode?.replace(/\.openapi\.validation$/, '') ?? '',
    message: String(e?.message ?? ''),
    ...(errorCode === undefined ? {} : { errorCode }),
  };
}

/**
 * Describes what the validator threw (or the router, for a path it cannot decode); undefined for anything
 * else. `allowOf` names a path's declared methods (src/openapi/allow.ts), for the `Allow` of a 405.
 */
export function describeValidatorFailure(
  err: unknown,
  req: { method: string; path: string },
  allowOf: AllowLookup,
): ValidatorFailure | undefined {
  if (!thrownByValidator(err)) {
    // The router's own words for a parameter it cannot decode, in the validator's shape.
    if (!isMalformedPath(err)) return undefined;
    const items = [item({ path: '/path', message: 'malformed uri' })];
    return { status: 400, kind: 'malformed_path', message: 'malformed uri', items };
  }
  const items = err.errors.map(item);
  const described = (kind: ValidatorFailureKind): ValidatorFailure => ({
    status: err.status,
    kind,
    message: err.message,
    items,
  });
  if (err.status === 405 && answers405(req.method)) {
    const allow = allowOf(req.path);
    if (allow) return { ...described('method_not_allowed'), allow };
  }
  if (err.status === 404 || err.status === 405) return described('not_found');
  if (err.status === 415) return described('unsupported_media_type');
  if (items.some((i) => MALFORMED_URI.test(i.message))) return described('malformed_path');
  return described(err.status === 400 ? 'invalid' : 'other');
}

/** The validator's 405 for a declared path served outside the route table (the vault API's /docs). */
export const methodNotAllowed = (path: string, method: string): Error =>
  new OpenApiValidator.error.MethodNotAllowed({ path, message: `${method} method not allowed` });
