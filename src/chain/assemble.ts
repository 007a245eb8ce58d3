// A contract call's transaction built and assembled straight in XDR: byte for byte what the SDK's
// `new TransactionBuilder(…).addOperation(new Contract(id).call(fn, …args)).setTimebounds(0, maxTime).build()`
// and `rpc.assembleTransaction(tx, simulation).build()` produce (assemble.test.ts compares them), without their
// round trips: build() parses the transaction it has just built (new Transaction), every toXdr() first clones
// the envelope through XDR, and assembleTransaction rebuilds the whole transaction from its parsed form
// (TransactionBuilder.cloneFrom, Operation.invokeHostFunction re-validating every argument).
//
// It covers the calls src/chain makes: a G… source, an integer base fee, one invokeHostFunction without auth of
// its own. Anything else answers undefined and the caller keeps the SDK's path, so that what is sent, returned
// and thrown stays the SDK's.
import { Contract, StrKey, xdr, type SorobanDataBuilder, type rpc } from '@stellar/stellar-sdk';

/** The unsigned transaction of a call, ready to be simulated and then assembled. */
export interface CallTransaction {
  readonly envelope: xdr.TransactionEnvelopeTx;
  /** Base fee per operation (stroops), as given to TransactionBuilder. */
  readonly baseFee: number;
}

const CACHE_SIZE = 10_000;
/** G… source → its MuxedAccount (the StrKey checked once). */
const sources = new Map<string, xdr.MuxedAccount>();
/** C… contract → its ScAddress (the StrKey checked once). */
const contracts = new Map<string, xdr.ScAddress>();

function remember<V>(m: Map<string, V>, k: string, v: V): V {
  if (m.size >= CACHE_SIZE) m.delete(m.keys().next().value!);
  m.set(k, v);
  return v;
}

function muxedSource(source: string): xdr.MuxedAccount | undefined {
  const hit = sources.get(source);
  if (hit) return hit;
  if (!StrKey.isValidEd25519PublicKey(source)) return undefined;
  return remember(sources, source, xdr.MuxedAccount.keyTypeEd25519(StrKey.decodeEd25519PublicKey(source)));
}

/** As `new Contract(id)` then Address.toScAddress(): throws what Contract throws for an invalid id. */
function contractAddress(contractId: string): xdr.ScAddress {
  return contracts.get(contractId) ?? remember(contracts, contractId, new Contract(contractId).address().toScAddress());
}

/** Arguments that Operation.invokeHostFunction refuses (it throws a TypeError for them): left to the SDK. */
const refusedArg = (v: xdr.ScVal): boolean =>
  v.type === 'scvAddress' && (v.address.type === 'scAddressTypeClaimableBalance' || v.address.type === 'scAddressTypeLiquidityPool');

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
  if (!/^[0-9]{1,15}$/.test(o.baseFee) || !/^-?[0-9]+$/.test(o.sequence)) return undefined;
  if (!Number.isSafeInteger(o.maxTime) || o.maxTime < 0) return undefined;
  const sourceAccount = muxedSource(o.source);
  if (!sourceAccount) return undefined;
  const contract = contractAddress(o.contractId);
  if (o.args.some(refusedArg)) return undefined;
  const op = new xdr.Operation({
    sourceAccount: null,
    body: xdr.OperationBody.invokeHostFunction(
      new xdr.InvokeHostFunctionOp({
        hostFunction: xdr.HostFunction.hostFunctionTypeInvokeContract(
          new xdr.InvokeContractArgs({ contractAddress: contract, functionName: o.fn, args: [...o.args] }),
        ),
        auth: [],
      }),
    ),
  });
  const baseFee = Number(o.baseFee);
  const tx = new xdr.Transaction({
    sourceAccount,
    fee: baseFee, // × 1 operation
    seqNum: BigInt(o.sequence) + 1n,
    cond: xdr.Preconditions.precondTime(new xdr.TimeBounds({ minTime: 0n, maxTime: BigInt(o.maxTime) })),
    memo: xdr.Memo.memoNone(),
    operations: [op],
    ext: xdr.TransactionExt.v0(),
  });
  return { envelope: new xdr.TransactionEnvelopeTx(new xdr.TransactionV1Envelope({ tx, signatures: [] })), baseFee };
}

/** What `server.simulateTransaction` needs of a transaction: its `toXdr()` (encoded when the request is made). */
export function simulationInput(call: CallTransaction): { toXdr(): string } {
  return { toXdr: () => call.envelope.toXdr('base64') };
}

/** The simulation's soroban data: the builder's own decoded copy (its build() clones it through XDR, the same bytes). */
function sorobanData(b: SorobanDataBuilder): xdr.SorobanTransactionData {
  const d = (b as unknown as { _data?: unknown })._data;
  return d instanceof xdr.SorobanTransactionData ? d : b.build();
}

/**
 * `rpc.assembleTransaction(tx, simulation).build().toXdr()` for a call of buildCall: the fee becomes the base fee
 * plus the simulation's resource fee, the operation takes the simulation's auth entries and the transaction its
 * soroban data. Undefined when the simulation has no result (assembleTransaction would throw: the caller lets it).
 */
export function assembleCall(call: CallTransaction, sim: rpc.Api.SimulateTransactionSuccessResponse): string | undefined {
  if (!sim.result) return undefined;
  const data = sorobanData(sim.transactionData);
  const tx = call.envelope.v1.tx;
  const body = tx.operations[0]!.body;
  if (body.type !== 'invokeHostFunction') return undefined;
  const assembled = new xdr.Transaction({
    sourceAccount: tx.sourceAccount,
    fee: Number(BigInt(call.baseFee) + data.resourceFee), // BigNumber's exact sum, then toNumber()
    seqNum: tx.seqNum,
    cond: tx.cond,
    memo: tx.memo,
    operations: [
      new xdr.Operation({
        sourceAccount: null,
        body: xdr.OperationBody.invokeHostFunction(
          new xdr.InvokeHostFunctionOp({ hostFunction: body.invokeHostFunctionOp.hostFunction, auth: sim.result.auth }),
        ),
      }),
    ],
    ext: xdr.TransactionExt.sorobanData(data),
  });
  return xdr.TransactionEnvelope.envelopeTypeTx(new xdr.TransactionV1Envelope({ tx: assembled, signatures: [] })).toXdr('base64');
}
