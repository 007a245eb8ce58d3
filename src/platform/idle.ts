// When a process is idle, for background work that must not delay requests (the validators' warm-up,
// src/platform/app.ts): the requests in flight, counted from the app's front (before the probes and the routes)
// to their response's 'close' (public Node and Express events), and the last time one started or ended. Idle is
// none in flight and none started or ended for `quietMs`: a client's sequence of requests (the demo's walk-through,
// a load test's start) leaves gaps of a few milliseconds between them, and the work must not slip into those gaps.
import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Clock } from '../domain.ts';

/**
 * How long a process must have had no request start or end before background work runs. Longer than the gaps a
 * sequential client leaves between its requests (its own work between answers, on a loaded host: the demo's are
 * at most ~0.12 s, docs/benchmarks.md), so a burst is not interleaved with compiles; short beside the warm-up
 * itself (seconds of CPU), which an idle process then starts almost at once. A request that arrives during a
 * step still waits for that one step (~0.1 s): the callers share one queue, one step a turn.
 */
export const QUIET_MS = 200;

export interface IdleClock {
  /** Milliseconds on a clock that only moves forward (default `performance.now`): not the service's `now`. */
  now: Clock;
  /** Calls `fn` once, `ms` from now, without keeping the process alive (default an unref'd `setTimeout`). */
  after(ms: number, fn: () => void): void;
}

export interface Idleness {
  /**
   * Counts a request as in flight until its response closes (answered, or the connection gone). A probe's
   * (`quiet: false`) holds the work off only while in flight: it does not start the quiet interval, so a
   * prober polling more often than that interval does not hold the work off for good.
   */
  track(res: ServerResponse, quiet?: boolean): void;
  /**
   * Runs `step` once the process is idle, then again later while it stays idle, until `step` returns false. The
   * steps of every caller share one queue: one step a turn of the event loop, the callers in turn. A request in
   * between puts the next step off until the process is quiet again.
   */
  whenIdle(step: () => boolean): void;
}

const realClock: IdleClock = {
  now: () => performance.now(),
  after: (ms, fn) => void setTimeout(fn, ms).unref(),
};

/** The idleness of the requests `track` is given: one per process, shared by its apps. Its start counts as activity. */
export function idleness(o: { clock?: IdleClock; quietMs?: number } = {}): Idleness {
  const clock = o.clock ?? realClock;
  const quietMs = o.quietMs ?? QUIET_MS;
  let inFlight = 0;
  let last = clock.now();
  // Every caller's work in one queue, one step a turn of the event loop whichever caller it is (each app warms its
  // own paths: with a loop each, one turn would run a compile of each app before a waiting request is read).
  const steps: (() => boolean)[] = [];
  let scheduled = false;
  // A turn put off while requests are in flight, run once the last one closes.
  let parked = false;
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(turn);
  };
  function turn(): void {
    scheduled = false;
    if (steps.length === 0) return;
    if (inFlight > 0) return void (parked = true);
    const wait = last + quietMs - clock.now();
    if (wait > 0) {
      scheduled = true;
      return clock.after(wait, turn);
    }
    const step = steps.shift() as () => boolean;
    if (step()) steps.push(step);
    schedule();
  }
  const ended = (quiet: boolean) => {
    inFlight -= 1;
    if (quiet) last = clock.now();
    if (inFlight > 0 || !parked) return;
    parked = false;
    schedule();
  };
  return {
    track(res, quiet = true) {
      inFlight += 1;
      if (quiet) last = clock.now();
      res.once('close', () => ended(quiet));
    },
    whenIdle(step) {
      steps.push(step);
      schedule();
    },
  };
}
