// The jobs of the resolver's DIF Universal Registrar (DID Registration §jobId): one JSON body per job with a
// revision, replaced only by the holder of the revision it read (compare and set), so that of two instances
// answering the same job at once only one advances it. Kept in the SQL store (SQLite embedded, PostgreSQL
// shared by every instance) or in memory (one process); a job is kept a day past its expiry, so an expired
// job still answers `failed` with its reason, then purged.
import { LRUCache } from 'lru-cache';
import type { SqlResult } from './sql.ts';
import type { Clock } from '../domain.ts';

/** How long a job is kept after it expired (then its jobId is unknown). */
export const JOB_KEEP_AFTER_EXPIRY_MS = 24 * 60 * 60 * 1000;
/** How often (store clock) expired jobs are purged. */
const PURGE_EVERY_MS = 60 * 1000;

/** A job as the store keeps it: what the registrar needs to answer and advance it (JSON). */
export interface StoredJob {
  jobId: string;
  /** Epoch milliseconds after which the job can no longer be advanced. */
  expiresAt: number;
  /** Everything else the registrar keeps, opaque to the store. */
  [field: string]: unknown;
}

export interface JobRead<J extends StoredJob> {
  job: J;
  revision: number;
}

export interface RegistrarJobStore {
  /** Stores a new job (revision 1). */
  create(job: StoredJob): Promise<void>;
  get<J extends StoredJob>(jobId: string): Promise<JobRead<J> | undefined>;
  /** Replaces the job if it is still at `revision`; false when another writer advanced it first. */
  replace(job: StoredJob, revision: number): Promise<boolean>;
  close(): Promise<void>;
}

type Query = <R = Record<string, unknown>>(sql: string, params?: readonly unknown[]) => Promise<SqlResult<R>>;

/** Jobs in the SQL store (migrations/<dialect>/003_registrar_and_did_index.sql). */
export function sqlRegistrarJobs(query: Query, now: Clock = Date.now): RegistrarJobStore {
  let lastPurge = -Infinity;
  const purge = () => {
    const t = now();
    if (t - lastPurge < PURGE_EVERY_MS) return;
    lastPurge = t;
    void query('DELETE FROM registrar_jobs WHERE expires_at_ms <= $1', [t - JOB_KEEP_AFTER_EXPIRY_MS]).catch(
      () => undefined,
    );
  };
  return {
    async create(job) {
      purge();
      await query('INSERT INTO registrar_jobs (job_id, revision, body, expires_at_ms) VALUES ($1, 1, $2, $3)', [
        job.jobId,
        JSON.stringify(job),
        job.expiresAt,
      ]);
    },
    async get<J extends StoredJob>(jobId: string) {
      const { rows } = await query<{ body: string; revision: number | string }>(
        'SELECT body, revision FROM registrar_jobs WHERE job_id = $1',
        [jobId],
      );
      const row = rows[0];
      return row ? { job: JSON.parse(row.body) as J, revision: Number(row.revision) } : undefined;
    },
    async replace(job, revision) {
      const { rowCount } = await query(
        'UPDATE registrar_jobs SET body = $1, revision = revision + 1, expires_at_ms = $2 WHERE job_id = $3 AND revision = $4',
        [JSON.stringify(job), job.expiresAt, job.jobId, revision],
      );
      return rowCount === 1;
    },
    close: async () => {},
  };
}

/** Jobs of one process (tests, and an app started without stores); bounded, oldest dropped first. */
export function memoryRegistrarJobs(max = 10_000): RegistrarJobStore {
  const jobs = new LRUCache<string, { body: string; revision: number }>({ max });
  return {
    async create(job) {
      jobs.set(job.jobId, { body: JSON.stringify(job), revision: 1 });
    },
    async get<J extends StoredJob>(jobId: string) {
      const row = jobs.get(jobId);
      return row ? { job: JSON.parse(row.body) as J, revision: row.revision } : undefined;
    },
    async replace(job, revision) {
      const row = jobs.get(job.jobId);
      if (!row || row.revision !== revision) return false;
      jobs.set(job.jobId, { body: JSON.stringify(job), revision: revision + 1 });
      return true;
    },
    close: async () => {},
  };
}
