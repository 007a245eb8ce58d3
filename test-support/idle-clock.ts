// A clock for src/platform/idle.ts that moves only when a test tells it to, and event-loop turns to wait for:
// tests of the idle work never sleep.
import type { IdleClock } from '../src/platform/idle.ts';

/** A clock that moves only when told; `advance` runs the timers then due, in order. */
export function manualClock() {
  let t = 0;
  let timers: { at: number; fn: () => void }[] = [];
  const clock: IdleClock = { now: () => t, after: (ms, fn) => void timers.push({ at: t + ms, fn }) };
  const advance = (ms: number) => {
    t += ms;
    const due = timers.filter((x) => x.at <= t).sort((a, b) => a.at - b.at);
    timers = timers.filter((x) => x.at > t);
    for (const x of due) x.fn();
  };
  return { clock, advance, pending: () => timers.length };
}

/** Lets the event loop turn `n` times (idle work takes one step a turn once it runs). */
export async function turns(n: number): Promise<void> {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}
