// The state file: every live ledger entry (as LedgerEntry XDR), the ledger header and clock offset, and the most
// recent transactions and events, so a QA session resumes where it stopped. JSON, one object per network.
import { xdr } from '@stellar/stellar-sdk';
import { liveUntilOf, type AccountEntry, type Entry, type SimCodec } from './entries.ts';
import type { Ledger } from './ledger.ts';
import { lazyEnvelope, type LedgerEvent, type TxRecord } from './records.ts';
import type { SimNetwork } from './network.ts';
import { classify } from './diagnostics.ts';
import { isTxEventStage, type TxEventStage } from './fee-events.ts';

export const STATE_FORMAT = 'credential-vault-simulator-state';
const KEEP_TXS = 1_000;
const KEEP_EVENTS = 10_000;

export interface SavedTx {
  hash: string;
  ledger: number;
  createdAt: number;
  order: number;
  status: 'SUCCESS' | 'FAILED';
  feeCharged: string;
  soroban: boolean;
  envelope: string;
  result: string;
  meta: string;
  returnValue?: string;
  error?: string;
  events: { contractId: string; topics: string[]; data: string }[];
  /** Absent in files written before fee events (no refund, no transaction-level events). */
  feeRefund?: string;
  txEvents?: { stage: TxEventStage; contractId: string; topics: string[]; data: string }[];
}

export interface SavedNetwork {
  passphrase: string;
  factoryId: string;
  ledger: {
    seq: number;
    closeTime: number;
    hash: string;
    prevHash: string;
    timeOffsetMs: number;
    feePool: string;
    oldestLedger: number;
    oldestCloseTime: number;
  };
  entries: [string, number?][];
  transactions: SavedTx[];
  events: {
    ledger: number;
    closeTime: number;
    txIndex: number;
    opIndex: number;
    eventIndex: number;
    txHash: string;
    failedTx?: boolean;
    contractId: string;
    topics: string[];
    data: string;
  }[];
}

export interface SavedState {
  format: typeof STATE_FORMAT;
  version: 1;
  savedAt: string;
  /** The last journal record this state includes (simulator/core/journal.ts); records up to it are not replayed. */
  journalSeq?: number;
  networks: Record<string, SavedNetwork>;
}

export type TxXdr = (
  codec: SimCodec,
  rec: TxRecord,
) => { envelopeXdr: string; resultXdr: string; resultMetaXdr: string };
export type SavedHeader = SavedNetwork['ledger'];
export type SavedEvent = SavedNetwork['events'][number];

/** The ledger header, clock offset, fee pool and history window as saved (also in every journal record). */
export function savedHeader(l: Ledger, oldest = { ledger: l.oldestLedger, closeTime: l.oldestCloseTime }): SavedHeader {
  const h = l.latest;
  return {
    seq: h.seq,
    closeTime: h.closeTime,
    hash: h.hash.toString('hex'),
    prevHash: h.prevHash.toString('hex'),
    timeOffsetMs: l.timeOffsetMs,
    feePool: l.feePool.toString(),
    oldestLedger: oldest.ledger,
    oldestCloseTime: oldest.closeTime,
  };
}

export function loadHeader(l: Ledger, h: SavedHeader): void {
  // the header's hash is taken again from its content (`hash` stays in the file for the record)
  l.resetHeaders({
    seq: h.seq,
    closeTime: h.closeTime,
    prevHash: Buffer.from(h.prevHash, 'hex'),
    feePool: BigInt(h.feePool),
  });
  l.timeOffsetMs = h.timeOffsetMs;
  l.feePool = BigInt(h.feePool);
  l.oldestLedger = h.oldestLedger;
  l.oldestCloseTime = h.oldestCloseTime;
}

/** A live entry as saved: LedgerEntry XDR, and its live-until ledger when it has one. */
export function savedEntry(codec: SimCodec, e: Entry): [string, number?] {
  const live = liveUntilOf(e);
  const b64 = codec.entryXdr(e).toXDR('base64');
  return live === undefined ? [b64] : [b64, live];
}

export function entryFromSaved(codec: SimCodec, [b64, live]: [string, number?]): Entry {
  return codec.entryFromXdr(xdr.LedgerEntry.fromXDR(b64, 'base64'), live ?? 0);
}

export function savedTx(codec: SimCodec, t: TxRecord, txXdr: TxXdr): SavedTx {
  const x = txXdr(codec, t);
  return {
    hash: t.hash,
    ledger: t.ledger,
    createdAt: t.createdAt,
    order: t.applicationOrder,
    status: t.status,
    feeCharged: t.feeCharged.toString(),
    soroban: t.soroban,
    envelope: x.envelopeXdr,
    result: x.resultXdr,
    meta: x.resultMetaXdr,
    ...(t.returnValue ? { returnValue: t.returnValue.toXDR('base64') } : {}),
    ...(t.error ? { error: t.error } : {}),
    events: t.events.map((e) => ({
      contractId: e.contractId,
      topics: e.topics.map((v) => v.toXDR('base64')),
      data: e.data.toXDR('base64'),
    })),
    ...(t.feeRefund ? { feeRefund: t.feeRefund.toString() } : {}),
    txEvents: t.txEvents.map((e) => ({
      stage: e.stage,
      contractId: e.contractId,
      topics: e.topics.map((v) => v.toXDR('base64')),
      data: e.data.toXDR('base64'),
    })),
  };
}

export function savedEvent(e: LedgerEvent): SavedEvent {
  return {
    ledger: e.ledger,
    closeTime: e.closeTime,
    txIndex: e.txIndex,
    opIndex: e.opIndex,
    eventIndex: e.eventIndex,
    txHash: e.txHash,
    ...(e.failedTx ? { failedTx: true } : {}),
    contractId: e.contractId,
    topics: e.topics.map((x) => x.toXDR('base64')),
    data: e.data.toXDR('base64'),
  };
}

export function saveNetwork(net: SimNetwork, txXdr: TxXdr): SavedNetwork {
  const l = net.ledger;
  const latest = l.tick();
  const entries: [string, number?][] = [];
  for (const e of l.entries.values()) {
    if (e.t === 'data' && e.durability === 'temporary' && e.liveUntil < latest.seq) continue;
    entries.push(savedEntry(net.ledger.codec, e));
  }
  const txs = [...l.txs.values()].slice(-KEEP_TXS);
  return {
    passphrase: l.passphrase,
    factoryId: net.info.factoryId,
    ledger: savedHeader(l, { ledger: txs[0]?.ledger ?? latest.seq, closeTime: txs[0]?.createdAt ?? latest.closeTime }),
    entries,
    transactions: txs.map((t) => savedTx(net.ledger.codec, t, txXdr)),
    events: l.events.slice(-KEEP_EVENTS).map(savedEvent),
  };
}

const sc = (b64: string): xdr.ScVal => xdr.ScVal.fromXDR(b64, 'base64');
const placeholder: AccountEntry = { t: 'account', id: '', balance: 0n, seqNum: 0n, numSubEntries: 0, lm: 0 };

export function txFromSaved(t: SavedTx): TxRecord {
  const result = t.result;
  const env = xdr.TransactionEnvelope.fromXdr(t.envelope, 'base64'); // checked here, kept as text
  return lazyEnvelope({
    hash: t.hash,
    ledger: t.ledger,
    createdAt: t.createdAt,
    applicationOrder: t.order,
    status: t.status,
    opCount: env.type === 'envelopeTypeTx' ? env.v1.tx.operations.length : 1,
    feeCharged: BigInt(t.feeCharged),
    feeRefund: BigInt(t.feeRefund ?? '0'),
    txEvents: (t.txEvents ?? []).map((e) => {
      if (!isTxEventStage(e.stage)) throw new Error(`state file: unknown transaction event stage ${e.stage}`);
      return { stage: e.stage, contractId: e.contractId, topics: e.topics.map(sc), data: sc(e.data) };
    }),
    opResults: () => opResultsOf(xdr.TransactionResult.fromXdr(result, 'base64')),
    returnValue: t.returnValue ? sc(t.returnValue) : undefined,
    soroban: t.soroban,
    events: t.events.map((e) => ({ contractId: e.contractId, topics: e.topics.map(sc), data: sc(e.data) })),
    diagnostics: [],
    feeChange: { before: placeholder, after: placeholder },
    opChanges: [],
    error: t.error,
    failure: t.error ? classifyText(t.error) : undefined,
    cache: { envelope: t.envelope, result: t.result, meta: t.meta },
  });
}

export const eventFromSaved = (e: SavedEvent): LedgerEvent => ({ ...e, topics: e.topics.map(sc), data: sc(e.data) });

/** Throws unless the saved network is this simulator's (same passphrase and genesis). */
export function checkSavedNetwork(net: SimNetwork, s: { passphrase: string; factoryId: string }): void {
  if (s.passphrase !== net.info.passphrase || s.factoryId !== net.info.factoryId) {
    throw new Error(
      `state file does not match the ${net.name} network of this simulator (passphrase or factory id differ)`,
    );
  }
}

export function loadNetwork(net: SimNetwork, s: SavedNetwork): void {
  checkSavedNetwork(net, s);
  const l = net.ledger;
  l.version += 1;
  l.entries = new Map();
  for (const saved of s.entries) {
    const e = entryFromSaved(l.codec, saved);
    l.entries.set(l.codec.entryKeyId(e), e);
  }
  loadHeader(l, s.ledger);
  l.txs = new Map();
  for (const t of s.transactions) {
    const rec = txFromSaved(t);
    l.txs.set(rec.hash, rec);
  }
  l.events = s.events.map(eventFromSaved);
}

/** The failure of a saved failed transaction, recovered from its text. */
function classifyText(text: string) {
  const m = /Error\(Contract, #(\d+)\)/.exec(text);
  const f = classify(new Error(text));
  return m ? { ...f, code: `Error(Contract, #${m[1]})`, contractCode: Number(m[1]) } : f;
}

/** The operation results of a stored TransactionResult (none for the arms without them). */
function opResultsOf(r: xdr.TransactionResult): xdr.OperationResult[] {
  const res = r.result;
  return res.type === 'txSuccess' || res.type === 'txFailed' ? res.results : [];
}
