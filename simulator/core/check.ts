// What stellar-core checks before it takes a transaction: the transaction hash, then validity, time bounds, fees,
// sequence number, signatures and balance against the ledger it would be applied in. A rejection is a
// `sendTransaction` ERROR with a real TransactionResult (txTooEarly/txTooLate, txInsufficientFee, txNoAccount,
// txBadSeq, txBadAuth, …).
import { xdr } from '@stellar/stellar-sdk';
import { credentialsInvalidAt } from './auth.ts';
import { minBalance, muxedToAccount } from './classic.ts';
import { sha256 } from './crypto.ts';
import { accountKeyId, type AccountEntry, type SimCodec } from './entries.ts';
import { BASE_FEE } from './ledger.ts';
import { declaredResources, resourceFee, type Core } from './simulate.ts';

/** A transaction stellar-core refused on receipt: sendTransaction's ERROR, with the result it would have had. */
export interface Rejection {
  readonly status: 'ERROR';
  readonly hash: string;
  readonly result: xdr.TransactionResult;
  readonly code: string;
}

/** The transaction hash: sha256(TransactionSignaturePayload{networkId, tx}); it is what every signature signs.
 *  Remembered per transaction object in the codec's memo. */
export function txHash(codec: SimCodec, tx: xdr.Transaction, networkId: Buffer): Buffer {
  const hashes = codec.txHashes;
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
export function hashFromEnvelopeXdr(
  codec: SimCodec,
  env: xdr.TransactionEnvelope,
  raw: Buffer,
  networkId: Buffer,
): void {
  if (env.type !== 'envelopeTypeTx') return;
  const v1 = env.v1;
  let sigBytes = 4; // DecoratedSignature<20>: count, then per signature a 4-byte hint and an opaque<64>
  for (const s of v1.signatures) {
    const n = s.signature.value.length;
    sigBytes += 4 + 4 + n + ((4 - (n % 4)) % 4);
  }
  const txBytes = raw.subarray(ENVELOPE_TYPE_TX.length, raw.length - sigBytes);
  codec.txHashes.set(v1.tx, { id: networkId, hash: sha256(Buffer.concat([networkId, ENVELOPE_TYPE_TX, txBytes])) });
}

export const txResult = (feeCharged: bigint, result: xdr.TransactionResultResult): xdr.TransactionResult =>
  new xdr.TransactionResult({ feeCharged, result, ext: xdr.TransactionResultExt.v0() });

const SOROBAN_OPS = new Set<xdr.OperationBody['type']>([
  'invokeHostFunction',
  'extendFootprintTtl',
  'restoreFootprint',
]);

function timeBounds(cond: xdr.Preconditions): { min: bigint; max: bigint } | undefined {
  let tb: xdr.TimeBounds | null | undefined;
  if (cond.type === 'precondTime') tb = cond.timeBounds;
  else if (cond.type === 'precondV2') tb = cond.v2.timeBounds;
  return tb ? { min: tb.minTime, max: tb.maxTime } : undefined;
}

/** Accounts whose master key produced a valid signature; `extra` when some signature matches no needed signer. */
function checkSignatures(
  codec: SimCodec,
  sigs: xdr.DecoratedSignature[],
  hash: Buffer,
  needed: Set<string>,
): { signed: Set<string>; extra: boolean } {
  const signed = new Set<string>();
  let extra = false;
  for (const s of sigs) {
    let ok = false;
    for (const g of needed) {
      const pk = codec.accountKey(g);
      if (!pk.subarray(28).equals(s.hint.value)) continue;
      if (codec.verifyEd25519(pk, hash, s.signature.value)) {
        signed.add(g);
        ok = true;
        break;
      }
    }
    if (!ok) extra = true;
  }
  return { signed, extra };
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
  const hash =
    env.type === 'envelopeTypeTx' ? txHash(core.ledger.codec, env.v1.tx, core.ledger.networkId) : sha256(env.toXdr());
  return hash.toString('hex');
}

/**
 * The checks stellar-core runs before it takes a transaction, against the ledger it would be applied in (`at`):
 * validity, time bounds, fees, sequence number, signatures, balance. A rejection (with its TransactionResult) or the
 * checked transaction.
 */
export function checkEnvelope(
  core: Core,
  env: xdr.TransactionEnvelope,
  at: { readonly seq: number; readonly closeTime: number },
): CheckedTx | Rejection {
  const ledger = core.ledger;
  const R = xdr.TransactionResultResult;
  if (env.type !== 'envelopeTypeTx') {
    const hash = sha256(env.toXdr()).toString('hex');
    return { status: 'ERROR', hash, result: txResult(0n, R.txNotSupported()), code: 'txNotSupported' };
  }
  const v1 = env.v1;
  const tx = v1.tx;
  const hashBuf = txHash(ledger.codec, tx, ledger.networkId);
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

  const source = muxedToAccount(ledger.codec, tx.sourceAccount);
  const acc = ledger.get(accountKeyId(source)) as AccountEntry | undefined;
  if (!acc) return reject('txNoAccount');
  if (tx.seqNum !== acc.seqNum + 1n) return reject('txBadSeq');

  const opSources = ops.map((op) => (op.sourceAccount ? muxedToAccount(ledger.codec, op.sourceAccount) : source));
  const { signed, extra } = checkSignatures(ledger.codec, v1.signatures, hashBuf, new Set(opSources.concat(source)));
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
