// The change feed of the keys in PostgreSQL: LISTEN on a dedicated connection to what the key triggers announce
// (migrations/postgres/002_key_changes.sql), with a watermark from the connection's own pings.
import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';
import type { KeyChangeFeed, KeyChangeSink } from './key-cache.ts';
import type { Clock } from '../domain.ts';

/** The channel the key triggers of a schema announce on (migrations/postgres/002_key_changes.sql). */
export const keyChannel = (schema: string): string => `cv_keys_${createHash('md5').update(schema).digest('hex')}`;

export interface ListenOptions {
  /** A new, unconnected client with the pool's settings (schema included). */
  client: () => pg.Client;
  /** Migrations, so that the triggers exist before listening. */
  ready: () => Promise<void>;
  sink: KeyChangeSink;
  clock: Clock;
  pingTimeoutMs: number;
  onError: (err: Error) => void;
}

/**
 * Key changes from LISTEN on a dedicated connection. Notifications of different transactions arrive in
 * commit order, so when this connection's own ping (a NOTIFY on the same channel) comes back, every change
 * committed before the ping was sent has been delivered: the watermark is the send time of the last ping
 * that returned. A lost connection drops the watermark at once and reconnects at the next refresh (backoff
 * up to 1 s); a ping unanswered for `pingTimeoutMs` means a silent network, and the connection is replaced.
 * Every (re)connection clears the cache: what happened while nobody listened is unknown.
 */
export function listenKeyChanges(o: ListenOptions): KeyChangeFeed {
  return new KeyChangeListener(o);
}

class KeyChangeListener implements KeyChangeFeed {
  /** Tells this connection's pings from other instances' on the shared channel. */
  private readonly token = randomBytes(6).toString('hex');
  private client: pg.Client | undefined;
  private channel = '';
  private connecting: Promise<void> | undefined;
  private failures = 0;
  private retryAt = -Infinity;
  private mark = -Infinity;
  private pingSeq = 0;
  /** Pings sent and not yet back: sequence → send time. */
  private readonly pings = new Map<number, number>();
  private closed = false;

  private readonly o: ListenOptions;

  constructor(o: ListenOptions) {
    this.o = o;
  }

  watermark(): number {
    return this.mark;
  }

  refresh(): void {
    if (this.closed) return;
    const c = this.client;
    if (!c) {
      if (!this.connecting && this.o.clock() >= this.retryAt) {
        this.connecting = this.connect().finally(() => {
          this.connecting = undefined;
        });
      }
      return;
    }
    const oldest = this.pings.values().next().value;
    if (oldest === undefined) this.ping(c);
    else if (this.o.clock() - oldest > this.o.pingTimeoutMs)
      this.lost(c, new Error(`no answer to a ping in ${this.o.pingTimeoutMs} ms`));
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.connecting;
    const c = this.client;
    this.client = undefined;
    this.mark = -Infinity;
    await c?.end().catch(() => undefined);
  }

  private lost(c: pg.Client, err?: Error): void {
    if (this.client !== c) return;
    this.client = undefined;
    this.mark = -Infinity;
    this.pings.clear();
    this.retryAt = this.o.clock() + 100;
    void c.end().catch(() => undefined);
    if (err) this.o.onError(new Error(`key change listener lost its connection: ${err.message}`, { cause: err }));
  }

  private onNotification(c: pg.Client, msg: pg.Notification): void {
    if (this.client !== c || msg.channel !== this.channel) return;
    const payload = msg.payload ?? '';
    if (payload.startsWith('ping:')) {
      const mine = `ping:${this.token}:`;
      if (!payload.startsWith(mine)) return;
      const seq = Number(payload.slice(mine.length));
      const sentAt = this.pings.get(seq);
      if (sentAt === undefined) return;
      for (const n of this.pings.keys()) if (n <= seq) this.pings.delete(n);
      this.mark = Math.max(this.mark, sentAt);
    } else if (payload === '*') this.o.sink.clear();
    else this.o.sink.evict([payload]);
  }

  private ping(c: pg.Client): void {
    const seq = ++this.pingSeq;
    this.pings.set(seq, this.o.clock());
    c.query('SELECT pg_notify($1, $2)', [this.channel, `ping:${this.token}:${seq}`]).catch((err: Error) =>
      this.lost(c, err),
    );
  }

  private async connect(): Promise<void> {
    const c = this.o.client();
    c.on('error', (err) => this.lost(c, err));
    c.on('end', () => this.lost(c, new Error('connection ended')));
    c.on('notification', (msg) => this.onNotification(c, msg));
    try {
      await this.o.ready();
      await c.connect();
      const { rows } = await c.query<{ schema: string | null }>('SELECT current_schema() AS schema');
      const schema = rows[0]?.schema;
      if (!schema) throw new Error('no current schema');
      this.channel = keyChannel(schema);
      // Named so that an operator (or a test) can find this connection in pg_stat_activity.
      await c.query("SELECT set_config('application_name', $1, false)", [`credential-vault keys ${this.channel}`]);
      await c.query(`LISTEN ${this.channel}`);
      if (this.closed) throw new Error('closed');
      this.client = c;
      this.failures = 0;
      this.o.sink.clear();
      this.ping(c);
    } catch (err) {
      this.failures++;
      this.retryAt = this.o.clock() + Math.min(1000, 50 * 2 ** this.failures);
      void c.end().catch(() => undefined);
      const why = (err as Error).message;
      if (!this.closed) this.o.onError(new Error(`key change listener cannot connect: ${why}`, { cause: err }));
    }
  }
}
