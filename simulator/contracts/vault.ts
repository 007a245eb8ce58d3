// vc-vault template 0.4.0 as in docs/chain-abi.md ("Vault"): one vault per (owner, user_salt), deployed by
// the factory; credentials, their status, the denied issuers, and `push` between two vaults of one owner.
//
// Storage. instance: Owner, Admin (vault_admin), ContractAdmin, Did, Factory, Revoked (bool), and the index
//   counters VcLen/VcCount/VcTail, DeniedLen/DeniedCount/DeniedTail;
// persistent: VC(id) → VerifiableCredential, Status(id) → VCStatus (both kept after revoke), the active
//   credential index Vc{Pos,At,Next,Rank} and the denied issuers Denied{Pos,At,Next,Rank} (see OrderedIndex:
//   insertion order, O(1) lookups, O(log n + limit) pages, flat at any size).
import { xdr } from '@stellar/stellar-sdk';
import { HostError, type ContractContext } from '../host.ts';
import { address, bool, enumVariant, i128, str, struct, sym, u32, unit, vec } from '../core/scval.ts';
import { VaultError, failWith } from './errors.ts';
import { OrderedIndex, arg, defineContract } from './support.ts';

const fail = failWith(VaultError);
const VERSION = str('0.4.0');
const MAX = { vcId: 64, vcData: 10_000, did: 256, date: 64, page: 200, batch: 5, denied: 1_000 };
const MAX_FEE = 10n ** 18n;

const K = {
  owner: vec([sym('Owner')]),
  admin: vec([sym('Admin')]),
  contractAdmin: vec([sym('ContractAdmin')]),
  did: vec([sym('Did')]),
  factory: vec([sym('Factory')]),
  revoked: vec([sym('Revoked')]),
  vc: sym('VC'),
  status: sym('Status'),
};
const vcKey = (id: xdr.ScVal): xdr.ScVal => vec([K.vc, id]);
const statusKey = (id: xdr.ScVal): xdr.ScVal => vec([K.status, id]);
const vcIndex = new OrderedIndex('Vc');
const deniedIndex = new OrderedIndex('Denied');

const VALID = enumVariant('Valid');
const INVALID = enumVariant('Invalid');
const VC_FIELDS = ['data', 'id', 'issuance_contract', 'issuer_did'] as const;
const QUOTE_FIELDS = ['amount', 'dest', 'enabled', 'token'] as const;

function instance(ctx: ContractContext, key: xdr.ScVal): xdr.ScVal {
  return ctx.storage.get(key, 'instance') ?? fail('VaultNotInitialized');
}
const ownerOf = (ctx: ContractContext): string => arg.address(instance(ctx, K.owner));
const adminOf = (ctx: ContractContext): string => arg.address(instance(ctx, K.admin));

function requireActive(ctx: ContractContext): void {
  if (arg.bool(instance(ctx, K.revoked))) fail('VaultRevoked');
}
function checkLen(v: xdr.ScVal, max: number): void {
  if (arg.stringBytes(v) > max) fail('InputTooLong');
}
function checkPageLimit(limit: xdr.ScVal): number {
  const n = arg.u32(limit);
  return n > MAX.page ? fail('LimitTooLarge') : n;
}

/** Issuance preconditions shared by issue and batch_issue, after the per-entry limits. */
function checkIssuable(ctx: ContractContext, vaultContract: xdr.ScVal, issuer: xdr.ScVal, issuerDid: xdr.ScVal): void {
  checkLen(issuerDid, MAX.did);
  if (arg.address(vaultContract) !== ctx.contractId) fail('InvalidVaultContract');
  requireActive(ctx);
  if (deniedIndex.has(ctx.storage, issuer)) fail('IssuerDenied');
}

/** Charges `quote_fee(issuer)` × n with one `token.transfer(issuer, dest, amount)`; the token checks the
 *  issuer's signature itself. */
function chargeFee(ctx: ContractContext, issuer: xdr.ScVal, n: number): void {
  const q = arg.struct(ctx.call(arg.address(instance(ctx, K.factory)), 'quote_fee', [issuer]), QUOTE_FIELDS);
  if (!arg.bool(q.enabled!)) return;
  const unitFee = arg.i128(q.amount!);
  if (unitFee < 0n || unitFee > MAX_FEE) fail('FeeOutOfBounds');
  if (unitFee === 0n) return;
  arg.address(q.dest!);
  ctx.call(arg.address(q.token!), 'transfer', [issuer, q.dest!, i128(unitFee * BigInt(n))]);
}

/** Stores a credential with `status`; a Valid one joins the active index. */
function store(ctx: ContractContext, vc: xdr.ScVal, id: xdr.ScVal, status: xdr.ScVal): void {
  ctx.storage.set(vcKey(id), vc);
  ctx.storage.set(statusKey(id), status);
  if (isValid(status) && !vcIndex.append(ctx.storage, id)) fail('VaultFull');
}

/** VCStatus → whether it is `Valid`; anything but Valid / Revoked(String) is not a VCStatus. */
function isValid(status: xdr.ScVal): boolean {
  if (status === VALID) return true;
  const { tag, values } = arg.variant(status);
  if (tag === 'Valid' && values.length === 0) return true;
  if (tag === 'Revoked' && values.length === 1) {
    arg.stringBytes(values[0]!); // the date
    return false;
  }
  throw new HostError(`Error(Value, UnexpectedType): not a VCStatus`, 'Value');
}

function issueOne(
  ctx: ContractContext,
  id: xdr.ScVal,
  data: xdr.ScVal,
  vaultContract: xdr.ScVal,
  issuer: xdr.ScVal,
  issuerDid: xdr.ScVal,
): void {
  const vc = struct({ id, data, issuance_contract: vaultContract, issuer_did: issuerDid });
  store(ctx, vc, id, VALID);
  ctx.emit([sym('vc_issued')], struct({ vc_id: id, issuer }));
}

export const vault = defineContract(
  'vc-vault 0.4.0',
  {
    issue: [
      5,
      (ctx, [vcId, vcData, vaultContract, issuer, issuerDid]) => {
        ctx.requireAuth(arg.address(issuer!));
        checkLen(vcId!, MAX.vcId);
        checkLen(vcData!, MAX.vcData);
        checkIssuable(ctx, vaultContract!, issuer!, issuerDid!);
        if (ctx.storage.has(vcKey(vcId!))) fail('VCAlreadyExists');
        chargeFee(ctx, issuer!, 1);
        issueOne(ctx, vcId!, vcData!, vaultContract!, issuer!, issuerDid!);
        return vcId!;
      },
    ],
    batch_issue: [
      4,
      (ctx, [issuer, vaultContract, issuerDid, vcs]) => {
        ctx.requireAuth(arg.address(issuer!));
        const entries = arg.vec(vcs!).map((t) => {
          const [id, data] = arg.tuple(t, 2);
          return { id: id!, data: data! };
        });
        if (entries.length === 0) fail('BatchEmpty');
        if (entries.length > MAX.batch) fail('BatchTooLarge');
        for (const e of entries) {
          checkLen(e.id, MAX.vcId);
          checkLen(e.data, MAX.vcData);
        }
        checkIssuable(ctx, vaultContract!, issuer!, issuerDid!);
        const ids = new Set<string>();
        for (const e of entries) {
          const id = arg.string(e.id);
          if (ids.has(id) || ctx.storage.has(vcKey(e.id))) fail('VCAlreadyExists');
          ids.add(id);
        }
        chargeFee(ctx, issuer!, entries.length);
        for (const e of entries) issueOne(ctx, e.id, e.data, vaultContract!, issuer!, issuerDid!);
        return vec(entries.map((e) => e.id));
      },
    ],
    revoke: [
      2,
      (ctx, [vcId, date]) => {
        ctx.requireAuth(ownerOf(ctx));
        checkLen(vcId!, MAX.vcId);
        checkLen(date!, MAX.date);
        requireActive(ctx);
        const status = ctx.storage.get(statusKey(vcId!)) ?? fail('VCNotFound');
        if (!isValid(status)) fail('VCAlreadyRevoked');
        ctx.storage.set(statusKey(vcId!), enumVariant('Revoked', date!));
        vcIndex.remove(ctx.storage, vcId!);
        ctx.emit([sym('vc_revoked')], struct({ vc_id: vcId!, date: date! }));
        return unit();
      },
    ],
    verify_vc: [1, (ctx, [vcId]) => ctx.storage.get(statusKey(arg.isString(vcId!))) ?? INVALID],
    get_vc: [1, (ctx, [vcId]) => ctx.storage.get(vcKey(arg.isString(vcId!))) ?? unit()],
    list_vc_ids: [
      2,
      (ctx, [offset, limit]) => vec(vcIndex.page(ctx.storage, arg.u32(offset!), checkPageLimit(limit!))),
    ],
    vc_count: [0, (ctx) => u32(vcIndex.count(ctx.storage))],
    deny_issuer: [
      1,
      (ctx, [issuer]) => {
        ctx.requireAuth(adminOf(ctx));
        arg.address(issuer!);
        requireActive(ctx);
        if (deniedIndex.has(ctx.storage, issuer!)) return unit(); // idempotent: no change, no event
        if (deniedIndex.count(ctx.storage) >= MAX.denied) fail('IssuerListTooLong');
        deniedIndex.append(ctx.storage, issuer!);
        ctx.emit([sym('issuer_denied')], struct({ issuer: issuer! }));
        return unit();
      },
    ],
    allow_issuer: [
      1,
      (ctx, [issuer]) => {
        ctx.requireAuth(adminOf(ctx));
        arg.address(issuer!);
        requireActive(ctx);
        if (deniedIndex.remove(ctx.storage, issuer!)) ctx.emit([sym('issuer_allowed')], struct({ issuer: issuer! }));
        return unit();
      },
    ],
    list_denied_issuers: [
      2,
      (ctx, [offset, limit]) => vec(deniedIndex.page(ctx.storage, arg.u32(offset!), checkPageLimit(limit!))),
    ],
    denied_issuer_count: [0, (ctx) => u32(deniedIndex.count(ctx.storage))],
    set_vault_did: [
      1,
      (ctx, [didUri]) => {
        ctx.requireAuth(ownerOf(ctx));
        checkLen(didUri!, MAX.did);
        requireActive(ctx);
        ctx.storage.set(K.did, didUri!, 'instance');
        ctx.emit([sym('vault_did_changed')], struct({ did_uri: didUri! }));
        return unit();
      },
    ],
    set_vault_admin: [
      1,
      (ctx, [newAdmin]) => {
        ctx.requireAuth(adminOf(ctx));
        arg.address(newAdmin!);
        requireActive(ctx);
        ctx.storage.set(K.admin, newAdmin!, 'instance');
        return unit();
      },
    ],
    revoke_vault: [
      0,
      (ctx) => {
        ctx.requireAuth(adminOf(ctx));
        requireActive(ctx);
        ctx.storage.set(K.revoked, bool(true), 'instance');
        ctx.emit([sym('vault_revoked')], struct({}));
        return unit();
      },
    ],
    push: [
      2,
      (ctx, [vcId, destVault]) => {
        ctx.requireAuth(adminOf(ctx));
        checkLen(vcId!, MAX.vcId);
        const dest = arg.address(destVault!);
        requireActive(ctx);
        const vc = ctx.storage.get(vcKey(vcId!)) ?? fail('VCNotFound');
        if (dest === ctx.contractId) fail('InvalidVaultContract'); // a contract cannot re-enter itself
        const status = ctx.storage.get(statusKey(vcId!))!;
        ctx.call(dest, 'receive_push', [address(ctx.contractId), instance(ctx, K.owner), vc, status]);
        ctx.storage.remove(vcKey(vcId!));
        ctx.storage.remove(statusKey(vcId!));
        vcIndex.remove(ctx.storage, vcId!);
        return unit();
      },
    ],
    // The destination half of `push` (not called by the service). The source vault is the invoker, so its
    // require_auth proves the call comes from it; the owner travels as an argument because calling back into
    // the source would be re-entry.
    receive_push: [
      4,
      (ctx, [source, sourceOwner, vc, status]) => {
        const from = arg.address(source!);
        ctx.requireAuth(from);
        const rec = arg.struct(vc!, VC_FIELDS);
        arg.stringBytes(rec.id!);
        isValid(status!);
        requireActive(ctx);
        if (!arg.bool(ctx.call(arg.address(instance(ctx, K.factory)), 'is_vault', [source!]))) fail('SourceNotAVault');
        if (arg.address(sourceOwner!) !== ownerOf(ctx)) fail('PushOwnerMismatch');
        if (ctx.storage.has(vcKey(rec.id!))) fail('VCAlreadyExists');
        store(ctx, vc!, rec.id!, status!);
        return unit();
      },
    ],
    version: [0, () => VERSION],
    vault_owner: [0, (ctx) => instance(ctx, K.owner)],
    vault_did: [0, (ctx) => ctx.storage.get(K.did, 'instance') ?? unit()],
  },
  [
    4,
    (ctx, [vaultOwner, contractAdmin, didUri, factoryId]) => {
      arg.address(vaultOwner!);
      arg.address(contractAdmin!);
      arg.address(factoryId!);
      checkLen(didUri!, MAX.did);
      ctx.storage.set(K.owner, vaultOwner!, 'instance');
      ctx.storage.set(K.admin, vaultOwner!, 'instance');
      ctx.storage.set(K.contractAdmin, contractAdmin!, 'instance'); // kept; no 0.4.0 function uses it
      ctx.storage.set(K.did, didUri!, 'instance');
      ctx.storage.set(K.factory, factoryId!, 'instance');
      ctx.storage.set(K.revoked, bool(false), 'instance');
    },
  ],
);
