// The Stellar Asset Contract (SAC) for the native asset and for classic credit assets (USDC:<issuer>): balances
// of accounts are their classic balances (account entry / trustline), balances of contracts are contract data
// `Balance(address)`. Errors carry the host's numbers and words (`Error(Contract, #13)` "trustline entry is
// missing for account", `Error(Contract, #10)` "balance is not sufficient to spend").
import { Asset, xdr } from '@stellar/stellar-sdk';
import { HostError, type ContractContext, type ContractImpl } from '../host.ts';
import { field, fromStruct, toBytes, toStr, toVec } from './scval.ts';
import { HostContractError } from './diagnostics.ts';
import {
  TRUSTLINE_AUTHORIZED,
  accountKeyId,
  type SimCodec,
  trustlineKeyId,
  type AccountEntry,
  type DataEntry,
  type TrustlineEntry,
} from './entries.ts';
import { Frame, type Invocation } from './invocation.ts';
import { BASE_RESERVE } from './ledger.ts';

/** SAC error numbers (soroban-env-host `ContractError`). */
export const SacError = {
  AccountMissing: 6,
  NegativeAmount: 8,
  Balance: 10,
  TrustlineMissing: 13,
} as const;

export interface AssetDesc {
  readonly code: string; // 'native' for XLM
  readonly issuer?: string;
}

const S = (s: string): xdr.ScVal => xdr.ScVal.scvString(s);
export const ASSET_INFO_KEY = xdr.ScVal.scvVec([xdr.ScVal.scvSymbol('AssetInfo')]);
export const METADATA_KEY = xdr.ScVal.scvSymbol('METADATA');
const INT64_MAX = (1n << 63n) - 1n;

export const assetName = (a: AssetDesc): string => (a.issuer ? `${a.code}:${a.issuer}` : 'native');
export const sacContractId = (a: AssetDesc, passphrase: string): string =>
  (a.issuer ? new Asset(a.code, a.issuer) : Asset.native()).contractId(passphrase);

/** Instance storage of a SAC (AssetInfo and METADATA, as the host writes them). */
export function sacInstanceStorage(codec: SimCodec, a: AssetDesc): Map<string, { key: xdr.ScVal; val: xdr.ScVal }> {
  const info = a.issuer
    ? xdr.ScVal.scvVec([
        xdr.ScVal.scvSymbol(a.code.length <= 4 ? 'AlphaNum4' : 'AlphaNum12'),
        xdr.ScVal.scvMap([
          new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol('asset_code'), val: S(a.code) }),
          new xdr.ScMapEntry({
            key: xdr.ScVal.scvSymbol('issuer'),
            val: xdr.ScVal.scvBytes(codec.accountKey(a.issuer)),
          }),
        ]),
      ])
    : xdr.ScVal.scvVec([xdr.ScVal.scvSymbol('Native')]);
  const meta = xdr.ScVal.scvMap([
    new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol('decimal'), val: xdr.ScVal.scvU32(7) }),
    new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol('name'), val: S(assetName(a)) }),
    new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol('symbol'), val: S(a.issuer ? a.code : 'native') }),
  ]);
  return new Map([
    [codec.scValKey(ASSET_INFO_KEY), { key: ASSET_INFO_KEY, val: info }],
    [codec.scValKey(METADATA_KEY), { key: METADATA_KEY, val: meta }],
  ]);
}

/** The asset of a SAC instance, from its instance storage (remembered: it never changes). */
function assetOf(codec: SimCodec, ctx: ContractContext): AssetDesc {
  const known = codec.sacAssets.get(ctx.contractId);
  if (known) return known;
  const info = ctx.storage.get(ASSET_INFO_KEY, 'instance');
  const items = info ? toVec(info) : [];
  let a: AssetDesc = { code: 'native' };
  if (items.length === 2) {
    const m = fromStruct(items[1]!);
    a = { code: toStr(field(m, 'asset_code')), issuer: codec.accountIdOf(toBytes(field(m, 'issuer'))) };
  }
  codec.sacAssets.set(ctx.contractId, a);
  return a;
}

const fail = (code: number, text: string, ...values: xdr.ScVal[]): never => {
  throw new HostContractError(code, xdr.ScVal.scvVec([S(text), ...values]), text);
};
const addr = (codec: SimCodec, a: string): xdr.ScVal => xdr.ScVal.scvAddress(codec.toScAddress(a));
const i128 = (n: bigint): xdr.ScVal =>
  xdr.ScVal.scvI128(
    new xdr.Int128Parts({
      hi: n >> 64n,
      lo: BigInt.asUintN(64, n),
    }),
  );
function toI128(v: xdr.ScVal): bigint {
  if (v.type !== 'scvI128') throw new HostError('Error(Value, UnexpectedType): expected i128', 'Value');
  const p = v.i128;
  return (p.hi << 64n) | BigInt.asUintN(64, p.lo);
}
function toAddr(codec: SimCodec, v: xdr.ScVal): string {
  if (v.type !== 'scvAddress') throw new HostError('Error(Value, UnexpectedType): expected Address', 'Value');
  return codec.fromScAddress(v.address);
}

const minBalance = (a: AccountEntry): bigint => (2n + BigInt(a.numSubEntries)) * BASE_RESERVE;
const balanceKey = (codec: SimCodec, holder: string): xdr.ScVal =>
  xdr.ScVal.scvVec([xdr.ScVal.scvSymbol('Balance'), addr(codec, holder)]);

/** Adds `delta` (may be negative) to `holder`'s balance of the asset, with the host's checks. */
function adjust(inv: Invocation, sac: string, a: AssetDesc, holder: string, delta: bigint): void {
  if (holder.startsWith('C')) {
    const bk = balanceKey(inv.ledger.codec, holder);
    const id = inv.dataKey(sac, 'persistent', bk);
    const e = inv.get(id) as DataEntry | undefined;
    const bal = e ? toI128(field(fromStruct(e.val), 'amount')) : 0n;
    const next = bal + delta;
    if (next < 0n)
      fail(SacError.Balance, `balance is not sufficient to spend: ${bal} < ${-delta}`, i128(bal), i128(-delta));
    const val = xdr.ScVal.scvMap([
      new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol('amount'), val: i128(next) }),
      new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol('authorized'), val: xdr.ScVal.scvBool(true) }),
      new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol('clawback'), val: xdr.ScVal.scvBool(false) }),
    ]);
    inv.put(id, {
      t: 'data',
      contract: sac,
      durability: 'persistent',
      key: bk,
      val,
      lm: inv.seq,
      liveUntil: e?.liveUntil ?? inv.ledger.minLiveUntil('persistent', inv.seq),
    });
    return;
  }
  if (!a.issuer) {
    const id = accountKeyId(holder);
    const acc = inv.get(id) as AccountEntry | undefined;
    if (!acc) return fail(SacError.AccountMissing, 'account entry is missing', addr(inv.ledger.codec, holder));
    const next = acc.balance + delta;
    if (delta < 0n && next < minBalance(acc)) {
      fail(SacError.Balance, 'balance is not sufficient to spend', i128(acc.balance - minBalance(acc)), i128(-delta));
    }
    if (next > INT64_MAX)
      fail(SacError.Balance, 'resulting balance is not within the allowed range', i128(acc.balance), i128(delta));
    inv.put(id, { ...acc, balance: next, lm: inv.seq });
    return;
  }
  if (holder === a.issuer) {
    if (!inv.get(accountKeyId(holder)))
      fail(SacError.AccountMissing, 'account entry is missing', addr(inv.ledger.codec, holder));
    return; // the issuer mints and burns: its own balance is unlimited
  }
  const id = trustlineKeyId(holder, a.code, a.issuer);
  const tl = inv.get(id) as TrustlineEntry | undefined;
  if (!tl)
    return fail(SacError.TrustlineMissing, 'trustline entry is missing for account', addr(inv.ledger.codec, holder));
  if ((tl.flags & TRUSTLINE_AUTHORIZED) === 0) fail(11, 'trustline is not authorized', addr(inv.ledger.codec, holder));
  const next = tl.balance + delta;
  if (next < 0n) fail(SacError.Balance, 'balance is not sufficient to spend', i128(tl.balance), i128(-delta));
  if (next > tl.limit)
    fail(SacError.Balance, 'resulting balance is not within the allowed range', i128(tl.balance), i128(delta));
  inv.put(id, { ...tl, balance: next, lm: inv.seq });
}

function readBalance(inv: Invocation, sac: string, a: AssetDesc, holder: string): bigint {
  if (holder.startsWith('C')) {
    const e = inv.get(inv.dataKey(sac, 'persistent', balanceKey(inv.ledger.codec, holder))) as DataEntry | undefined;
    return e ? toI128(field(fromStruct(e.val), 'amount')) : 0n;
  }
  if (!a.issuer) {
    if (holder === inv.source) inv.sourceBalanceObserved = true;
    return (inv.get(accountKeyId(holder)) as AccountEntry | undefined)?.balance ?? 0n;
  }
  if (holder === a.issuer) return INT64_MAX;
  return (inv.get(trustlineKeyId(holder, a.code, a.issuer)) as TrustlineEntry | undefined)?.balance ?? 0n;
}

function transferEvent(
  ctx: ContractContext,
  a: AssetDesc,
  kind: string,
  from: string,
  to: string | undefined,
  amount: bigint,
): void {
  const codec = frameOf(ctx).inv.ledger.codec;
  const topics = [xdr.ScVal.scvSymbol(kind), addr(codec, from)];
  if (to) topics.push(addr(codec, to));
  topics.push(S(assetName(a)));
  ctx.emit(topics, i128(amount));
}

function frameOf(ctx: ContractContext): Frame {
  if (!(ctx instanceof Frame))
    throw new HostError('Error(Context, InternalError): SAC needs the simulator host', 'Context');
  return ctx;
}

function arity(fn: string, args: xdr.ScVal[], n: number): void {
  if (args.length !== n)
    throw new HostError(`Error(WasmVm, InvalidAction): ${fn} takes ${n} arguments, got ${args.length}`, 'Value');
}

/** The Stellar Asset Contract implementation (one for every SAC instance; the asset comes from its storage). */
export const stellarAssetContract: ContractImpl = {
  name: 'stellar-asset-contract',
  functions: new Map([
    ['transfer', 3],
    ['mint', 2],
    ['balance', 1],
    ['decimals', 0],
    ['name', 0],
    ['symbol', 0],
    ['admin', 0],
  ]),
  invoke(ctx, fn, args) {
    const frame = frameOf(ctx);
    const codec = frame.inv.ledger.codec;
    const a = assetOf(codec, ctx);
    switch (fn) {
      case 'transfer': {
        arity(fn, args, 3);
        const [from, to, amount] = [toAddr(codec, args[0]!), toAddr(codec, args[1]!), toI128(args[2]!)];
        ctx.requireAuth(from);
        if (amount < 0n) fail(SacError.NegativeAmount, 'negative amount is not allowed', i128(amount));
        adjust(frame.inv, ctx.contractId, a, from, -amount);
        adjust(frame.inv, ctx.contractId, a, to, amount);
        transferEvent(ctx, a, 'transfer', from, to, amount);
        return xdr.ScVal.scvVoid();
      }
      case 'mint': {
        arity(fn, args, 2);
        if (!a.issuer)
          throw new HostError('Error(Contract, #2): operation not supported on the native asset', 'Contract');
        const [to, amount] = [toAddr(codec, args[0]!), toI128(args[1]!)];
        ctx.requireAuth(a.issuer);
        if (amount < 0n) fail(SacError.NegativeAmount, 'negative amount is not allowed', i128(amount));
        adjust(frame.inv, ctx.contractId, a, to, amount);
        transferEvent(ctx, a, 'mint', to, undefined, amount);
        return xdr.ScVal.scvVoid();
      }
      case 'balance':
        arity(fn, args, 1);
        return i128(readBalance(frame.inv, ctx.contractId, a, toAddr(codec, args[0]!)));
      case 'decimals':
        return xdr.ScVal.scvU32(7);
      case 'name':
        return S(assetName(a));
      case 'symbol':
        return S(a.issuer ? a.code : 'native');
      case 'admin':
        if (!a.issuer)
          throw new HostError('Error(Contract, #2): operation not supported on the native asset', 'Contract');
        return addr(codec, a.issuer);
      default:
        throw new HostError(
          `Error(WasmVm, MissingValue): trying to invoke non-existent contract function: ${fn}`,
          'Context',
        );
    }
  },
};
