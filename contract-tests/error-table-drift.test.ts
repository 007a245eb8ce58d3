// The chain's error mapping (src/chain/errors.ts) must only produce codes the specs list, with the
// statuses the specs give them: a test fails when the handlers' codes and the specs drift apart.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { FACTORY_ERRORS, FALLBACK, HOST_FAILURES, REGISTRY_ERRORS, VAULT_ERRORS } from '../src/chain/errors.ts';

type Row = { code: string; status: number };
const codesOf = (file: string): Map<string, number> => {
  const spec = parse(readFileSync(file, 'utf8')) as { components: { 'x-error-codes': Row[] } };
  return new Map(spec.components['x-error-codes'].map((r) => [r.code, r.status]));
};
const vault = codesOf('spec/vault-api.yaml');
const resolver = codesOf('spec/did-resolver.yaml');

describe.each([
  ...Object.entries(VAULT_ERRORS).map(([n, r]) => ({ source: `vault #${n}`, spec: 'vault', ...r })),
  ...Object.entries(FACTORY_ERRORS).map(([n, r]) => ({ source: `factory #${n}`, spec: 'vault', ...r })),
  ...HOST_FAILURES.map((r) => ({ source: `host ${r.pattern}`, spec: 'vault', code: r.code, status: r.status })),
  ...Object.entries(REGISTRY_ERRORS).map(([n, r]) => ({ source: `registry #${n}`, spec: 'resolver', ...r })),
  // What a failure nothing more specific explains becomes, per contract: registry calls answer through the resolver.
  ...Object.entries(FALLBACK).map(([kind, r]) => ({
    source: `${kind} fallback`,
    spec: kind === 'registry' ? 'resolver' : 'vault',
    ...r,
  })),
])('$source → $code', ({ spec, code, status }) => {
  it(`is listed in the ${spec} spec with status ${status}`, () => {
    const table = spec === 'vault' ? vault : resolver;
    expect(table.has(code), `${code} missing from the ${spec} spec's x-error-codes`).toBe(true);
    expect(table.get(code)).toBe(status);
  });
});

describe('the resolver spec lists the same codes in its ErrorCode enum and in x-error-codes', () => {
  it('has no code in one and not the other', () => {
    const spec = parse(readFileSync('spec/did-resolver.yaml', 'utf8')) as {
      components: { schemas: { ErrorCode: { enum: string[] } } };
    };
    expect([...spec.components.schemas.ErrorCode.enum].sort()).toEqual([...resolver.keys()].sort());
  });
});
