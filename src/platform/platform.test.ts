// The platform's pieces on their own; both apps' HTTP tests cover them in place.
import express from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { afterEach, describe, expect, it } from 'vitest';
import { request, serve, type Served } from '../../test-support/observability.ts';
import { StoreUnavailableError, type RateLimiter } from '../stores/index.ts';
import { errorHandler } from './errors.ts';
import { rateLimit, windowWords } from './rate-limit.ts';
import { requestIdMaxLength, requestIdOf, requestIds } from './request-id.ts';
import { loadResolverSpec, loadVaultSpec } from './spec.ts';
import {
  compareRoutes,
  describeValidatorFailure,
  isMalformedPath,
  operationRoutes,
  toExpressPath,
  warmRoutes,
} from './validator.ts';

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
      toAnswer: (err) => {
        const e = err as { status?: number; code?: string; message?: string };
        return e.code
          ? { status: e.status ?? 500, code: e.code, message: e.message ?? '' }
          : { status: 500, code: 'internal_error', message: 'internal', internal: err };
      },
      body: ({ code, message }) => ({ code, message }),
    }),
  );
  served = await serve(app);
  return served;
}

describe('request ids', () => {
  it('each spec says how long a client id may be', () => {
    expect(requestIdMaxLength(loadVaultSpec())).toBe(200);
    expect(requestIdMaxLength(loadResolverSpec())).toBe(128);
  });

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
  it('parses each description once per process', () => {
    expect(loadVaultSpec()).toBe(loadVaultSpec());
    expect(loadResolverSpec()).not.toBe(loadVaultSpec());
  });
});

describe('routes from the description', () => {
  it('are ordered as the validator orders them: a literal segment before a parameter', () => {
    const paths = ['/keys/:id', '/keys/rotate', '/keys', '/a/:x/b', '/a/:x'];
    expect([...paths].sort(compareRoutes)).toEqual(['/a/:x/b', '/a/:x', '/keys/rotate', '/keys/:id', '/keys']);
    expect(toExpressPath('/contracts/vault/{owner}')).toBe('/contracts/vault/:owner');
  });

  it('one route per declared path, each with its own validator pieces', () => {
    const routes = operationRoutes(loadResolverSpec(), { allErrors: false, validateResponses: true });
    expect(routes.map((r) => r.template).sort()).toEqual(Object.keys(loadResolverSpec().paths).sort());
    for (const r of routes) expect([r.match.length, r.requests.length, typeof r.responses]).toEqual([2, 2, 'function']);
    const register = routes.findIndex((r) => r.template === '/v1/dids/stellar/submit');
    expect(register).toBeLessThan(routes.findIndex((r) => r.template === '/v1/dids/stellar/{did}'));
  });

  it('every path of both descriptions gets an instance that loads and matches its own template', async () => {
    for (const doc of [loadVaultSpec(), loadResolverSpec()]) {
      const routes = operationRoutes(doc, { allErrors: false, validateResponses: false });
      const s = await start((app) => {
        for (const r of routes)
          app.all(
            r.expressPath,
            ...r.match,
            (req, res) =>
              void res.json({ route: (req as { openapi?: { openApiRoute?: string } }).openapi?.openApiRoute }),
          );
      });
      const answered: string[] = [];
      for (const r of routes) {
        const method = Object.keys(doc.paths[r.template]!)
          .find((m) => ['get', 'post', 'put', 'patch', 'delete'].includes(m))!
          .toUpperCase();
        const a = await request(s.port, { method, path: r.template.replace(/\{[^}]+\}/g, 'x1') });
        answered.push(a.status === 200 ? JSON.parse(a.body).route : `${a.status} ${r.template}`);
      }
      expect(answered.sort()).toEqual(routes.map((r) => r.template).sort());
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

describe("the validator's failures, described for any service", () => {
  const V = OpenApiValidator.error;
  const allowOf = (path: string) => (path === '/keys' ? 'GET, POST' : undefined);
  const describeAt = (err: unknown, method = 'PUT', path = '/keys') =>
    describeValidatorFailure(err, { method, path }, allowOf);

  it('an undeclared method: 405 with Allow, else (OPTIONS, no declared methods) not found', () => {
    const err = new V.MethodNotAllowed({ path: '/keys', message: 'PUT method not allowed' });
    expect(describeAt(err)).toMatchObject({ status: 405, kind: 'method_not_allowed', allow: 'GET, POST' });
    expect(describeAt(err, 'OPTIONS')?.kind).toBe('not_found');
    expect(describeAt(err, 'PUT', '/other')?.kind).toBe('not_found');
    expect(describeAt(new V.NotFound({ path: '/x', message: 'not found' }))?.kind).toBe('not_found');
  });

  it('a body of another media type, a path that does not decode', () => {
    const media = new V.UnsupportedMediaType({ path: '/body', message: 'unsupported media type text/plain' });
    expect(describeAt(media)?.kind).toBe('unsupported_media_type');
    const router = Object.assign(new URIError('x'), { status: 400, message: "Failed to decode param '%'" });
    expect(describeAt(router)).toEqual({
      status: 400,
      kind: 'malformed_path',
      message: 'malformed uri',
      items: [{ path: '/path', segments: ['path'], keyword: '', message: 'malformed uri' }],
    });
    const validator = new V.BadRequest({ path: '/x/%', message: 'malformed uri: /x/%' });
    expect(describeAt(validator)?.kind).toBe('malformed_path');
  });

  it('a request that fails its schema: every location, its segments and keyword', () => {
    const err = new V.BadRequest({
      path: '/body/vcs/2/vcId',
      message: 'request/body/vcs/2/vcId must NOT have more than 256 characters',
      errors: [
        {
          path: '/body/vcs/2/vcId',
          message: 'must NOT have more than 256 characters',
          errorCode: 'maxLength.openapi.validation',
        },
        { path: '/query/x', message: 'Unknown query parameter' },
      ],
    });
    expect(describeAt(err)).toEqual({
      status: 400,
      kind: 'invalid',
      message: 'request/body/vcs/2/vcId must NOT have more than 256 characters',
      items: [
        {
          path: '/body/vcs/2/vcId',
          segments: ['body', 'vcs', '2', 'vcId'],
          keyword: 'maxLength',
          message: 'must NOT have more than 256 characters',
          errorCode: 'maxLength.openapi.validation',
        },
        { path: '/query/x', segments: ['query', 'x'], keyword: '', message: 'Unknown query parameter' },
      ],
    });
    expect(describeAt(new V.RequestEntityTooLarge({ path: '/body', message: 'too large' }))?.kind).toBe('other');
  });

  it('anything else is not the validator', () => {
    expect(describeAt(new Error('boom'))).toBeUndefined();
    expect(describeAt({ status: 400, message: 'no errors' })).toBeUndefined();
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

describe('warmRoutes', () => {
  it("makes every route's validator in the background, one per turn, answering other work in between", async () => {
    const routes = operationRoutes(loadResolverSpec(), { allErrors: false, validateResponses: false });
    expect(routes.some((r) => r.made())).toBe(false);
    let turns = 0;
    let counting = true;
    const tick = () => {
      turns += 1;
      if (counting) setImmediate(tick);
    };
    setImmediate(tick);
    await warmRoutes(routes);
    counting = false;
    expect(routes.every((r) => r.made())).toBe(true);
    // Other callbacks ran between the instances: the loop was never held for all of them at once.
    expect(turns).toBeGreaterThanOrEqual(routes.length);
  });
});
