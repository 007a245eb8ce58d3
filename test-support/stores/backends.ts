// The real PostgreSQL and Redis the store tests run against (docs/testing.md: 127.0.0.1:5432, database `test`, user
// `postgres` with trust authentication, and 127.0.0.1:6379, unless CV_TEST_PG_* and CV_TEST_REDIS_* say otherwise).
// They are not optional: a test fails when they are unreachable. Each test file isolates itself with its own
// PostgreSQL schema and Redis key prefix and removes them afterwards.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Redis } from 'ioredis';

const env = process.env;
export const PG_HOST = env['CV_TEST_PG_HOST'] || '127.0.0.1';
export const PG_PORT = Number(env['CV_TEST_PG_PORT'] || 5432);
const PG_USER = env['CV_TEST_PG_USER'] || 'postgres';
const PG_DATABASE = env['CV_TEST_PG_DATABASE'] || 'test';
export const REDIS_HOST = env['CV_TEST_REDIS_HOST'] || '127.0.0.1';
export const REDIS_PORT = Number(env['CV_TEST_REDIS_PORT'] || 6379);

export function pgUrl(port = PG_PORT): string {
  return `postgres://${encodeURIComponent(PG_USER)}@${PG_HOST}:${port}/${PG_DATABASE}`;
}

export function redisUrl(port = REDIS_PORT): string {
  return `redis://${REDIS_HOST}:${port}`;
}

export function uniqueName(prefix: string): string {
  return `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
}

export async function dropSchema(schema: string): Promise<void> {
  const client = new pg.Client({ connectionString: pgUrl() });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

export async function pgQuery<T extends pg.QueryResultRow>(
  schema: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new pg.Client({ connectionString: pgUrl(), options: `-c search_path=${schema}` });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** Deletes every Redis key under the prefix. */
export async function dropRedisPrefix(prefix: string): Promise<void> {
  const redis = new Redis(redisUrl(), { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
      cursor = next;
      if (keys.length) await redis.del(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

export async function tempDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'cv-stores-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** A clock the test moves by hand. */
export function manualClock(start = Date.parse('2026-07-01T00:00:00Z')) {
  let t = start;
  return {
    now: () => t,
    advance: (ms: number) => {
      t += ms;
    },
    set: (ms: number) => {
      t = ms;
    },
  };
}
