// Apps of one description given one validator pool (the started services' testnet and mainnet vault APIs) share
// one express-openapi-validator instance per path and options: each instance compiles the OpenAPI meta-schema
// when made and its route's schemas on first use, work that two apps would otherwise do twice. An app given no
// pool keeps its own instances.
import type { RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { request, serve, type Served } from '../../test-support/observability.ts';
import { testServiceApp } from '../../test-support/platform-app.ts';
import { type Idleness, idleness } from './idle.ts';
import { buildModel } from './operations.ts';
import type { OpenApiDocument } from './operations.ts';
import { type ValidatorOptions, type ValidatorPool, validatorPool } from './validator.ts';

// Counts the instances made: every call of the validator's one entry point.
vi.mock('express-openapi-validator', async (importOriginal) => {
  const real = await importOriginal<typeof import('express-openapi-validator')>();
  return { ...real, middleware: vi.fn(real.middleware) };
});
const made = () => vi.mocked(OpenApiValidator.middleware).mock.calls.length;

const SPEC: OpenApiDocument = {
  openapi: '3.1.0',
  info: { title: 'two paths', version: '1' },
  paths: {
    '/things': { get: { operationId: 'listThings', responses: { '200': { description: 'ok' } } } },
    '/things/{id}': {
      get: {
        operationId: 'getThing',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', maxLength: 8 } }],
        responses: { '200': { description: 'ok' } },
      },
    },
  },
  components: { headers: { 'X-Request-ID': { schema: { type: 'string', maxLength: 64 } } } },
};
const MODEL = buildModel(SPEC);

const answer: RequestHandler = (req, res) => void res.json({ params: req.params });

function app(validator: ValidatorOptions & { warm?: Idleness; pool?: ValidatorPool }) {
  return testServiceApp({ model: MODEL, validator, handlers: { listThings: answer, getThing: answer } });
}

const OPTIONS: ValidatorOptions = { allErrors: true, validateResponses: false };
let served: Served[] = [];
const start = async (...apps: ReturnType<typeof app>[]) => {
  const s = await Promise.all(apps.map((a) => serve(a)));
  served.push(...s);
  return s;
};
const answers = async (s: Served, path: string) => {
  const r = await request(s.port, { method: 'GET', path });
  return [r.status, r.status === 200 ? r.body : ''];
};

beforeEach(() => {
  vi.mocked(OpenApiValidator.middleware).mockClear();
});
afterEach(async () => {
  await Promise.all(served.map((s) => s.close()));
  served = [];
});

describe('validatorPool', () => {
  it('gives one validator per route and options, the same one on every later call', () => {
    const pool = validatorPool();
    const [a, b] = MODEL.routes as [(typeof MODEL.routes)[0], (typeof MODEL.routes)[0]];
    const first = pool.of(MODEL, a, OPTIONS);
    expect(pool.of(MODEL, a, { ...OPTIONS })).toBe(first);
    expect(pool.of(MODEL, b, OPTIONS)).not.toBe(first);
    expect(pool.of(MODEL, a, { ...OPTIONS, allErrors: false })).not.toBe(first);
    expect(pool.of(MODEL, a, { ...OPTIONS, validateResponses: true })).not.toBe(first);
    // Nothing is made before a request or `make`.
    expect(made()).toBe(0);
  });

  it('two apps given one pool make one instance per path, and each app still validates and routes', async () => {
    const pool = validatorPool();
    const [testnet, mainnet] = await start(app({ ...OPTIONS, pool }), app({ ...OPTIONS, pool }));
    for (const s of [testnet!, mainnet!]) {
      expect(await answers(s, '/things/a%20b')).toEqual([200, '{"params":{"id":"a b"}}']);
      expect(await answers(s, '/things/123456789')).toEqual([400, '']);
      expect(await answers(s, '/things?unknown=1')).toEqual([400, '']);
    }
    expect(made()).toBe(2);
  });

  it('apps without a pool, or with other options, make their own instances', async () => {
    const pool = validatorPool();
    const apps = await start(
      app(OPTIONS),
      app(OPTIONS),
      app({ ...OPTIONS, pool }),
      app({ allErrors: false, validateResponses: false, pool }),
    );
    for (const s of apps) expect(await answers(s, '/things/x')).toEqual([200, '{"params":{"id":"x"}}']);
    expect(made()).toBe(4);
  });

  it('two warmed apps given one pool make each path once', async () => {
    const pool = validatorPool();
    const idle = idleness({ quietMs: 0 });
    const [testnet, mainnet] = await start(
      app({ ...OPTIONS, pool, warm: idle }),
      app({ ...OPTIONS, pool, warm: idle }),
    );
    // Two compiles of ~0.1 s of CPU each, seconds on a loaded host: not vitest's 1 s.
    await vi.waitFor(() => expect(made()).toBe(MODEL.routes.length), { timeout: 20_000 });
    for (const s of [testnet!, mainnet!])
      for (const path of ['/things', '/things/x']) expect((await answers(s, path))[0]).toBe(200);
    expect(made()).toBe(MODEL.routes.length);
  });
});
