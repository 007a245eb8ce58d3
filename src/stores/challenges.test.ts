// One contract for the challenge stores of POST /challenges: the embedded one (./challenges.ts) and the Redis one
// shared by every vault API instance. A challenge is kept for the client it was issued to: another client's
// consume answers false and spends nothing. Past the per-client quota, or in a full store, an issue is refused
// and nothing live is evicted. Redis runs at 127.0.0.1:6379 under a key prefix of this file's own.
import { afterAll, describe, expect, it } from 'vitest';
import { createMemoryChallengeStore } from './challenges.ts';
import { createRedisStores } from './redis.ts';
import type { ChallengeStore } from './types.ts';
import { dropRedisPrefix, manualClock, redisUrl, uniqueName } from '../../test-support/stores/backends.ts';

const prefix = `${uniqueName('cvchallenges')}:`;
const opened: { close(): Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(opened.map((s) => s.close()));
  await dropRedisPrefix(prefix);
});

const T0 = Date.parse('2026-07-01T00:00:00Z');
const MIN = 60_000;
let n = 0;
const fresh = (what: string) => `${what}-${process.pid}-${++n}`;

const backends: { name: string; make(now: () => number): ChallengeStore }[] = [
  { name: 'memory', make: (now) => createMemoryChallengeStore({ now }) },
  {
    name: 'redis',
    make: (now) => {
      const r = createRedisStores({ url: redisUrl(), keyPrefix: prefix, now });
      opened.push(r);
      return r.challenges;
    },
  },
];

describe.each(backends)('$name challenge store', (backend) => {
  const clock = manualClock(T0);
  const store = backend.make(clock.now);
  const until = () => new Date(clock.now() + 5 * MIN);

  it('a challenge is spent once, by its own client; another client spends nothing', async () => {
    clock.set(T0);
    const [a, b, c] = [fresh('client'), fresh('client'), fresh('challenge')];
    expect(await store.issue(a, c, until(), 10)).toBe('issued');
    expect(await store.consume(b, c)).toBe(false);
    expect(await store.consume(a, c)).toBe(true);
    expect(await store.consume(a, c)).toBe(false);
  });

  it('valid up to and including its expiry, not after', async () => {
    const a = fresh('client');
    const [c1, c2] = [fresh('challenge'), fresh('challenge')];
    clock.set(T0);
    await store.issue(a, c1, until(), 10);
    await store.issue(a, c2, until(), 10);
    clock.set(T0 + 5 * MIN);
    expect(await store.consume(a, c1)).toBe(true);
    clock.set(T0 + 5 * MIN + 1);
    expect(await store.consume(a, c2)).toBe(false);
  });

  it('past the quota the client is refused, other clients are not; spent and expired ones free places', async () => {
    clock.set(T0);
    const [flood, other] = [fresh('client'), fresh('client')];
    const kept = Array.from({ length: 3 }, () => fresh('challenge'));
    for (const c of kept) expect(await store.issue(flood, c, until(), 3)).toBe('issued');
    expect(await store.issue(flood, fresh('challenge'), until(), 3)).toBe('client_quota');
    expect(await store.issue(other, fresh('challenge'), until(), 3)).toBe('issued');
    // Nothing of the flooding client was dropped by the refusal.
    expect(await store.consume(flood, kept[0]!)).toBe(true);
    expect(await store.issue(flood, fresh('challenge'), until(), 3)).toBe('issued');
    clock.advance(5 * MIN + 1);
    expect(await store.issue(flood, fresh('challenge'), until(), 3)).toBe('issued');
  });
});

describe('memory challenge store, full', () => {
  it('refuses a new challenge instead of evicting a live one; expired ones make room', async () => {
    const clock = manualClock(T0);
    const store = createMemoryChallengeStore({ now: clock.now, maxEntries: 4 });
    const until = new Date(T0 + 5 * MIN);
    for (let i = 0; i < 4; i++) expect(await store.issue(`client-${i}`, `c-${i}`, until, 10)).toBe('issued');
    expect(await store.issue('client-new', 'c-new', until, 10)).toBe('store_full');
    for (let i = 0; i < 4; i++) expect(await store.consume(`client-${i}`, `c-${i}`)).toBe(true);
    expect(store.size).toBe(0);
    for (let i = 0; i < 4; i++) await store.issue(`client-${i}`, `c-${i}`, until, 10);
    clock.advance(5 * MIN + 1);
    expect(await store.issue('client-new', 'c-new', new Date(clock.now() + 5 * MIN), 10)).toBe('issued');
    expect(store.size).toBe(1);
  });
});
