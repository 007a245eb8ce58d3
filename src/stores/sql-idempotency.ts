// The idempotency records over a SQL driver (./sql.ts): a key is claimed atomically by one caller
// (`INSERT … ON CONFLICT … DO UPDATE … WHERE expired`), everyone else reads the live record; expired records are
// purged now and then.
import { randomUUID } from 'node:crypto';
import { checkBeginInput, isReplayable, judge } from './records.ts';
import type { SqlDriver, SqlRun } from './sql.ts';
import {
  IDEMPOTENCY_PURGE_EVERY_MS,
  type BeginInput,
  type BeginResult,
  type IdempotencyStore,
  type StoredResponse,
} from './types.ts';
import type { Clock } from '../domain.ts';

export interface SqlIdempotencyOptions {
  now: Clock;
  leaseMs: number;
  ttlMs: number;
  close(): Promise<void>;
}

interface LiveRecord {
  request_hash: string;
  state: 'in_progress' | 'completed';
  response: string | null;
  expires_at_ms: string | number;
}

/** Claims `input.key` at `t` (a new key, or an expired record), or judges the live record against the request. */
async function claim(driver: SqlDriver, input: BeginInput, t: number, leaseMs: number): Promise<BeginResult> {
  // Atomic: a new key, or an expired record (lapsed lease, or replay older than the TTL), is
  // claimed by exactly one caller; everyone else reads the live record.
  for (let attempt = 0; attempt < 5; attempt++) {
    const claimed = await driver.query<{ token: string }>(
      `INSERT INTO idempotency_records AS r (scope, key, request_hash, token, state, response, created_at_ms, expires_at_ms)
             VALUES ($1, $2, $3, $4, 'in_progress', NULL, $5, $6)
             ON CONFLICT (scope, key) DO UPDATE SET request_hash = EXCLUDED.request_hash, token = EXCLUDED.token,
               state = 'in_progress', response = NULL, created_at_ms = EXCLUDED.created_at_ms,
               expires_at_ms = EXCLUDED.expires_at_ms
             WHERE r.expires_at_ms <= $5
             RETURNING token`,
      [input.scope, input.key, input.requestHash, randomUUID(), t, t + leaseMs],
    );
    const row = claimed.rows[0];
    if (row) return { state: 'started', token: row.token };
    const live = await driver.query<LiveRecord>(
      'SELECT request_hash, state, response, expires_at_ms FROM idempotency_records WHERE scope = $1 AND key = $2',
      [input.scope, input.key],
    );
    const rec = live.rows[0];
    // Released or expired between the two statements: claim again.
    if (!rec || Number(rec.expires_at_ms) <= t) continue;
    return judge(
      { requestHash: rec.request_hash, state: rec.state, response: rec.response ?? undefined },
      input.requestHash,
    );
  }
  return { state: 'in_progress' };
}

/** The store, and `settled()`: the purge under way, which closing waits for. */
export function sqlIdempotencyStore(
  driver: SqlDriver,
  run: SqlRun,
  options: SqlIdempotencyOptions,
): { store: IdempotencyStore; settled(): Promise<unknown> } {
  const { now, leaseMs, ttlMs } = options;
  let lastPurge = -Infinity;
  let purging: Promise<unknown> = Promise.resolve();
  const purgeExpired = (t: number) => {
    if (t - lastPurge < IDEMPOTENCY_PURGE_EVERY_MS) return;
    lastPurge = t;
    purging = driver.query('DELETE FROM idempotency_records WHERE expires_at_ms <= $1', [t]).catch(() => undefined);
  };
  const deleteInProgress = (scope: string, key: string, token: string) =>
    driver.query(
      `DELETE FROM idempotency_records WHERE scope = $1 AND key = $2 AND token = $3 AND state = 'in_progress'`,
      [scope, key, token],
    );

  const store: IdempotencyStore = {
    async begin(input: BeginInput): Promise<BeginResult> {
      checkBeginInput(input);
      const t = input.now ?? now();
      return run('idempotency', async () => {
        purgeExpired(t);
        return claim(driver, input, t, leaseMs);
      });
    },
    async complete(scope: string, key: string, token: string, response: StoredResponse) {
      const result = await run('idempotency', () =>
        isReplayable(response)
          ? driver.query(
              `UPDATE idempotency_records SET state = 'completed', response = $4, expires_at_ms = $5
               WHERE scope = $1 AND key = $2 AND token = $3 AND state = 'in_progress'`,
              [scope, key, token, JSON.stringify(response), now() + ttlMs],
            )
          : deleteInProgress(scope, key, token),
      );
      return result.rowCount > 0;
    },
    async release(scope: string, key: string, token: string) {
      await run('idempotency', () => deleteInProgress(scope, key, token));
    },
    close: () => options.close(),
  };
  return { store, settled: () => purging };
}
