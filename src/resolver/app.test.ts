// The resolver app's named parts: its route table covers the description exactly, and the write mode the
// metrics record is read from the request as did-resolver.yaml "Writes: prepare and submit" says.
import type { Request } from 'express';
import { describe, expect, it } from 'vitest';
import { checkRouteTable } from '../platform/app.ts';
import { resolverModel } from '../platform/resolver-model.ts';
import { createMemoryCache, createMemoryRateLimiter } from '../stores/memory.ts';
import { resolverRoutes, writeModeOf } from './app.ts';
import type { ResolverAppDeps } from './context.ts';

const now = () => 0;
const deps: ResolverAppDeps = {
  networks: {},
  cache: createMemoryCache({ now }),
  rateLimiter: createMemoryRateLimiter({ now }),
  limits: { rateLimit: 10, rateWindowMs: 60_000, cacheTtlMs: 1_000 },
  now,
};

describe('resolverRoutes', () => {
  it('has a handler for every operation of the description and none besides', () => {
    const model = resolverModel;
    const { handlers, docsAssets } = resolverRoutes(deps, model);
    expect(() => checkRouteTable(model, handlers)).not.toThrow();
    expect(docsAssets.length).toBeGreaterThan(0);
    const { getHealth: _dropped, ...missing } = handlers;
    expect(() => checkRouteTable(model, missing)).toThrow(/operations without a handler: getHealth/);
  });
});

describe('writeModeOf', () => {
  const req = (method: string, path: string, body?: unknown) => ({ method, path, body }) as Request;
  it('submits on /submit and for a body with signedXdr, prepares otherwise, and ignores reads', () => {
    expect(writeModeOf(req('POST', '/v1/dids/stellar/submit'))).toBe('submit');
    expect(writeModeOf(req('POST', '/v1/dids/stellar', { signedXdr: 'AAAA' }))).toBe('submit');
    expect(writeModeOf(req('POST', '/v1/dids/stellar', { did: 'x' }))).toBe('prepare');
    expect(writeModeOf(req('POST', '/v1/dids/stellar'))).toBeUndefined();
    expect(writeModeOf(req('GET', '/v1/dids/stellar/x'))).toBeUndefined();
    expect(writeModeOf(req('POST', '/1.0/identifiers/x'))).toBeUndefined();
  });
});
