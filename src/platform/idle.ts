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
 * turn still waits for the steps of that turn: one for each caller of `whenIdle` (each app warms on its own).
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
   * Runs `step` once the process is idle, then again one turn of the event loop later while it stays idle,
   * until `step` returns false. A request in between puts the next step off until the process is quiet again.
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
  // The turns put off while requests are in flight, run again once the last one closes.
  let parked: (() => void)[] = [];
  const ended = (quiet: boolean) => {
    inFlight -= 1;
    if (quiet) last = clock.now();
    if (inFlight > 0) return;
    for (const turn of parked) setImmediate(turn);
    parked = [];
  };
  return {
    track(res, quiet = true) {
      inFlight += 1;
      if (quiet) last = clock.now();
      res.once('close', () => ended(quiet));
    },
    whenIdle(step) {
      const turn = (): void => {
        if (inFlight > 0) return void parked.push(turn);
        const wait = last + quietMs - clock.now();
        if (wait > 0) return clock.after(wait, turn);
        if (step()) setImmediate(turn);
      };
      setImmediate(turn);
    },
  };
}
