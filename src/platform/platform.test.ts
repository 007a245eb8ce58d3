// The platform's pieces on their own; both apps' HTTP tests cover them in place.
import express from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { afterEach, describe, expect, expectTypeOf, it } from 'vitest';
import { request, serve, type Served } from '../../test-support/observability.ts';
import { StoreUnavailableError, type RateLimiter } from '../stores/index.ts';
import { errorHandler } from './errors.ts';
import { rateLimit, windowWords } from './rate-limit.ts';
import {
  type BodyReadError,
  describeFailure,
  type FailureCodes,
  type FailureKind,
  isMalformedPath,
  mapFailure,
  RequestFailure,
  ServiceError,
} from './failures.ts';
import { buildModel, compareRoutes, toExpressPath } from './operations.ts';
import { requestIdOf, requestIds } from './request-id.ts';
import { resolverModel } from './resolver-model.ts';
import { vaultModel } from './vault-model.ts';
import { pathValidator } from './validator.ts';

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

/** An app with `mount` and the platform's error handler in the resolver's shape. */
async function start(mount: (app: express.Express) => void): Promise<Served> {
  const app = express();
  mount(app);
  app.use(
    errorHandler({
      // An error with a code is answered in it; anything else is a fault.
      codes: {
        translate: (err) => {
          const e = err as { status?: number; code?: string; message?: string };
          if (e.code) return { error: new ServiceError(e.status ?? 500, e.code, e.message ?? '') };
          return { error: new ServiceError(500, 'internal_error', 'internal'), logged: true };
        },
      } as Partial<FailureCodes<string>> as FailureCodes<string>,
      body: ({ code, message }) => ({ code, message }),
    }),
  );
  served = await serve(app);
  return served;
}

describe('request ids', () => {
  it('each spec says how long a client id may be', () => {
    expect(vaultModel.requestIdMaxLength).toBe(200);
    expect(resolverModel.requestIdMaxLength).toBe(128);
  });

  it.each([0, -1, 1.5, Number.POSITIVE_INFINITY, undefined])(
    'a maxLength of %s is refused, not made a pattern',
    (max) => {
      const model = buildModel({
        openapi: '3.1.0',
        info: { title: 'ids', version: '1' },
        paths: {},
        components: { headers: { 'X-Request-ID': { schema: { type: 'string', maxLength: max } } } },
      } as never);
      expect(() => model.requestIdMaxLength).toThrow('X-Request-ID maxLength of 1 or more');
    },
  );

  it('echoes an acceptable id, replaces anything else, and keeps it for the handlers', async () => {
    const s = await start((app) => {
      app.use(requestIds({ maxLength: 8, newId: () => 'fresh' }));
      app.get('/x', (_req, res) => void res.json({ id: requestIdOf(res) }));
    });
    for (const [sent, want] of [
      ['abc', 'abc'],
      ['12345678', '12345678'],
      ['123456789', 'fresh'],
      ['a b', 'fresh'],
      [undefined, 'fresh'],
    ] as const) {
      const r = await request(
        s.port,
        sent === undefined ? { path: '/x' } : { path: '/x', headers: { 'x-request-id': sent } },
      );
      expect([r.headers['x-request-id'], JSON.parse(r.body).id]).toEqual([want, want]);
    }
  });
});

describe('spec loading', () => {
  it('models each description once per process', async () => {
    expect((await import('./vault-model.ts')).vaultModel).toBe(vaultModel);
    expect(resolverModel.document).not.toBe(vaultModel.document);
  });
});

describe('routes from the description', () => {
  it('are ordered as the validator orders them: a literal segment before a parameter', () => {
    const paths = ['/keys/:id', '/keys/rotate', '/keys', '/a/:x/b', '/a/:x'];
    expect([...paths].sort(compareRoutes)).toEqual(['/a/:x/b', '/a/:x', '/keys/rotate', '/keys/:id', '/keys']);
    expect(toExpressPath('/contracts/vault/{owner}')).toBe('/contracts/vault/:owner');
  });

  it('one route per declared path, most specific first', () => {
    const { routes } = resolverModel;
    expect(routes.map((r) => r.template).sort()).toEqual(Object.keys(resolverModel.document.paths).sort());
    const register = routes.findIndex((r) => r.template === '/v1/dids/stellar/submit');
    expect(register).toBeLessThan(routes.findIndex((r) => r.template === '/v1/dids/stellar/{did}'));
  });

  it('every path of both descriptions gets a validator that loads and matches its own template', async () => {
    for (const model of [vaultModel, resolverModel]) {
      const s = await start((app) => {
        for (const r of model.routes)
          app.all(
            r.expressPath,
            pathValidator(model, r, { allErrors: false, validateResponses: false }).validate,
            (req, res) =>
              void res.json({ route: (req as { openapi?: { openApiRoute?: string } }).openapi?.openApiRoute }),
          );
        app.use((_req, res) => void res.status(599).end());
      });
      const answered: string[] = [];
      for (const r of model.routes) {
        const method = r.operations[0]!.method.toUpperCase();
        const a = await request(s.port, { method, path: r.template.replace(/\{[^}]+\}/g, 'x1') });
        // A request that fails validation still matched the template: the validator answered it.
        answered.push(a.status === 200 || a.status === 500 ? r.template : `${a.status} ${r.template}`);
      }
      expect(answered.sort()).toEqual(model.routes.map((r) => r.template).sort());
      await s.close();
      served = undefined;
    }
  }, 60_000);

  it('a path that does not decode is recognised whoever found it', () => {
    expect(
      isMalformedPath(Object.assign(new URIError('x'), { status: 400, message: "Failed to decode param '%'" })),
    ).toBe(true);
    expect(isMalformedPath({ status: 400, message: 'bad', errors: [{ message: "malformed uri'" }] })).toBe(true);
    expect(isMalformedPath({ status: 400, message: 'bad', errors: [{ message: 'must be string' }] })).toBe(false);
    expect(isMalformedPath(new Error('Failed to decode param'))).toBe(false);
  });
});

describe('failures, described for any service', () => {
  const V = OpenApiValidator.error;

  it("the validator's refusals by kind; anything else is no failure", () => {
    expect(describeFailure(new V.NotFound({ path: '/x', message: 'not found' }))?.kind).toBe('not_found');
    expect(describeFailure(new V.UnsupportedMediaType({ path: '/x', message: 'x' }))?.kind).toBe(
      'unsupported_media_type',
    );
    const bad = new V.BadRequest({
      path: '/x',
      message: 'bad',
      errors: [{ path: '/body/a', message: 'must be string', errorCode: 'type.openapi.validation' }],
    });
    expect(describeFailure(bad)).toMatchObject({
      status: 400,
      kind: 'invalid',
      items: [{ path: '/body/a', segments: ['body', 'a'], keyword: 'type' }],
    });
    expect(describeFailure(new Error('x'))).toBeUndefined();
    expect([windowWords(60_000), windowWords(30_000), windowWords(1500)]).toEqual(['minute', '30 seconds', '1500 ms']);
  });

  it("a kind's own fields: the body reader's error on its 413, none on the validator's (and the types say so)", () => {
    expect(describeFailure(new V.RequestEntityTooLarge({ path: '/x', message: 'big' }))).not.toHaveProperty('read');
    const read = { type: 'entity.too.large', status: 413, message: 'big', limit: 10 };
    expect(describeFailure(read)).toMatchObject({ kind: 'too_large', read });
    type Given<K extends FailureKind> = Parameters<FailureCodes<string>['refusals'][K]>[0];
    expectTypeOf<Given<'method_not_allowed'>['allow']>().toEqualTypeOf<string>();
    expectTypeOf<Given<'unreadable'>['read']>().toEqualTypeOf<BodyReadError>();
    expectTypeOf<Given<'too_large'>['read']>().toEqualTypeOf<BodyReadError | undefined>();
    expectTypeOf<Given<'invalid'>>().not.toHaveProperty('allow');
  });

  it("each kind's entry is called with that kind's failure (at the call, the types leave the pairing to the code)", () => {
    const given: unknown[] = [];
    // Each entry answers in its own kind's name, whatever it is given.
    const entry = (kind: FailureKind) => (failure: { status: number }) => {
      given.push(failure);
      return new ServiceError(failure.status, kind, 'x');
    };
    const refusals: FailureCodes<string>['refusals'] = {
      not_found: entry('not_found'),
      method_not_allowed: entry('method_not_allowed'),
      malformed_path: entry('malformed_path'),
      unsupported_media_type: entry('unsupported_media_type'),
      too_large: entry('too_large'),
      unreadable: entry('unreadable'),
      invalid: entry('invalid'),
    };
    const kinds = Object.keys(refusals);
    const codes: FailureCodes<string> = { refusals, internal: () => ({ code: 'internal_error', message: 'x' }) };
    const thrown: [unknown, FailureKind][] = [
      [new V.NotFound({ path: '/x', message: 'x' }), 'not_found'],
      [
        new RequestFailure({ status: 405, kind: 'method_not_allowed', message: 'no', items: [], allow: 'GET' }),
        'method_not_allowed',
      ],
      [Object.assign(new Error('Failed to decode param'), { status: 400 }), 'malformed_path'],
      [new V.UnsupportedMediaType({ path: '/x', message: 'x' }), 'unsupported_media_type'],
      [{ type: 'entity.too.large', status: 413, message: 'big', limit: 10 }, 'too_large'],
      [{ type: 'entity.parse.failed', status: 400, message: 'bad', body: '{' }, 'unreadable'],
      [new RequestFailure({ status: 400, kind: 'invalid', message: 'bad', items: [] }), 'invalid'],
    ];
    expect(thrown.map(([, kind]) => kind).sort()).toEqual([...kinds].sort());
    for (const [err, kind] of thrown) {
      given.length = 0;
      expect(mapFailure(codes, err, {} as express.Request, undefined, undefined)).toMatchObject({ code: kind });
      expect(given).toEqual([describeFailure(err)]);
      expect(describeFailure(err)?.kind).toBe(kind);
    }
    expect(describeFailure(thrown[5]![0])).toMatchObject({ kind: 'unreadable', read: { type: 'entity.parse.failed' } });
  });

  it('a refusal carries no stack (it is an answer); a fault keeps its frames, and the limit is put back', () => {
    const frames = (e: Error) => (e.stack ?? '').split('\n').filter((l) => /^\s+at /.test(l)).length;
    const limit = Error.stackTraceLimit;
    expect(frames(new ServiceError(404, 'not_found', 'none'))).toBe(0);
    const allow = 'GET, HEAD';
    const refused = new RequestFailure({ status: 405, kind: 'method_not_allowed', message: 'no', items: [], allow });
    expect([frames(refused), refused.message, refused.status]).toEqual([0, 'no', 405]);
    expect(frames(new ServiceError(503, 'chain_unavailable', 'down'))).toBeGreaterThan(0);
    expect(Error.stackTraceLimit).toBe(limit);
  });
});

describe('rate limits', () => {
  const limiter = (hit: RateLimiter['hit']): RateLimiter => ({ hit, close: async () => {} });
  const plan = {
    bucket: 'b',
    limit: 2,
    headerPrefix: 'X-RateLimit',
    refuse: (s: number) => Object.assign(new Error(`over, retry in ${s}`), { status: 429, code: 'rate_limited' }),
  };

  it('sets the headers, and refuses over the limit with Retry-After', async () => {
    let n = 0;
    const s = await start((app) => {
      app.use(
        rateLimit({
          limiter: limiter(async () => ({
            allowed: ++n <= 2,
            limit: 2,
            remaining: 2 - n,
            retryAfterSeconds: 0,
            resetMs: 60_000,
          })),
          windowMs: 60_000,
          now: () => 0,
          whenUnavailable: 'refuse',
          plan: () => plan,
        }),
      );
      app.get('/x', (_req, res) => void res.json({}));
    });
    const answers = [];
    for (let i = 0; i < 3; i++) {
      const r = await request(s.port, { path: '/x' });
      answers.push([r.status, r.headers['x-ratelimit-remaining'], r.headers['retry-after']]);
    }
    expect(answers).toEqual([
      [200, '1', undefined],
      [200, '0', undefined],
      [429, '0', '1'],
    ]);
  });

  it('a store that is down: refused (503 through StoreUnavailableError) or admitted, as the service chooses', async () => {
    const down = limiter(async () => {
      throw new Error('ECONNREFUSED');
    });
    const seen: unknown[] = [];
    const s = await start((app) => {
      app.get(
        '/refuse',
        rateLimit({ limiter: down, windowMs: 1000, now: () => 0, whenUnavailable: 'refuse', plan: () => plan }),
        (_q, r) => void r.json({}),
      );
      app.get(
        '/admit',
        rateLimit({
          limiter: limiter(async () => {
            throw new StoreUnavailableError('rate_limit', 'down');
          }),
          windowMs: 1000,
          now: () => 0,
          whenUnavailable: 'admit',
          plan: () => plan,
          log: (e) => seen.push(e),
        }),
        (_q, r) => void r.json({}),
      );
      app.get(
        '/bug',
        rateLimit({
          limiter: limiter(async () => {
            throw new TypeError('a bug');
          }),
          windowMs: 1000,
          now: () => 0,
          whenUnavailable: 'admit',
          plan: () => plan,
        }),
        (_q, r) => void r.json({}),
      );
      app.use((err: unknown, _req: express.Request, _res: express.Response, next: express.NextFunction) => {
        next(
          err instanceof StoreUnavailableError
            ? Object.assign(err, { status: 503, code: 'rate_limit_unavailable' })
            : err,
        );
      });
    });
    expect((await request(s.port, { path: '/refuse' })).status).toBe(503);
    const admitted = await request(s.port, { path: '/admit' });
    expect([admitted.status, admitted.headers['x-ratelimit-remaining']]).toEqual([200, '2']);
    expect(seen).toHaveLength(1);
    expect((await request(s.port, { path: '/bug' })).status).toBe(500);
  });

  it('names its window in words', () => {
    expect([windowWords(60_000), windowWords(30_000), windowWords(1500)]).toEqual(['minute', '30 seconds', '1500 ms']);
  });
});

describe('the error envelope', () => {
  it('cuts the connection when the answer had started', async () => {
    const s = await start((app) => {
      app.get('/x', (_req, res, next) => {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('partial');
        next(new Error('late'));
      });
    });
    await expect(request(s.port, { path: '/x' })).rejects.toThrow();
  });
});
