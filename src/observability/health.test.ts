import express from 'express';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLogger } from './logging.ts';
import { readiness, rpcCheck, runChecks, storeChecks, type ReadinessCheck } from './health.ts';
import { request, serve, type Served } from '../../test-support/observability.ts';

const up = (name: string): ReadinessCheck => ({ name, check: async () => true });
const down = (name: string): ReadinessCheck => ({ name, check: async () => false });
const throws = (name: string): ReadinessCheck => ({
  name,
  check: async () => Promise.reject(new Error('ECONNREFUSED')),
});
const throwsSync = (name: string): ReadinessCheck => ({
  name,
  check: () => {
    throw new Error('sync');
  },
});
const hangs = (name: string, timeoutMs?: number): ReadinessCheck => ({
  name,
  check: () => new Promise<boolean>(() => undefined),
  ...(timeoutMs ? { timeoutMs } : {}),
});

describe('GET /ready', () => {
  let served: Served | undefined;
  afterEach(async () => {
    await served?.close();
    served = undefined;
  });

  it.each([
    { name: 'no checks', checks: [], status: 200, body: 'ready', want: [] },
    {
      name: 'all up',
      checks: [up('rpc:testnet'), up('store:keys')],
      status: 200,
      body: 'ready',
      want: [
        ['rpc:testnet', 'up'],
        ['store:keys', 'up'],
      ],
    },
    {
      name: 'the RPC down',
      checks: [down('rpc:testnet'), up('store:keys')],
      status: 503,
      body: 'not_ready',
      want: [
        ['rpc:testnet', 'down', 'failed'],
        ['store:keys', 'up'],
      ],
    },
    {
      name: 'a store throws',
      checks: [up('rpc:testnet'), throws('store:keys')],
      status: 503,
      body: 'not_ready',
      want: [
        ['rpc:testnet', 'up'],
        ['store:keys', 'down', 'error'],
      ],
    },
    {
      name: 'a check throws synchronously',
      checks: [throwsSync('store:cache')],
      status: 503,
      body: 'not_ready',
      want: [['store:cache', 'down', 'error']],
    },
    {
      name: 'a check hangs',
      checks: [hangs('rpc:mainnet'), up('store:keys')],
      status: 503,
      body: 'not_ready',
      want: [
        ['rpc:mainnet', 'down', 'timeout'],
        ['store:keys', 'up'],
      ],
    },
  ])('$name → $status', async ({ checks, status, body, want }) => {
    const app = express();
    app.get('/ready', readiness(checks, { timeoutMs: 50 }));
    served = await serve(app);
    const res = await request(served.port, { path: '/ready' });
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
    const json = JSON.parse(res.body) as {
      status: string;
      checks: { name: string; status: string; ms: number; reason?: string }[];
    };
    expect(json.status).toBe(body);
    expect(json.checks.map((c) => [c.name, c.status, ...(c.reason ? [c.reason] : [])])).toEqual(want);
    for (const c of json.checks) expect(c.ms).toBeGreaterThanOrEqual(0);
    expect(res.body).not.toContain('ECONNREFUSED');
  });

  it('runs checks in parallel, each under its own timeout', async () => {
    const started = Date.now();
    const report = await runChecks([hangs('a', 100), hangs('b', 100), hangs('c', 100), hangs('slow-allowed', 300)], {
      timeoutMs: 5000,
    });
    const took = Date.now() - started;
    expect(report.checks.map((c) => c.reason)).toEqual(['timeout', 'timeout', 'timeout', 'timeout']);
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(1500);
  });

  it.each([
    {
      what: 'a check that answers what it saw',
      check: async () => 'getHealth answered "unhealthy"',
      reason: 'failed',
      detail: 'getHealth answered "unhealthy"',
    },
    {
      what: 'a check that answers false',
      check: async () => false,
      reason: 'failed',
      detail: 'the check answered not ready',
    },
    {
      what: 'an error with a code (its message stays in the log)',
      check: async () => {
        throw Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:5432'), { code: 'ECONNREFUSED' });
      },
      reason: 'error',
      detail: 'error ECONNREFUSED',
    },
    {
      what: 'an error without a code',
      check: async () => Promise.reject(new TypeError('x is not a function')),
      reason: 'error',
      detail: 'error TypeError',
    },
  ])('names what failed: $what', async ({ check, reason, detail }) => {
    const report = await runChecks([{ name: 'rpc:testnet', check }]);
    expect(report.checks[0]).toMatchObject({ status: 'down', reason, detail });
    expect(JSON.stringify(report)).not.toContain('10.0.0.7');
  });

  it('measures with the injected clock and logs why a check is down', async () => {
    let t = 0;
    const lines: string[] = [];
    const logger = createLogger({ level: 'info', write: (l) => lines.push(l), now: () => 0 });
    const report = await runChecks([throws('store:keys')], { now: () => (t += 7), logger, retryMs: 0 });
    expect(report.checks.map((c) => c.ms)).toEqual([7]);
    expect(lines.map((l) => JSON.parse(l) as unknown)).toEqual([
      {
        time: '1970-01-01T00:00:00.000Z',
        level: 'error',
        msg: 'readiness check down',
        check: 'store:keys',
        reason: 'error',
        detail: 'error Error',
        message: 'ECONNREFUSED',
      },
    ]);
  });

  describe('within its budget (a clean start on a loaded host logs no error)', () => {
    afterEach(() => vi.useRealTimers());
    const logged = () => {
      const lines: string[] = [];
      const logger = createLogger({ level: 'debug', write: (l) => lines.push(l), now: () => 0 });
      const levels = () => lines.map((l) => (JSON.parse(l) as { level: string; msg: string }).level);
      return { logger, lines, levels };
    };
    /** A store that is still opening: it fails its first `failures` probes, then answers. */
    const warming = (failures: number, how: 'false' | 'throw') => {
      let calls = 0;
      const check = async () => {
        calls++;
        if (calls > failures) return true;
        if (how === 'throw')
          throw Object.assign(new Error('connect ECONNREFUSED 10.0.0.7:5432'), { code: 'ECONNREFUSED' });
        return false;
      };
      return { check, calls: () => calls };
    };

    it.each(['false', 'throw'] as const)(
      'a store that answers %s at first, then up, is up; nothing at error',
      async (how) => {
        vi.useFakeTimers({ now: 0 });
        const { logger, lines, levels } = logged();
        const store = warming(3, how);
        const pending = runChecks([{ name: 'store:keys', check: store.check }], { now: Date.now, logger });
        await vi.advanceTimersByTimeAsync(50 + 100 + 200);
        const report = await pending;
        expect(report).toEqual({ status: 'ready', checks: [{ name: 'store:keys', status: 'up', ms: 350 }] });
        expect(store.calls()).toBe(4);
        expect(levels()).toEqual(['debug', 'debug', 'debug']);
        expect(lines.join('\n')).toContain('readiness check retried');
      },
    );

    it('a store that stays down is reported down once its budget is spent, with one error line', async () => {
      vi.useFakeTimers({ now: 0 });
      const { logger, lines, levels } = logged();
      const store = warming(Number.POSITIVE_INFINITY, 'false');
      const pending = runChecks([{ name: 'store:keys', check: store.check, where: 'SQLite /data/keys.db' }], {
        now: Date.now,
        logger,
        timeoutMs: 2000,
      });
      await vi.advanceTimersByTimeAsync(2000);
      const report = await pending;
      expect(report.status).toBe('not_ready');
      expect(report.checks[0]).toMatchObject({
        status: 'down',
        reason: 'failed',
        detail: expect.stringContaining('SQLite /data/keys.db'),
      });
      expect(report.checks[0]!.ms).toBeLessThanOrEqual(2000);
      // Pauses of 50, 100, 200, 400, 400, 400 and 400 ms: the eighth attempt, at 1,950 ms, is the last its budget has.
      expect(store.calls()).toBe(8);
      expect(levels().filter((l) => l === 'error')).toEqual(['error']);
      expect(JSON.parse(lines.at(-1)!)).toMatchObject({
        msg: 'readiness check down',
        check: 'store:keys',
        attempts: 8,
      });
    });

    it('an answer due together with the timeout wins (the event loop was blocked for the whole budget)', async () => {
      vi.useFakeTimers({ now: 0 });
      const { logger, levels } = logged();
      // The answer's I/O completes at the very instant the budget ends: what a host that kept the event loop busy
      // for the whole budget looks like (both are due when the loop turns again).
      const slow: ReadinessCheck = {
        name: 'store:keys',
        check: () => new Promise<boolean>((resolve) => setTimeout(() => resolve(true), 2000)),
      };
      const pending = runChecks([slow], { now: Date.now, logger, timeoutMs: 2000 });
      await vi.advanceTimersByTimeAsync(2000);
      expect((await pending).checks[0]).toMatchObject({ status: 'up' });
      expect(levels()).toEqual([]);
    });

    it('a check that never answers is down after its budget, not after several', async () => {
      vi.useFakeTimers({ now: 0 });
      const pending = runChecks([hangs('store:keys')], { now: Date.now, timeoutMs: 2000 });
      await vi.advanceTimersByTimeAsync(2000);
      await vi.runOnlyPendingTimersAsync();
      expect((await pending).checks[0]).toMatchObject({
        status: 'down',
        reason: 'timeout',
        detail: 'no answer within 2000 ms',
      });
      // (Fake immediates run a millisecond later.)
      expect((await pending).checks[0]!.ms).toBeLessThanOrEqual(2001);
    });
  });

  it('logs a check down at warn until the instance first answers ready, at error after (GET /ready)', async () => {
    const lines: string[] = [];
    const logger = createLogger({ level: 'debug', write: (l) => lines.push(l), now: () => 0 });
    let up = false;
    const app = express();
    app.get('/ready', readiness([{ name: 'store:keys', check: async () => up }], { logger, retryMs: 0 }));
    const ready = await serve(app);
    try {
      const status = async () => (await request(ready.port, { path: '/ready' })).status;
      const levelsOf = () =>
        lines.map((l) => JSON.parse(l) as { level: string; msg: string }).map((l) => `${l.level} ${l.msg}`);
      expect(await status()).toBe(503);
      expect(levelsOf()).toEqual(['warn readiness check not up yet']);
      up = true;
      expect(await status()).toBe(200);
      up = false;
      expect(await status()).toBe(503);
      expect(levelsOf()).toEqual(['warn readiness check not up yet', 'error readiness check down']);
    } finally {
      await ready.close();
    }
  });

  it('answers not ready without running checks once draining', async () => {
    let ran = false;
    const report = await runChecks([{ name: 'x', check: async () => (ran = true) }], { draining: () => true });
    const detail = 'the process is shutting down';
    const shutdown = { name: 'shutdown', status: 'down', ms: 0, reason: 'shutting_down', detail };
    expect(report).toEqual({ status: 'not_ready', checks: [shutdown] });
    expect(ran).toBe(false);
  });
});

describe('check builders', () => {
  it.each([
    { given: 'healthy', want: 'up' },
    { given: 'unhealthy', want: 'down' },
  ])('rpcCheck: RPC says $given → $want', async ({ given, want }) => {
    const report = await runChecks([rpcCheck('rpc:testnet', { health: async () => ({ status: given }) })]);
    expect(report.checks[0]!.status).toBe(want);
  });

  it('storeChecks: one check per store from a single health() probe', async () => {
    let probes = 0;
    const stores = {
      health: async () => {
        probes += 1;
        return [
          { name: 'keys', backend: 'postgres', ok: true },
          { name: 'idempotency', backend: 'postgres', ok: true },
          { name: 'rate_limit', backend: 'redis', ok: false },
          { name: 'cache', backend: 'redis', ok: false },
        ];
      },
    };
    const checks = storeChecks(stores);
    const report = await runChecks(checks, { retryMs: 0 });
    expect(probes).toBe(1);
    expect(report.status).toBe('not_ready');
    expect(report.checks.map((c) => `${c.name}:${c.status}`)).toEqual([
      'store:keys:up',
      'store:idempotency:up',
      'store:rate_limit:down',
      'store:cache:down',
    ]);
    expect(report.checks.find((c) => c.name === 'store:cache')?.detail).toBe('the cache store is down');
    const located = await runChecks(storeChecks(stores, ['cache'], { cache: 'Redis redis://cache:6379' }), {
      retryMs: 0,
    });
    expect(located.checks[0]?.detail).toBe('the cache store is down (Redis redis://cache:6379)');
    // The next readiness request probes again: no stale answer is kept.
    await runChecks(checks, { retryMs: 0 });
    expect(probes).toBe(3);
  });
});
