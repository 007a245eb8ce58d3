// The XDR of a closed ledger (getLatestLedger, getLedgers): its LedgerHeader and the LedgerCloseMeta stellar-core
// emits from Protocol 23 on (v2: a generalized transaction set with a classic phase and a parallel Soroban phase),
// carrying the ledger's transactions, their results and their meta. Built once per ledger state and memoized.
import { xdr } from '@stellar/stellar-sdk';
import { xdrBase64 } from './crypto.ts';
import type { Ledger, LedgerHeaderRec } from './ledger.ts';
import { ledgerHeaderXdr } from './ledger-header.ts';
import { metaOf, resultOf, txXdrFields } from './meta.ts';
import type { TxRecord } from './records.ts';

export interface LedgerXdr {
  /** LedgerHeader, base64 (getLatestLedger's `headerXdr`). */
  readonly header: string;
  /** LedgerHeaderHistoryEntry, base64 (getLedgers' `headerXdr`). */
  readonly historyEntry: string;
  /** LedgerCloseMeta, base64. */
  readonly meta: string;
}

/** Built XDR by ledger; its owner (the RPC handler of one network) keeps it. */
export type LedgerXdrMemo = WeakMap<LedgerHeaderRec, { txCount: number; x: LedgerXdr }>;

/** The XDR of ledger `h` of `ledger`: its header (whose SHA-256 is `h.hash`) and its close meta. */
export function ledgerXdr(ledger: Ledger, h: LedgerHeaderRec, memo: LedgerXdrMemo): LedgerXdr {
  const hit = memo.get(h);
  if (hit && hit.txCount === h.txCount) return hit.x;
  const header = ledgerHeaderXdr(ledger.protocol, h);
  const ext = xdr.LedgerHeaderHistoryEntryExt.v0();
  const historyEntry = new xdr.LedgerHeaderHistoryEntry({ hash: h.hash, header, ext });
  const recs = h.txHashes.map((hash) => ledger.txs.get(hash)).filter((r): r is TxRecord => r !== undefined);
  const envelope = (r: TxRecord) => xdr.TransactionEnvelope.fromXdr(txXdrFields(ledger.codec, r).envelopeXdr, 'base64');
  const classic = recs.filter((r) => !r.soroban).map(envelope);
  const soroban = recs.filter((r) => r.soroban).map(envelope);
  const meta = xdr.LedgerCloseMeta.v2(
    new xdr.LedgerCloseMetaV2({
      ext: xdr.LedgerCloseMetaExt.v0(),
      ledgerHeader: historyEntry,
      txSet: xdr.GeneralizedTransactionSet.v1TxSet(
        new xdr.TransactionSetV1({
          previousLedgerHash: h.prevHash,
          phases: [
            xdr.TransactionPhase.v0Components(classic.length ? [classicComponent(classic)] : []),
            // one stage, one cluster: the simulator applies Soroban transactions one after the other
            xdr.TransactionPhase.parallelTxsComponent(
              new xdr.ParallelTxsComponent({ baseFee: null, executionStages: soroban.length ? [[soroban]] : [] }),
            ),
          ],
        }),
      ),
      txProcessing: recs.map(
        (r) =>
          new xdr.TransactionResultMetaV1({
            ext: xdr.ExtensionPoint.v0(),
            result: new xdr.TransactionResultPair({ transactionHash: Buffer.from(r.hash, 'hex'), result: resultOf(r) }),
            feeProcessing: [
              xdr.LedgerEntryChange.ledgerEntryState(ledger.codec.entryXdr(r.feeChange.before)),
              xdr.LedgerEntryChange.ledgerEntryUpdated(ledger.codec.entryXdr(r.feeChange.after)),
            ],
            txApplyProcessing: metaOf(ledger.codec, r),
            // the refund (CAP-67: after all transactions from Protocol 23)
            postTxApplyFeeProcessing: r.refundChange
              ? [
                  xdr.LedgerEntryChange.ledgerEntryState(ledger.codec.entryXdr(r.refundChange.before)),
                  xdr.LedgerEntryChange.ledgerEntryUpdated(ledger.codec.entryXdr(r.refundChange.after)),
                ]
              : [],
          }),
      ),
      upgradesProcessing: [],
      scpInfo: [],
      totalByteSizeOfLiveSorobanState: 0n,
      evictedKeys: [],
    }),
  );
  const x = { header: xdrBase64(header), historyEntry: xdrBase64(historyEntry), meta: xdrBase64(meta) };
  memo.set(h, { txCount: h.txCount, x });
  return x;
}

const classicComponent = (txs: xdr.TransactionEnvelope[]): xdr.TxSetComponent =>
  xdr.TxSetComponent.txsetCompTxsMaybeDiscountedFee(
    new xdr.TxSetComponentTxsMaybeDiscountedFee({ baseFee: null, txs }),
  );
