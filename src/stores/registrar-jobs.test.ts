// The registrar's jobs in the SQL store (embedded SQLite; the same SQL runs on PostgreSQL): a job reads back as
// written, a replace holds only at the revision it read (of two writers at once exactly one wins), two stores
// over one database see each other's jobs, and a job is kept a day past its expiry, then purged.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { JOB_KEEP_AFTER_EXPIRY_MS, sqlRegistrarJobs, type StoredJob } from './registrar-jobs.ts';
import { createSqliteStores, type SqliteStores } from './sqlite.ts';
import { manualClock, tempDir } from '../../test-support/stores/backends.ts';

interface Job extends StoredJob {
  phase: string;
  leaseUntil?: number;
}

let dir: Awaited<ReturnType<typeof tempDir>>;
let stores: SqliteStores[] = [];
const clock = manualClock();
const open = (): SqliteStores => {
  const s = createSqliteStores({ dataDir: dir.dir, now: clock.now });
  stores.push(s);
  return s;
};
const jobOf = (jobId: string, extra: Partial<Job> = {}): Job => ({
  jobId,
  expiresAt: clock.now() + 5 * 60 * 1000,
  phase: 'action',
  ...extra,
});

beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await Promise.all(stores.map((s) => s.close()));
  stores = [];
  await dir.remove();
});

describe('registrar jobs in the SQL store', () => {
  it('reads a job back as written, at revision 1; an unknown job is undefined', async () => {
    const jobs = sqlRegistrarJobs(open().query, clock.now);
    await jobs.create(jobOf('a', { did: 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza' }));
    expect(await jobs.get<Job>('a')).toEqual({
      job: jobOf('a', { did: 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza' }),
      revision: 1,
    });
    expect(await jobs.get('b')).toBeUndefined();
  });

  it('replaces a job only at the revision it read: of two writers, exactly one wins', async () => {
    const one = sqlRegistrarJobs(open().query, clock.now);
    const other = sqlRegistrarJobs(open().query, clock.now); // another instance over the same database
    await one.create(jobOf('j'));
    const [r1, r2] = await Promise.all([one.get<Job>('j'), other.get<Job>('j')]);
    const results = await Promise.all([
      one.replace({ ...r1!.job, phase: 'submitted', leaseUntil: clock.now() + 1 }, r1!.revision),
      other.replace({ ...r2!.job, phase: 'submitted', leaseUntil: clock.now() + 2 }, r2!.revision),
    ]);
    expect(results.filter(Boolean)).toHaveLength(1);
    const after = await other.get<Job>('j');
    expect(after!.revision).toBe(2);
    expect(after!.job.leaseUntil).toBe(clock.now() + (results[0] ? 1 : 2));
    // the loser's revision is stale now
    expect(await one.replace({ ...r1!.job, phase: 'failed' }, r1!.revision)).toBe(false);
    expect((await one.get<Job>('j'))!.job.phase).toBe('submitted');
  });

  it('keeps an expired job a day, then purges it', async () => {
    const start = clock.now();
    const jobs = sqlRegistrarJobs(open().query, clock.now);
    await jobs.create(jobOf('old'));
    clock.advance(5 * 60 * 1000 + JOB_KEEP_AFTER_EXPIRY_MS - 1000);
    await jobs.create(jobOf('kept')); // purges what expired more than a day ago: not yet `old`
    expect(await jobs.get('old')).toBeDefined();
    clock.advance(2 * 60 * 1000);
    await jobs.create(jobOf('new')); // a minute later: `old` expired a day and a minute ago
    await vi.waitFor(async () => expect(await jobs.get('old')).toBeUndefined());
    expect(await jobs.get('kept')).toBeDefined();
    expect(clock.now() - start).toBeGreaterThan(JOB_KEEP_AFTER_EXPIRY_MS);
  });
});
