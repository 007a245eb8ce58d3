// WORKAROUND for a performance defect of @stellar/stellar-sdk 17.2.0 (its bundled stellar-base), switched off by
// CV_FAST_ASSEMBLE=false (docs/operations.md); what it buys is the bench's prepare row "real service, SDK
// assembly" beside the "real service" one (bench/sections/http.ts, docs/benchmarks.md).
//
// The defect: building and assembling one contract call through the SDK's public API round-trips the same
// transaction through XDR several times, and re-validates what it has just validated:
// - `TransactionBuilder.build()` writes the xdr.Transaction, then wraps it in `new Transaction(envelope)`, whose
//   constructor parses it back: the source's StrKey is encoded again and every operation is decoded again
//   (`Operation.fromXdrObject`);
// - `Transaction.toEnvelope()`, under every `toXdr()`, clones the transaction by encoding it and decoding the bytes
//   (`Transaction.fromXdr(this.tx.toXdr())`) before encoding it once more;
// - `rpc.assembleTransaction` calls toEnvelope() again, rebuilds the whole transaction with
//   `TransactionBuilder.cloneFrom` (a new Account from the StrKey, every operation re-added), clones the
//   simulation's soroban data twice (`transactionData.build()`, then `new SorobanDataBuilder(…)` in the builder's
//   constructor), and re-creates the operation with `Operation.invokeHostFunction`, which runs
//   `Address.fromScVal` over every argument (throwing and catching for each argument that is not an address);
//   its `build()` then parses the result again as above.
// For an issue-sized call that is about 0.2 ms more CPU per prepare on the bench machine (docs/benchmarks.md).
//
// What this module does instead: the same xdr.Transaction written once, wrapped once in the SDK's Transaction for
// simulation, and the assembled one encoded once for the answer; only the SDK's public API is used. It covers the calls src/chain makes: a G… source,
// an integer base fee, one invokeHostFunction without auth of its own. For anything else it answers undefined and
// the caller keeps the SDK's path, so that what is sent, returned and thrown stays the SDK's. fast-assemble.test.ts
// compares the bytes with the SDK's over many random calls and simulations.
import { Contract, StrKey, Transaction, xdr, type rpc } from '@stellar/stellar-sdk';

/** The unsigned transaction of a call, ready to be simulated and then assembled. */
export interface CallTransaction {
  readonly envelope: xdr.TransactionEnvelope;
  readonly tx: xdr.Transaction;
  readonly hostFunction: xdr.HostFunction;
  /** Base fee per operation (stroops), as given to TransactionBuilder. */
  readonly baseFee: bigint;
}

/** Arguments that Operation.invokeHostFunction refuses (it throws a TypeError for them): left to the SDK. */
const refusedArg = (v: xdr.ScVal): boolean =>
  v.type === 'scvAddress' &&
  (v.value.type === 'scAddressTypeClaimableBalance' || v.value.type === 'scAddressTypeLiquidityPool');

const UINT32_MAX = 0xffffffff;

/**
 * The transaction TransactionBuilder builds for `contractId.fn(args)` from `source` at `sequence` (the account's
 * current sequence number; the transaction carries the next one), valid from 0 to `maxTime`. Undefined when the
 * SDK's path must be kept (see the header). Throws what `new Contract(contractId)` throws.
 */
export function buildCall(o: {
  source: string;
  sequence: string;
  baseFee: string;
  maxTime: number;
  contractId: string;
  fn: string;
  args: readonly xdr.ScVal[];
}): CallTransaction | undefined {
  if (!/^[0-9]{1,15}$/.test(o.baseFee) || !/^-?[0-9]{1,20}$/.test(o.sequence)) return undefined;
  const baseFee = BigInt(o.baseFee);
  if (baseFee > BigInt(UINT32_MAX)) return undefined; // the SDK throws its own error
  const seqNum = BigInt(o.sequence) + 1n;
  if (seqNum > (1n << 63n) - 1n || seqNum < -(1n << 63n)) return undefined;
  if (!Number.isSafeInteger(o.maxTime) || o.maxTime < 0) return undefined;
  if (typeof o.source !== 'string' || !StrKey.isValidEd25519PublicKey(o.source)) return undefined;
  const sourceAccount = xdr.MuxedAccount.keyTypeEd25519(StrKey.decodeEd25519PublicKey(o.source));
  const contractAddress = new Contract(o.contractId).address().toScAddress(); // throws as the SDK's path does
  if (o.args.some(refusedArg)) return undefined;
  const hostFunction = xdr.HostFunction.hostFunctionTypeInvokeContract(
    new xdr.InvokeContractArgs({ contractAddress, functionName: o.fn, args: [...o.args] }),
  );
  const tx = new xdr.Transaction({
    sourceAccount,
    fee: Number(baseFee), // × 1 operation
    seqNum: xdr.Int64.fromString(seqNum.toString()),
    cond: xdr.Preconditions.precondTime(
      new xdr.TimeBounds({ minTime: xdr.Uint64.fromString('0'), maxTime: xdr.Uint64.fromString(String(o.maxTime)) }),
    ),
    memo: xdr.Memo.memoNone(),
    operations: [invocation(hostFunction, [])],
    ext: xdr.TransactionExt.v0(),
  });
  const envelope = xdr.TransactionEnvelope.envelopeTypeTx(new xdr.TransactionV1Envelope({ tx, signatures: [] }));
  return { envelope, tx, hostFunction, baseFee };
}

function invocation(hostFunction: xdr.HostFunction, auth: xdr.SorobanAuthorizationEntry[]): xdr.Operation {
  return new xdr.Operation({
    sourceAccount: null,
    body: xdr.OperationBody.invokeHostFunction(new xdr.InvokeHostFunctionOp({ hostFunction, auth })),
  });
}

/**
 * The call as the SDK's Transaction, for `server.simulateTransaction` (and the SDK's assembly when assembleCall
 * declines): its public constructor, which parses the envelope once (about 20 µs; docs/benchmarks.md).
 */
export function sdkTransaction(call: CallTransaction, networkPassphrase: string): Transaction {
  return new Transaction(call.envelope, networkPassphrase);
}

/**
 * `rpc.assembleTransaction(tx, simulation).build().toXdr()` for a call of buildCall: the fee becomes the base fee
 * plus the simulation's resource fee, the operation takes the simulation's auth entries and the transaction its
 * soroban data. Undefined when the SDK's path must be kept: a simulation without a result (assembleTransaction
 * throws), or a fee beyond uint32 (its builder throws).
 */
export function assembleCall(
  call: CallTransaction,
  sim: rpc.Api.SimulateTransactionSuccessResponse,
): string | undefined {
  if (!sim.result) return undefined;
  // The builder's public copy of the simulation's soroban data (one XDR round trip of a few hundred bytes).
  const data = sim.transactionData.build();
  const fee = call.baseFee + BigInt(data.resourceFee.toString());
  if (fee > BigInt(UINT32_MAX)) return undefined;
  const t = call.tx;
  const assembled = new xdr.Transaction({
    sourceAccount: t.sourceAccount,
    fee: Number(fee),
    seqNum: t.seqNum,
    cond: t.cond,
    memo: t.memo,
    operations: [invocation(call.hostFunction, sim.result.auth)],
    ext: xdr.TransactionExt.sorobanData(data),
  });
  return xdr.TransactionEnvelope.envelopeTypeTx(new xdr.TransactionV1Envelope({ tx: assembled, signatures: [] })).toXdr(
    'base64',
  );
}
