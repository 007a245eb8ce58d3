// When a process is idle, for background work that must not delay requests (the validators' warm-up): none in
// flight and none started or ended for `quietMs`, so the work does not slip into the gaps of a client's sequence.
import type { ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';
import type { Clock } from '../domain.ts';

/** Longer than a sequential client's gaps (the demo's are at most ~0.12 s on a loaded host, docs/benchmarks.md). */
export const QUIET_MS = 200;

export interface IdleClock {
  /** Milliseconds, only forward (default `performance.now`). */
  now: Clock;
  /** Without keeping the process alive (default an unref'd `setTimeout`). */
  after(ms: number, fn: () => void): void;
}

export interface Idleness {
  /** In flight until its response closes; a probe's (`quiet: false`) does not start the quiet interval. */
  track(res: ServerResponse, quiet?: boolean): void;
  /** Runs `step` while idle, one step of any caller a turn of the event loop, until it returns false. */
  whenIdle(step: () => boolean): void;
}

const realClock: IdleClock = {
  now: () => performance.now(),
  after: (ms, fn) => void setTimeout(fn, ms).unref(),
};

/** One per process, shared by its apps. Its start counts as activity. */
export function idleness(o: { clock?: IdleClock; quietMs?: number } = {}): Idleness {
  const clock = o.clock ?? realClock;
  const quietMs = o.quietMs ?? QUIET_MS;
  let inFlight = 0;
  let last = clock.now();
  // One queue for every caller: with a loop each, one turn would run a compile of each app before a request.
  const steps: (() => boolean)[] = [];
  let scheduled = false;
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(turn);
  };
  function turn(): void {
    scheduled = false;
    // With requests in flight, the last one to close schedules the next turn.
    if (steps.length === 0 || inFlight > 0) return;
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
    if (inFlight === 0 && steps.length > 0) schedule();
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
