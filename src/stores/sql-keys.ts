// The API key store over a SQL driver (./sql.ts): one statement per lookup on the unique key_hash index, and a
// create that replaces the wallet's active key atomically under a per-wallet write lock.
import { hashKey, lookupOf, mintKey } from './records.ts';
import type { SqlDriver, SqlExecutor, SqlResult, SqlRun } from './sql.ts';
import { KeyExistsError, type ApiKeyRecord, type KeyLookup, type KeyStore } from './types.ts';
import type { Clock, KeyRole, Network, Scope } from '../domain.ts';

interface KeyRow {
  key_id: string;
  key_hash: string;
  wallet_address: string | null;
  network: Network;
  role: KeyRole;
  /** text[] (PostgreSQL) or JSON text (SQLite). */
  scopes: Scope[] | string;
  /** timestamptz (PostgreSQL) or ISO-8601 text (SQLite). */
  created_at: Date | string;
  expires_at: Date | string | null;
  revoked_at: Date | string | null;
}

const iso = (v: Date | string): string => (v instanceof Date ? v : new Date(v)).toISOString();

function fromRow(row: KeyRow): ApiKeyRecord {
  return {
    keyId: row.key_id,
    keyHash: row.key_hash,
    walletAddress: row.wallet_address,
    network: row.network,
    role: row.role,
    scopes: Array.isArray(row.scopes) ? row.scopes : (JSON.parse(row.scopes) as Scope[]),
    createdAt: iso(row.created_at),
    expiresAt: row.expires_at === null ? null : iso(row.expires_at),
    revokedAt: row.revoked_at === null ? null : iso(row.revoked_at),
  };
}

export interface SqlKeyStoreOptions {
  now: Clock;
  close(): Promise<void>;
  /** Told, after the commit, the hashes of the keys a revoke or create changed (this process's key cache). */
  onKeysChanged?: (hashes: readonly string[]) => void;
}

/**
 * In one transaction: refuses when `ifNoActiveKey` and the wallet holds an active key, revokes the wallet's
 * active keys, inserts the new one. The hashes of the keys it revoked.
 */
async function insertReplacing(
  tx: SqlExecutor,
  r: ApiKeyRecord,
  ifNoActiveKey: boolean,
): Promise<readonly { key_hash: string }[]> {
  let replaced: SqlResult<{ key_hash: string }> | undefined;
  if (r.walletAddress !== null) {
    if (ifNoActiveKey) {
      const held = await tx.query(
        `SELECT 1 AS held FROM api_keys WHERE wallet_address = $1 AND network = $2 AND revoked_at IS NULL
                 AND (expires_at IS NULL OR expires_at > $3) LIMIT 1`,
        [r.walletAddress, r.network, r.createdAt],
      );
      if (held.rows.length > 0) throw new KeyExistsError(r.walletAddress, r.network);
    }
    replaced = await tx.query<{ key_hash: string }>(
      `UPDATE api_keys SET revoked_at = $3 WHERE wallet_address = $1 AND network = $2 AND revoked_at IS NULL
               RETURNING key_hash`,
      [r.walletAddress, r.network, r.createdAt],
    );
  }
  await tx.query(
    `INSERT INTO api_keys (key_id, key_hash, wallet_address, network, role, scopes, created_at, expires_at, revoked_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, NULL)`,
    [r.keyId, r.keyHash, r.walletAddress, r.network, r.role, r.scopes, r.createdAt, r.expiresAt],
  );
  return replaced?.rows ?? [];
}

export function sqlKeyStore(driver: SqlDriver, run: SqlRun, options: SqlKeyStoreOptions): KeyStore {
  const { now } = options;
  const changed = (rows: readonly { key_hash: string }[]) => {
    if (rows.length > 0) options.onKeysChanged?.(rows.map((r) => r.key_hash));
  };

  /** One query on the unique key_hash index; the state is judged on the store's clock. */
  const lookup = async (key: string): Promise<KeyLookup | undefined> => {
    const hash = hashKey(key);
    if (hash === undefined) return undefined;
    const { rows } = await run('keys', () =>
      driver.query<KeyRow>('SELECT * FROM api_keys WHERE key_hash = $1', [hash]),
    );
    return lookupOf(rows[0] && fromRow(rows[0]), now());
  };

  return {
    async create(input, createOptions) {
      const created = mintKey(input, now());
      const r = created.record;
      // Every create of this wallet and network takes the same lock: the check and the insert are atomic.
      const lock = `credential-vault:key:${r.network}:${r.walletAddress ?? ''}`;
      const ifNoActiveKey = createOptions?.ifNoActiveKey ?? false;
      const replaced = await run('keys', () => driver.transaction((tx) => insertReplacing(tx, r, ifNoActiveKey), lock));
      changed(replaced);
      return created;
    },
    async findByKey(key) {
      const found = await lookup(key);
      return found?.state === 'active' ? found.record : undefined;
    },
    lookup,
    async list(filter = {}) {
      const where: string[] = [];
      const params: unknown[] = [];
      if (filter.network !== undefined) where.push(`network = $${params.push(filter.network)}`);
      if (!filter.includeRevoked) where.push('revoked_at IS NULL');
      const sql = `SELECT * FROM api_keys ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at, key_id`;
      const { rows } = await run('keys', () => driver.query<KeyRow>(sql, params));
      return rows.map(fromRow);
    },
    async revoke(keyId) {
      const result = await run('keys', () =>
        driver.query<{ key_hash: string }>(
          'UPDATE api_keys SET revoked_at = $2 WHERE key_id = $1 AND revoked_at IS NULL RETURNING key_hash',
          [keyId, new Date(now()).toISOString()],
        ),
      );
      changed(result.rows);
      return result.rows.length > 0;
    },
    close: () => options.close(),
  };
}
