// The real PostgreSQL and Redis the store tests run against (127.0.0.1, see the task brief). They are not
// optional: a test fails when they are unreachable. Each test file isolates itself with its own PostgreSQL
// schema and Redis key prefix and removes them afterwards.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { Redis } from 'ioredis';

export const PG_HOST = '127.0.0.1';
export const PG_PORT = 5432;
export const REDIS_HOST = '127.0.0.1';
export const REDIS_PORT = 6379;

export function pgUrl(port = PG_PORT): string {
  return `postgres://postgres@${PG_HOST}:${port}/test`;
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
