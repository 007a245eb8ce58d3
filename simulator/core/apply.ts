// Submitting a transaction envelope: the validity checks stellar-core runs before accepting it (rejections are
// `sendTransaction` ERRORs with a real TransactionResult: txTooEarly/txTooLate, txInsufficientFee, txNoAccount,
// txBadSeq, txBadAuth, …), then its application in the next ledger: fee and sequence number first, then the
// operations (classic ones, or one InvokeHostFunction run with enforced auth and footprint). A failed operation
// leaves only the fee and sequence number behind (status FAILED).
import { xdr } from '@stellar/stellar-sdk';
import { addressCredentialsOf, credentialsInvalidAt } from './auth.ts';
import { applyClassicOp, minBalance, muxedToAccount, opSucceeded } from './classic.ts';
import { accountKey, contractHash, sha256, verifyEd25519 } from './crypto.ts';
import { diag, failureText } from './diagnostics.ts';
import type { Failure } from './failure.ts';
import { accountKeyId, fromScAddress, keyIdOfLedgerKey, type AccountEntry } from './entries.ts';
import { Invocation, failureOf } from './invocation.ts';
import { BASE_FEE, type LedgerHeaderRec } from './ledger.ts';
import { lazyEnvelope, type ContractEventRec, type EntryChange, type LedgerEvent, type TxRecord } from './records.ts';
import { declaredResources, resourceFee, type Core } from './simulate.ts';

export type SubmitOutcome =
  | { readonly status: 'PENDING'; readonly hash: string; readonly record: TxRecord }
  | { readonly status: 'DUPLICATE'; readonly hash: string }
  | { readonly status: 'ERROR'; readonly hash: string; readonly result: xdr.TransactionResult; readonly code: string };

const hashes = new WeakMap<xdr.Transaction, { id: Buffer; hash: Buffer }>();

/** The transaction hash: sha256(TransactionSignaturePayload{networkId, tx}); it is what every signature signs. */
export function txHash(tx: xdr.Transaction, networkId: Buffer): Buffer {
  const c = hashes.get(tx);
  if (c && c.id.equals(networkId)) return c.hash;
  const payload = new xdr.TransactionSignaturePayload({
    networkId,
    taggedTransaction: xdr.TransactionSignaturePayloadTaggedTransaction.envelopeTypeTx(tx),
  });
  const hash = sha256(payload.toXdr());
  hashes.set(tx, { id: networkId, hash });
  return hash;
}

const ENVELOPE_TYPE_TX = Buffer.from([0, 0, 0, xdr.EnvelopeType.envelopeTypeTx.value]);

/**
 * Computes txHash of an envelope received as XDR from those bytes, without encoding its transaction again: the
 * transaction's XDR is the envelope's, between the envelope type and the signatures (js-xdr decodes canonical XDR
 * only — padding, bools and lengths are checked — so it is what encoding the decoded transaction gives back).
 */
export function hashFromEnvelopeXdr(env: xdr.TransactionEnvelope, raw: Buffer, networkId: Buffer): void {
  if (env.type !== 'envelopeTypeTx') return;
  const v1 = env.v1;
  let sigBytes = 4; // DecoratedSignature<20>: count, then per signature a 4-byte hint and an opaque<64>
  for (const s of v1.signatures) {
    const n = s.signature.value.length;
    sigBytes += 4 + 4 + n + ((4 - (n % 4)) % 4);
  }
  const txBytes = raw.subarray(ENVELOPE_TYPE_TX.length, raw.length - sigBytes);
  hashes.set(v1.tx, { id: networkId, hash: sha256(Buffer.concat([networkId, ENVELOPE_TYPE_TX, txBytes])) });
}

export const txResult = (feeCharged: bigint, result: xdr.TransactionResultResult): xdr.TransactionResult =>
  new xdr.TransactionResult({ feeCharged, result, ext: xdr.TransactionResultExt.v0() });

const SOROBAN_OPS = new Set<xdr.OperationBody['type']>(['invokeHostFunction', 'extendFootprintTtl', 'restoreFootprint']);

function timeBounds(cond: xdr.Preconditions): { min: bigint; max: bigint } | undefined {
  let tb: xdr.TimeBounds | null | undefined;
  if (cond.type === 'precondTime') tb = cond.timeBounds;
  else if (cond.type === 'precondV2') tb = cond.v2.timeBounds;
  return tb ? { min: tb.minTime, max: tb.maxTime } : undefined;
}

/** Accounts whose master key produced a valid signature; `extra` when some signature matches no needed signer. */
function checkSignatures(sigs: xdr.DecoratedSignature[], hash: Buffer, needed: Set<string>): { signed: Set<string>; extra: boolean } {
  const signed = new Set<string>();
  let extra = false;
  for (const s of sigs) {
    let ok = false;
    for (const g of needed) {
      const pk = accountKey(g);
      if (!pk.subarray(28).equals(s.hint.value)) continue;
      if (verifyEd25519(pk, hash, s.signature.value)) {
        signed.add(g);
        ok = true;
        break;
      }
    }
    if (!ok) extra = true;
  }
  return { signed, extra };
}

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
function sameAuth(recorded: readonly xdr.SorobanAuthorizationEntry[], given: readonly xdr.SorobanAuthorizationEntry[]): boolean {
  if (recorded.length !== given.length) return false;
  return recorded.every((r, i) => {
    const g = given[i]!;
    if (r === g) return true;
    const rc = r.credentials;
    const gc = g.credentials;
    if (rc.type !== gc.type) return false;
    const ra = addressCredentialsOf(rc)?.creds;
    const ga = addressCredentialsOf(gc)?.creds;
    if (ra && ga && (!Buffer.from(ra.address.toXdr()).equals(ga.address.toXdr()) || ra.nonce !== ga.nonce)) return false;
    return r.rootInvocation === g.rootInvocation || Buffer.from(r.rootInvocation.toXdr()).equals(g.rootInvocation.toXdr());
  });
}

/** Every entry the invocation touched is in the declared footprint (writes in readWrite). */
function footprintCovers(inv: Invocation, data: xdr.SorobanTransactionData): boolean {
  const fp = footprintOf(data);
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
  xdr.OperationResult.opInner(xdr.OperationResultTr.invokeHostFunction(xdr.InvokeHostFunctionResult.invokeHostFunctionTrapped())),
];

function invokeSuccess(rv: xdr.ScVal, events: readonly ContractEventRec[]): () => xdr.OperationResult[] {
  return () => [
    xdr.OperationResult.opInner(
      xdr.OperationResultTr.invokeHostFunction(
        xdr.InvokeHostFunctionResult.invokeHostFunctionSuccess(
          sha256(new xdr.InvokeHostFunctionSuccessPreImage({ returnValue: rv, events: events.map(contractEventXdr) }).toXdr()),
        ),
      ),
    ),
  ];
}

/** Runs the InvokeHostFunction operation with enforced auth and the declared footprint. */
function runInvoke(core: Core, header: { seq: number; closeTime: number }, op: xdr.Operation, opSource: string, data: xdr.SorobanTransactionData): OpRun {
  const body = op.body;
  const hf = body.type === 'invokeHostFunction' ? body.invokeHostFunctionOp.hostFunction : undefined;
  const inv = new Invocation({
    ledger: core.ledger,
    contracts: core.contracts,
    seq: header.seq,
    closeTime: header.closeTime,
    mode: 'enforce',
    source: opSource,
    authEntries: body.type === 'invokeHostFunction' ? body.invokeHostFunctionOp.auth : [],
    footprint: footprintOf(data),
  });
  if (!hf) return { inv, ok: false, opResults: () => [xdr.OperationResult.opNotSupported()] };
  if (hf.type !== 'hostFunctionTypeInvokeContract') {
    return {
      inv,
      ok: false,
      error: 'only InvokeContract host functions are supported by the simulator',
      opResults: () => [xdr.OperationResult.opInner(xdr.OperationResultTr.invokeHostFunction(xdr.InvokeHostFunctionResult.invokeHostFunctionMalformed()))],
    };
  }
  const call = hf.invokeContract;
  try {
    const rv = inv.invoke(fromScAddress(call.contractAddress), call.functionName.toString(), call.args);
    return { inv, ok: true, returnValue: rv, opResults: invokeSuccess(rv, inv.events) };
  } catch (e) {
    const failure = failureOf(e);
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
  if (inv.sourceBalanceObserved || inv.auth.mode !== 'record' || op.sourceAccount || inv.source !== source) return undefined;
  const body = op.body;
  if (body.type !== 'invokeHostFunction') return undefined;
  const auth = body.invokeHostFunctionOp.auth;
  if (!sameAuth(pre.auth, auth) || !footprintCovers(inv, data)) return undefined;
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
    const failure = failureOf(e);
    inv.log.push(diag.error(undefined, failure, failure.detail));
    return { inv, ok: false, failure, error: failureText(failure, inv.log), opResults: trapped };
  }
  return { inv, ok: true, returnValue: pre.retval, opResults: invokeSuccess(pre.retval, inv.events) };
}

/** An envelope that passed the checks stellar-core runs before accepting it, with what applying it needs. */
export interface CheckedTx {
  readonly env: xdr.TransactionEnvelopeTx;
  readonly hash: string;
  readonly source: string;
  readonly seqNum: bigint;
  readonly acc: AccountEntry;
  readonly opSources: readonly string[];
  readonly sorobanData?: xdr.SorobanTransactionData;
  readonly feeCharged: bigint;
}

/** The hash of an envelope (of any type) under this network's passphrase. */
export function envelopeHash(core: Core, env: xdr.TransactionEnvelope): string {
  const hash = env.type === 'envelopeTypeTx' ? txHash(env.v1.tx, core.ledger.networkId) : sha256(env.toXdr());
  return hash.toString('hex');
}

/**
 * The checks stellar-core runs before it takes a transaction, against the ledger it would be applied in (`at`):
 * validity, time bounds, fees, sequence number (`seq: false` skips it, for a chain the simulator queued itself),
 * signatures, balance. An ERROR outcome (with its TransactionResult) or the checked transaction.
 */
export function checkEnvelope(
  core: Core,
  env: xdr.TransactionEnvelope,
  at: { readonly seq: number; readonly closeTime: number },
  o: { seq?: boolean } = {},
): CheckedTx | Extract<SubmitOutcome, { status: 'ERROR' }> {
  const ledger = core.ledger;
  const R = xdr.TransactionResultResult;
  if (env.type !== 'envelopeTypeTx') {
    const hash = sha256(env.toXdr()).toString('hex');
    return { status: 'ERROR', hash, result: txResult(0n, R.txNotSupported()), code: 'txNotSupported' };
  }
  const v1 = env.v1;
  const tx = v1.tx;
  const hashBuf = txHash(tx, ledger.networkId);
  const hash = hashBuf.toString('hex');
  const fee = BigInt(tx.fee);
  const ops = tx.operations;
  const named = R as unknown as Record<string, () => xdr.TransactionResultResult>;
  const reject = (code: string, result: xdr.TransactionResultResult = named[code]!()) => ({
    status: 'ERROR' as const,
    hash,
    result: txResult(BigInt(BASE_FEE) * BigInt(Math.max(ops.length, 1)), result),
    code,
  });

  if (ops.length === 0) return reject('txMissingOperation');
  const tb = timeBounds(tx.cond);
  if (tb) {
    if (BigInt(at.closeTime) < tb.min) return reject('txTooEarly');
    if (tb.max !== 0n && BigInt(at.closeTime) > tb.max) return reject('txTooLate');
  }
  const ext = tx.ext;
  const sorobanData = ext.type === 'sorobanData' ? ext.sorobanData : undefined;
  const isSoroban = ops.some((op) => SOROBAN_OPS.has(op.body.type));
  if (isSoroban !== !!sorobanData || (isSoroban && ops.length !== 1)) return reject('txMalformed');
  // CAP-71 credentials in a transaction before Protocol 27 invalidate it.
  const invokeBody = ops[0]!.body;
  const auth = invokeBody.type === 'invokeHostFunction' ? invokeBody.invokeHostFunctionOp.auth : [];
  if (credentialsInvalidAt(auth, ledger.protocol)) return reject('txMalformed');
  const declaredFee = sorobanData ? sorobanData.resourceFee : 0n;
  const inclusionFee = BigInt(BASE_FEE) * BigInt(ops.length);
  if (fee - declaredFee < inclusionFee) return reject('txInsufficientFee');
  if (sorobanData && declaredFee < resourceFee(declaredResources(sorobanData))) return reject('txSorobanInvalid');

  const source = muxedToAccount(tx.sourceAccount);
  const acc = ledger.get(accountKeyId(source)) as AccountEntry | undefined;
  if (!acc) return reject('txNoAccount');
  if ((o.seq ?? true) && tx.seqNum !== acc.seqNum + 1n) return reject('txBadSeq');

  const opSources = ops.map((op) => (op.sourceAccount ? muxedToAccount(op.sourceAccount) : source));
  const { signed, extra } = checkSignatures(v1.signatures, hashBuf, new Set(opSources.concat(source)));
  if (!signed.has(source)) return reject('txBadAuth');
  const badOps = opSources.map((s) => !signed.has(s) || !ledger.get(accountKeyId(s)));
  if (badOps.some(Boolean)) {
    return reject(
      'txFailed',
      R.txFailed(
        badOps.map((bad, i) => {
          if (!bad) return xdr.OperationResult.opInner(innerNoop(ops[i]!));
          return signed.has(opSources[i]!) ? xdr.OperationResult.opNoAccount() : xdr.OperationResult.opBadAuth();
        }),
      ),
    );
  }
  if (extra) return reject('txBadAuthExtra');
  const feeCharged = declaredFee + inclusionFee;
  if (acc.balance - minBalance(acc) < feeCharged) return reject('txInsufficientBalance');
  return { env, hash, source, seqNum: tx.seqNum, acc, opSources, ...(sorobanData ? { sorobanData } : {}), feeCharged };
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
  const { env, hash, source, acc, opSources, sorobanData, feeCharged } = c;
  const ops = env.v1.tx.operations;
  const versionBefore = ledger.version;
  const order = ledger.joinLedger(header, hash);
  const afterFee: AccountEntry = { ...acc, balance: acc.balance - feeCharged, seqNum: c.seqNum, lm: header.seq };
  ledger.put(accountKeyId(source), afterFee);
  ledger.feePool += feeCharged;

  let run: OpRun;
  if (sorobanData) {
    const op = ops[0]!;
    const reuse = pre && pre.version === versionBefore && pre.inv.seq === header.seq && pre.inv.closeTime === header.closeTime;
    run =
      (reuse && reusePreexecuted(pre, op, sorobanData, afterFee, feeCharged)) ||
      runInvoke(core, header, op, opSources[0]!, sorobanData);
  } else {
    const at = { seq: header.seq, closeTime: header.closeTime };
    const inv = new Invocation({ ledger, contracts: core.contracts, ...at, mode: 'genesis' });
    const results = ops.map((op, i) => applyClassicOp(inv, op, opSources[i]!));
    run = { inv, ok: results.every(opSucceeded), opResults: () => results };
  }
  const { inv, ok, opResults, returnValue, failure, error } = run;
  const changes: EntryChange[] = ok ? inv.changes() : [];
  if (ok) inv.commit();
  const fields = {
    hash,
    ledger: header.seq,
    createdAt: header.closeTime,
    applicationOrder: order,
    status: ok ? ('SUCCESS' as const) : ('FAILED' as const),
    opCount: ops.length,
    feeCharged,
    opResults,
    returnValue,
    soroban: !!sorobanData,
    events: ok ? inv.events : [],
    diagnostics: ok ? [] : inv.log,
    feeChange: { before: acc, after: afterFee },
    opChanges: ok ? [changes] : [],
    error,
    failure,
  };
  const record: TxRecord =
    b64 === undefined ? { ...fields, envelope: env, cache: {} } : lazyEnvelope({ ...fields, cache: { envelope: b64 } });
  const ledgerEvents: LedgerEvent[] = record.events.map((e, i) => ({
    ...e,
    ledger: header.seq,
    closeTime: header.closeTime,
    txIndex: order,
    opIndex: 0,
    eventIndex: i,
    txHash: hash,
  }));
  ledger.record(record, ledgerEvents);
  return record;
}

/**
 * Checks and applies an envelope at once, in the ledger of this wall-clock second (ledger timing off). `b64`, when
 * given, is the envelope as received (base64).
 */
export function submitEnvelope(
  core: Core,
  env: xdr.TransactionEnvelope,
  pre?: Preexecuted,
  b64?: string,
): SubmitOutcome {
  const ledger = core.ledger;
  const hash = envelopeHash(core, env);
  if (env.type === 'envelopeTypeTx' && ledger.txs.has(hash)) return { status: 'DUPLICATE', hash };
  const checked = checkEnvelope(core, env, ledger.nextTxLedger());
  if ('status' in checked) return checked;
  const record = applyChecked(core, checked, ledger.openTxLedger(), pre, b64);
  return { status: 'PENDING', hash, record };
}

function innerNoop(op: xdr.Operation): xdr.OperationResultTr {
  // Placeholder result for the operations that were not at fault in a txFailed(opBadAuth…) rejection.
  switch (op.body.type) {
    case 'payment':
      return xdr.OperationResultTr.payment(xdr.PaymentResult.paymentSuccess());
    case 'changeTrust':
      return xdr.OperationResultTr.changeTrust(xdr.ChangeTrustResult.changeTrustSuccess());
    default:
      return xdr.OperationResultTr.createAccount(xdr.CreateAccountResult.createAccountSuccess());
  }
}

function footprintOf(d: xdr.SorobanTransactionData): { readOnly: Set<string>; readWrite: Set<string> } {
  const fp = d.resources.footprint;
  const ids = (keys: xdr.LedgerKey[]): Set<string> => {
    const s = new Set<string>();
    for (const k of keys) {
      const id = keyIdOfLedgerKey(k);
      if (id !== undefined) s.add(id);
    }
    return s;
  };
  return { readOnly: ids(fp.readOnly), readWrite: ids(fp.readWrite) };
}

export function contractEventXdr(e: { contractId: string; topics: readonly xdr.ScVal[]; data: xdr.ScVal }): xdr.ContractEvent {
  return new xdr.ContractEvent({
    ext: xdr.ExtensionPoint.v0(),
    contractId: contractHashOf(e.contractId),
    type: xdr.ContractEventType.contract,
    body: xdr.ContractEventBody.v0(new xdr.ContractEventV0({ topics: [...e.topics], data: e.data })),
  });
}

const contractHashOf = (c: string): xdr.ContractId => new xdr.ContractId(contractHash(c));
