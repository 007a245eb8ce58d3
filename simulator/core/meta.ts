// XDR of applied transactions, built lazily (only when a client asks for them): TransactionResult and
// TransactionMeta v4 with entry changes, contract events, the fee events (CAP-67, transaction-level `events`) and
// `sorobanMeta` (holding the return value) always set.
import { xdr } from '@stellar/stellar-sdk';
import { contractEventBytes, contractEventXdr } from './apply.ts';
import { txResult } from './check.ts';
import { diagnosticXdr } from './diagnostics.ts';
import { asBuffer, xdrBase64 } from './crypto.ts';
import type { Entry, SimCodec } from './entries.ts';
import { transactionEventXdr } from './fee-events.ts';
import type { EntryChange, TxRecord } from './records.ts';

export function resultOf(rec: TxRecord): xdr.TransactionResult {
  const ops = rec.opResults();
  const R = xdr.TransactionResultResult;
  return txResult(rec.feeCharged, rec.status === 'SUCCESS' ? R.txSuccess(ops) : R.txFailed(ops));
}

function changeXdr(codec: SimCodec, c: EntryChange): xdr.LedgerEntryChange[] {
  const C = xdr.LedgerEntryChange;
  if (!c.before) return c.after ? [C.ledgerEntryCreated(codec.entryXdr(c.after))] : [];
  const state = C.ledgerEntryState(codec.entryXdr(c.before));
  return c.after
    ? [state, C.ledgerEntryUpdated(codec.entryXdr(c.after))]
    : [state, C.ledgerEntryRemoved(codec.ledgerKeyOfEntry(c.before))];
}

const accountChange = (codec: SimCodec, before: Entry, after: Entry): xdr.LedgerEntryChange[] => [
  xdr.LedgerEntryChange.ledgerEntryState(codec.entryXdr(before)),
  xdr.LedgerEntryChange.ledgerEntryUpdated(codec.entryXdr(after)),
];

export function metaOf(codec: SimCodec, rec: TxRecord): xdr.TransactionMeta {
  const opCount = rec.opCount;
  const operations =
    rec.status === 'SUCCESS'
      ? Array.from(
          { length: opCount },
          (_, i) =>
            new xdr.OperationMetaV2({
              ext: xdr.ExtensionPoint.v0(),
              changes: i === 0 ? (rec.opChanges[0] ?? []).flatMap((c) => changeXdr(codec, c)) : [],
              events: i === 0 ? rec.events.map((e) => contractEventXdr(codec, e)) : [],
            }),
        )
      : [];
  return xdr.TransactionMeta.v4(
    new xdr.TransactionMetaV4({
      ext: xdr.ExtensionPoint.v0(),
      txChangesBefore: accountChange(codec, rec.feeChange.before, rec.feeChange.after),
      operations,
      txChangesAfter: [],
      sorobanMeta: new xdr.SorobanTransactionMetaV2({
        ext: xdr.SorobanTransactionMetaExt.v0(),
        returnValue: rec.returnValue ?? null,
      }),
      events: rec.txEvents.map((e) => transactionEventXdr(codec, e)),
      diagnosticEvents: rec.diagnostics.map((d) => diagnosticXdr(d, codec)),
    }),
  );
}

/** The encoded parts of a record's meta that getTransaction also serves on their own (rpc/tx-xdr.ts). */
export interface MetaParts {
  /** ContractEvent XDR of the operation's contract events. */
  readonly events: readonly Uint8Array[];
  /** TransactionEvent XDR of the fee events. */
  readonly txEvents: readonly Uint8Array[];
  /** DiagnosticEvent XDR. */
  readonly diagnostics: readonly Uint8Array[];
}

function metaParts(codec: SimCodec, rec: TxRecord): MetaParts {
  return {
    events: rec.status === 'SUCCESS' ? rec.events.map((e) => contractEventBytes(codec, e)) : [],
    txEvents: rec.txEvents.map((e) => transactionEventXdr(codec, e).toXdr()),
    diagnostics: rec.diagnostics.map((d) => diagnosticXdr(d, codec).toXdr()),
  };
}

/** XDR written piece by piece: 4-byte big-endian words and already-encoded values. */
class XdrPieces {
  readonly pieces: Uint8Array[] = [];
  word(n: number): this {
    const b = Buffer.allocUnsafe(4);
    b.writeUInt32BE(n);
    this.pieces.push(b);
    return this;
  }
  bytes(b: Uint8Array): this {
    this.pieces.push(b);
    return this;
  }
  /** A variable-length array of encoded values. */
  array(items: readonly Uint8Array[]): this {
    this.word(items.length);
    for (const i of items) this.pieces.push(i);
    return this;
  }
}

/** LedgerEntryChangeType. */
const CREATED = 0;
const UPDATED = 1;
const REMOVED = 2;
const STATE = 3;

function changesXdr(codec: SimCodec, w: XdrPieces, changes: readonly EntryChange[]): void {
  const out: Uint8Array[] = [];
  const change = (type: number, body: Uint8Array) => {
    const t = Buffer.allocUnsafe(4);
    t.writeUInt32BE(type);
    out.push(t, body);
  };
  let count = 0;
  for (const c of changes) {
    if (!c.before) {
      if (c.after) {
        change(CREATED, codec.entryBytes(c.after));
        count += 1;
      }
      continue;
    }
    change(STATE, codec.entryBytes(c.before));
    if (c.after) change(UPDATED, codec.entryBytes(c.after));
    else change(REMOVED, codec.ledgerKeyOfEntry(c.before).toXdr());
    count += 2;
  }
  w.word(count);
  for (const b of out) w.bytes(b);
}

/**
 * metaOf(codec, rec).toXdr(), written from its parts: the entries' XDR as the codec remembers it (simulateTransaction
 * encoded most of them for its stateChanges) and the events as getTransaction serves them, so nothing is encoded twice.
 * The layout is TransactionMeta v4 (Stellar-ledger.x); meta.test.ts holds it to metaOf's encoding.
 */
export function metaXdr(codec: SimCodec, rec: TxRecord, parts: MetaParts = metaParts(codec, rec)): Uint8Array {
  const w = new XdrPieces().word(4).word(0); // TransactionMeta v4, ExtensionPoint v0
  w.word(2).word(STATE).bytes(codec.entryBytes(rec.feeChange.before));
  w.word(UPDATED).bytes(codec.entryBytes(rec.feeChange.after)); // txChangesBefore
  const ok = rec.status === 'SUCCESS';
  w.word(ok ? rec.opCount : 0);
  for (let i = 0; ok && i < rec.opCount; i++) {
    w.word(0); // ExtensionPoint v0
    changesXdr(codec, w, i === 0 ? (rec.opChanges[0] ?? []) : []);
    w.array(i === 0 ? parts.events : []);
  }
  w.word(0); // txChangesAfter
  w.word(1).word(0); // sorobanMeta present, SorobanTransactionMetaExt v0
  if (rec.returnValue) w.word(1).bytes(codec.xdrOf(rec.returnValue));
  else w.word(0);
  w.array(parts.txEvents).array(parts.diagnostics);
  return Buffer.concat(w.pieces);
}

/** The XDR fields of getTransaction for a record (memoized on the record); `parts` when the caller encoded them. */
export function txXdrFields(
  codec: SimCodec,
  rec: TxRecord,
  parts?: MetaParts,
): { envelopeXdr: string; resultXdr: string; resultMetaXdr: string } {
  const c = rec.cache;
  c.envelope ??= xdrBase64(rec.envelope);
  c.result ??= asBuffer(resultOf(rec).toXdr()).toString('base64');
  c.meta ??= asBuffer(metaXdr(codec, rec, parts)).toString('base64');
  return { envelopeXdr: c.envelope, resultXdr: c.result, resultMetaXdr: c.meta };
}
