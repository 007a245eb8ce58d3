// XDR of applied transactions, built lazily (only when a client asks for them): TransactionResult and
// TransactionMeta v4 with entry changes, contract events, the fee events (CAP-67, transaction-level `events`) and
// `sorobanMeta` (holding the return value) always set.
import { xdr } from '@stellar/stellar-sdk';
import { contractEventXdr } from './apply.ts';
import { txResult } from './check.ts';
import { diagnosticXdr } from './diagnostics.ts';
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

/** The XDR fields of getTransaction for a record (memoized on the record). */
export function txXdrFields(
  codec: SimCodec,
  rec: TxRecord,
): { envelopeXdr: string; resultXdr: string; resultMetaXdr: string } {
  const c = rec.cache;
  c.envelope ??= rec.envelope.toXdr('base64');
  c.result ??= resultOf(rec).toXdr('base64');
  c.meta ??= metaOf(codec, rec).toXdr('base64');
  return { envelopeXdr: c.envelope, resultXdr: c.result, resultMetaXdr: c.meta };
}
