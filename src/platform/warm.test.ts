// The validators' warm-up (createServiceApp's `warm`, src/platform/app.ts) yields to requests: it makes a path's
// express-openapi-validator instance only once the process has had no request in flight for the quiet interval
// (src/platform/idle.ts), then one path per turn until all are made, and stops when the service drains. Time is a
// manual clock: the test moves it and fires the timers that are due, so nothing sleeps.
import type { RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { manualClock, turns } from '../../test-support/idle-clock.ts';
import { request, serve, type Served } from '../../test-support/observability.ts';
import { testServiceApp } from '../../test-support/platform-app.ts';
import { idleness } from './idle.ts';
import { buildModel } from './operations.ts';
import type { OpenApiDocument } from './operations.ts';

// Counts the instances made: every call of the validator's one entry point.
vi.mock('express-openapi-validator', async (importOriginal) => {
  const real = await importOriginal<typeof import('express-openapi-validator')>();
  return { ...real, middleware: vi.fn(real.middleware) };
});
const made = () => vi.mocked(OpenApiValidator.middleware).mock.calls.length;

const ok = { responses: { '200': { description: 'ok' } } };
const SPEC: OpenApiDocument = {
  openapi: '3.1.0',
  info: { title: 'three paths', version: '1' },
  paths: {
    '/things': { get: { operationId: 'listThings', ...ok } },
    '/things/{id}': {
      get: {
        operationId: 'getThing',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', maxLength: 8 } }],
        ...ok,
      },
    },
    '/held': { get: { operationId: 'held', ...ok } },
  },
  components: { headers: { 'X-Request-ID': { schema: { type: 'string', maxLength: 64 } } } },
};
const MODEL = buildModel(SPEC);
const PATHS = MODEL.routes.length;
const QUIET = 200;

let release: () => void = () => undefined;
let holding = false;
const answer: RequestHandler = (_req, res) => void res.json({});
const held: RequestHandler = (_req, res) => {
  holding = true;
  release = () => {
    release = () => undefined;
    res.json({});
  };
};
/** A readiness check that answers when released, as `held` does. */
const heldCheck = {
  name: 'held',
  check: () =>
    new Promise<boolean>((resolve) => {
      holding = true;
      release = () => {
        release = () => undefined;
        resolve(true);
      };
    }),
};

// A compile takes ~0.1 s of CPU, seconds on a loaded host: the waits are bounded by that, not by vitest's 1 s.
const WAIT = { timeout: 20_000 };

let served: Served[] = [];
// Each app is told it drains after its test: a warm-up left unfinished (its test failed or ended early) stops at
// its next step instead of making validators that the next test would count as its own.
let stops: (() => void)[] = [];
async function start(draining: () => boolean = () => false, checks: (typeof heldCheck)[] = []) {
  let stopped = false;
  stops.push(() => void (stopped = true));
  const { clock, advance, pending } = manualClock();
  const app = testServiceApp({
    model: MODEL,
    validator: { allErrors: true, validateResponses: false, warm: idleness({ clock, quietMs: QUIET }) },
    ready: { checks, draining: () => stopped || draining() },
    handlers: { listThings: answer, getThing: answer, held },
  });
  const s = await serve(app);
  served.push(s);
  await turns(2); // The warm-up's first turn: it asks the clock for the quiet interval.
  const get = async (path: string) => (await request(s.port, { path })).status;
  return { advance, pending, get };
}

beforeEach(() => {
  vi.mocked(OpenApiValidator.middleware).mockClear();
  holding = false;
});
afterEach(async () => {
  for (const stop of stops) stop();
  stops = [];
  release();
  await Promise.all(served.map((s) => s.close()));
  served = [];
});

describe('the validators warm-up', () => {
  it('makes nothing while requests are in flight or within the quiet interval; they make their own paths', async () => {
    const { advance, get } = await start();
    await turns(10);
    expect(made()).toBe(0); // The app's start counts as activity.
    const slow = get('/held');
    await vi.waitFor(() => expect(holding).toBe(true), WAIT);
    expect(made()).toBe(1); // /held, made by its request.
    advance(10 * QUIET); // Long past the quiet interval, but a request is in flight.
    await turns(10);
    expect(made()).toBe(1);
    release();
    expect(await slow).toBe(200);
    advance(QUIET / 2);
    expect(await get('/things/x')).toBe(200); // Within the quiet interval of the last answer: another request.
    expect(made()).toBe(2);
    advance(QUIET / 2); // Quiet since /held, not since /things/x.
    await turns(10);
    expect(made()).toBe(2);
    // Quiet at last: the one path no request made is warmed.
    await vi.waitFor(() => {
      advance(QUIET);
      expect(made()).toBe(PATHS);
    }, WAIT);
  });

  it('once quiet, makes every path, one per turn of the event loop', async () => {
    const { advance, pending } = await start();
    advance(QUIET);
    expect(made()).toBe(1); // The first step runs as the quiet interval ends; the next ones on later turns.
    await vi.waitFor(() => expect(made()).toBe(PATHS), WAIT);
    await turns(10);
    expect([made(), pending()]).toEqual([PATHS, 0]);
  });

  it('a probe holds it off while in flight, but does not start the quiet interval', async () => {
    const { advance, get } = await start(undefined, [heldCheck]);
    advance(QUIET / 2);
    const probe = get('/ready');
    await vi.waitFor(() => expect(holding).toBe(true), WAIT);
    advance(QUIET); // Quiet since the start, but the probe is in flight.
    await turns(10);
    expect(made()).toBe(0);
    release();
    expect(await probe).toBe(200);
    // No quiet interval after a probe: the warm-up goes on as soon as it has closed.
    await vi.waitFor(() => expect(made()).toBe(PATHS), WAIT);
  });

  it('stops once the service drains, before or between steps', async () => {
    const before = await start(() => true);
    before.advance(QUIET);
    await turns(10);
    expect([made(), before.pending()]).toEqual([0, 0]);
    const between = await start(() => made() >= 1);
    between.advance(QUIET);
    await turns(10);
    expect([made(), between.pending()]).toEqual([1, 0]);
  });
});
