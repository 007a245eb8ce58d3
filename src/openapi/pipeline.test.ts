import express, { type RequestHandler } from 'express';
import { afterEach, describe, expect, it } from 'vitest';
import { request, serve, type Served } from '../../test-support/observability.ts';
import { pipeline } from './pipeline.ts';

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

/** Middleware that record what they saw in `res.locals.trace`, and one way or another pass on. */
const step = (name: string, how: 'next' | 'route' | 'async' | 'throw' | 'reject' | 'error' | 'router' | 'answer' | 'params' | 'url'): RequestHandler =>
  (req, res, next) => {
    const trace = ((res.locals.trace as string[] | undefined) ??= []);
    trace.push(`${name}:${JSON.stringify(req.params)}:${req.url}`);
    switch (how) {
      case 'next': return next();
      case 'route': return next('route');
      case 'async': return void setImmediate(() => next());
      case 'throw': throw new Error(`${name} threw`);
      case 'reject': return Promise.reject(new Error(`${name} rejected`)) as never;
      case 'error': return next(new Error(`${name} failed`));
      case 'router': return next('router');
      case 'answer': return void res.json({ by: name, trace });
      case 'params': req.params = { leaked: '1' }; return next();
      case 'url': req.url = `/rewritten${req.url}`; return next();
    }
  };

type Step = Parameters<typeof step>[1];

/** The same steps as separate layers or as one pipeline, then a route and an error handler that report. */
async function run(steps: readonly Step[], piped: boolean, path = '/x/y'): Promise<{ status: number; body: unknown }> {
  const app = express();
  const handlers = steps.map((how, i) => step(`s${i}`, how));
  if (piped) app.use(pipeline(handlers));
  else for (const h of handlers) app.use(h);
  app.use('/rewritten', (_req, res, next) => {
    (res.locals.trace as string[]).push('mounted');
    next();
  });
  app.get('/*rest', (req, res) => res.json({ by: 'route', params: req.params, trace: res.locals.trace }));
  app.use((err: Error, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    res.status(500).json({ by: 'error handler', message: err.message, trace: res.locals.trace });
  });
  served = await serve(app);
  const a = await request(served.port, { path });
  await served.close();
  served = undefined;
  return { status: a.status, body: a.body.startsWith('{') ? (JSON.parse(a.body) as unknown) : a.body };
}

describe('pipeline', () => {
  it.each<{ steps: Step[] }>([
    { steps: ['next', 'next', 'next'] },
    { steps: ['next', 'route', 'async', 'next'] },
    { steps: ['next', 'throw', 'next'] },
    { steps: ['async', 'reject', 'next'] },
    { steps: ['next', 'error', 'next'] },
    { steps: ['next', 'router', 'next'] },
    { steps: ['next', 'answer', 'next'] },
    { steps: ['params', 'next', 'params', 'next'] },
    { steps: ['url', 'next'] },
    { steps: [] },
  ])('runs $steps exactly as separate layers would', async ({ steps }) => {
    const separate = await run(steps, false);
    const piped = await run(steps, true);
    expect(piped).toEqual(separate);
  });

  it('refuses error handlers', () => {
    const errorHandler = ((_e: unknown, _q: unknown, _s: unknown, n: () => void) => n()) as unknown as RequestHandler;
    expect(() => pipeline(errorHandler)).toThrow(/only request handlers/);
  });
});
