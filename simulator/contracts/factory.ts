// vc-vault-factory 0.1.0 as in docs/chain-abi.md ("Factory"): deterministic vault deployment, the
// registry of deployed vaults (`is_vault`, used by `push`), and the issuance fee that vaults charge (`quote_fee`).
//
// Storage. instance: Admin, PendingAdmin, VaultWasm (BytesN<32>), FeeEnabled (bool), MinFee (i128),
//   FeeConfig{dest, standard, token} (absent until `set_fee_config`);
// persistent: Vault(address) → true, FeeCustom(issuer) → {amount: i128, expires_at: Option<u64>}.
import { xdr } from '@stellar/stellar-sdk';
import type { ContractContext } from '../host.ts';
import { address, bool, i128, option, struct, sym, u64, unit, vec } from '../core/scval.ts';
import { deploySalt } from '../core/derive.ts';
import { FactoryError, failWith } from './errors.ts';
import { arg, defineContract } from './support.ts';

const fail = failWith(FactoryError);
const MAX_FEE = 10n ** 18n;

const K = {
  admin: vec([sym('Admin')]),
  pending: vec([sym('PendingAdmin')]),
  wasm: vec([sym('VaultWasm')]),
  enabled: vec([sym('FeeEnabled')]),
  minFee: vec([sym('MinFee')]),
  config: vec([sym('FeeConfig')]),
  vault: (a: xdr.ScVal) => vec([sym('Vault'), a]),
  custom: (a: xdr.ScVal) => vec([sym('FeeCustom'), a]),
};
const CONFIG_FIELDS = ['dest', 'standard', 'token'] as const;
const CUSTOM_FIELDS = ['amount', 'expires_at'] as const;

function instance(ctx: ContractContext, key: xdr.ScVal): xdr.ScVal | undefined {
  return ctx.storage.get(key, 'instance');
}

function admin(ctx: ContractContext): string {
  const v = instance(ctx, K.admin);
  return v ? arg.address(v) : fail('NotInitialized');
}

/** Every admin setter: initialized (#7), then the admin's signature. */
function requireAdmin(ctx: ContractContext): void {
  ctx.requireAuth(admin(ctx));
}

function feeConfig(ctx: ContractContext): Record<string, xdr.ScVal> | undefined {
  const v = instance(ctx, K.config);
  return v && arg.struct(v, CONFIG_FIELDS);
}

/** Amount rules of every fee setter: negative #2, above 10^18 #3, below the minimum fee #4. */
function checkAmount(ctx: ContractContext, amount: bigint, againstMin = true): void {
  if (amount < 0n) fail('InvalidFeeAmount');
  if (amount > MAX_FEE) fail('FeeOutOfBounds');
  if (againstMin && amount < arg.i128(instance(ctx, K.minFee) ?? i128(0))) fail('FeeBelowMin');
}

/** Deploys the vault template at deploySalt(owner, user_salt); the host fails on a used salt. */
function deployVault(ctx: ContractContext, ownerV: xdr.ScVal, didUriV: xdr.ScVal, saltV: xdr.ScVal): xdr.ScVal {
  arg.address(ownerV); // an Address, as the host checks before the call
  arg.string(didUriV); // its length is the vault constructor's rule (#19 there)
  const userSalt = arg.bytesN(saltV, 32);
  const wasm = instance(ctx, K.wasm) ?? fail('NotInitialized');
  const id = address(
    ctx.deployContract(arg.bytesN(wasm, 32), deploySalt(ownerV, userSalt), [
      ownerV,
      ownerV,
      didUriV,
      address(ctx.contractId),
    ]),
  );
  ctx.storage.set(K.vault(id), bool(true));
  return id;
}

const DISABLED_QUOTE = struct({ enabled: bool(false), amount: i128(0), token: unit(), dest: unit() });

export const factory = defineContract(
  'vc-vault-factory 0.1.0',
  {
    deploy: [
      3,
      (ctx, [owner, didUri, salt]) => {
        ctx.requireAuth(arg.address(owner!));
        const vault = deployVault(ctx, owner!, didUri!, salt!);
        ctx.emit([sym('vault_deployed')], struct({ owner: owner!, vault_address: vault }));
        return vault;
      },
    ],
    deploy_sponsored: [
      4,
      (ctx, [deployer, owner, didUri, salt]) => {
        ctx.requireAuth(arg.address(deployer!));
        const vault = deployVault(ctx, owner!, didUri!, salt!);
        // chain-abi's fields; the API document's `did_uri` in this event is not part of the contract.
        ctx.emit(
          [sym('sponsored_vault_deployed')],
          struct({ deployer: deployer!, owner: owner!, vault_address: vault }),
        );
        return vault;
      },
    ],
    is_vault: [
      1,
      (ctx, [vault]) => {
        arg.address(vault!);
        return bool(ctx.storage.has(K.vault(vault!)));
      },
    ],
    quote_fee: [
      1,
      (ctx, [issuer]) => {
        arg.address(issuer!);
        admin(ctx);
        if (!arg.bool(instance(ctx, K.enabled) ?? bool(false))) return DISABLED_QUOTE;
        const cfg = feeConfig(ctx) ?? fail('FeeNotConfigured');
        let amount = cfg.standard!;
        const custom = ctx.storage.get(K.custom(issuer!));
        if (custom) {
          const c = arg.struct(custom, CUSTOM_FIELDS);
          const expiresAt = arg.option(c.expires_at!, arg.u64);
          if (expiresAt === undefined || ctx.ledgerTimestamp <= expiresAt) amount = c.amount!;
        }
        return struct({ enabled: bool(true), amount, token: cfg.token!, dest: cfg.dest! });
      },
    ],
    set_fee_config: [
      3,
      (ctx, [token, dest, standard]) => {
        requireAdmin(ctx);
        arg.address(token!);
        arg.address(dest!);
        checkAmount(ctx, arg.i128(standard!));
        ctx.storage.set(K.config, struct({ token: token!, dest: dest!, standard: standard! }), 'instance');
        ctx.storage.set(K.enabled, bool(true), 'instance');
        return unit();
      },
    ],
    set_fee_enabled: [
      1,
      (ctx, [enabled]) => {
        requireAdmin(ctx);
        if (arg.bool(enabled!) && !feeConfig(ctx)) fail('FeeNotConfigured');
        ctx.storage.set(K.enabled, enabled!, 'instance');
        return unit();
      },
    ],
    set_fee_standard: [
      1,
      (ctx, [standard]) => {
        requireAdmin(ctx);
        const cfg = feeConfig(ctx) ?? fail('FeeNotConfigured');
        checkAmount(ctx, arg.i128(standard!));
        ctx.storage.set(K.config, struct({ ...cfg, standard: standard! }), 'instance');
        return unit();
      },
    ],
    set_fee_custom: [
      3,
      (ctx, [issuer, amount, expiresAt]) => {
        requireAdmin(ctx);
        arg.address(issuer!);
        if (!feeConfig(ctx)) fail('FeeNotConfigured');
        checkAmount(ctx, arg.i128(amount!));
        const expiry = arg.option(expiresAt!, arg.u64);
        if (expiry !== undefined && expiry < ctx.ledgerTimestamp) fail('ExpiryInPast');
        ctx.storage.set(K.custom(issuer!), struct({ amount: amount!, expires_at: option(expiry, u64) }));
        return unit();
      },
    ],
    remove_fee_custom: [
      1,
      (ctx, [issuer]) => {
        requireAdmin(ctx);
        arg.address(issuer!);
        ctx.storage.remove(K.custom(issuer!));
        return unit();
      },
    ],
    set_min_fee: [
      1,
      (ctx, [amount]) => {
        requireAdmin(ctx);
        checkAmount(ctx, arg.i128(amount!), false);
        ctx.storage.set(K.minFee, amount!, 'instance');
        return unit();
      },
    ],
    nominate_admin: [
      1,
      (ctx, [next]) => {
        requireAdmin(ctx);
        arg.address(next!);
        ctx.storage.set(K.pending, next!, 'instance');
        return unit();
      },
    ],
    accept_admin: [
      0,
      (ctx) => {
        admin(ctx);
        const pending = instance(ctx, K.pending) ?? fail('NoPendingAdmin');
        ctx.requireAuth(arg.address(pending));
        ctx.storage.set(K.admin, pending, 'instance');
        ctx.storage.remove(K.pending, 'instance');
        return unit();
      },
    ],
    get_admin: [0, (ctx) => address(admin(ctx))],
  },
  [
    2,
    (ctx, [adminV, wasm]) => {
      arg.address(adminV!);
      arg.bytesN(wasm!, 32);
      ctx.storage.set(K.admin, adminV!, 'instance');
      ctx.storage.set(K.wasm, wasm!, 'instance');
      ctx.storage.set(K.enabled, bool(false), 'instance');
      ctx.storage.set(K.minFee, i128(0), 'instance');
    },
  ],
);
