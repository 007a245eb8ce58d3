// Background work of a process (src/platform/idle.ts): every caller's steps share one queue, one step a turn of the
// event loop, so a request read between two turns waits for one step at most, however many apps warm at once; a
// request in flight puts the queue off until it closes and the quiet interval has passed. Time is a manual clock.
import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { manualClock, turns } from '../../test-support/idle-clock.ts';
import { idleness } from './idle.ts';

const turn = () => turns(1);

/** A caller's steps: each records its name, `n` of them. */
function worker(name: string, n: number, ran: string[]) {
  let left = n;
  return () => {
    ran.push(name);
    left -= 1;
    return left > 0;
  };
}

describe('idleness', () => {
  it('runs one step a turn of the event loop across all callers, the callers in turn', async () => {
    const { clock } = manualClock();
    const idle = idleness({ clock, quietMs: 0 });
    const ran: string[] = [];
    idle.whenIdle(worker('a', 3, ran));
    idle.whenIdle(worker('b', 2, ran));
    await turn();
    expect(ran).toEqual(['a']);
    await turn();
    expect(ran).toEqual(['a', 'b']);
    for (let i = 0; i < 5; i++) await turn();
    expect(ran).toEqual(['a', 'b', 'a', 'b', 'a']);
  });

  it('puts every caller off while a request is in flight and for the quiet interval after it', async () => {
    const { clock, advance } = manualClock();
    const idle = idleness({ clock, quietMs: 200 });
    const res = new EventEmitter() as unknown as ServerResponse;
    idle.track(res);
    const ran: string[] = [];
    idle.whenIdle(worker('a', 2, ran));
    idle.whenIdle(worker('b', 2, ran));
    for (let i = 0; i < 3; i++) await turn();
    advance(1000);
    await turn();
    expect(ran).toEqual([]);
    res.emit('close');
    await turn();
    advance(199);
    await turn();
    expect(ran).toEqual([]);
    advance(1); // the quiet interval's timer runs the first step
    expect(ran).toEqual(['a']);
    await turn();
    expect(ran).toEqual(['a', 'b']);
    for (let i = 0; i < 4; i++) await turn();
    expect(ran).toEqual(['a', 'b', 'a', 'b']);
  });
});
