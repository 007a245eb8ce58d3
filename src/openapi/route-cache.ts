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
  /**
   * The validator's own call, `(template, {sensitive, strict})` with booleans, per request and route: kept
   * by template in one map per pair of flags, so that no key is built (same answers as the general memory).
   */
  const byFlags = [new Map<string, unknown>(), new Map<string, unknown>(), new Map<string, unknown>(), new Map<string, unknown>()];
  let remembered = 0;
  const flagsOf = (options: unknown): number => {
    if (typeof options !== 'object' || options === null || Object.getPrototypeOf(options) !== Object.prototype) return -1;
    let n = 0;
    for (const k in options) {
      if (k !== 'sensitive' && k !== 'strict') return -1;
      n++;
    }
    const { sensitive, strict } = options as { sensitive?: unknown; strict?: unknown };
    if (n !== 2 || typeof sensitive !== 'boolean' || typeof strict !== 'boolean') return -1;
    return (sensitive ? 2 : 0) + (strict ? 1 : 0);
  };
  ptr.pathToRegexp = function pathToRegexp(path: unknown, options?: unknown): unknown {
    const flags = typeof path === 'string' ? flagsOf(options) : -1;
    if (flags >= 0) {
      const memory = byFlags[flags]!;
      const known = memory.get(path as string);
      if (known !== undefined) {
        hits++;
        return known;
      }
      const result = original(path, options);
      if (remembered < COMPILED_ROUTES_MAX) {
        memory.set(path as string, result);
        remembered++;
      }
      return result;
    }
    const key = keyOf(path, options);
    if (key === undefined) return original(path, options);
    const known = compiled.get(key);
    if (known !== undefined) {
      hits++;
      return known;
    }
    const result = original(path, options);
    if (remembered < COMPILED_ROUTES_MAX) {
      compiled.set(key, result);
      remembered++;
    }
    return result;
  };
  const handle = { hits: () => hits };
  Object.defineProperty(ptr, REMEMBERED, { value: handle });
  return handle;
}
