// A bounded memory for express-openapi-validator's route compilation, shared by both apps.
import { createRequire } from 'node:module';

type PathToRegexp = (path: unknown, options?: unknown) => unknown;
const REMEMBERED = Symbol.for('credential-vault.pathToRegexp.remembered');
/** Compiled templates kept at most (the descriptions have a few dozen paths). */
export const COMPILED_ROUTES_MAX = 1_000;

/**
 * express-openapi-validator's route matching (its metadata middleware, `lookupRoute`) compiles every path
 * template of the description with path-to-regexp on every request, in order, until one matches: with the
 * vault API's few dozen paths that is most of the validator's cost per request. The compilation is a pure
 * function of (template, options), so the path-to-regexp module the validator calls is given a bounded
 * memory of its answers (the returned `{regexp, keys}` is only read by the validator; the regexps carry no
 * global or sticky flag, so sharing them is safe). Express's own router uses path-to-regexp's `match`,
 * which this does not touch. Idempotent; exported for tests.
 */
export function rememberCompiledRoutes(): { hits: () => number } {
  const fromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
  const ptr = fromValidator('path-to-regexp') as { pathToRegexp: PathToRegexp; [REMEMBERED]?: { hits: () => number } };
  const done = ptr[REMEMBERED];
  if (done) return done;
  const original = ptr.pathToRegexp;
  const compiled = new Map<string, unknown>();
  let hits = 0;
  /** (template, options) as a string when the options are plain values only; else undefined (not remembered). */
  const keyOf = (path: unknown, options: unknown): string | undefined => {
    if (typeof path !== 'string') return undefined;
    let key = `${path}\u0000`;
    if (options === undefined) return key;
    if (typeof options !== 'object' || options === null || Object.getPrototypeOf(options) !== Object.prototype) return undefined;
    const o = options as Record<string, unknown>;
    for (const k in o) {
      const v = o[k];
      if (v !== undefined && typeof v !== 'boolean' && typeof v !== 'string' && typeof v !== 'number') return undefined;
      key += `${k}=${String(v)};`;
    }
    return key;
  };
  ptr.pathToRegexp = function pathToRegexp(path: unknown, options?: unknown): unknown {
    const key = keyOf(path, options);
    if (key === undefined) return original(path, options);
    const known = compiled.get(key);
    if (known !== undefined) {
      hits++;
      return known;
    }
    const result = original(path, options);
    if (compiled.size < COMPILED_ROUTES_MAX) compiled.set(key, result);
    return result;
  };
  const handle = { hits: () => hits };
  Object.defineProperty(ptr, REMEMBERED, { value: handle });
  return handle;
}
