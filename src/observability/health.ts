// Readiness (`GET /ready`): may this instance take traffic now? Every check runs in parallel under its own
// timeout; one that fails, throws or runs out of time makes the instance not ready (503), so a load
// balancer stops sending it requests until the RPC or the store is back. Liveness stays `GET /health`,
// which reads nothing: a dependency outage must not get a live process restarted.
import { performance } from 'node:perf_hooks';
import type { RequestHandler } from 'express';
import type { Logger } from './logging.ts';
import type { Clock } from '../domain.ts';

export interface ReadinessCheck {
  /** Stable, e.g. `rpc:testnet`, `store:keys`. */
  name: string;
  /** True when the dependency answers as it should; else false, or what it answered instead, in words. */
  check: () => Promise<boolean | string>;
  /** Overrides the handler's timeout for this check. */
  timeoutMs?: number;
  /** Where the dependency is (`PostgreSQL postgres://db:5432/cv`, credentials removed): named when it is down. */
  where?: string;
}

export type CheckReason = 'failed' | 'error' | 'timeout' | 'shutting_down';

export interface CheckResult {
  name: string;
  status: 'up' | 'down';
  /** Milliseconds the check took (up to its timeout). */
  ms: number;
  /** Why it is down; error messages go to the log, not to the answer. */
  reason?: CheckReason;
  /** What failed, in words: what the dependency answered, the error's code, or how long it was silent. */
  detail?: string;
}

export interface ReadinessReport {
  status: 'ready' | 'not_ready';
  checks: CheckResult[];
}

export interface ReadinessOptions {
  /** Per check, in milliseconds (default 2000). */
  timeoutMs?: number;
  /** Monotonic milliseconds (default performance.now). */
  now?: Clock;
  /** Told about each check that is down, with the error's message when it threw. */
  logger?: Logger;
  /**
   * Before a check that answered not ready or threw is reported down, it is asked again after this many
   * milliseconds (doubling each time, up to 400) while its budget (its timeout) lasts (default 50). A dependency that is
   * still warming up when the process has just started, or on a loaded host, is not reported down (and logged
   * at error) for a first answer it corrects a moment later.
   */
  retryMs?: number;
  /** True once the process is shutting down: answer not ready at once, so traffic drains. */
  draining?: () => boolean;
  /**
   * True once this instance has answered ready: a check down before that is the process still starting (a
   * store still opening, a host so loaded that the first probe outlives its budget) and is logged at warn as
   * "readiness check not up yet"; after it, a check down is an outage, logged at error. Default: always true.
   */
  wasReady?: () => boolean;
}

export const DEFAULT_CHECK_TIMEOUT_MS = 2000;
export const DEFAULT_CHECK_RETRY_MS = 50;
/** The longest pause between two attempts of a check. */
const MAX_RETRY_PAUSE_MS = 400;

/** Runs the checks in parallel; never rejects. */
export async function runChecks(
  checks: readonly ReadinessCheck[],
  options: ReadinessOptions = {},
): Promise<ReadinessReport> {
  const now = options.now ?? (() => performance.now());
  if (options.draining?.()) {
    const detail = 'the process is shutting down';
    const check: CheckResult = { name: 'shutdown', status: 'down', ms: 0, reason: 'shutting_down', detail };
    return { status: 'not_ready', checks: [check] };
  }
  const results = await Promise.all(
    checks.map(async ({ name, check, timeoutMs, where }): Promise<CheckResult> => {
      const started = now();
      const budget = { started, ms: timeoutMs ?? options.timeoutMs ?? DEFAULT_CHECK_TIMEOUT_MS };
      const outcome = await withinBudget(check, budget, now, {
        retryMs: options.retryMs ?? DEFAULT_CHECK_RETRY_MS,
        onRetry: (failed, attempt) =>
          options.logger?.debug('readiness check retried', {
            check: name,
            attempt,
            reason: failed.reason,
            detail: failed.detail,
          }),
      });
      const ms = Math.round((now() - started) * 1000) / 1000;
      if (outcome.ok) return { name, status: 'up', ms };
      const starting = options.wasReady?.() === false;
      options.logger?.[starting ? 'warn' : 'error'](starting ? 'readiness check not up yet' : 'readiness check down', {
        check: name,
        reason: outcome.reason,
        detail: outcome.detail,
        ...(outcome.attempts > 1 ? { attempts: outcome.attempts } : {}),
        ...(outcome.message ? { message: outcome.message } : {}),
      });
      const detail = where ? `${outcome.detail} (${where})` : outcome.detail;
      return { name, status: 'down', ms, reason: outcome.reason, detail };
    }),
  );
  return { status: results.every((r) => r.status === 'up') ? 'ready' : 'not_ready', checks: results };
}

type Outcome = { ok: true } | { ok: false; reason: 'failed' | 'error' | 'timeout'; detail: string; message?: string };

/**
 * One check within its budget: asked again after a failed answer (false, a reason, a throw) while the budget
 * lasts, each attempt under what is left of it. A timeout ends it: the budget is spent.
 */
async function withinBudget(
  check: () => Promise<boolean | string>,
  budget: { started: number; ms: number },
  now: Clock,
  retry: { retryMs: number; onRetry: (failed: Outcome & { ok: false }, attempt: number) => void },
): Promise<(Outcome & { ok: true }) | (Outcome & { ok: false; attempts: number })> {
  const budgetMs = budget.ms;
  const deadline = budget.started + budgetMs;
  let pause = retry.retryMs;
  for (let attempt = 1; ; attempt++) {
    const left = attempt === 1 ? budgetMs : deadline - now();
    const outcome = await withTimeout(check, Math.max(1, left));
    if (outcome.ok) return outcome;
    // Another attempt only when the pause leaves it some time of its own.
    if (outcome.reason === 'timeout' || retry.retryMs <= 0 || deadline - now() <= pause)
      return {
        ...outcome,
        detail: outcome.reason === 'timeout' ? `no answer within ${budgetMs} ms` : outcome.detail,
        attempts: attempt,
      };
    retry.onRetry(outcome, attempt);
    await new Promise<void>((resolve) => setTimeout(resolve, pause).unref?.());
    pause = Math.min(pause * 2, MAX_RETRY_PAUSE_MS);
  }
}

/** What a check that answered `false` is reported as. */
const NOT_READY = 'the check answered not ready';

/** At most this long in an answer: a detail says what failed, it is not a log. */
const DETAIL_MAX = 200;

/** An error in words safe to answer: its code (`ECONNREFUSED`) or class, never its message (addresses, URLs). */
function errorDetail(err: unknown): string {
  const code = (err as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && /^[A-Za-z0-9_.-]{1,64}$/.test(code)) return `error ${code}`;
  return `error ${err instanceof Error ? err.name : typeof err}`;
}

function withTimeout(check: () => Promise<boolean | string>, timeoutMs: number): Promise<Outcome> {
  return new Promise<Outcome>((resolve) => {
    const silent: Outcome = { ok: false, reason: 'timeout', detail: `no answer within ${timeoutMs} ms` };
    // Timed out only after the I/O that is already due has run: on a host so loaded that the event loop was
    // blocked for the whole budget, the timer and the answer are due together, and the answer wins.
    const timer = setTimeout(() => setImmediate(() => resolve(silent)), timeoutMs);
    timer.unref?.();
    let pending: Promise<boolean | string>;
    try {
      pending = Promise.resolve(check());
    } catch (err) {
      pending = Promise.reject(err);
    }
    pending
      .then(
        (ok) =>
          resolve(
            ok === true
              ? { ok: true }
              : {
                  ok: false,
                  reason: 'failed',
                  detail: typeof ok === 'string' && ok ? ok.slice(0, DETAIL_MAX) : NOT_READY,
                },
          ),
        (err: unknown) => {
          const message = err instanceof Error ? err.message : String(err);
          resolve({ ok: false, reason: 'error', detail: errorDetail(err), message });
        },
      )
      .finally(() => clearTimeout(timer));
  });
}

/**
 * `GET /ready`: 200 `{status: "ready", checks}` when every check is up, else 503
 * `{status: "not_ready", checks}`. Never cached.
 */
export function readiness(checks: readonly ReadinessCheck[], options: ReadinessOptions = {}): RequestHandler {
  let wasReady = false;
  const run = { wasReady: () => wasReady, ...options };
  return async (_req, res) => {
    const report = await runChecks(checks, run);
    if (report.status === 'ready') wasReady = true;
    res
      .status(report.status === 'ready' ? 200 : 503)
      .set('Cache-Control', 'no-store')
      .json(report);
  };
}

/** The RPC answers `getHealth` with `healthy` (src/chain `ChainClient.health`). */
export function rpcCheck(name: string, client: { health(): Promise<{ status: string }> }): ReadinessCheck {
  return {
    name,
    check: async () => {
      const { status } = await client.health();
      return status === 'healthy' || `getHealth answered ${JSON.stringify(status).slice(0, 64)}`;
    },
  };
}

/** The stores' own view (src/stores `Stores.health`); one check per store, from one shared probe. */
export function storeChecks(
  stores: { health(): Promise<readonly { name: string; ok: boolean }[]> },
  names: readonly string[] = ['keys', 'idempotency', 'rate_limit', 'cache'],
  /** Where each store is (`PostgreSQL postgres://db:5432/cv`, credentials removed), named when it is down. */
  where: Readonly<Record<string, string>> = {},
): ReadinessCheck[] {
  let inFlight: Promise<readonly { name: string; ok: boolean }[]> | undefined;
  const probe = () => {
    inFlight ??= stores.health().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };
  return names.map((store) => ({
    name: `store:${store}`,
    check: async () => (await probe()).find((h) => h.name === store)?.ok === true || `the ${store} store is down`,
    ...(where[store] ? { where: where[store] } : {}),
  }));
}
