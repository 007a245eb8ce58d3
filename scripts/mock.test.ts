// scripts/mock.ts (the port of `npm run mock:*`) and scripts/mock-spec.ts (the mock rules).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeDidParam, parseDid } from '../src/did/index.ts';
import { loadMockSpec, mockSpec } from './mock-spec.ts';
import { parseMockArgs } from './mock.ts';

describe('parseMockArgs', () => {
  it.each([
    {
      given: ['spec/vault-api.yaml'],
      env: {},
      want: { spec: 'spec/vault-api.yaml', host: '127.0.0.1', port: 4010, drainMs: 10_000 },
    },
    {
      given: ['spec/did-resolver.yaml'],
      env: {},
      want: { spec: 'spec/did-resolver.yaml', host: '127.0.0.1', port: 4011, drainMs: 10_000 },
    },
    {
      given: ['spec/vault-api.yaml', '--port', '5000'],
      env: {},
      want: { spec: 'spec/vault-api.yaml', host: '127.0.0.1', port: 5000, drainMs: 10_000 },
    },
    {
      given: ['spec/vault-api.yaml', '--port=5001', '--host', '0.0.0.0'],
      env: {},
      want: { spec: 'spec/vault-api.yaml', host: '0.0.0.0', port: 5001, drainMs: 10_000 },
    },
    {
      given: ['spec/vault-api.yaml'],
      env: { PORT: '5002' },
      want: { spec: 'spec/vault-api.yaml', host: '127.0.0.1', port: 5002, drainMs: 10_000 },
    },
    {
      given: ['spec/vault-api.yaml', '-p', '5003'],
      env: { PORT: '5002' },
      want: { spec: 'spec/vault-api.yaml', host: '127.0.0.1', port: 5003, drainMs: 10_000 },
    },
    {
      given: ['spec/did-resolver.yaml', '--shutdown-timeout-ms', '2000'],
      env: {},
      want: { spec: 'spec/did-resolver.yaml', host: '127.0.0.1', port: 4011, drainMs: 2000 },
    },
  ])('$given with $env → port $want.port', ({ given, env, want }) => {
    expect(parseMockArgs(given, env)).toEqual(want);
  });

  it.each([
    { given: [], env: {}, want: /usage/ },
    { given: ['spec/vault-api.yaml', '--port'], env: {}, want: /--port needs a value/ },
    { given: ['spec/vault-api.yaml', '--port', 'x'], env: {}, want: /integer from 0 to 65535, got "x"/ },
    { given: ['spec/vault-api.yaml'], env: { PORT: '70000' }, want: /integer from 0 to 65535, got "70000"/ },
    { given: ['other.yaml'], env: {}, want: /integer from 0 to 65535, got undefined/ },
    { given: ['spec/vault-api.yaml', '--cors'], env: {}, want: /unknown argument "--cors"/ },
    { given: ['spec/vault-api.yaml', '--shutdown-timeout-ms', '-1'], env: {}, want: /integer from 0 to 600000/ },
  ])('$given with $env → $want', ({ given, env, want }) => {
    expect(() => parseMockArgs(given, env)).toThrow(want);
  });
});

describe('mockSpec', () => {
  // A whole description, as the operation model reads one: every operation with its operationId.
  const doc = <P extends object>(paths: P) => ({ openapi: '3.1.0', info: { title: 't', version: '1' }, paths });
  let ops = 0;
  const op = (codes: string[], params: object[] = []) => ({
    operationId: `op${++ops}`,
    parameters: params,
    responses: Object.fromEntries(codes.map((c) => [c, { description: c }])),
  });

  it('drops a 422 beside a 400 (Prism would answer every invalid request with it), keeps a 422 alone', () => {
    const spec = doc({ '/a': { post: op(['200', '400', '422']) }, '/b': { post: op(['200', '422']) } });
    const mock = mockSpec(spec);
    expect(Object.keys(mock.paths['/a'].post.responses)).toEqual(['200', '400']);
    expect(Object.keys(mock.paths['/b'].post.responses)).toEqual(['200', '422']);
    expect(Object.keys(spec.paths['/a'].post.responses)).toEqual(['200', '400', '422']); // the input is untouched
  });

  it('makes x-handler-pattern the schema pattern', () => {
    const param = { name: 'did', in: 'path', schema: { type: 'string' }, 'x-handler-pattern': '^d$' };
    const mock = mockSpec(doc({ '/x/{did}': { get: op(['200', '400'], [param]) } }));
    expect(mock.paths['/x/{did}'].get.parameters[0].schema).toEqual({ type: 'string', pattern: '^d$' });
  });

  it('leaves no 422 beside a 400 in the vault API mock, and the spec still has them', () => {
    const mock = loadMockSpec('spec/vault-api.yaml');
    const ops = Object.values<any>(mock.paths).flatMap((item) => Object.values<any>(item).filter((o) => o?.responses));
    expect(ops.filter((o) => o.responses['400'] && o.responses['422'])).toEqual([]);
    expect(JSON.stringify(loadMockSpec('spec/did-resolver.yaml'))).toContain('"pattern":"^did(:|%3[Aa])ledger');
  });
});

describe("the resolver's x-handler-pattern is the resolver's DID check", () => {
  const spec = loadMockSpec('spec/did-resolver.yaml');
  const pattern = new RegExp(
    spec.paths['/1.0/identifiers/{did}'].get.parameters.find((p: any) => p.name === 'did').schema.pattern,
  );
  const base32 = fc.constantFrom(...'abcdefghijklmnopqrstuvwxyz234567'.split(''));
  // Mostly 26 base32 characters (the last one decides canonical or not), and some near misses.
  const didId = fc
    .oneof(
      { arbitrary: fc.array(base32, { minLength: 26, maxLength: 26 }), weight: 3 },
      {
        arbitrary: fc.array(fc.oneof(base32, fc.constantFrom('A', '1', '8', '-')), { minLength: 24, maxLength: 28 }),
        weight: 1,
      },
    )
    .map((c) => c.join(''));
  const did = fc.tuple(fc.constantFrom('mainnet', 'testnet', 'public'), didId, fc.boolean()).map(([n, id, encoded]) => {
    const plain = `did:ledger:${n}:${id}`;
    return encoded ? plain.replaceAll(':', '%3A') : plain;
  });

  it('accepts exactly what parseDid accepts, plain or URL-encoded', () => {
    let accepted = 0;
    fc.assert(
      fc.property(did, (d) => {
        const ok = parseDid(decodeDidParam(d)).ok;
        if (ok) accepted++;
        return pattern.test(d) === ok;
      }),
      { numRuns: 2000 },
    );
    expect(accepted, 'valid DIDs were generated too').toBeGreaterThan(100);
  });

  it('lets a DID URL with an encoded fragment through (dereferencing), not a bare or broken one', () => {
    expect(pattern.test('did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza%23assert-1')).toBe(true);
    expect(pattern.test('did%3Aledger%3Atestnet%3Anohsyhu2pu7uaulcoocjljvxza%23auth-1')).toBe(true);
    expect(pattern.test('did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza%23')).toBe(false);
    expect(pattern.test('did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxzb%23assert-1')).toBe(false);
  });
});
