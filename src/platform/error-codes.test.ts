// Each service's error codes against its spec's `components.x-error-codes` (generated into
// src/generated/*-errors.ts): nothing in the source can answer a code the spec lacks, and every code the
// spec lists is answered by something. The types already refuse an unlisted code in `new ApiError(…)` /
// `new ResolverError(…)`; this reads the source, so codes built from tables (the chain's contract errors)
// and strings the types cannot see are held to the list too.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RESOLVER_ERROR_CODES, resolverErrorsOf } from '../generated/did-resolver-errors.ts';
import { VAULT_ERROR_CODES, type VaultErrorCode, vaultErrorsOf } from '../generated/vault-api-errors.ts';
import { ApiError } from '../vault-api/context.ts';
import { FACTORY_ERRORS, FALLBACK, HOST_FAILURES, REGISTRY_ERRORS, VAULT_ERRORS } from '../chain/errors.ts';

const SRC = fileURLToPath(new URL('..', import.meta.url));

/** The non-test TypeScript under `dirs` (relative to src/), with its text. */
function sources(dirs: string[]): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
        out.push({ file: path.relative(SRC, full), text: readFileSync(full, 'utf8') });
    }
  };
  for (const d of dirs) walk(path.join(SRC, d));
  return out;
}

/** The first argument after the status of each `new <Type>(status, 'code'` in the text. */
function thrownCodes(text: string, type: string): string[] {
  const re = new RegExp(`new ${type}\\(\\s*'([^']+)'`, 'g');
  return [...text.matchAll(re)].map((m) => m[1]!);
}

/** A code's named constructor (scripts/generate.mjs): `vc_not_found` → `vcNotFound`. */
const constructorName = (code: string) =>
  code
    .split(/_|\[i\]\./)
    .map((part, i) => (i === 0 ? part : part.charAt(0).toUpperCase() + part.slice(1)))
    .join('');

/**
 * Every listed code somewhere in `files`: as a quoted literal (`'not_found'`, a family's literal prefix
 * `vcs[`) or through its named constructor (`VaultErrors.notFound(`, with `errors` the constructors' name).
 */
function unanswered(listed: readonly string[], files: { text: string }[], errors: string): string[] {
  const all = files.map((f) => f.text).join('\n');
  return listed.filter((code) => {
    if (all.includes(`${errors}.${constructorName(code)}(`)) return false;
    if (code.includes('[i]')) return !all.includes(`\`${code.slice(0, code.indexOf('[i]'))}[\${`);
    return !all.includes(`'${code}'`) && !all.includes(`"${code}"`);
  });
}

const VAULT_DIRS = ['vault-api', 'platform', 'http', 'chain', 'stores', 'openapi'];
const RESOLVER_DIRS = ['resolver', 'platform', 'http', 'chain', 'did', 'stores', 'openapi'];
const vaultCodes = VAULT_ERROR_CODES.map((e) => e.code as string);
const resolverCodes = RESOLVER_ERROR_CODES.map((e) => e.code as string);

describe('the vault API answers exactly its listed codes', () => {
  const files = sources(VAULT_DIRS);

  it('an ApiError takes its status from the catalogue: the code implies it', () => {
    for (const { code, status } of VAULT_ERROR_CODES) {
      const concrete = code.replace('[i]', '[3]') as VaultErrorCode;
      expect([new ApiError(concrete, 'm').status, concrete]).toEqual([status, concrete]);
    }
  });

  it('every code the chain gives a vault, factory or token failure is listed (the vault API passes them on)', () => {
    const chainCodes = [
      ...Object.values(VAULT_ERRORS),
      ...Object.values(FACTORY_ERRORS),
      ...HOST_FAILURES,
      FALLBACK.vault,
      FALLBACK.factory,
      FALLBACK.token,
    ].map((r) => r.code);
    expect(chainCodes.filter((c) => !vaultCodes.includes(c))).toEqual([]);
  });

  it('every listed code is answered somewhere in the source', () => {
    expect(unanswered(vaultCodes, files, 'VaultErrors')).toEqual([]);
  });

  it('each listed code has its named constructor, which makes it with the listed status', () => {
    const made = vaultErrorsOf((status, code) => ({ status, code }));
    expect(Object.keys(made)).toEqual(vaultCodes.map(constructorName));
    expect(made.vcNotFound('m')).toEqual({ status: 404, code: 'vc_not_found' });
    expect(made.vcsVcIdTooLong(3, 'm')).toEqual({ status: 400, code: 'vcs[3].vcId_too_long' });
    for (const { code, status } of VAULT_ERROR_CODES) {
      if (code.includes('[i]')) continue;
      const make = made[constructorName(code) as keyof typeof made] as (message: string) => unknown;
      expect(make('m')).toEqual({ status, code });
    }
  });
});

describe('the resolver answers exactly its listed codes', () => {
  const files = sources(RESOLVER_DIRS);

  it('every `new ResolverError(status, code)` and every `ResolverErrors.name(` uses a listed code', () => {
    const files = sources(['resolver', 'platform']);
    const codes = files.flatMap((f) => thrownCodes(f.text, 'ResolverError').map((c) => [f.file, c] as const));
    const named = files.flatMap((f) => [...f.text.matchAll(/ResolverErrors\.(\w+)\(/g)].map((m) => m[1]!));
    expect(codes.length + named.length).toBeGreaterThan(0);
    expect(codes.filter(([, c]) => !resolverCodes.includes(c))).toEqual([]);
    expect(named.filter((n) => !resolverCodes.map(constructorName).includes(n))).toEqual([]);
  });

  it('every code of the registry contract is listed', () => {
    const codes = Object.values(REGISTRY_ERRORS).map((r) => r.code);
    expect(codes.filter((c) => !resolverCodes.includes(c))).toEqual([]);
  });

  it('every listed code is answered somewhere in the source', () => {
    expect(unanswered(resolverCodes, files, 'ResolverErrors')).toEqual([]);
  });

  it('each listed code has its named constructor, which makes it with the listed status and details', () => {
    const made = resolverErrorsOf((status, code, _message, details?: object) => ({ status, code, details }));
    expect(Object.keys(made)).toEqual(resolverCodes.map(constructorName));
    expect(made.didInvalid('m', { did: 'x' })).toEqual({ status: 400, code: 'did_invalid', details: { did: 'x' } });
    for (const { code, status } of RESOLVER_ERROR_CODES) {
      const make = made[constructorName(code) as keyof typeof made] as (message: string) => unknown;
      expect(make('m')).toEqual({ status, code, details: undefined });
    }
  });
});
