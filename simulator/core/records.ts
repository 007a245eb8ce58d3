// Records the ledger keeps about what happened: contract events, diagnostic events, entry changes, transactions.
import { xdr } from '@stellar/stellar-sdk';
import type { Failure } from './failure.ts';
import type { AccountEntry, Entry } from './entries.ts';
import type { TxEventRec } from './fee-events.ts';

/** A contract event as emitted (`#[contractevent]`: topics + data). */
export interface ContractEventRec {
  readonly contractId: string;
  readonly topics: readonly xdr.ScVal[];
  readonly data: xdr.ScVal;
}

/** A contract event placed in the ledger (what getEvents serves). */
export interface LedgerEvent extends ContractEventRec {
  readonly ledger: number;
  readonly closeTime: number;
  readonly txIndex: number; // applicationOrder, 1-based
  readonly opIndex: number;
  readonly eventIndex: number;
  readonly txHash: string;
  /** The transaction failed (stellar-rpc's `inSuccessfulContractCall` is false for its events: its fee events). */
  readonly failedTx?: boolean;
}

/** A diagnostic event (fn_call, fn_return, error, log). */
export interface DiagnosticRec {
  readonly contractId?: string;
  readonly topics: readonly xdr.ScVal[];
  readonly data: xdr.ScVal;
  readonly inSuccessfulContractCall: boolean;
  /** Emitted by a frame that later failed ("Failed Diagnostic Event (not emitted)"). */
  readonly failed?: boolean;
}

/** One entry's change: absent `before` = created, absent `after` = removed. */
export interface EntryChange {
  readonly key: string;
  readonly before?: Entry;
  readonly after?: Entry;
}

export type TxStatus = 'SUCCESS' | 'FAILED';

/** An applied transaction (successful or failed; rejected ones are never recorded). */
export interface TxRecord {
  readonly hash: string;
  readonly ledger: number;
  readonly createdAt: number;
  readonly applicationOrder: number;
  readonly status: TxStatus;
  /** The envelope. A record of an envelope received as base64 (sendTransaction, the state file) keeps only that
   *  text (`cache.envelope`) and decodes it again when asked: a decoded envelope is ~20 KB of heap per record. */
  readonly envelope: xdr.TransactionEnvelope;
  /** Operations in the envelope. */
  readonly opCount: number;
  /** The fee that stayed charged: what was charged before apply less the refund (TransactionResult.feeCharged). */
  readonly feeCharged: bigint;
  /** The part of the charged fee refunded after apply (Soroban: the resource fee declared beyond what was used). */
  readonly feeRefund: bigint;
  /** Transaction-level events (CAP-67 fee events), in TransactionMetaV4 `events`. */
  readonly txEvents: readonly TxEventRec[];
  /** Operation results (for TransactionResult), built when first needed. */
  readonly opResults: () => xdr.OperationResult[];
  readonly returnValue?: xdr.ScVal;
  readonly soroban: boolean;
  readonly events: readonly ContractEventRec[];
  readonly diagnostics: readonly DiagnosticRec[];
  readonly feeChange: { readonly before: AccountEntry; readonly after: AccountEntry };
  /** The fee source's account before and after the refund (LedgerCloseMeta `postTxApplyFeeProcessing`). */
  readonly refundChange?: { readonly before: AccountEntry; readonly after: AccountEntry };
  readonly opChanges: readonly (readonly EntryChange[])[];
  /** Failure text (host error + event log) of a failed transaction. */
  readonly error?: string;
  readonly failure?: Failure;
  /** Memoized XDR (base64), filled lazily by the RPC layer. */
  readonly cache: {
    envelope?: string;
    result?: string;
    meta?: string;
    events?: string[];
    txEvents?: string[];
    diagnostics?: string[];
  };
}

/** Defines `envelope` on a record as the decoding of `cache.envelope` (not kept decoded). */
export function lazyEnvelope<T extends Omit<TxRecord, 'envelope'>>(
  rec: T,
): T & { readonly envelope: xdr.TransactionEnvelope } {
  return Object.defineProperty(rec, 'envelope', {
    enumerable: true,
    get(this: TxRecord): xdr.TransactionEnvelope {
      return xdr.TransactionEnvelope.fromXdr(this.cache.envelope!, 'base64');
    },
  }) as T & { readonly envelope: xdr.TransactionEnvelope };
}
