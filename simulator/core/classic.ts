// The classic operations a wallet needs: createAccount, payment (native and credit assets), changeTrust.
// Each works on an Invocation used as a write overlay, so a failing operation leaves nothing behind; results are
// the real OperationResult codes (createAccountAlreadyExist, paymentNoTrust, changeTrustLowReserve, …).
import { xdr } from '@stellar/stellar-sdk';
import type { SimKeys } from './crypto.ts';
import {
  TRUSTLINE_AUTHORIZED,
  accountKeyId,
  trustlineKeyId,
  type AccountEntry,
  type TrustlineEntry,
} from './entries.ts';
import type { Invocation } from './invocation.ts';
import { BASE_RESERVE } from './ledger.ts';

const INT64_MAX = (1n << 63n) - 1n;
const R = xdr.OperationResult;
const Tr = xdr.OperationResultTr;

export function muxedToAccount(keys: SimKeys, m: xdr.MuxedAccount): string {
  return keys.accountIdOf(m.type === 'keyTypeMuxedEd25519' ? m.med25519.ed25519.value : m.ed25519.value);
}

export const minBalance = (a: AccountEntry): bigint => (2n + BigInt(a.numSubEntries)) * BASE_RESERVE;

function creditAsset(keys: SimKeys, a: xdr.Asset | xdr.ChangeTrustAsset): { code: string; issuer: string } | undefined {
  const arm =
    a.type === 'assetTypeCreditAlphanum4'
      ? a.alphaNum4
      : a.type === 'assetTypeCreditAlphanum12'
        ? a.alphaNum12
        : undefined;
  if (!arm) return undefined;
  return {
    code: Buffer.from(arm.assetCode.value).toString('ascii').replace(/\0+$/, ''),
    issuer: keys.accountIdOf(arm.issuer.ed25519.value),
  };
}

/** Applies one classic operation whose source is `source` (already checked to exist and to have signed). */
export function applyClassicOp(inv: Invocation, op: xdr.Operation, source: string): xdr.OperationResult {
  const body = op.body;
  switch (body.type) {
    case 'createAccount':
      return R.opInner(Tr.createAccount(createAccount(inv, source, body.createAccountOp)));
    case 'payment':
      return R.opInner(Tr.payment(payment(inv, source, body.paymentOp)));
    case 'changeTrust':
      return R.opInner(Tr.changeTrust(changeTrust(inv, source, body.changeTrustOp)));
    default:
      return R.opNotSupported();
  }
}

const account = (inv: Invocation, g: string): AccountEntry | undefined =>
  inv.get(accountKeyId(g)) as AccountEntry | undefined;

function createAccount(inv: Invocation, source: string, op: xdr.CreateAccountOp): xdr.CreateAccountResult {
  const C = xdr.CreateAccountResult;
  const dest = inv.ledger.codec.accountIdOf(op.destination.ed25519.value);
  const amount = op.startingBalance;
  if (amount <= 0n || dest === source) return C.createAccountMalformed();
  if (account(inv, dest)) return C.createAccountAlreadyExist();
  if (amount < 2n * BASE_RESERVE) return C.createAccountLowReserve();
  const src = account(inv, source)!;
  if (src.balance - amount < minBalance(src)) return C.createAccountUnderfunded();
  inv.put(accountKeyId(source), { ...src, balance: src.balance - amount, lm: inv.seq });
  inv.put(accountKeyId(dest), {
    t: 'account',
    id: dest,
    balance: amount,
    seqNum: BigInt(inv.seq) << 32n,
    numSubEntries: 0,
    lm: inv.seq,
  });
  return C.createAccountSuccess();
}

function payment(inv: Invocation, source: string, op: xdr.PaymentOp): xdr.PaymentResult {
  const P = xdr.PaymentResult;
  const dest = muxedToAccount(inv.ledger.codec, op.destination);
  const amount = op.amount;
  if (amount <= 0n) return P.paymentMalformed();
  const destAcc = account(inv, dest);
  if (!destAcc) return P.paymentNoDestination();
  const asset = creditAsset(inv.ledger.codec, op.asset);
  if (!asset) {
    const src = account(inv, source)!;
    if (src.balance - amount < minBalance(src)) return P.paymentUnderfunded();
    if (dest === source) return P.paymentSuccess();
    if (destAcc.balance + amount > INT64_MAX) return P.paymentLineFull();
    inv.put(accountKeyId(source), { ...src, balance: src.balance - amount, lm: inv.seq });
    const d = account(inv, dest)!;
    inv.put(accountKeyId(dest), { ...d, balance: d.balance + amount, lm: inv.seq });
    return P.paymentSuccess();
  }
  if (!account(inv, asset.issuer)) return P.paymentNoIssuer();
  let srcLine: TrustlineEntry | undefined;
  if (source !== asset.issuer) {
    srcLine = inv.get(trustlineKeyId(source, asset.code, asset.issuer)) as TrustlineEntry | undefined;
    if (!srcLine) return P.paymentSrcNoTrust();
    if ((srcLine.flags & TRUSTLINE_AUTHORIZED) === 0) return P.paymentSrcNotAuthorized();
    if (srcLine.balance < amount) return P.paymentUnderfunded();
  }
  let destLine: TrustlineEntry | undefined;
  if (dest !== asset.issuer) {
    destLine = inv.get(trustlineKeyId(dest, asset.code, asset.issuer)) as TrustlineEntry | undefined;
    if (!destLine) return P.paymentNoTrust();
    if ((destLine.flags & TRUSTLINE_AUTHORIZED) === 0) return P.paymentNotAuthorized();
    const after = destLine.balance + amount - (dest === source ? amount : 0n);
    if (after > destLine.limit) return P.paymentLineFull();
  }
  if (srcLine)
    inv.put(trustlineKeyId(source, asset.code, asset.issuer), {
      ...srcLine,
      balance: srcLine.balance - amount,
      lm: inv.seq,
    });
  if (destLine) {
    const d = inv.get(trustlineKeyId(dest, asset.code, asset.issuer)) as TrustlineEntry;
    inv.put(trustlineKeyId(dest, asset.code, asset.issuer), { ...d, balance: d.balance + amount, lm: inv.seq });
  }
  return P.paymentSuccess();
}

function changeTrust(inv: Invocation, source: string, op: xdr.ChangeTrustOp): xdr.ChangeTrustResult {
  const T = xdr.ChangeTrustResult;
  const line = op.line;
  if (line.type === 'assetTypePoolShare') return T.changeTrustTrustLineMissing();
  const asset = creditAsset(inv.ledger.codec, line);
  const limit = op.limit;
  if (!asset || limit < 0n) return T.changeTrustMalformed();
  if (asset.issuer === source) return T.changeTrustMalformed();
  const key = trustlineKeyId(source, asset.code, asset.issuer);
  const existing = inv.get(key) as TrustlineEntry | undefined;
  const src = account(inv, source)!;
  if (existing) {
    if (limit === 0n) {
      if (existing.balance !== 0n) return T.changeTrustInvalidLimit();
      inv.put(key, undefined);
      inv.put(accountKeyId(source), { ...src, numSubEntries: src.numSubEntries - 1, lm: inv.seq });
      return T.changeTrustSuccess();
    }
    if (limit < existing.balance) return T.changeTrustInvalidLimit();
    inv.put(key, { ...existing, limit, lm: inv.seq });
    return T.changeTrustSuccess();
  }
  if (limit === 0n) return T.changeTrustInvalidLimit();
  if (!account(inv, asset.issuer)) return T.changeTrustNoIssuer();
  const grown = { ...src, numSubEntries: src.numSubEntries + 1, lm: inv.seq };
  if (src.balance < minBalance(grown)) return T.changeTrustLowReserve();
  inv.put(accountKeyId(source), grown);
  inv.put(key, {
    t: 'trustline',
    account: source,
    code: asset.code,
    issuer: asset.issuer,
    balance: 0n,
    limit,
    flags: TRUSTLINE_AUTHORIZED,
    lm: inv.seq,
  });
  return T.changeTrustSuccess();
}

/** True when an operation result is a success (its inner code is 0). */
export function opSucceeded(r: xdr.OperationResult): boolean {
  if (r.type !== 'opInner') return false;
  return r.tr.value.toXdrObject().code === 0;
}
