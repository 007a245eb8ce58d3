// One network's ledger: the live entries, the chain of ledger headers closing on the wall clock, and the retained
// history (transactions and events). Entries are immutable records, so a snapshot is a shallow copy of the maps.
//
// Closing rule: with no traffic a ledger closes every 5 s of (possibly cheat-shifted) wall time. A transaction
// lands in a new ledger, except that transactions applied within the same wall-clock second share one ledger
// (at most one transaction ledger per second, so "latest + 100" auth expirations keep meaning ~minutes).
import { xdr } from '@stellar/stellar-sdk';
import { networkId, sha256 } from './crypto.ts';
import type { Entry } from './entries.ts';
import type { LedgerEvent, TxRecord } from './records.ts';

export const LEDGER_SECONDS = 5;
/** The protocol a network runs unless told otherwise: the public networks' (mainnet since 2026-10-01). */
export const PROTOCOL_VERSION = 29;
/** The protocols the simulator emulates: 26 (before CAP-71) to the current one. */
export const MIN_PROTOCOL = 26;
export const MAX_PROTOCOL = 29;
/** First protocol with CAP-71 credentials (ADDRESS_V2, ADDRESS_WITH_DELEGATES) and their address-bound payload. */
export const ADDRESS_BOUND_AUTH_PROTOCOL = 27;
/** First protocol whose recording-mode simulation returns ADDRESS_V2 entries without being asked to. */
export const V2_BY_DEFAULT_PROTOCOL = 28;

/** A protocol number from a flag or setting; one clear line when it is not one the simulator emulates. */
export function parseProtocol(value: string | number): number {
  const n = typeof value === 'number' ? value : /^\d+$/.test(value.trim()) ? Number(value.trim()) : NaN;
  if (!Number.isInteger(n) || n < MIN_PROTOCOL || n > MAX_PROTOCOL) {
    throw new RangeError(`protocol must be ${MIN_PROTOCOL} to ${MAX_PROTOCOL}, got ${JSON.stringify(String(value))}`);
  }
  return n;
}
export const BASE_FEE = 100;
export const BASE_RESERVE = 5_000_000n;
export const TOTAL_COINS = 1_000_000_000_000_000_000n;

export interface LedgerHeaderRec {
  readonly seq: number;
  readonly closeTime: number; // unix seconds
  readonly hash: Buffer;
  readonly prevHash: Buffer;
  /** Transactions applied in this ledger so far. */
  txCount: number;
  /** No further transaction may join this ledger. */
  sealed: boolean;
}

export interface LedgerOptions {
  passphrase: string;
  now: () => number; // ms
  /** Transactions kept for getTransaction (oldest dropped first). */
  historyLimit?: number;
  /** Protocol version the network runs (default PROTOCOL_VERSION). */
  protocol?: number;
}

interface Snapshot {
  entries: Map<string, Entry>;
  latest: LedgerHeaderRec;
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
  readonly now: () => number;
  readonly historyLimit: number;
  readonly protocol: number;
  entries = new Map<string, Entry>();
  latest: LedgerHeaderRec;
  timeOffsetMs = 0;
  txs = new Map<string, TxRecord>();
  events: LedgerEvent[] = [];
  oldestLedger: number;
  oldestCloseTime: number;
  feePool = 0n;
  /** Bumped by every state write: tells whether a simulation still describes the current state. */
  version = 0;

  constructor(opts: LedgerOptions) {
    this.passphrase = opts.passphrase;
    this.networkId = networkId(opts.passphrase);
    this.now = opts.now;
    this.historyLimit = opts.historyLimit ?? 10_000;
    this.protocol = parseProtocol(opts.protocol ?? PROTOCOL_VERSION);
    const closeTime = this.nowSec();
    this.latest = this.header(1, closeTime, Buffer.alloc(32), true);
    this.oldestLedger = 1;
    this.oldestCloseTime = closeTime;
  }

  /** Ledger time: the wall clock shifted by sim_setTime. */
  nowSec(): number {
    return Math.floor((this.now() + this.timeOffsetMs) / 1000);
  }

  private header(seq: number, closeTime: number, prevHash: Buffer, sealed: boolean): LedgerHeaderRec {
    const buf = Buffer.alloc(12);
    buf.writeUInt32BE(seq, 0);
    buf.writeBigUInt64BE(BigInt(closeTime), 4);
    const hash = sha256(Buffer.concat([this.networkId, prevHash, buf]));
    return { seq, closeTime, hash, prevHash, txCount: 0, sealed };
  }

  /** Closes the empty ledgers that wall time has produced since the latest one. */
  tick(): LedgerHeaderRec {
    const now = this.nowSec();
    const gap = now - this.latest.closeTime;
    if (gap >= LEDGER_SECONDS) {
      const n = Math.floor(gap / LEDGER_SECONDS);
      this.latest = this.header(this.latest.seq + n, this.latest.closeTime + n * LEDGER_SECONDS, this.latest.hash, true);
    }
    return this.latest;
  }

  /** The ledger (sequence, close time) the next transaction would be applied in. */
  nextTxLedger(): { seq: number; closeTime: number } {
    const latest = this.tick();
    const now = Math.max(this.nowSec(), latest.closeTime);
    if (!latest.sealed && latest.closeTime === now) return { seq: latest.seq, closeTime: now };
    return { seq: latest.seq + 1, closeTime: now };
  }

  /** Opens (or joins) the ledger a transaction is applied in; returns it with the tx's application order. */
  openTxLedger(): { header: LedgerHeaderRec; order: number } {
    const next = this.nextTxLedger();
    if (next.seq !== this.latest.seq) this.latest = this.header(next.seq, next.closeTime, this.latest.hash, false);
    this.latest.txCount += 1;
    return { header: this.latest, order: this.latest.txCount };
  }

  /** Closes a ledger now (sim_closeLedger). */
  closeLedger(): LedgerHeaderRec {
    const latest = this.tick();
    this.latest = this.header(latest.seq + 1, Math.max(this.nowSec(), latest.closeTime), latest.hash, true);
    return this.latest;
  }

  /** Moves ledger time to `unixSeconds` (never backwards) and closes a ledger there. */
  setTime(unixSeconds: number): LedgerHeaderRec {
    const latest = this.tick();
    if (unixSeconds < latest.closeTime) {
      throw new RangeError(`ledger time cannot go backwards (latest close time ${latest.closeTime})`);
    }
    this.timeOffsetMs = unixSeconds * 1000 - this.now();
    this.latest = this.header(latest.seq + 1, unixSeconds, latest.hash, true);
    return this.latest;
  }

  get(key: string): Entry | undefined {
    return this.entries.get(key);
  }

  put(key: string, entry: Entry | undefined): void {
    this.version += 1;
    if (entry) this.entries.set(key, entry);
    else this.entries.delete(key);
  }

  /** Records an applied transaction and its events; drops the oldest history beyond the limit. */
  record(tx: TxRecord, events: LedgerEvent[]): void {
    this.txs.set(tx.hash, tx);
    for (const e of events) this.events.push(e);
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

  snapshot(): Snapshot {
    return {
      entries: new Map(this.entries),
      latest: { ...this.latest },
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
    this.entries = new Map(s.entries);
    this.latest = { ...s.latest, sealed: true };
    this.timeOffsetMs = s.timeOffsetMs;
    this.txs = new Map(s.txs);
    this.events = s.events.slice();
    this.oldestLedger = s.oldestLedger;
    this.oldestCloseTime = s.oldestCloseTime;
    this.feePool = s.feePool;
  }

  // ---- header XDR (getLatestLedger) ----------------------------------------------------------------------------

  private headerCache?: { seq: number; closeTime: number; header: xdr.LedgerHeader; meta: string; headerB64: string };

  /** `headerXdr` (LedgerHeader) and `metadataXdr` (LedgerCloseMeta) of the latest ledger, base64. */
  latestXdr(): { headerXdr: string; metadataXdr: string } {
    const l = this.tick();
    const c = this.headerCache;
    if (c && c.seq === l.seq && c.closeTime === l.closeTime) return { headerXdr: c.headerB64, metadataXdr: c.meta };
    const zero = Buffer.alloc(32);
    const header = new xdr.LedgerHeader({
      ledgerVersion: this.protocol,
      previousLedgerHash: l.prevHash,
      scpValue: new xdr.StellarValue({
        txSetHash: zero,
        closeTime: BigInt(l.closeTime),
        upgrades: [],
        ext: xdr.StellarValueExt.stellarValueBasic(),
      }),
      txSetResultHash: zero,
      bucketListHash: zero,
      ledgerSeq: l.seq,
      totalCoins: TOTAL_COINS,
      feePool: this.feePool,
      inflationSeq: 0,
      idPool: 0n,
      baseFee: BASE_FEE,
      baseReserve: Number(BASE_RESERVE),
      maxTxSetSize: 1000,
      skipList: [zero, zero, zero, zero],
      ext: xdr.LedgerHeaderExt.v0(),
    });
    // stellar-core emits LedgerCloseMetaV2 from Protocol 23 (parallel Soroban phase) on: an empty generalized tx
    // set has a classic phase and a parallel Soroban phase.
    const meta = xdr.LedgerCloseMeta.v2(
      new xdr.LedgerCloseMetaV2({
        ext: xdr.LedgerCloseMetaExt.v0(),
        ledgerHeader: new xdr.LedgerHeaderHistoryEntry({ hash: l.hash, header, ext: xdr.LedgerHeaderHistoryEntryExt.v0() }),
        txSet: xdr.GeneralizedTransactionSet.v1TxSet(
          new xdr.TransactionSetV1({
            previousLedgerHash: l.prevHash,
            phases: [
              xdr.TransactionPhase.v0Components([]),
              xdr.TransactionPhase.parallelTxsComponent(new xdr.ParallelTxsComponent({ baseFee: null, executionStages: [] })),
            ],
          }),
        ),
        txProcessing: [],
        upgradesProcessing: [],
        scpInfo: [],
        totalByteSizeOfLiveSorobanState: 0n,
        evictedKeys: [],
      }),
    );
    const headerB64 = header.toXdr('base64');
    this.headerCache = { seq: l.seq, closeTime: l.closeTime, header, headerB64, meta: meta.toXdr('base64') };
    return { headerXdr: headerB64, metadataXdr: this.headerCache.meta };
  }
}
