// Where each store of a process lives, in words an operator can act on, credentials removed (publicUrl): the start
// banner lists them, and /ready says where a store that is down is.
import path from 'node:path';
import type { Config } from './config/index.ts';
import { publicUrl } from './config/redact.ts';
import { DB_FILE } from './stores/sqlite.ts';

export type StoreName = 'keys' | 'idempotency' | 'rate_limit' | 'cache';

type StoreConfig = Pick<Config, 'databaseUrl' | 'databaseSchema' | 'redisUrl' | 'redisKeyPrefix' | 'dataDir'>;

/** Each store's place: `PostgreSQL postgres://db:5432/cv (schema x)`, `SQLite /srv/data/…`, `Redis …`, `memory`. */
export function storeLocations(config: StoreConfig): Record<StoreName, string> {
  const schema = config.databaseSchema ? ` (schema ${config.databaseSchema})` : '';
  const records = config.databaseUrl
    ? `PostgreSQL ${publicUrl(config.databaseUrl)}${schema}`
    : `SQLite ${path.join(path.resolve(config.dataDir), DB_FILE)}`;
  const windows = config.redisUrl
    ? `Redis ${publicUrl(config.redisUrl)} (key prefix ${config.redisKeyPrefix})`
    : 'memory of this process';
  return { keys: records, idempotency: records, rate_limit: windows, cache: windows };
}

/** The banner's lines for the stores a mode uses (the resolver keeps no keys or idempotency records). */
export function storeLines(config: StoreConfig, keys: boolean): string[] {
  const at = storeLocations(config);
  return [...(keys ? [`keys, idempotency ${at.keys}`] : []), `rate limits, cache ${at.rate_limit}`];
}
