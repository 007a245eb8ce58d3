// Scenarios over several operations of the HTTP-level model, and the generators of every command: a
// signed transaction posted to the wrong route, two writes prepared on one state and submitted in turn,
// commands aimed at what exists in the model (random ids rarely meet an issued credential).
import fc from 'fast-check';
import { WALLET_NAMES, type WalletName } from './model-env.ts';
import {
  BatchIssue,
  CreateVault,
  GetVc,
  Issue,
  IssuerAccess,
  ListVcIds,
  OpenRead,
  Push,
  RevokeVault,
  RevokeVc,
  SponsoredCreate,
  VC_IDS,
  Verify,
  credential,
  saltBody,
  type Cmd,
  type DidChoice,
  type VaultContract,
} from './vault-commands.ts';
import { OK, failsAt, newVault, vaultKey, type Model, type Real, type Slot } from './vault-model.ts';

/** Contract write routes; a transaction signed for one of them must be refused by every other. */
const WRITE_ROUTES = [
  '/contracts/vc/issue',
  '/contracts/vc/batch-issue',
  '/contracts/vc/revoke',
  '/contracts/vault/create',
  '/contracts/vault/deny-issuer',
  '/contracts/vault/revoke-issuer',
  '/contracts/vault/allow-issuer',
  '/contracts/vault/authorize-issuer',
  '/contracts/vault/set-vault-did',
  '/contracts/vault/push',
  '/contracts/vault/revoke-vault',
  '/contracts/vault/set-new-owner',
  '/contracts/sponsored-vault/create',
] as const;
/** Routes that accept the same contract function (aliases). */
const SAME_FUNCTION: Record<string, string[]> = {
  '/contracts/vault/create': ['/contracts/vault/create'],
  '/contracts/vault/deny-issuer': ['/contracts/vault/deny-issuer', '/contracts/vault/revoke-issuer'],
};

/** A transaction signed for one route, posted to another: 400 tx_operation_mismatch, nothing lands. */
class WrongRoute implements Cmd {
  readonly owner: WalletName;
  readonly slot: Slot;
  readonly key: 'alice' | 'bob' | 'admin';
  readonly pick: number;
  readonly thenRight: boolean;
  constructor(owner: WalletName, slot: Slot, key: 'alice' | 'bob' | 'admin', pick: number, thenRight: boolean) {
    this.owner = owner;
    this.slot = slot;
    this.key = key;
    this.pick = pick;
    this.thenRight = thenRight;
  }
  check = (m: Readonly<Model>) => !m.vaults.get(vaultKey(this.owner, this.slot))?.revoked;
  private plan(m: Model, r: Real) {
    const o = r.wallet(this.owner);
    const exists = m.vaults.has(vaultKey(this.owner, this.slot));
    const right = exists ? '/contracts/vault/deny-issuer' : '/contracts/vault/create';
    const body = exists
      ? { owner: o.id, issuer: r.wallet('lim').id, sourcePublicKey: o.id, ...saltBody(r, this.slot) }
      : { owner: o.id, didUri: o.did, sourcePublicKey: o.id, ...saltBody(r, this.slot) };
    const wrong = WRITE_ROUTES.filter((p) => !SAME_FUNCTION[right]!.includes(p));
    return { right, body, wrong: wrong[this.pick % wrong.length]! };
  }
  async run(m: Model, r: Real) {
    const { right, body, wrong } = this.plan(m, r);
    const o = r.wallet(this.owner);
    const what = `${this.toString()}: ${right} signed, posted to ${wrong}`;
    const signed = await r.prepareAndSign(this.key, right, body, [o.kp], what);
    r.expectError(await r.post(this.key, wrong, signed), 400, 'tx_operation_mismatch', what);
    if (!this.thenRight) return;
    // The refused transaction was not consumed: the right route still takes it.
    await r.submit(this.key, right, signed, OK, `${what}, then to ${right}`);
    const v = m.vaults.get(vaultKey(this.owner, this.slot));
    if (!v) m.vaults.set(vaultKey(this.owner, this.slot), newVault(o.did));
    else if (!v.denied.includes('lim')) v.denied.push('lim');
  }
  toString = () =>
    `wrongRoute(${this.owner}/${this.slot} via ${this.key} #${this.pick}${this.thenRight ? ' then right route' : ''})`;
}

/**
 * Two writes prepared on the same state, submitted one after the other: the second was valid when
 * prepared and fails on-chain at submit, and the answer carries the contract's code (not a generic
 * failure). doubleIssue: two issuers, one vcId; denyBetween: the owner denies the issuer in between;
 * revokeVaultBetween: the owner revokes the vault in between. The owner's write goes through the admin
 * key (no binding on these routes, every scope); the signatures are the wallets'.
 */
type StaleKind = 'doubleIssue' | 'denyBetween' | 'revokeVaultBetween';

class Stale implements Cmd {
  readonly kind: StaleKind;
  readonly owner: WalletName;
  readonly slot: Slot;
  readonly issuer: WalletName;
  readonly other: WalletName;
  readonly vcId: string;
  constructor(kind: StaleKind, owner: WalletName, slot: Slot, issuer: WalletName, other: WalletName, vcId: string) {
    this.kind = kind;
    this.owner = owner;
    this.slot = slot;
    this.issuer = issuer;
    this.other = other;
    this.vcId = vcId;
  }
  check = (m: Readonly<Model>) => {
    const v = m.vaults.get(vaultKey(this.owner, this.slot));
    const free = (i: WalletName) => !v!.denied.includes(i);
    if (!v || v.revoked || v.vcs.has(this.vcId) || !free(this.issuer)) return false;
    // Distinct transaction sources, or the second would fail on its sequence number instead.
    return this.kind === 'doubleIssue' ? this.other !== this.issuer && free(this.other) : this.issuer !== this.owner;
  };
  async run(m: Model, r: Real) {
    const v = m.vaults.get(vaultKey(this.owner, this.slot))!;
    const [I, O] = [r.wallet(this.issuer), r.wallet(this.owner)];
    const issueBody = (w: typeof I) => ({
      owner: O.id,
      vcId: this.vcId,
      vcData: credential(w.did, O.did, `stale ${w.name}`),
      issuer: w.id,
      issuerDid: w.did,
      sourcePublicKey: w.id,
      ...saltBody(r, this.slot),
    });
    const what = this.toString();
    const first = await r.prepareAndSign(this.issuer, '/contracts/vc/issue', issueBody(I), [I.kp], what);
    const land = () => {
      v.vcs.set(this.vcId, { vcData: issueBody(I).vcData, status: { kind: 'valid' } });
      v.active.push(this.vcId);
    };
    if (this.kind === 'doubleIssue') {
      const X = r.wallet(this.other);
      const second = await r.prepareAndSign(this.other, '/contracts/vc/issue', issueBody(X), [X.kp], what);
      await r.submit(this.issuer, '/contracts/vc/issue', first, OK, `${what}: first`);
      land();
      await r.submit(
        this.other,
        '/contracts/vc/issue',
        second,
        failsAt('submit', 409, 'vc_already_exists'),
        `${what}: second`,
      );
      return;
    }
    const [path, body, after, code] =
      this.kind === 'denyBetween'
        ? ([
            '/contracts/vault/deny-issuer',
            { owner: O.id, issuer: I.id, sourcePublicKey: O.id, ...saltBody(r, this.slot) },
            () => v.denied.push(this.issuer),
            [403, 'issuer_denied'],
          ] as const)
        : ([
            '/contracts/vault/revoke-vault',
            { owner: O.id, sourcePublicKey: O.id, ...saltBody(r, this.slot) },
            () => (v.revoked = true),
            [409, 'vault_revoked'],
          ] as const);
    await r.write('admin', path, body, [O.kp], OK, `${what}: in between`);
    after();
    await r.submit(
      this.issuer,
      '/contracts/vc/issue',
      first,
      failsAt('submit', code[0], code[1]),
      `${what}: the issue prepared before`,
    );
  }
  toString = () =>
    `stale:${this.kind}(${this.issuer}${this.kind === 'doubleIssue' ? ` and ${this.other}` : ''} → ${this.owner}/${this.slot} ${this.vcId})`;
}

/**
 * A command on something that exists in the model, chosen at run time (`pick` modulo the candidates):
 * random ids rarely meet an issued credential or a denied issuer, and these paths need one.
 * - revoke: a valid credential; revokeAgain: a revoked one (409 vc_already_revoked);
 * - push: a credential of a salted vault, to its owner's canonical vault; get: any credential;
 * - issueDenied: an issuer a vault denies issues into it (403 issuer_denied).
 */
type ExistingKind = 'revoke' | 'revokeAgain' | 'push' | 'get' | 'issueDenied';

class OnExisting implements Cmd {
  private inner: Cmd | undefined;
  readonly kind: ExistingKind;
  readonly pick: number;
  readonly date: string | undefined;
  constructor(kind: ExistingKind, pick: number, date: string | undefined) {
    this.kind = kind;
    this.pick = pick;
    this.date = date;
  }
  private candidates(m: Readonly<Model>): Cmd[] {
    const out: Cmd[] = [];
    for (const [key, v] of [...m.vaults].sort(([a], [b]) => a.localeCompare(b))) {
      const [owner, slot] = key.split('/') as [WalletName, Slot];
      if (this.kind === 'issueDenied') {
        for (const issuer of v.denied)
          out.push(new Issue(issuer, owner, slot, 'vc-new', 'own', 'denied', undefined, undefined, false));
        continue;
      }
      for (const [vcId, vc] of v.vcs) {
        const valid = vc.status.kind === 'valid';
        if (this.kind === 'revoke' && valid) out.push(new RevokeVc(owner, slot, vcId, this.date, undefined, undefined));
        if (this.kind === 'revokeAgain' && !valid)
          out.push(new RevokeVc(owner, slot, vcId, this.date, undefined, undefined));
        if (this.kind === 'push' && slot === 's')
          out.push(new Push(owner, 's', owner, vcId, undefined, undefined, false));
        if (this.kind === 'get') out.push(new GetVc(owner, slot, vcId, undefined));
      }
    }
    return out;
  }
  check = (m: Readonly<Model>) => this.candidates(m).length > 0;
  async run(m: Model, r: Real) {
    const c = this.candidates(m);
    this.inner = c[this.pick % c.length]!;
    await this.inner.run(m, r);
  }
  toString = () => (this.inner ? `${this.inner}` : `${this.kind}(existing #${this.pick})`);
}

// ---- generators ----

const wallet = fc.constantFrom<WalletName>(...WALLET_NAMES);
/** Owners lean to the two standard wallets so that sequences meet the same vaults again. */
const owner = fc.constantFrom<WalletName>('alice', 'alice', 'bob', 'bob', 'lim', 'admin');
const slot = fc.constantFrom<Slot>('c', 's');
const vcId = fc.constantFrom(VC_IDS[0], VC_IDS[0], VC_IDS[1], VC_IDS[1], VC_IDS[2], VC_IDS[3]);
/** Mostly the wallet's own key; sometimes another wallet's (the hostile and admin cases). */
const otherKey = fc.option(wallet, { freq: 3, nil: undefined });
const date = fc.option(
  fc
    .date({ min: new Date('2026-01-01T00:00:00Z'), max: new Date('2030-12-31T00:00:00Z'), noInvalidDate: true })
    .map((d) => d.toISOString()),
  { nil: undefined },
);
const vaultContract = fc.constantFrom<VaultContract>(undefined, undefined, undefined, 'right', 'wrong');
const offset = fc.option(fc.nat({ max: 6 }), { freq: 2, nil: undefined });
const limit = fc.option(fc.oneof(fc.integer({ min: 1, max: 6 }), fc.constantFrom(200, 201, 500)), {
  freq: 2,
  nil: undefined,
});

/** Commands, the everyday ones listed more than once (fc.commands picks among the entries uniformly). */
export const commandArbs: fc.Arbitrary<Cmd>[] = [
  // vaults
  fc.tuple(owner, slot).map(([o, s]) => new CreateVault(o, s, undefined, false)),
  fc.tuple(owner, slot, otherKey, fc.boolean()).map(([o, s, k, z]) => new CreateVault(o, s, k, z)),
  fc.tuple(owner, slot, otherKey).map((a) => new RevokeVault(...a)),
  fc.tuple(wallet, owner, slot, otherKey).map((a) => new SponsoredCreate(...a)),
  // issuance: the issuer's own key and DID; then every other combination (hostile keys and DIDs, stolen submits)
  fc
    .tuple(wallet, owner, slot, vcId, fc.string({ maxLength: 8 }))
    .map(([i, o, s, id, n]) => new Issue(i, o, s, id, 'own', n, undefined, undefined, false)),
  fc
    .tuple(wallet, owner, slot, vcId, fc.string({ unit: 'grapheme', maxLength: 12 }), fc.boolean())
    .map(([i, o, s, id, n, rp]) => new Issue(i, o, s, id, 'own', n, undefined, undefined, rp)),
  fc
    .tuple(
      wallet,
      owner,
      slot,
      vcId,
      fc.constantFrom<DidChoice>('own', 'own', 'other', 'unregistered', 'otherNetwork', 'pkh'),
      fc.string({ maxLength: 8 }),
      otherKey,
      fc.option(wallet, { freq: 2, nil: undefined }),
      fc.boolean(),
      fc.option(wallet, { freq: 4, nil: undefined }),
    )
    .map((a) => new Issue(...a)),
  fc
    .tuple(wallet, owner, slot, fc.array(vcId, { minLength: 1, maxLength: 3 }), otherKey)
    .map((a) => new BatchIssue(...a)),
  // revocation: the owner's key and signature, or another wallet's key or signature
  fc.tuple(owner, slot, vcId, date).map(([o, s, id, d]) => new RevokeVc(o, s, id, d, undefined, undefined)),
  fc
    .tuple(owner, slot, vcId, date, otherKey, fc.option(wallet, { freq: 2, nil: undefined }))
    .map((a) => new RevokeVc(...a)),
  // issuer access
  fc.tuple(fc.boolean(), fc.boolean(), owner, slot, wallet, otherKey).map((a) => new IssuerAccess(...a)),
  // push: salted → canonical of the same owner; then every other combination
  fc.tuple(owner, vcId, fc.boolean()).map(([f, id, rp]) => new Push(f, 's', f, id, undefined, undefined, rp)),
  fc
    .tuple(
      owner,
      fc.constantFrom<Slot>('s', 's', 'c'),
      fc.constantFrom<WalletName>('alice', 'bob', 'lim', 'admin'),
      vcId,
      otherKey,
      fc.option(wallet, { freq: 2, nil: undefined }),
      fc.boolean(),
      fc.option(wallet, { freq: 4, nil: undefined }),
    )
    .map((a) => new Push(...a)),
  fc
    .tuple(owner, slot, fc.constantFrom('alice', 'bob', 'admin' as const), fc.nat({ max: 20 }), fc.boolean())
    .map((a) => new WrongRoute(...a)),
  // on credentials that exist
  fc
    .tuple(
      fc.constantFrom<ExistingKind>('revoke', 'revokeAgain', 'push', 'get', 'issueDenied'),
      fc.nat({ max: 30 }),
      date,
    )
    .map((a) => new OnExisting(...a)),
  fc.tuple(fc.constantFrom<ExistingKind>('revoke', 'push'), fc.nat({ max: 30 }), date).map((a) => new OnExisting(...a)),
  fc
    .tuple(
      fc.constantFrom<StaleKind>('doubleIssue', 'denyBetween', 'revokeVaultBetween'),
      owner,
      slot,
      wallet,
      wallet,
      vcId,
    )
    .map((a) => new Stale(...a)),
  // reads
  fc.tuple(owner, slot, vcId, wallet, vaultContract).map((a) => new Verify(...a)),
  fc.tuple(owner, slot, vcId, otherKey, vaultContract).map((a) => new GetVc(...a)),
  fc.tuple(owner, slot, offset, limit, otherKey).map((a) => new ListVcIds(...a)),
  fc
    .tuple(fc.constantFrom('vcCount', 'denied', 'deniedCount', 'metadata' as const), owner, slot, offset, limit, wallet)
    .map((a) => new OpenRead(...a)),
];
