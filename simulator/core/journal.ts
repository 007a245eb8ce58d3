// Durability of a served simulator's state: what a client was told (a transaction applied, an
// account funded) must survive kill -9. The state file is a snapshot; next to it, `<state file>.journal` holds
// one JSON line per batch of changes (changed entries, new transactions and events, the header), appended and
// fdatasync'd before the simulator answers any request after them (`flush`; concurrent answers share one sync). At start the snapshot is
// loaded and the journal records after its `journalSeq` are replayed; a torn last line (a write cut by the kill,
// never acknowledged) is dropped. The journal is folded into a fresh snapshot on close, on sim_revert (a whole
// new state) and when it grows past `compactBytes`.
import fs from 'node:fs';
import path from 'node:path';
import { noChanges, type Ledger } from './ledger.ts';
import type { SimNetwork } from './network.ts';
import {
  checkSavedNetwork,
  entryFromSaved,
  eventFromSaved,
  loadHeader,
  savedEntry,
  savedEvent,
  savedHeader,
  savedTx,
  txFromSaved,
  type SavedEvent,
  type SavedHeader,
  type SavedState,
  type SavedTx,
  type TxXdr,
} from './state.ts';

interface NetworkDelta {
  passphrase: string;
  factoryId: string;
  ledger: SavedHeader;
  put: [string, number?][];
  del: string[];
  txs: SavedTx[];
  events: SavedEvent[];
}

interface JournalRecord {
  seq: number;
  networks: Record<string, NetworkDelta>;
}

export interface JournalOptions {
  /** The snapshot file; the journal is `${stateFile}.journal`. */
  stateFile: string;
  networks: Record<string, SimNetwork>;
  /** The snapshot that was loaded (its `journalSeq` says which records it already holds). */
  loaded?: SavedState;
  /** The whole state as the snapshot file holds it. */
  saveState: () => SavedState;
  txXdr: TxXdr;
  /** Fold the journal into the snapshot once it is this large (default 32 MiB). */
  compactBytes?: number;
}

interface Waiter {
  seq: number;
  resolve: () => void;
  reject: (e: Error) => void;
}

export class StateJournal {
  readonly file: string;
  private fd: number;
  /** The last record written (to the page cache); the snapshot's journalSeq after a compaction. */
  private seq: number;
  /** The last record known to be on disk. */
  private synced: number;
  private syncing = false;
  private readonly waiters: Waiter[] = [];
  private size: number;
  private readonly compactBytes: number;

  /** Replays the journal onto the (already loaded) networks and starts tracking their changes. */
  private readonly opts: JournalOptions;
  constructor(opts: JournalOptions) {
    this.opts = opts;
    this.file = `${opts.stateFile}.journal`;
    this.compactBytes = opts.compactBytes ?? 32 * 1024 * 1024;
    this.seq = opts.loaded?.journalSeq ?? 0;
    // A fresh clone has no ./data yet: `start` must create it, not fail opening the journal in it.
    fs.mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
    this.size = this.replay();
    this.synced = this.seq;
    this.fd = fs.openSync(this.file, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_APPEND, 0o600);
    fsyncDir(path.dirname(this.file));
    for (const net of Object.values(opts.networks)) net.ledger.changes = noChanges();
  }

  private replay(): number {
    let text: string;
    try {
      text = fs.readFileSync(this.file, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw e;
    }
    let good = 0;
    while (good < text.length) {
      const end = text.indexOf('\n', good);
      if (end < 0) break; // torn last line: its request was never answered
      let rec: JournalRecord;
      try {
        rec = JSON.parse(text.slice(good, end)) as JournalRecord;
      } catch {
        throw new Error(`${this.file}: a complete line at byte ${good} is not a journal record (the file is damaged)`);
      }
      if (rec.seq > this.seq) {
        for (const [name, delta] of Object.entries(rec.networks)) {
          const net = this.opts.networks[name];
          if (!net) throw new Error(`${this.file}: record ${rec.seq} names an unknown network ${name}`);
          applyDelta(net, delta);
        }
        this.seq = rec.seq;
      }
      good = end + 1;
    }
    const bytes = Buffer.byteLength(text.slice(0, good));
    if (good < text.length) fs.truncateSync(this.file, bytes);
    return bytes;
  }

  /**
   * Writes what changed since the last call; the promise (undefined when nothing is pending) settles once
   * every record written so far is on disk. Await it before answering a request. Concurrent answers share
   * one fdatasync (group commit), and the event loop keeps serving while the disk works.
   */
  flush(): Promise<void> | undefined {
    this.write();
    if (this.synced >= this.seq) return undefined;
    const seq = this.seq;
    const done = new Promise<void>((resolve, reject) => this.waiters.push({ seq, resolve, reject }));
    this.sync();
    return done;
  }

  private sync(): void {
    if (this.syncing) return; // the callback starts the next one for records written meanwhile
    this.syncing = true;
    const target = this.seq;
    fs.fdatasync(this.fd, (err) => {
      this.syncing = false;
      if (!err) this.synced = Math.max(this.synced, target);
      const failed = err && this.synced < target;
      for (let i = this.waiters.length - 1; i >= 0; i--) {
        const w = this.waiters[i]!;
        if (w.seq <= this.synced) w.resolve();
        else if (failed && w.seq <= target) w.reject(err);
        else continue;
        this.waiters.splice(i, 1);
      }
      if (this.waiters.length) this.sync();
    });
  }

  private write(): void {
    const nets = Object.entries(this.opts.networks);
    if (nets.some(([, n]) => n.ledger.changes?.reset)) return this.compact();
    const networks: Record<string, NetworkDelta> = {};
    for (const [name, net] of nets) {
      const c = net.ledger.changes;
      if (!c || (c.keys.size === 0 && c.txs.length === 0 && !c.header)) continue;
      networks[name] = deltaOf(net, this.opts.txXdr);
      net.ledger.changes = noChanges();
    }
    if (Object.keys(networks).length === 0) return;
    const line = `${JSON.stringify({ seq: this.seq + 1, networks } satisfies JournalRecord)}\n`;
    fs.writeSync(this.fd, line);
    this.seq += 1;
    this.size += Buffer.byteLength(line);
    if (this.size > this.compactBytes) this.compact();
  }

  /** Writes the whole state as the snapshot (atomically, synced), then empties the journal. */
  compact(): void {
    const state: SavedState = { ...this.opts.saveState(), journalSeq: this.seq };
    for (const net of Object.values(this.opts.networks)) net.ledger.changes = noChanges();
    writeFileDurably(this.opts.stateFile, JSON.stringify(state));
    // A kill between the rename and this truncate leaves records the snapshot already holds: their seq skips them.
    fs.ftruncateSync(this.fd, 0);
    fs.fdatasyncSync(this.fd);
    this.size = 0;
    this.synced = this.seq; // every record is in the synced snapshot
    for (const w of this.waiters.splice(0)) w.resolve();
  }

  /** Compacts and stops tracking. */
  close(): void {
    this.compact();
    fs.closeSync(this.fd);
    for (const net of Object.values(this.opts.networks)) net.ledger.changes = undefined;
  }
}

function deltaOf(net: SimNetwork, txXdr: TxXdr): NetworkDelta {
  const l: Ledger = net.ledger;
  const c = l.changes!;
  const put: [string, number?][] = [];
  const del: string[] = [];
  for (const key of c.keys) {
    const e = l.entries.get(key);
    if (e) put.push(savedEntry(l.codec, e));
    else del.push(key);
  }
  return {
    passphrase: l.passphrase,
    factoryId: net.info.factoryId,
    ledger: savedHeader(l),
    put,
    del,
    txs: c.txs.map((t) => savedTx(l.codec, t, txXdr)),
    events: c.events.map(savedEvent),
  };
}

function applyDelta(net: SimNetwork, d: NetworkDelta): void {
  checkSavedNetwork(net, d);
  const l = net.ledger;
  l.version += 1;
  for (const saved of d.put) {
    const e = entryFromSaved(l.codec, saved);
    l.entries.set(l.codec.entryKeyId(e), e);
  }
  for (const key of d.del) l.entries.delete(key);
  for (const t of d.txs) l.record(txFromSaved(t), []);
  for (const e of d.events) l.addEvent(eventFromSaved(e));
  loadHeader(l, d.ledger);
}

/** tmp file, fsync, rename, fsync of the directory: after a crash the file is the old or the new one, whole. */
export function writeFileDurably(file: string, text: string): void {
  const tmp = `${file}.tmp-${process.pid}`;
  const fd = fs.openSync(tmp, 'w', 0o600);
  try {
    fs.writeSync(fd, text);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  fsyncDir(path.dirname(file));
}

function fsyncDir(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
