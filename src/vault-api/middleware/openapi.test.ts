// The remembered route compilation under express-openapi-validator: same answers as path-to-regexp, computed once.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { loadVaultSpec, rememberCompiledRoutes, validatorPieces } from './openapi.ts';

type Compiled = { regexp: RegExp; keys: { name: string }[] };
const fromValidator = createRequire(createRequire(import.meta.url).resolve('express-openapi-validator'));
const ptr = fromValidator('path-to-regexp') as { pathToRegexp: (p: unknown, o?: unknown) => Compiled };

describe('rememberCompiledRoutes', () => {
  it('is installed by validatorPieces, once', () => {
    validatorPieces(loadVaultSpec(), { validateResponses: false });
    expect(rememberCompiledRoutes()).toBe(rememberCompiledRoutes());
  });

  it('answers what path-to-regexp answers, and the second time from memory', () => {
    const handle = rememberCompiledRoutes();
    const before = handle.hits();
    const a = ptr.pathToRegexp('/contracts/vault/:owner', { sensitive: false, strict: false });
    const b = ptr.pathToRegexp('/contracts/vault/:owner', { sensitive: false, strict: false });
    expect(b).toBe(a);
    expect(handle.hits()).toBe(before + 1);
    expect(a.keys.map((k) => k.name)).toEqual(['owner']);
    expect(a.regexp.exec('/contracts/vault/GABC')?.[1]).toBe('GABC');
    expect(a.regexp.exec('/contracts/vault/GABC')?.[1]).toBe('GABC'); // no global flag: exec is stateless
    expect(a.regexp.test('/contracts/vault')).toBe(false);
  });

  it('options are part of the key', () => {
    const insensitive = ptr.pathToRegexp('/Config', { sensitive: false, strict: false });
    const sensitive = ptr.pathToRegexp('/Config', { sensitive: true, strict: false });
    expect(insensitive.regexp.test('/config')).toBe(true);
    expect(sensitive.regexp.test('/config')).toBe(false);
  });

  it('errors are not remembered', () => {
    for (let i = 0; i < 2; i++) expect(() => ptr.pathToRegexp('/a/:', {})).toThrow();
  });
});
