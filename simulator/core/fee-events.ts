// CAP-67 fee events (Protocol 23 on): every transaction's fee is reported as a native-asset `fee` event in the
// transaction-level `events` of its TransactionMetaV4, and stellar-rpc serves these in getTransaction's
// `events.transactionEventsXdr` and in getEvents (type `contract`, on the native asset's SAC contract id).
//   contract: native SAC, topics: ["fee", from: Address], data: amount: i128
// The charge (positive) has stage BEFORE_ALL_TXS; a refund (negative, only when non-zero) has stage AFTER_ALL_TXS
// from Protocol 23 (every protocol the simulator emulates). Sources and choices: docs/chain-abi.md "Fee events".
import { xdr } from '@stellar/stellar-sdk';
import type { SimCodec } from './entries.ts';
import type { ContractEventRec } from './records.ts';

/** A transaction-level event's stage (XDR TransactionEventStage). */
export type TxEventStage = 'beforeAllTxs' | 'afterTx' | 'afterAllTxs';

/** A transaction-level event: a contract event and the stage of the ledger's apply flow it happened in. */
export interface TxEventRec extends ContractEventRec {
  readonly stage: TxEventStage;
}

/** Transaction index stellar-rpc gives AFTER_ALL_TXS events in their TOID: the largest (toid.TransactionMask). */
export const AFTER_ALL_TXS_TX_INDEX = 0xfffff;

const i128 = (n: bigint): xdr.ScVal =>
  xdr.ScVal.scvI128(new xdr.Int128Parts({ hi: n >> 64n, lo: BigInt.asUintN(64, n) }));

/** One `fee` event: `amount` charged (positive) or refunded (negative) to `account` (G…). */
function feeEvent(
  codec: SimCodec,
  nativeTokenId: string,
  account: string,
  amount: bigint,
  stage: TxEventStage,
): TxEventRec {
  return {
    contractId: nativeTokenId,
    topics: [xdr.ScVal.scvSymbol('fee'), xdr.ScVal.scvAddress(codec.toScAddress(account))],
    data: i128(amount),
    stage,
  };
}

/** The fee events of a transaction: the charge before any transaction applies, the refund (if any) after all. */
export function feeEvents(
  codec: SimCodec,
  nativeTokenId: string,
  account: string,
  charged: bigint,
  refund: bigint,
): TxEventRec[] {
  const events = [feeEvent(codec, nativeTokenId, account, charged, 'beforeAllTxs')];
  if (refund > 0n) events.push(feeEvent(codec, nativeTokenId, account, -refund, 'afterAllTxs'));
  return events;
}

const STAGES: Record<TxEventStage, xdr.TransactionEventStage> = {
  beforeAllTxs: xdr.TransactionEventStage.transactionEventStageBeforeAllTxs,
  afterTx: xdr.TransactionEventStage.transactionEventStageAfterTx,
  afterAllTxs: xdr.TransactionEventStage.transactionEventStageAfterAllTxs,
};

export function isTxEventStage(s: unknown): s is TxEventStage {
  return typeof s === 'string' && Object.hasOwn(STAGES, s);
}

/** The XDR TransactionEvent of a record (its event a ContractEvent of type CONTRACT). */
export function transactionEventXdr(codec: SimCodec, e: TxEventRec): xdr.TransactionEvent {
  return new xdr.TransactionEvent({
    stage: STAGES[e.stage],
    event: new xdr.ContractEvent({
      ext: xdr.ExtensionPoint.v0(),
      contractId: new xdr.ContractId(codec.contractHash(e.contractId)),
      type: xdr.ContractEventType.contract,
      body: xdr.ContractEventBody.v0(new xdr.ContractEventV0({ topics: [...e.topics], data: e.data })),
    }),
  });
}
