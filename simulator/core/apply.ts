// Applying a checked transaction (check.ts) in a ledger: the fee and sequence number first, then the operations
// (classic ones, or one InvokeHostFunction run with enforced auth and footprint). A failed operation leaves only
// the fee and sequence number behind (status FAILED).
import { xdr } from '@stellar/stellar-sdk';
import { addressCredentialsOf } from './auth.ts';
import { applyClassicOp, minBalance, opSucceeded } from './classic.ts';
import type { CheckedTx } from './check.ts';
import { sha256 } from './crypto.ts';
import { diag, failureText } from './diagnostics.ts';
import type { Failure } from './failure.ts';
import { accountKeyId, type AccountEntry, type SimCodec } from './entries.ts';
import { Invocation, isArchived } from './invocation.ts';
import { applyTtlOp } from './ttl.ts';
import type { LedgerHeaderRec } from './ledger.ts';
import { AFTER_ALL_TXS_TX_INDEX, feeEvents } from './fee-events.ts';
import { lazyEnvelope, type ContractEventRec, type EntryChange, type LedgerEvent, type TxRecord } from './records.ts';
import { declaredResources, resourceFee, type Core } from './simulate.ts';

/** An invocation already run in recording mode for exactly this transaction (the in-process fast path). */
export interface Preexecuted {
  readonly inv: Invocation;
  readonly retval: xdr.ScVal;
  /** The auth entries it recorded (the transaction must carry exactly these, signed). */
  readonly auth: readonly xdr.SorobanAuthorizationEntry[];
  /** Ledger version it ran against. */
  readonly version: number;
}

/** The transaction's auth entries are the recorded ones (same credentials, nonces and invocation trees). */
function sameAuth(
  recorded: readonly xdr.SorobanAuthorizationEntry[],
  given: readonly xdr.SorobanAuthorizationEntry[],
): boolean {
  if (recorded.length !== given.length) return false;
  return recorded.every((r, i) => {
    const g = given[i]!;
    if (r === g) return true;
    const rc = r.credentials;
    const gc = g.credentials;
    if (rc.type !== gc.type) return false;
    const ra = addressCredentialsOf(rc)?.creds;
    const ga = addressCredentialsOf(gc)?.creds;
    if (ra && ga && (!Buffer.from(ra.address.toXdr()).equals(ga.address.toXdr()) || ra.nonce !== ga.nonce))
      return false;
    return (
      r.rootInvocation === g.rootInvocation || Buffer.from(r.rootInvocation.toXdr()).equals(g.rootInvocation.toXdr())
    );
  });
}

/** Every entry the invocation touched is in the declared footprint (writes in readWrite). */
function footprintCovers(inv: Invocation, fp: { readOnly: Set<string>; readWrite: Set<string> }): boolean {
  for (const k of inv.writes) if (!fp.readWrite.has(k)) return false;
  for (const k of inv.reads) if (!fp.readWrite.has(k) && !fp.readOnly.has(k)) return false;
  return true;
}

interface OpRun {
  readonly inv: Invocation;
  readonly ok: boolean;
  readonly opResults: () => xdr.OperationResult[];
  readonly returnValue?: xdr.ScVal;
  readonly failure?: Failure;
  readonly error?: string;
}

const trapped = (): xdr.OperationResult[] => [
  xdr.OperationResult.opInner(
    xdr.OperationResultTr.invokeHostFunction(xdr.InvokeHostFunctionResult.invokeHostFunctionTrapped()),
  ),
];

function invokeSuccess(
  codec: SimCodec,
  rv: xdr.ScVal,
  events: readonly ContractEventRec[],
): () => xdr.OperationResult[] {
  return () => [
    xdr.OperationResult.opInner(
      xdr.OperationResultTr.invokeHostFunction(
        xdr.InvokeHostFunctionResult.invokeHostFunctionSuccess(successHash(codec, rv, events)),
      ),
    ),
  ];
}

/** SHA-256 of the InvokeHostFunctionSuccessPreImage XDR (returnValue, then the ContractEvent array), written from
 *  the events' remembered encoding. */
export function successHash(codec: SimCodec, rv: xdr.ScVal, events: readonly ContractEventRec[]): Buffer {
  const count = Buffer.allocUnsafe(4);
  count.writeUInt32BE(events.length);
  return sha256(Buffer.concat([codec.xdrOf(rv), count, ...events.map((e) => contractEventBytes(codec, e))]));
}

/** The read-write footprint keys a transaction's restore list names (`archivedSorobanEntries`, CAP-66). */
export function restoreListOf(codec: SimCodec, d: xdr.SorobanTransactionData): Set<string> {
  const out = new Set<string>();
  if (d.ext.type !== 'resourceExt') return out;
  const rw = d.resources.footprint.readWrite;
  for (const i of d.ext.resourceExt.archivedSorobanEntries) {
    const k = rw[i];
    const id = k && codec.keyIdOfLedgerKey(k);
    if (id !== undefined) out.add(id);
  }
  return out;
}

const entryArchived = (): xdr.OperationResult[] => [
  xdr.OperationResult.opInner(
    xdr.OperationResultTr.invokeHostFunction(xdr.InvokeHostFunctionResult.invokeHostFunctionEntryArchived()),
  ),
];

/** An archived entry anywhere in the footprint and not in the restore list fails the transaction before the host
 *  function runs, whether or not it would touch it (stellar-docs, state-archival.mdx; CAP-66). */
function archivedOutsideRestoreList(
  core: Core,
  fp: { readOnly: ReadonlySet<string>; readWrite: ReadonlySet<string> },
  restoring: ReadonlySet<string>,
  seq: number,
): boolean {
  for (const set of [fp.readOnly, fp.readWrite]) {
    for (const k of set) if (!restoring.has(k) && isArchived(core.ledger.get(k), seq)) return true;
  }
  return false;
}

/** Runs the InvokeHostFunction operation with enforced auth and the declared footprint. */
function runInvoke(
  core: Core,
  header: { seq: number; closeTime: number },
  op: xdr.Operation,
  opSource: string,
  data: xdr.SorobanTransactionData,
): OpRun {
  const body = op.body;
  const hf = body.type === 'invokeHostFunction' ? body.invokeHostFunctionOp.hostFunction : undefined;
  const restoring = restoreListOf(core.ledger.codec, data);
  const footprint = footprintOf(core.ledger.codec, data);
  const inv = new Invocation({
    ledger: core.ledger,
    contracts: core.contracts,
    seq: header.seq,
    closeTime: header.closeTime,
    mode: 'enforce',
    source: opSource,
    authEntries: body.type === 'invokeHostFunction' ? body.invokeHostFunctionOp.auth : [],
    footprint,
    restoring,
  });
  if (!hf) return { inv, ok: false, opResults: () => [xdr.OperationResult.opNotSupported()] };
  if (archivedOutsideRestoreList(core, footprint, restoring, header.seq)) {
    return {
      inv,
      ok: false,
      error: 'an archived entry is in the footprint but not in its restore list (archivedSorobanEntries)',
      opResults: entryArchived,
    };
  }
  for (const k of restoring) inv.restoreListed(k);
  if (hf.type !== 'hostFunctionTypeInvokeContract') {
    return {
      inv,
      ok: false,
      error: 'only InvokeContract host functions are supported by the simulator',
      opResults: () => [
        xdr.OperationResult.opInner(
          xdr.OperationResultTr.invokeHostFunction(xdr.InvokeHostFunctionResult.invokeHostFunctionMalformed()),
        ),
      ],
    };
  }
  const call = hf.invokeContract;
  try {
    const rv = inv.invoke(
      core.ledger.codec.fromScAddress(call.contractAddress),
      call.functionName.toString(),
      call.args,
    );
    return { inv, ok: true, returnValue: rv, opResults: invokeSuccess(inv.ledger.codec, rv, inv.events) };
  } catch (e) {
    const failure = inv.failureOf(e);
    return { inv, ok: false, failure, error: failureText(failure, inv.log), opResults: trapped };
  }
}

/**
 * Applies a pre-executed invocation: the fee is charged first on the ledger, and the invocation's own view of the
 * source account is charged the same fee (valid because the run never observed that balance, see
 * Invocation.sourceBalanceObserved; when the fee would break the reserve it runs again for the real failure).
 * Address credentials are checked and their nonces consumed as in enforcing mode.
 */
function reusePreexecuted(
  pre: Preexecuted,
  op: xdr.Operation,
  data: xdr.SorobanTransactionData,
  afterFee: AccountEntry,
  fee: bigint,
): OpRun | undefined {
  const inv = pre.inv;
  const source = afterFee.id;
  if (
    inv.sourceBalanceObserved ||
    inv.auth.mode !== 'record' ||
    op.sourceAccount ||
    inv.source !== source ||
    inv.restoredCount > 0
  )
    return undefined;
  const body = op.body;
  if (body.type !== 'invokeHostFunction') return undefined;
  const auth = body.invokeHostFunctionOp.auth;
  if (!sameAuth(pre.auth, auth)) return undefined;
  const fp = footprintOf(inv.ledger.codec, data);
  if (!footprintCovers(inv, fp)) return undefined;
  // the run restored nothing, but the transaction may name archived entries it never touched: run it again to fail
  if (archivedOutsideRestoreList({ ledger: inv.ledger, contracts: inv.contracts }, fp, new Set(), inv.seq))
    return undefined;
  const key = accountKeyId(source);
  const touched = inv.overlayEntry(key);
  if (touched === null) return undefined;
  if (touched) {
    const a = touched as AccountEntry;
    const patched: AccountEntry = { ...a, balance: a.balance - fee, seqNum: afterFee.seqNum };
    if (patched.balance < minBalance(patched)) return undefined;
    inv.patch(key, patched);
  }
  try {
    inv.auth.consumeCredentials(auth);
  } catch (e) {
    const failure = inv.failureOf(e);
    inv.log.push(diag.error(undefined, failure, failure.detail));
    return { inv, ok: false, failure, error: failureText(failure, inv.log), opResults: trapped };
  }
  return { inv, ok: true, returnValue: pre.retval, opResults: invokeSuccess(inv.ledger.codec, pre.retval, inv.events) };
}
/** Runs the transaction's operations: one Soroban operation (an invocation, or a TTL operation), or classic ones. */
function runOps(core: Core, c: CheckedTx, header: LedgerHeaderRec, afterFee: AccountEntry, pre?: Preexecuted): OpRun {
  const { env, opSources, sorobanData, feeCharged } = c;
  const ops = env.v1.tx.operations;
  if (sorobanData) {
    const op = ops[0]!;
    const reuse = pre && pre.inv.seq === header.seq && pre.inv.closeTime === header.closeTime;
    return op.body.type === 'invokeHostFunction'
      ? (reuse && reusePreexecuted(pre, op, sorobanData, afterFee, feeCharged)) ||
          runInvoke(core, header, op, opSources[0]!, sorobanData)
      : applyTtlOp(core, header, op, sorobanData, footprintOf(core.ledger.codec, sorobanData));
  }
  const at = { seq: header.seq, closeTime: header.closeTime };
  const inv = new Invocation({ ledger: core.ledger, contracts: core.contracts, ...at, mode: 'genesis' });
  const results = ops.map((op, i) => applyClassicOp(inv, op, opSources[i]!));
  return { inv, ok: results.every(opSucceeded), opResults: () => results };
}

/**
 * Applies a checked transaction in ledger `header` (the latest, open): the fee and sequence number first, then
 * the operations. `b64`, when given, is the envelope as received (base64): the record then keeps that text rather
 * than the decoded envelope (see TxRecord.envelope).
 */
export function applyChecked(
  core: Core,
  c: CheckedTx,
  header: LedgerHeaderRec,
  pre?: Preexecuted,
  b64?: string,
): TxRecord {
  const ledger = core.ledger;
  const { env, hash, source, acc, sorobanData, feeCharged } = c;
  const ops = env.v1.tx.operations;
  const versionBefore = ledger.version;
  const order = ledger.joinLedger(header, hash);
  const afterFee: AccountEntry = { ...acc, balance: acc.balance - feeCharged, seqNum: c.seqNum, lm: header.seq };
  ledger.put(accountKeyId(source), afterFee);
  ledger.feePool += feeCharged;

  const run = runOps(core, c, header, afterFee, pre?.version === versionBefore ? pre : undefined);
  const { inv, ok, opResults, returnValue, failure, error } = run;
  const changes: EntryChange[] = ok ? inv.changes() : [];
  if (ok) inv.commit();
  // The refund (CAP-67: AFTER_ALL_TXS from Protocol 23): the declared resource fee beyond what the transaction used.
  // The simulator charges no refundable resources (rent, events), so what was used is the fee of the declared
  // resources (check.ts refused less), successful or not. Credited at once: see docs/chain-abi.md "Fee events".
  const refund = sorobanData ? sorobanData.resourceFee - resourceFee(declaredResources(sorobanData)) : 0n;
  const refundChange = refund > 0n ? creditRefund(core, source, refund, header.seq) : undefined;
  const refunded = refundChange ? refund : 0n;
  const txEvents = feeEvents(ledger.codec, ledger.nativeTokenId, source, feeCharged, refunded);
  const fields = {
    hash,
    ledger: header.seq,
    createdAt: header.closeTime,
    applicationOrder: order,
    status: ok ? ('SUCCESS' as const) : ('FAILED' as const),
    opCount: ops.length,
    feeCharged: feeCharged - refunded,
    feeRefund: refunded,
    txEvents,
    opResults,
    returnValue,
    soroban: !!sorobanData,
    events: ok ? inv.events : [],
    diagnostics: ok ? [] : inv.log,
    feeChange: { before: acc, after: afterFee },
    ...(refundChange ? { refundChange } : {}),
    opChanges: ok ? [changes] : [],
    error,
    failure,
  };
  const record: TxRecord =
    b64 === undefined ? { ...fields, envelope: env, cache: {} } : lazyEnvelope({ ...fields, cache: { envelope: b64 } });
  const at = { ledger: header.seq, closeTime: header.closeTime, txHash: hash, ...(ok ? {} : { failedTx: true }) };
  // Ids as stellar-rpc gives them (internal/db/event.go): BEFORE_ALL_TXS events at TOID(ledger, 0, 0) numbered
  // across the ledger (one charge a transaction, so the index is the order less one), operation events at
  // TOID(ledger, order, op), AFTER_ALL_TXS events at TOID(ledger, TransactionMask, 0) numbered across the ledger.
  let refunds = ledger.eventsAt(header.seq, AFTER_ALL_TXS_TX_INDEX);
  const ledgerEvents: LedgerEvent[] = [
    ...txEvents.map(({ stage, ...e }) =>
      stage === 'beforeAllTxs'
        ? { ...e, ...at, txIndex: 0, opIndex: 0, eventIndex: order - 1 }
        : { ...e, ...at, txIndex: AFTER_ALL_TXS_TX_INDEX, opIndex: 0, eventIndex: refunds++ },
    ),
    ...record.events.map((e, i) => ({ ...e, ...at, txIndex: order, opIndex: 0, eventIndex: i })),
  ];
  ledger.record(record, ledgerEvents);
  return record;
}

/** Credits a fee refund to the fee source's account (when it still exists); its before and after. */
function creditRefund(
  core: Core,
  source: string,
  refund: bigint,
  seq: number,
): { before: AccountEntry; after: AccountEntry } | undefined {
  const key = accountKeyId(source);
  const before = core.ledger.get(key) as AccountEntry | undefined;
  if (!before) return undefined;
  const after: AccountEntry = { ...before, balance: before.balance + refund, lm: seq };
  core.ledger.put(key, after);
  core.ledger.feePool -= refund;
  return { before, after };
}

export function footprintOf(
  codec: SimCodec,
  d: xdr.SorobanTransactionData,
): { readOnly: Set<string>; readWrite: Set<string> } {
  const fp = d.resources.footprint;
  const ids = (keys: xdr.LedgerKey[]): Set<string> => {
    const s = new Set<string>();
    for (const k of keys) {
      const id = codec.keyIdOfLedgerKey(k);
      if (id !== undefined) s.add(id);
    }
    return s;
  };
  return { readOnly: ids(fp.readOnly), readWrite: ids(fp.readWrite) };
}

/** contractEventXdr(codec, e).toXdr(), remembered per event object (codec.bytesOf): simulateTransaction's events,
 *  the InvokeHostFunction success hash, the meta and getTransaction's events hold the same bytes. */
export const contractEventBytes = (codec: SimCodec, e: ContractEventRec): Uint8Array =>
  codec.bytesOf(e, (x) => contractEventXdr(codec, x).toXdr());

export function contractEventXdr(
  codec: SimCodec,
  e: { contractId: string; topics: readonly xdr.ScVal[]; data: xdr.ScVal },
): xdr.ContractEvent {
  return new xdr.ContractEvent({
    ext: xdr.ExtensionPoint.v0(),
    contractId: new xdr.ContractId(codec.contractHash(e.contractId)),
    type: xdr.ContractEventType.contract,
    body: xdr.ContractEventBody.v0(new xdr.ContractEventV0({ topics: [...e.topics], data: e.data })),
  });
}
