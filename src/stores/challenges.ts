// The embedded ChallengeStore (./types.ts): one process, each client's live challenges in a map of their own.
// Nothing is evicted to make room: a client past its quota, or a store holding `maxEntries`, is refused. Expired
// challenges go when their client asks for a new one, and from the whole store at most once a second when it is
// full (a sweep looks at every entry).
import type { ChallengeIssue, ChallengeStore } from './types.ts';
import type { Clock } from '../domain.ts';

/** Challenges the embedded store keeps at most, all clients together: a bound on its memory. */
export const DEFAULT_CHALLENGE_ENTRIES = 100_000;
const SWEEP_INTERVAL_MS = 1000;

export interface MemoryChallengeStoreOptions {
  now?: Clock;
  maxEntries?: number;
}

export function createMemoryChallengeStore({
  now = Date.now,
  maxEntries = DEFAULT_CHALLENGE_ENTRIES,
}: MemoryChallengeStoreOptions = {}): ChallengeStore & { readonly size: number } {
  /** client → challenge → expiry (ms on `now`). */
  const byClient = new Map<string, Map<string, number>>();
  let size = 0;
  let lastSweep = Number.NEGATIVE_INFINITY;

  const dropExpired = (client: string, live: Map<string, number>, at: number) => {
    for (const [challenge, expiresAt] of live) {
      if (expiresAt >= at) continue;
      live.delete(challenge);
      size--;
    }
    if (live.size === 0) byClient.delete(client);
  };

  return {
    get size() {
      return size;
    },
    async issue(client: string, challenge: string, expiresAt: Date, quota: number): Promise<ChallengeIssue> {
      const at = now();
      const mine = byClient.get(client);
      if (mine) dropExpired(client, mine, at);
      if ((byClient.get(client)?.size ?? 0) >= quota) return 'client_quota';
      if (size >= maxEntries && at - lastSweep >= SWEEP_INTERVAL_MS) {
        lastSweep = at;
        for (const [c, live] of byClient) dropExpired(c, live, at);
      }
      if (size >= maxEntries) return 'store_full';
      const live = byClient.get(client) ?? new Map<string, number>();
      byClient.set(client, live);
      if (!live.has(challenge)) size++;
      live.set(challenge, expiresAt.getTime());
      return 'issued';
    },
    async consume(client: string, challenge: string): Promise<boolean> {
      const live = byClient.get(client);
      const expiresAt = live?.get(challenge);
      if (live === undefined || expiresAt === undefined) return false;
      live.delete(challenge);
      size--;
      if (live.size === 0) byClient.delete(client);
      return expiresAt >= now();
    },
    async close(): Promise<void> {
      byClient.clear();
      size = 0;
    },
  };
}
