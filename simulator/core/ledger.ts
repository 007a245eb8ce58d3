// One network's ledger: the live entries, the chain of ledger headers closing on the wall clock, and the retained
// history (ledger headers, transactions and events). Entries are immutable records, so a snapshot is a shallow copy
// of the maps.
//
// Closing rule, by default: with no traffic a ledger closes every 5 s of (possibly cheat-shifted) wall time. A
// transaction lands in a new ledger, except that transactions applied within the same wall-clock second share one
// ledger (at most one transaction ledger per second, so "latest + 100" auth expirations keep meaning ~minutes).
// With ledger timing on (`ledgerCloseMs` > 0) ledgers close only when the network closes one (SimNetwork.closeLedger,
// on its timer or by hand), with the transactions queued since the last close.
//
// Close times are whole seconds and each is later than the one before, as stellar-core requires of a ledger: a
// ledger closed within the second of the latest one (sim_closeLedger right after a close) takes the next second,
// ahead of the clock until the clock catches up. Hence at most one ledger a second on a clock: ledger timing takes
// 0 or MIN_LEDGER_CLOSE_MS and up.
import { Asset } from '@stellar/stellar-sdk';
import { networkId } from './crypto.ts';
import { SimCodec, type Entry } from './entries.ts';
import { ledgerHash } from './ledger-header.ts';
import type { LedgerEvent, TxRecord } from './records.ts';
import type { Clock } from './network-names.ts';

export const LEDGER_SECONDS = 5;
/** The shortest ledger close interval: close times are whole seconds, each later than the last. */
export const MIN_LEDGER_CLOSE_MS = 1000;
/** The longest one the simulator takes (ten minutes). */
export const MAX_LEDGER_CLOSE_MS = 600_000;

/** A ledger close interval from a flag or setting: 0 (every transaction at once) or 1000 to 600000 ms. */
export function parseLedgerCloseMs(value: string | number): number {
  const text = typeof value === 'number' ? String(value) : value.trim();
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (n > 0 && n < MIN_LEDGER_CLOSE_MS) {
    throw new RangeError(
      `${n} ms is below one ledger a second: close times are whole seconds and each must be later than the last, ` +
        `so the interval is 0 (every transaction at once) or ${MIN_LEDGER_CLOSE_MS} to ${MAX_LEDGER_CLOSE_MS}`,
    );
  }
  if (!(n >= 0 && n <= MAX_LEDGER_CLOSE_MS)) {
    throw new RangeError(
      `expected 0 (every transaction at once) or milliseconds from ${MIN_LEDGER_CLOSE_MS} to ${MAX_LEDGER_CLOSE_MS}, ` +
        `got ${JSON.stringify(String(value))}`,
    );
  }
  return n;
}
/** The protocol a network runs unless told otherwise: the public networks' (docs/chain-abi.md "Protocol line"). */
export const PROTOCOL_VERSION = 28;
/** The protocols the simulator emulates: 26 (before CAP-71) to the newest released one. */
export const MIN_PROTOCOL = 26;
export const MAX_PROTOCOL = 28;
/** First protocol with CAP-71 credentials (ADDRESS_V2, ADDRESS_WITH_DELEGATES) and their address-bound payload. */
export const ADDRESS_BOUND_AUTH_PROTOCOL = 27;

/** A protocol number from a flag or setting; one clear line when it is not one the simulator emulates. */
export function parseProtocol(value: string | number): number {
  const text = typeof value === 'number' ? String(value) : value.trim();
  const n = /^\d+$/.test(text) ? Number(text) : NaN;
  if (n > MAX_PROTOCOL) {
    throw new RangeError(
      `there is no Protocol ${n}: the newest released protocol is ${MAX_PROTOCOL}, which the networks run ` +
        `(the simulator emulates ${MIN_PROTOCOL} to ${MAX_PROTOCOL})`,
    );
  }
  if (!(n >= MIN_PROTOCOL)) {
    throw new RangeError(`protocol must be ${MIN_PROTOCOL} to ${MAX_PROTOCOL}, got ${JSON.stringify(String(value))}`);
  }
  return n;
}
export { BASE_FEE, BASE_RESERVE } from './ledger-header.ts';

export interface LedgerHeaderRec {
  readonly seq: number;
  readonly closeTime: number; // unix seconds
  /** SHA-256 of the ledger's LedgerHeader XDR (ledger-header.ts). */
  readonly hash: Buffer;
  readonly prevHash: Buffer;
  /** The network's fee pool when the ledger opened (its header's feePool). */
  readonly feePool: bigint;
  /** Transactions applied in this ledger so far. */
  txCount: number;
  /** Their hashes, in application order (getLedgers builds the ledger's close meta from them). */
  readonly txHashes: string[];
  /** No further transaction may join this ledger. */
  sealed: boolean;
}

/** Ledger headers kept for getLedgers (a day of 5-second ledgers, stellar-rpc's default retention window). */
export const HEADER_HISTORY = 17_280;

export interface LedgerOptions {
  passphrase: string;
  now: Clock; // ms
  /** Transactions kept for getTransaction (oldest dropped first). */
  historyLimit?: number;
  /** Protocol version the network runs (default PROTOCOL_VERSION). */
  protocol?: number;
  /** 0 (default): each transaction is applied at once. N > 0: ledgers close only on SimNetwork.closeLedger. */
  ledgerCloseMs?: number;
  /** Key conversions and their caches (default: the ledger's own). */
  codec?: SimCodec;
  /** State archival settings (default the public networks', TTL_SETTINGS). */
  ttl?: Partial<TtlSettings>;
}

/** The network's state archival settings (ConfigSettingID STATE_ARCHIVAL: StateArchivalSettings), in ledgers. */
export interface TtlSettings {
  /** Persistent and instance entries live at least this long when created or restored. */
  readonly minPersistentTTL: number;
  /** Temporary entries live at least this long when created. */
  readonly minTemporaryTTL: number;
  /** No entry's TTL goes beyond this many ledgers from the current one. */
  readonly maxEntryTTL: number;
}

/** Protocol 28's testnet and mainnet settings (stellar-docs, build/guides/storage/storage-strategies.mdx "Sizes &
 *  TTLs"; docs/chain-abi.md "State archival"): 120, 1 and 180 days of 5-second ledgers. */
export const TTL_SETTINGS: TtlSettings = {
  minPersistentTTL: 2_073_600,
  minTemporaryTTL: 17_280,
  maxEntryTTL: 3_110_400,
};

/** Settings from options: each a whole number of ledgers ≥ 1, the minimums at most the maximum. */
export function parseTtlSettings(given: Partial<TtlSettings> = {}): TtlSettings {
  const s = { ...TTL_SETTINGS, ...given };
  for (const [name, v] of Object.entries(s)) {
    if (!Number.isSafeInteger(v) || v < 1 || v > 0xffff_ffff)
      throw new RangeError(`ttl.${name} must be a whole number of ledgers from 1, got ${JSON.stringify(v)}`);
  }
  if (s.minPersistentTTL > s.maxEntryTTL || s.minTemporaryTTL > s.maxEntryTTL)
    throw new RangeError('ttl: minPersistentTTL and minTemporaryTTL must not exceed maxEntryTTL');
  return s;
}

/** What changed since the state journal last wrote (tracked only while a journal is attached: simulator/core/journal.ts). */
export interface LedgerChanges {
  keys: Set<string>;
  txs: TxRecord[];
  events: LedgerEvent[];
  /** The header or the clock moved without a transaction (sim_closeLedger, sim_setTime). */
  header: boolean;
  /** The whole state was replaced (sim_revert): only a full snapshot describes it. */
  reset: boolean;
}

export const noChanges = (): LedgerChanges => ({ keys: new Set(), txs: [], events: [], header: false, reset: false });

interface Snapshot {
  entries: Map<string, Entry>;
  latest: LedgerHeaderRec;
  headers: LedgerHeaderRec[];
  timeOffsetMs: number;
  txs: Map<string, TxRecord>;
  events: LedgerEvent[];
  oldestLedger: number;
  oldestCloseTime: number;
  feePool: bigint;
}

export class Ledger {
  readonly passphrase: string;
  readonly networkId: Buffer;
  /** The native asset's contract id (its SAC): the contract of every fee event, computed once. */
  readonly nativeTokenId: string;
  readonly now: Clock;
  readonly historyLimit: number;
  readonly protocol: number;
  /** Ledger timing (0: off). */
  readonly ledgerCloseMs: number;
  /** Entries and keys ↔ XDR, with the simulator's caches. */
  readonly codec: SimCodec;
  /** State archival settings. */
  readonly ttl: TtlSettings;
  entries = new Map<string, Entry>();
  latest: LedgerHeaderRec;
  /** The retained headers, oldest first; the last is `latest`. */
  headers: LedgerHeaderRec[];
  timeOffsetMs = 0;
  txs = new Map<string, TxRecord>();
  events: LedgerEvent[] = [];
  oldestLedger: number;
  oldestCloseTime: number;
  feePool = 0n;
  /** Bumped by every state write: tells whether a simulation still describes the current state. */
  version = 0;
  /** Set by the state journal; undefined = nothing tracked. */
  changes?: LedgerChanges;

  constructor(opts: LedgerOptions) {
    this.passphrase = opts.passphrase;
    this.networkId = networkId(opts.passphrase);
    this.nativeTokenId = Asset.native().contractId(opts.passphrase);
    this.now = opts.now;
    this.historyLimit = opts.historyLimit ?? 10_000;
    this.protocol = parseProtocol(opts.protocol ?? PROTOCOL_VERSION);
    this.ledgerCloseMs = parseLedgerCloseMs(opts.ledgerCloseMs ?? 0);
    this.codec = opts.codec ?? new SimCodec();
    this.ttl = parseTtlSettings(opts.ttl);
    const closeTime = this.nowSec();
    this.latest = this.header(1, closeTime, Buffer.alloc(32), true);
    this.headers = [this.latest];
    this.oldestLedger = 1;
    this.oldestCloseTime = closeTime;
  }

  /** Ledgers close on a clock (SimNetwork.closeLedger) rather than per transaction. */
  get timed(): boolean {
    return this.ledgerCloseMs > 0;
  }

  /** The live-until ledger of an entry created (or restored) in ledger `seq`: it is live in `seq` and the
   *  minimum TTL - 1 ledgers after (soroban-env-host LedgerInfo::min_live_until_ledger_checked). */
  minLiveUntil(durability: 'persistent' | 'temporary', seq: number): number {
    return seq + (durability === 'temporary' ? this.ttl.minTemporaryTTL : this.ttl.minPersistentTTL) - 1;
  }

  /** Ledger time: the wall clock shifted by sim_setTime. */
  nowSec(): number {
    return Math.floor((this.now() + this.timeOffsetMs) / 1000);
  }

  private header(seq: number, closeTime: number, prevHash: Buffer, sealed: boolean): LedgerHeaderRec {
    const feePool = this.feePool;
    const hash = ledgerHash(this.protocol, { seq, closeTime, prevHash, feePool });
    return { seq, closeTime, hash, prevHash, feePool, txCount: 0, txHashes: [], sealed };
  }

  /** Makes `h` the latest ledger and keeps it for getLedgers. */
  private append(h: LedgerHeaderRec): LedgerHeaderRec {
    this.latest = h;
    this.headers.push(h);
    const over = this.headers.length - HEADER_HISTORY;
    if (over > HEADER_HISTORY / 10) this.headers.splice(0, over);
    return h;
  }

  /** Replaces the whole header history with `h` (a state file or journal was loaded). */
  resetHeaders(h: Omit<LedgerHeaderRec, 'hash' | 'txCount' | 'txHashes' | 'sealed'>): void {
    this.latest = { ...h, hash: ledgerHash(this.protocol, h), txCount: 0, txHashes: [], sealed: true };
    this.headers = [this.latest];
  }

  /** Closes the empty ledgers that wall time has produced since the latest one (not with ledger timing on). */
  tick(): LedgerHeaderRec {
    if (this.timed) return this.latest;
    const gap = this.nowSec() - this.latest.closeTime;
    if (gap >= LEDGER_SECONDS) {
      const n = Math.floor(gap / LEDGER_SECONDS);
      // Only the last HEADER_HISTORY of a long idle stretch are kept, so only those are built.
      const skip = Math.max(0, n - HEADER_HISTORY);
      let prev = this.latest;
      if (skip > 0) {
        prev = this.header(prev.seq + skip, prev.closeTime + skip * LEDGER_SECONDS, prev.hash, true);
        this.headers = [];
      }
      for (let i = skip; i < n; i++) {
        prev = this.append(this.header(prev.seq + 1, prev.closeTime + LEDGER_SECONDS, prev.hash, true));
      }
    }
    return this.latest;
  }

  /** The close time of the next ledger: now, or the second after the latest close when that is later. */
  private nextCloseTime(): number {
    return Math.max(this.nowSec(), this.latest.closeTime + 1);
  }

  /** The ledger (sequence, close time) the next transaction would be applied in. */
  nextTxLedger(): { seq: number; closeTime: number } {
    const latest = this.tick();
    if (!this.timed && !latest.sealed && this.nowSec() <= latest.closeTime) {
      return { seq: latest.seq, closeTime: latest.closeTime };
    }
    return { seq: latest.seq + 1, closeTime: this.nextCloseTime() };
  }

  /** Opens (or joins) the ledger a transaction is applied in at once (ledger timing off). */
  openTxLedger(): LedgerHeaderRec {
    const next = this.nextTxLedger();
    if (next.seq !== this.latest.seq) this.append(this.header(next.seq, next.closeTime, this.latest.hash, false));
    return this.latest;
  }

  /** Counts a transaction into `h` (the latest ledger); returns its application order. */
  joinLedger(h: LedgerHeaderRec, hash: string): number {
    h.txCount += 1;
    h.txHashes.push(hash);
    return h.txCount;
  }

  /** Opens the next ledger now, for a close that applies queued transactions into it (ledger timing on). */
  openLedger(): LedgerHeaderRec {
    const latest = this.tick();
    latest.sealed = true;
    if (this.changes) this.changes.header = true;
    return this.append(this.header(latest.seq + 1, this.nextCloseTime(), latest.hash, false));
  }

  /** Closes a ledger now (sim_closeLedger, ledger timing off). */
  closeLedger(): LedgerHeaderRec {
    const latest = this.tick();
    latest.sealed = true;
    if (this.changes) this.changes.header = true;
    return this.append(this.header(latest.seq + 1, this.nextCloseTime(), latest.hash, true));
  }

  /** Moves ledger time to `unixSeconds` (never backwards). */
  shiftTime(unixSeconds: number): void {
    const latest = this.tick();
    if (unixSeconds < latest.closeTime) {
      throw new RangeError(`ledger time cannot go backwards (latest close time ${latest.closeTime})`);
    }
    this.timeOffsetMs = unixSeconds * 1000 - this.now();
  }

  /**
   * Moves ledger time to `unixSeconds` (never backwards) and closes a ledger there, or a second after the latest
   * close when that is later (ledger timing off). Transactions of that second join it, as they join any ledger of
   * their second.
   */
  setTime(unixSeconds: number): LedgerHeaderRec {
    this.shiftTime(unixSeconds);
    const latest = this.latest;
    latest.sealed = true;
    if (this.changes) this.changes.header = true;
    return this.append(this.header(latest.seq + 1, this.nextCloseTime(), latest.hash, false));
  }

  /** The retained header of ledger `seq`, if any. */
  headerOf(seq: number): LedgerHeaderRec | undefined {
    const first = this.headers[0];
    if (!first || seq < first.seq) return undefined;
    const h = this.headers[seq - first.seq];
    return h?.seq === seq ? h : this.headers.find((x) => x.seq === seq);
  }

  get(key: string): Entry | undefined {
    return this.entries.get(key);
  }

  put(key: string, entry: Entry | undefined): void {
    this.version += 1;
    this.changes?.keys.add(key);
    if (entry) this.entries.set(key, entry);
    else this.entries.delete(key);
  }

  /** Records an applied transaction and its events; drops the oldest history beyond the limit. */
  record(tx: TxRecord, events: LedgerEvent[]): void {
    this.txs.set(tx.hash, tx);
    for (const e of events) this.addEvent(e);
    if (this.changes) {
      this.changes.txs.push(tx);
      for (const e of events) this.changes.events.push(e);
    }
    if (this.txs.size > this.historyLimit + Math.ceil(this.historyLimit / 10)) {
      const drop = this.txs.size - this.historyLimit;
      let i = 0;
      for (const [hash, rec] of this.txs) {
        if (i++ >= drop) break;
        this.txs.delete(hash);
        this.oldestLedger = rec.ledger;
        this.oldestCloseTime = rec.createdAt;
      }
      const firstKept = this.events.findIndex((e) => e.ledger >= this.oldestLedger);
      if (firstKept > 0) this.events.splice(0, firstKept);
    }
  }

  /**
   * Places an event in `events`, kept in id order (getEvents searches it): a transaction's charge (TOID tx 0) goes
   * before the events of the ledger's earlier transactions, their refunds (TOID tx 0xfffff) after them all. The
   * place is found by binary search: a ledger of a wall-clock second may hold thousands of events.
   */
  addEvent(e: LedgerEvent): void {
    const ev = this.events;
    const last = ev[ev.length - 1];
    if (last === undefined || eventOrder(last, e) <= 0) {
      ev.push(e);
      return;
    }
    ev.splice(
      upperBound(ev, (x) => eventOrder(x, e) <= 0),
      0,
      e,
    );
  }

  /** How many retained events of ledger `seq` have TOID transaction index `txIndex`: two binary searches written
   *  out (through upperBound's predicate closures a call cost 22-30 µs in the sim-rpc cycle, written out 3-9 µs). */
  eventsAt(seq: number, txIndex: number): number {
    const ev = this.events;
    const bound = (t: number): number => {
      let lo = 0;
      let hi = ev.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const x = ev[mid]!;
        if (x.ledger < seq || (x.ledger === seq && x.txIndex <= t)) lo = mid + 1;
        else hi = mid;
      }
      return lo;
    };
    return bound(txIndex) - bound(txIndex - 1);
  }

  snapshot(): Snapshot {
    return {
      entries: new Map(this.entries),
      latest: { ...this.latest, txHashes: [...this.latest.txHashes] },
      headers: this.headers.slice(0, -1),
      timeOffsetMs: this.timeOffsetMs,
      txs: new Map(this.txs),
      events: this.events.slice(),
      oldestLedger: this.oldestLedger,
      oldestCloseTime: this.oldestCloseTime,
      feePool: this.feePool,
    };
  }

  restore(s: Snapshot): void {
    this.version += 1;
    if (this.changes) this.changes.reset = true;
    this.entries = new Map(s.entries);
    this.latest = { ...s.latest, txHashes: [...s.latest.txHashes], sealed: true };
    this.headers = [...s.headers, this.latest];
    this.timeOffsetMs = s.timeOffsetMs;
    this.txs = new Map(s.txs);
    this.events = s.events.slice();
    this.oldestLedger = s.oldestLedger;
    this.oldestCloseTime = s.oldestCloseTime;
    this.feePool = s.feePool;
  }
}

/** The first index of `a` whose element fails `isBefore`, for a predicate true on a prefix of `a` only. */
function upperBound<T>(a: readonly T[], isBefore: (x: T) => boolean): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (isBefore(a[mid]!)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Events in id order: ledger, TOID transaction and operation index, event index. */
function eventOrder(a: LedgerEvent, b: LedgerEvent): number {
  return a.ledger - b.ledger || a.txIndex - b.txIndex || a.opIndex - b.opIndex || a.eventIndex - b.eventIndex;
}
