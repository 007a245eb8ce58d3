// The front's plumbing (front.ts): steps in sequence with Express's rules between them, and the exact-path GETs
// that stand for app-level routes. Each is served by a real Express app, so what is checked is what a client sees.
import express, { type RequestHandler } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { request, serve, type Served } from '../../test-support/observability.ts';
import { exactGets, inSequence } from './front.ts';

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

/** An app whose one layer is `front`, then an answer naming the steps that ran, and an error answer. */
async function appOf(front: RequestHandler) {
  const app = express();
  app.use(front);
  app.use((_req, res) => void res.json({ ran: res.locals['ran'] ?? [] }));
  app.use(((err, _req, res, _next) => {
    res.status(500).json({ error: String((err as Error).message ?? err), ran: res.locals['ran'] ?? [] });
  }) as express.ErrorRequestHandler);
  served = await serve(app);
  return async (method: string, path: string) => {
    const r = await request(served!.port, { method, path });
    return { status: r.status, body: r.body === '' ? undefined : (JSON.parse(r.body) as unknown), headers: r.headers };
  };
}

const mark =
  (name: string): RequestHandler =>
  (_req, res, next) => {
    res.locals['ran'] = [...((res.locals['ran'] as string[] | undefined) ?? []), name];
    next();
  };

describe('steps in sequence', () => {
  it('run in order, each once, then the next layer', async () => {
    const ask = await appOf(inSequence([mark('a'), mark('b'), mark('c')]));
    expect((await ask('GET', '/x')).body).toEqual({ ran: ['a', 'b', 'c'] });
  });

  it("skip the rest on an error: passed to next, thrown, or a rejected promise's", async () => {
    const passed: RequestHandler = (_req, _res, next) => next(new Error('passed'));
    const thrown: RequestHandler = () => {
      throw new Error('thrown');
    };
    const rejected: RequestHandler = async () => {
      await Promise.resolve();
      throw new Error('rejected');
    };
    for (const [failing, message] of [
      [passed, 'passed'],
      [thrown, 'thrown'],
      [rejected, 'rejected'],
    ] as const) {
      const ask = await appOf(inSequence([mark('a'), failing, mark('c')]));
      expect(await ask('GET', '/x')).toMatchObject({ status: 500, body: { error: message, ran: ['a'] } });
      await served?.close();
    }
  });

  it("take next('route') as no error, as Express does at app level", async () => {
    const skip: RequestHandler = (_req, _res, next) => next('route');
    const ask = await appOf(inSequence([mark('a'), skip, mark('c')]));
    expect((await ask('GET', '/x')).body).toEqual({ ran: ['a', 'c'] });
  });

  it('end where a step answers', async () => {
    const answer: RequestHandler = (_req, res) => void res.status(204).end();
    const ask = await appOf(inSequence([mark('a'), answer, mark('c')]));
    expect((await ask('GET', '/x')).status).toBe(204);
  });

  it('go on after a step that calls next later', async () => {
    const later: RequestHandler = (_req, _res, next) => void setImmediate(next);
    const ask = await appOf(inSequence([mark('a'), later, mark('c')]));
    expect((await ask('GET', '/x')).body).toEqual({ ran: ['a', 'c'] });
  });
});

describe('exact-path GETs', () => {
  const probe: RequestHandler = (req, res) =>
    void res.json({ route: (req as { route?: { path?: string } }).route?.path, method: req.method });

  it('answer GET and HEAD of the path as an app.get route would: any case, one trailing slash', async () => {
    const ask = await appOf(exactGets({ '/probe': probe }));
    for (const path of ['/probe', '/PROBE', '/probe/', '/probe?x=1']) {
      expect(await ask('GET', path)).toMatchObject({ status: 200, body: { route: '/probe', method: 'GET' } });
    }
    const head = await ask('HEAD', '/probe');
    expect([head.status, head.body, head.headers['content-type']]).toEqual([
      200,
      undefined,
      'application/json; charset=utf-8',
    ]);
  });

  it('pass on other paths and other methods', async () => {
    const ask = await appOf(exactGets({ '/probe': probe }));
    for (const [method, path] of [
      ['GET', '/probe//'],
      ['GET', '/probes'],
      ['GET', '/probe/x'],
      ['GET', '/api/probe'],
      ['POST', '/probe'],
      ['OPTIONS', '/probe'],
    ] as const) {
      expect(await ask(method, path), `${method} ${path}`).toMatchObject({ status: 200, body: { ran: [] } });
    }
  });

  it('refuse a path that is not plain lower case (the comparison would never match it)', () => {
    expect(() => exactGets({ '/Probe': probe })).toThrow(/not a plain lower-case path/);
    expect(() => exactGets({ '/probe/': probe })).toThrow(/not a plain lower-case path/);
    expect(() => exactGets({ '/probe/:id': probe })).toThrow(/not a plain lower-case path/);
  });
});
