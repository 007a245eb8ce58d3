// The reverse lookup of did:ledger DIDs by controlling wallet: one row per DID (its controller, version,
// deactivated flag and the ledger of its last change), written from the registry's events and from records
// read once (a DID older than the events the RPC keeps), plus per network how far the events were read.
// Every write is guarded by the DID's version (a row only moves forward), so two instances applying the same
// events, in any interleaving, and a restart that applies some again, leave the same rows.
import type { SqlResult } from './sql.ts';
import type { Network } from '../domain.ts';

/** A DID as the index holds it. */
export interface IndexedDid {
  network: Network;
  didId: string;
  controller: string;
  version: number;
  deactivated: boolean;
  updatedLedger: number;
}

/** A change that does not name the controller (update, deactivate): applied only to a DID already held. */
export interface IndexedChange {
  network: Network;
  didId: string;
  version: number;
  updatedLedger: number;
  deactivated?: true;
}

/** How far the events of a network were read: every event of [fromLedger, toLedger], and where to go on. */
export interface IndexProgress {
  fromLedger: number;
  toLedger: number;
  eventCursor: string;
}

export type ControllerStatus = 'active' | 'deactivated' | 'all';

export interface ListQuery {
  network: Network;
  controller: string;
  status: ControllerStatus;
  /** Only didIds after this one (the previous page's last). */
  after?: string;
  limit: number;
}

export interface DidIndexStore {
  /** Upserts each DID unless the index holds it at the same or a newer version. */
  put(dids: readonly IndexedDid[]): Promise<void>;
  /** Applies each change to a DID the index holds at an older version; others are ignored. */
  change(changes: readonly IndexedChange[]): Promise<void>;
  list(q: ListQuery): Promise<IndexedDid[]>;
  get(network: Network, didId: string): Promise<IndexedDid | undefined>;
  progress(network: Network): Promise<IndexProgress | undefined>;
  /** Records progress: `toLedger` only ever grows; `fromLedger` is set by the first call (or `reset`). */
  advance(network: Network, p: IndexProgress, opts?: { reset?: boolean }): Promise<void>;
  close(): Promise<void>;
}

type Query = <R = Record<string, unknown>>(sql: string, params?: readonly unknown[]) => Promise<SqlResult<R>>;

interface Row {
  network: Network;
  did_id: string;
  controller: string;
  version: number | string;
  deactivated: boolean | number;
  updated_ledger: number | string;
}

const fromRow = (r: Row): IndexedDid => ({
  network: r.network,
  didId: r.did_id,
  controller: r.controller,
  version: Number(r.version),
  deactivated: Boolean(r.deactivated),
  updatedLedger: Number(r.updated_ledger),
});

const STATUS_SQL: Record<ControllerStatus, string> = {
  active: ' AND deactivated = $4',
  deactivated: ' AND deactivated = $4',
  all: '',
};

/** The index in the SQL store (migrations/<dialect>/003_registrar_and_did_index.sql). */
export function sqlDidIndex(query: Query): DidIndexStore {
  return {
    async put(dids) {
      for (const d of dids) {
        await query(
          'INSERT INTO did_index (network, did_id, controller, version, deactivated, updated_ledger) ' +
            'VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (network, did_id) DO UPDATE SET ' +
            'controller = excluded.controller, version = excluded.version, deactivated = excluded.deactivated, ' +
            'updated_ledger = excluded.updated_ledger WHERE did_index.version < excluded.version',
          [d.network, d.didId, d.controller, d.version, d.deactivated, d.updatedLedger],
        );
      }
    },
    async change(changes) {
      for (const c of changes) {
        await query(
          c.deactivated
            ? 'UPDATE did_index SET version = $1, updated_ledger = $2, deactivated = $5 WHERE network = $3 AND did_id = $4 AND version < $1'
            : 'UPDATE did_index SET version = $1, updated_ledger = $2 WHERE network = $3 AND did_id = $4 AND version < $1',
          [c.version, c.updatedLedger, c.network, c.didId, ...(c.deactivated ? [true] : [])],
        );
      }
    },
    async list(q) {
      const params: unknown[] = [q.network, q.controller, q.after ?? ''];
      if (q.status !== 'all') params.push(q.status === 'deactivated');
      params.push(q.limit);
      const { rows } = await query<Row>(
        'SELECT * FROM did_index WHERE network = $1 AND controller = $2 AND did_id > $3' +
          STATUS_SQL[q.status] +
          ` ORDER BY did_id LIMIT $${params.length}`,
        params,
      );
      return rows.map(fromRow);
    },
    async get(network, didId) {
      const { rows } = await query<Row>('SELECT * FROM did_index WHERE network = $1 AND did_id = $2', [network, didId]);
      return rows[0] ? fromRow(rows[0]) : undefined;
    },
    async progress(network) {
      const { rows } = await query<{ from_ledger: number | string; to_ledger: number | string; event_cursor: string }>(
        'SELECT from_ledger, to_ledger, event_cursor FROM did_index_progress WHERE network = $1',
        [network],
      );
      const r = rows[0];
      return r
        ? { fromLedger: Number(r.from_ledger), toLedger: Number(r.to_ledger), eventCursor: r.event_cursor }
        : undefined;
    },
    async advance(network, p, opts) {
      await query(
        'INSERT INTO did_index_progress (network, from_ledger, to_ledger, event_cursor) VALUES ($1, $2, $3, $4) ' +
          'ON CONFLICT (network) DO UPDATE SET from_ledger = ' +
          (opts?.reset ? 'excluded.from_ledger' : 'did_index_progress.from_ledger') +
          ', to_ledger = excluded.to_ledger, event_cursor = excluded.event_cursor ' +
          (opts?.reset ? '' : 'WHERE did_index_progress.to_ledger <= excluded.to_ledger'),
        [network, p.fromLedger, p.toLedger, p.eventCursor],
      );
    },
    close: async () => {},
  };
}

/** The index of one process (tests, and an app started without stores). */
export function memoryDidIndex(): DidIndexStore {
  const rows = new Map<string, IndexedDid>();
  const progress = new Map<Network, IndexProgress>();
  const key = (network: Network, didId: string) => `${network} ${didId}`;
  return {
    async put(dids) {
      for (const d of dids) {
        const held = rows.get(key(d.network, d.didId));
        if (!held || held.version < d.version) rows.set(key(d.network, d.didId), { ...d });
      }
    },
    async change(changes) {
      for (const c of changes) {
        const held = rows.get(key(c.network, c.didId));
        if (!held || held.version >= c.version) continue;
        rows.set(key(c.network, c.didId), {
          ...held,
          version: c.version,
          updatedLedger: c.updatedLedger,
          deactivated: held.deactivated || c.deactivated === true,
        });
      }
    },
    async list(q) {
      return [...rows.values()]
        .filter(
          (d) =>
            d.network === q.network &&
            d.controller === q.controller &&
            d.didId > (q.after ?? '') &&
            (q.status === 'all' || d.deactivated === (q.status === 'deactivated')),
        )
        .sort((a, b) => (a.didId < b.didId ? -1 : 1))
        .slice(0, q.limit)
        .map((d) => ({ ...d }));
    },
    async get(network, didId) {
      const d = rows.get(key(network, didId));
      return d ? { ...d } : undefined;
    },
    async progress(network) {
      const p = progress.get(network);
      return p ? { ...p } : undefined;
    },
    async advance(network, p, opts) {
      const held = progress.get(network);
      if (held && !opts?.reset && held.toLedger > p.toLedger) return;
      progress.set(network, { ...p, fromLedger: held && !opts?.reset ? held.fromLedger : p.fromLedger });
    },
    close: async () => {},
  };
}
