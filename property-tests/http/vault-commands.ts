// The commands of the HTTP-level model, one per operation: every one sends real requests with a wallet's
// key, signs with real keys, predicts the exact answer from the model (vault-api.yaml: the pipeline order
// scope → validation → binding → chain, and the contract's own order of checks), checks it, and applies
// what landed. The hostile cases are the same commands with another wallet's key or signature: reading or
// moving another wallet's credentials, issuing as someone else, submitting someone else's signed
// transaction, signing an owner's revocation with another key. Scenarios over several operations and the
// generators are in vault-scenarios.ts.
import fc from 'fast-check';
import { WALLET_NAMES, type WalletName } from './model-env.ts';
import {
  OK,
  SCOPE,
  boundTo,
  checkVerify,
  failsAt,
  hasScope,
  metadataOf,
  newVault,
  vaultKey,
  type Model,
  type Real,
  type Slot,
  type WriteOutcome,
} from './vault-model.ts';

export type Cmd = fc.AsyncCommand<Model, Real>;

const ZERO_SALT = '0'.repeat(64);
/** Few ids, so that sequences meet the same credential again (64 characters is the longest vcId). */
export const VC_IDS = ['vc-0', 'vc-1', 'vc-2', `max-${'x'.repeat(60)}`] as const;

export const saltBody = (r: Real, slot: Slot, zeroSalt = false): { userSalt?: string } =>
  slot === 's' ? { userSalt: r.world.salt } : zeroSalt ? { userSalt: ZERO_SALT } : {};

/** A W3C VC 2.0 credential whose holder is the owner's DID (vcData). */
export function credential(issuerDid: string, holderDid: string, note: string): string {
  return JSON.stringify({
    '@context': ['https://www.w3.org/ns/credentials/v2'],
    type: ['VerifiableCredential', 'ModelCredential'],
    issuer: issuerDid,
    credentialSubject: { id: holderDid, note },
  });
}

/** The same write outcome, or the failure `f` when no earlier failure applies. */
export const firstOf = (...checks: [boolean, WriteOutcome][]): WriteOutcome => checks.find(([c]) => c)?.[1] ?? OK;

export const via = (v: WalletName | undefined, dflt: WalletName) => v ?? dflt;
export const viaText = (v: WalletName | undefined, dflt: WalletName) => (v && v !== dflt ? ` via ${v}` : '');

export class CreateVault implements Cmd {
  readonly owner: WalletName;
  readonly slot: Slot;
  readonly key: WalletName | undefined;
  readonly zeroSalt: boolean;
  constructor(owner: WalletName, slot: Slot, key: WalletName | undefined, zeroSalt: boolean) {
    this.owner = owner;
    this.slot = slot;
    this.key = key;
    this.zeroSalt = zeroSalt;
  }
  check = () => true;
  async run(m: Model, r: Real) {
    const k = via(this.key, this.owner);
    const o = r.wallet(this.owner);
    const expected = firstOf(
      [!hasScope(r.wallet(k), SCOPE.vaultWrite), failsAt('prepare', 403, 'insufficient_scope')],
      [m.vaults.has(vaultKey(this.owner, this.slot)), failsAt('prepare', 409, 'vault_already_deployed')],
    );
    const body = { owner: o.id, didUri: o.did, sourcePublicKey: o.id, ...saltBody(r, this.slot, this.zeroSalt) };
    if (await r.write(k, '/contracts/vault/create', body, [o.kp], expected, this.toString())) {
      m.vaults.set(vaultKey(this.owner, this.slot), newVault(o.did));
    }
  }
  toString = () =>
    `create(${this.owner}/${this.slot}${this.zeroSalt && this.slot === 'c' ? ' explicit zero salt' : ''}${viaText(this.key, this.owner)})`;
}

/** sponsored-vault/create: the sponsor signs and pays; `sponsor` must be the key's wallet (admin exempt). */
export class SponsoredCreate implements Cmd {
  readonly sponsor: WalletName;
  readonly owner: WalletName;
  readonly slot: Slot;
  readonly key: WalletName | undefined;
  constructor(sponsor: WalletName, owner: WalletName, slot: Slot, key: WalletName | undefined) {
    this.sponsor = sponsor;
    this.owner = owner;
    this.slot = slot;
    this.key = key;
  }
  check = () => true;
  async run(m: Model, r: Real) {
    const k = via(this.key, this.sponsor);
    const [K, S, O] = [r.wallet(k), r.wallet(this.sponsor), r.wallet(this.owner)];
    const expected = firstOf(
      [!hasScope(K, SCOPE.sponsor), failsAt('prepare', 403, 'insufficient_scope')],
      [!boundTo(K, S), failsAt('prepare', 403, 'forbidden')],
      [m.vaults.has(vaultKey(this.owner, this.slot)), failsAt('prepare', 409, 'vault_already_deployed')],
    );
    const body = { sponsor: S.id, owner: O.id, didUri: O.did, sourcePublicKey: S.id, ...saltBody(r, this.slot) };
    if (await r.write(k, '/contracts/sponsored-vault/create', body, [S.kp], expected, this.toString())) {
      m.vaults.set(vaultKey(this.owner, this.slot), newVault(O.did));
    }
  }
  toString = () => `sponsoredCreate(${this.sponsor} for ${this.owner}/${this.slot}${viaText(this.key, this.sponsor)})`;
}

export type DidChoice = 'own' | 'other' | 'unregistered' | 'otherNetwork' | 'pkh';

export class Issue implements Cmd {
  readonly issuer: WalletName;
  readonly owner: WalletName;
  readonly slot: Slot;
  readonly vcId: string;
  readonly did: DidChoice;
  readonly note: string;
  readonly key: WalletName | undefined;
  readonly submitKey: WalletName | undefined;
  readonly replay: boolean;
  readonly source: WalletName | undefined;
  constructor(
    issuer: WalletName,
    owner: WalletName,
    slot: Slot,
    vcId: string,
    did: DidChoice,
    note: string,
    key: WalletName | undefined,
    submitKey: WalletName | undefined,
    replay: boolean,
    /** sourcePublicKey when it is not the issuer: 403 for every key, admin included (a route rule). */
    source: WalletName | undefined = undefined,
  ) {
    this.issuer = issuer;
    this.owner = owner;
    this.slot = slot;
    this.vcId = vcId;
    this.did = did;
    this.note = note;
    this.key = key;
    this.submitKey = submitKey;
    this.replay = replay;
    this.source = source;
  }
  check = () => true;
  async run(m: Model, r: Real) {
    const k = via(this.key, this.issuer);
    const s = via(this.submitKey, k);
    const [K, S, I, O] = [r.wallet(k), r.wallet(s), r.wallet(this.issuer), r.wallet(this.owner)];
    const other = WALLET_NAMES.find((n) => n !== this.issuer)!;
    const issuerDid = {
      own: I.did,
      other: r.wallet(other).did,
      unregistered: r.world.unregisteredDid,
      otherNetwork: r.world.otherNetworkDid,
      pkh: `did:pkh:eip155:1:0x${'ab'.repeat(20)}`,
    }[this.did];
    const v = m.vaults.get(vaultKey(this.owner, this.slot));
    const expected = firstOf(
      [!hasScope(K, SCOPE.issue), failsAt('prepare', 403, 'insufficient_scope')],
      [this.did === 'pkh', failsAt('prepare', 400, 'issuerDid_invalid')],
      [!boundTo(K, I), failsAt('prepare', 403, 'forbidden')],
      [via(this.source, this.issuer) !== this.issuer, failsAt('prepare', 403, 'forbidden')],
      [this.did === 'otherNetwork', failsAt('prepare', 400, 'issuerDid_network_mismatch')],
      [this.did === 'unregistered', failsAt('prepare', 400, 'issuerDid_not_found')],
      [this.did === 'other', failsAt('prepare', 400, 'issuerDid_controller_mismatch')],
      [!v, failsAt('prepare', 404, 'vault_not_found')],
      [!!v?.revoked, failsAt('prepare', 409, 'vault_revoked')],
      [!!v?.denied.includes(this.issuer), failsAt('prepare', 403, 'issuer_denied')],
      [!!v?.vcs.has(this.vcId), failsAt('prepare', 409, 'vc_already_exists')],
      [!hasScope(S, SCOPE.issue), failsAt('submit', 403, 'insufficient_scope')],
      [!boundTo(S, I), failsAt('submit', 403, 'forbidden')],
    );
    const vcData = credential(issuerDid, O.did, this.note);
    const body = {
      owner: O.id,
      vcId: this.vcId,
      vcData,
      issuer: I.id,
      issuerDid,
      sourcePublicKey: r.wallet(via(this.source, this.issuer)).id,
      ...saltBody(r, this.slot),
    };
    if (
      await r.write(k, '/contracts/vc/issue', body, [I.kp], expected, this.toString(), {
        submitVia: s,
        replay: this.replay,
      })
    ) {
      v!.vcs.set(this.vcId, { vcData, status: { kind: 'valid' } });
      v!.active.push(this.vcId);
    }
  }
  toString = () =>
    `issue(${this.issuer} → ${this.owner}/${this.slot} ${this.vcId}${this.did !== 'own' ? ` did=${this.did}` : ''}${viaText(this.key, this.issuer)}` +
    `${this.source && this.source !== this.issuer ? ` sourcePublicKey=${this.source}` : ''}` +
    `${this.submitKey && this.submitKey !== via(this.key, this.issuer) ? ` submitted via ${this.submitKey}` : ''}${this.replay ? ' +replay' : ''})`;
}

export class BatchIssue implements Cmd {
  readonly issuer: WalletName;
  readonly owner: WalletName;
  readonly slot: Slot;
  readonly vcIds: string[];
  readonly key: WalletName | undefined;
  constructor(issuer: WalletName, owner: WalletName, slot: Slot, vcIds: string[], key: WalletName | undefined) {
    this.issuer = issuer;
    this.owner = owner;
    this.slot = slot;
    this.vcIds = vcIds;
    this.key = key;
  }
  check = () => true;
  async run(m: Model, r: Real) {
    const k = via(this.key, this.issuer);
    const [K, I, O] = [r.wallet(k), r.wallet(this.issuer), r.wallet(this.owner)];
    const v = m.vaults.get(vaultKey(this.owner, this.slot));
    const duplicate = new Set(this.vcIds).size !== this.vcIds.length || this.vcIds.some((id) => v?.vcs.has(id));
    const expected = firstOf(
      [!hasScope(K, SCOPE.issue), failsAt('prepare', 403, 'insufficient_scope')],
      [!boundTo(K, I), failsAt('prepare', 403, 'forbidden')],
      [!v, failsAt('prepare', 404, 'vault_not_found')],
      [!!v?.revoked, failsAt('prepare', 409, 'vault_revoked')],
      [!!v?.denied.includes(this.issuer), failsAt('prepare', 403, 'issuer_denied')],
      [duplicate, failsAt('prepare', 409, 'vc_already_exists')],
    );
    const vcs = this.vcIds.map((vcId, i) => ({ vcId, vcData: credential(I.did, O.did, `batch ${i}`) }));
    const body = { owner: O.id, issuer: I.id, issuerDid: I.did, vcs, sourcePublicKey: I.id, ...saltBody(r, this.slot) };
    if (await r.write(k, '/contracts/vc/batch-issue', body, [I.kp], expected, this.toString())) {
      for (const c of vcs) {
        v!.vcs.set(c.vcId, { vcData: c.vcData, status: { kind: 'valid' } });
        v!.active.push(c.vcId);
      }
    }
  }
  toString = () =>
    `batchIssue(${this.issuer} → ${this.owner}/${this.slot} [${this.vcIds.join(', ')}]${viaText(this.key, this.issuer)})`;
}

export class RevokeVc implements Cmd {
  readonly owner: WalletName;
  readonly slot: Slot;
  readonly vcId: string;
  readonly date: string | undefined;
  readonly key: WalletName | undefined;
  readonly signer: WalletName | undefined;
  constructor(
    owner: WalletName,
    slot: Slot,
    vcId: string,
    date: string | undefined,
    key: WalletName | undefined,
    signer: WalletName | undefined,
  ) {
    this.owner = owner;
    this.slot = slot;
    this.vcId = vcId;
    this.date = date;
    this.key = key;
    this.signer = signer;
  }
  check = () => true;
  async run(m: Model, r: Real) {
    const k = via(this.key, this.owner);
    const signer = r.wallet(via(this.signer, this.owner));
    const v = m.vaults.get(vaultKey(this.owner, this.slot));
    const vc = v?.vcs.get(this.vcId);
    const expected = firstOf(
      [!hasScope(r.wallet(k), SCOPE.revoke), failsAt('prepare', 403, 'insufficient_scope')],
      [!v, failsAt('prepare', 404, 'vault_not_found')],
      [!!v?.revoked, failsAt('prepare', 409, 'vault_revoked')],
      [!vc, failsAt('prepare', 404, 'vc_not_found')],
      [vc?.status.kind === 'revoked', failsAt('prepare', 409, 'vc_already_revoked')],
      // The contract requires the owner's signature; another wallet can prepare, sign and send, never land.
      [signer.name !== this.owner, failsAt('submit', 400, 'tx_failed')],
    );
    const body = {
      owner: r.wallet(this.owner).id,
      vcId: this.vcId,
      sourcePublicKey: signer.id,
      ...(this.date ? { date: this.date } : {}),
      ...saltBody(r, this.slot),
    };
    if (await r.write(k, '/contracts/vc/revoke', body, [signer.kp], expected, this.toString())) {
      vc!.status = { kind: 'revoked', date: this.date };
      v!.active = v!.active.filter((id) => id !== this.vcId);
    }
  }
  toString = () =>
    `revoke(${this.owner}/${this.slot} ${this.vcId}${this.date ? ` date=${this.date}` : ''}${viaText(this.key, this.owner)}${this.signer && this.signer !== this.owner ? ` signed by ${this.signer}` : ''})`;
}

export class IssuerAccess implements Cmd {
  readonly deny: boolean;
  readonly alias: boolean;
  readonly owner: WalletName;
  readonly slot: Slot;
  readonly target: WalletName;
  readonly key: WalletName | undefined;
  constructor(
    deny: boolean,
    alias: boolean,
    owner: WalletName,
    slot: Slot,
    target: WalletName,
    key: WalletName | undefined,
  ) {
    this.deny = deny;
    this.alias = alias;
    this.owner = owner;
    this.slot = slot;
    this.target = target;
    this.key = key;
  }
  check = () => true;
  async run(m: Model, r: Real) {
    const k = via(this.key, this.owner);
    const o = r.wallet(this.owner);
    const v = m.vaults.get(vaultKey(this.owner, this.slot));
    const expected = firstOf(
      [!hasScope(r.wallet(k), SCOPE.vaultAdmin), failsAt('prepare', 403, 'insufficient_scope')],
      [!v, failsAt('prepare', 404, 'vault_not_found')],
      [!!v?.revoked, failsAt('prepare', 409, 'vault_revoked')],
    );
    const path = `/contracts/vault/${this.deny ? (this.alias ? 'revoke-issuer' : 'deny-issuer') : this.alias ? 'authorize-issuer' : 'allow-issuer'}`;
    const body = { owner: o.id, issuer: r.wallet(this.target).id, sourcePublicKey: o.id, ...saltBody(r, this.slot) };
    if (await r.write(k, path, body, [o.kp], expected, this.toString())) {
      if (this.deny && !v!.denied.includes(this.target)) v!.denied.push(this.target);
      if (!this.deny) v!.denied = v!.denied.filter((n) => n !== this.target);
    }
  }
  toString = () =>
    `${this.deny ? 'deny' : 'allow'}${this.alias ? '(alias)' : ''}(${this.owner}/${this.slot} ${this.target}${viaText(this.key, this.owner)})`;
}

export class RevokeVault implements Cmd {
  readonly owner: WalletName;
  readonly slot: Slot;
  readonly key: WalletName | undefined;
  constructor(owner: WalletName, slot: Slot, key: WalletName | undefined) {
    this.owner = owner;
    this.slot = slot;
    this.key = key;
  }
  check = () => true;
  async run(m: Model, r: Real) {
    const k = via(this.key, this.owner);
    const o = r.wallet(this.owner);
    const v = m.vaults.get(vaultKey(this.owner, this.slot));
    const expected = firstOf(
      [!hasScope(r.wallet(k), SCOPE.vaultWrite), failsAt('prepare', 403, 'insufficient_scope')],
      [!v, failsAt('prepare', 404, 'vault_not_found')],
      [!!v?.revoked, failsAt('prepare', 409, 'vault_revoked')],
    );
    if (
      await r.write(
        k,
        '/contracts/vault/revoke-vault',
        { owner: o.id, sourcePublicKey: o.id, ...saltBody(r, this.slot) },
        [o.kp],
        expected,
        this.toString(),
      )
    ) {
      v!.revoked = true;
    }
  }
  toString = () => `revokeVault(${this.owner}/${this.slot}${viaText(this.key, this.owner)})`;
}

export class Push implements Cmd {
  readonly from: WalletName;
  readonly fromSlot: Slot;
  readonly to: WalletName;
  readonly vcId: string;
  readonly key: WalletName | undefined;
  readonly submitKey: WalletName | undefined;
  readonly replay: boolean;
  readonly source: WalletName | undefined;
  constructor(
    from: WalletName,
    fromSlot: Slot,
    to: WalletName,
    vcId: string,
    key: WalletName | undefined,
    submitKey: WalletName | undefined,
    replay: boolean,
    /** sourcePublicKey when it is not fromOwner: 403 for every key. */
    source: WalletName | undefined = undefined,
  ) {
    this.from = from;
    this.fromSlot = fromSlot;
    this.to = to;
    this.vcId = vcId;
    this.key = key;
    this.submitKey = submitKey;
    this.replay = replay;
    this.source = source;
  }
  check = () => true;
  async run(m: Model, r: Real) {
    const k = via(this.key, this.from);
    const s = via(this.submitKey, k);
    const [K, S, F, T] = [r.wallet(k), r.wallet(s), r.wallet(this.from), r.wallet(this.to)];
    const src = m.vaults.get(vaultKey(this.from, this.fromSlot));
    const dst = m.vaults.get(vaultKey(this.to, 'c'));
    const expected = firstOf(
      [!hasScope(K, SCOPE.vaultWrite), failsAt('prepare', 403, 'insufficient_scope')],
      [!boundTo(K, F), failsAt('prepare', 403, 'forbidden')],
      [via(this.source, this.from) !== this.from, failsAt('prepare', 403, 'forbidden')],
      [this.fromSlot === 'c' && this.to === this.from, failsAt('prepare', 400, 'invalid_request')],
      [!src || !dst, failsAt('prepare', 404, 'vault_not_found')],
      [!!src?.revoked, failsAt('prepare', 409, 'vault_revoked')],
      [!src?.vcs.has(this.vcId), failsAt('prepare', 404, 'vc_not_found')],
      [!!dst?.revoked, failsAt('prepare', 409, 'vault_revoked')],
      [this.to !== this.from, failsAt('prepare', 400, 'push_owner_mismatch')],
      [!!dst?.vcs.has(this.vcId), failsAt('prepare', 409, 'vc_already_exists')],
      [!hasScope(S, SCOPE.vaultWrite), failsAt('submit', 403, 'insufficient_scope')],
      [!boundTo(S, F), failsAt('submit', 403, 'forbidden')],
    );
    const body = {
      fromOwner: F.id,
      toOwner: T.id,
      vcId: this.vcId,
      sourcePublicKey: r.wallet(via(this.source, this.from)).id,
      ...saltBody(r, this.fromSlot),
    };
    if (
      await r.write(k, '/contracts/vault/push', body, [F.kp], expected, this.toString(), {
        submitVia: s,
        replay: this.replay,
      })
    ) {
      const vc = src!.vcs.get(this.vcId)!;
      src!.vcs.delete(this.vcId);
      src!.active = src!.active.filter((id) => id !== this.vcId);
      dst!.vcs.set(this.vcId, vc);
      if (vc.status.kind === 'valid') dst!.active.push(this.vcId);
    }
  }
  toString = () =>
    `push(${this.from}/${this.fromSlot} → ${this.to}/c ${this.vcId}${viaText(this.key, this.from)}` +
    `${this.source && this.source !== this.from ? ` sourcePublicKey=${this.source}` : ''}` +
    `${this.submitKey && this.submitKey !== via(this.key, this.from) ? ` submitted via ${this.submitKey}` : ''}${this.replay ? ' +replay' : ''})`;
}

/**
 * The optional `vaultContract` of the reads: the vault's own address (same answer) or another vault's
 * (400 vaultContract_mismatch, before any binding).
 */
export type VaultContract = 'right' | 'wrong' | undefined;
const vaultContractBody = (r: Real, owner: WalletName, slot: Slot, vc: VaultContract): { vaultContract?: string } =>
  vc === undefined ? {} : { vaultContract: r.vaultAddress(owner, vc === 'right' ? slot : slot === 'c' ? 's' : 'c') };
const vcText = (vc: VaultContract) => (vc ? ` vaultContract=${vc}` : '');

export class Verify implements Cmd {
  readonly owner: WalletName;
  readonly slot: Slot;
  readonly vcId: string;
  readonly key: WalletName;
  readonly vaultContract: VaultContract;
  constructor(owner: WalletName, slot: Slot, vcId: string, key: WalletName, vaultContract: VaultContract) {
    this.owner = owner;
    this.slot = slot;
    this.vcId = vcId;
    this.key = key;
    this.vaultContract = vaultContract;
  }
  check = () => true;
  async run(m: Model, r: Real) {
    const v = m.vaults.get(vaultKey(this.owner, this.slot));
    const body = {
      owner: r.wallet(this.owner).id,
      vcId: this.vcId,
      ...saltBody(r, this.slot),
      ...vaultContractBody(r, this.owner, this.slot, this.vaultContract),
    };
    const a = await r.post(this.key, '/contracts/vault/verify-vc', body);
    if (this.vaultContract === 'wrong') r.expectError(a, 400, 'vaultContract_mismatch', this.toString());
    else if (!v) r.expectError(a, 404, 'vault_not_found', this.toString());
    else checkVerify(r, a, v, this.vcId, this.toString());
  }
  toString = () => `verify(${this.owner}/${this.slot} ${this.vcId} via ${this.key}${vcText(this.vaultContract)})`;
}

export class GetVc implements Cmd {
  readonly owner: WalletName;
  readonly slot: Slot;
  readonly vcId: string;
  readonly key: WalletName | undefined;
  readonly vaultContract: VaultContract;
  constructor(
    owner: WalletName,
    slot: Slot,
    vcId: string,
    key: WalletName | undefined,
    vaultContract: VaultContract = undefined,
  ) {
    this.owner = owner;
    this.slot = slot;
    this.vcId = vcId;
    this.key = key;
    this.vaultContract = vaultContract;
  }
  check = () => true;
  async run(m: Model, r: Real) {
    const k = via(this.key, this.owner);
    const v = m.vaults.get(vaultKey(this.owner, this.slot));
    const body = {
      owner: r.wallet(this.owner).id,
      vcId: this.vcId,
      ...saltBody(r, this.slot),
      ...vaultContractBody(r, this.owner, this.slot, this.vaultContract),
    };
    const a = await r.post(k, '/contracts/vault/get-vc', body);
    const vc = v?.vcs.get(this.vcId);
    if (this.vaultContract === 'wrong') r.expectError(a, 400, 'vaultContract_mismatch', this.toString());
    else if (!boundTo(r.wallet(k), r.wallet(this.owner)))
      r.expectError(a, 403, 'forbidden', `${this} (ownership: another wallet's credential)`);
    else if (!v) r.expectError(a, 404, 'vault_not_found', this.toString());
    else if (!vc) r.expectError(a, 404, 'vc_not_found', this.toString());
    else r.expectBody(a, { result: JSON.parse(vc.vcData) }, this.toString());
  }
  toString = () =>
    `getVc(${this.owner}/${this.slot} ${this.vcId}${viaText(this.key, this.owner)}${vcText(this.vaultContract)})`;
}

export class ListVcIds implements Cmd {
  readonly owner: WalletName;
  readonly slot: Slot;
  readonly offset: number | undefined;
  readonly limit: number | undefined;
  readonly key: WalletName | undefined;
  constructor(
    owner: WalletName,
    slot: Slot,
    offset: number | undefined,
    limit: number | undefined,
    key: WalletName | undefined,
  ) {
    this.owner = owner;
    this.slot = slot;
    this.offset = offset;
    this.limit = limit;
    this.key = key;
  }
  check = () => true;
  async run(m: Model, r: Real) {
    const k = via(this.key, this.owner);
    const v = m.vaults.get(vaultKey(this.owner, this.slot));
    const page = {
      ...(this.offset !== undefined ? { offset: this.offset } : {}),
      ...(this.limit !== undefined ? { limit: this.limit } : {}),
    };
    const a = await r.post(k, '/contracts/vault/list-vc-ids', {
      owner: r.wallet(this.owner).id,
      ...page,
      ...saltBody(r, this.slot),
    });
    const [offset, limit] = [this.offset ?? 0, this.limit ?? 50];
    if (limit > 200) r.expectError(a, 400, 'limit_too_large', this.toString());
    else if (!boundTo(r.wallet(k), r.wallet(this.owner)))
      r.expectError(a, 403, 'forbidden', `${this} (ownership: another wallet's credentials)`);
    else if (!v) r.expectError(a, 404, 'vault_not_found', this.toString());
    else r.expectBody(a, { result: v.active.slice(offset, offset + limit), offset, limit }, this.toString());
  }
  toString = () =>
    `listVcIds(${this.owner}/${this.slot} offset=${this.offset ?? '-'} limit=${this.limit ?? '-'}${viaText(this.key, this.owner)})`;
}

/** The open reads: vc-count, denied issuers (page and count), vault metadata. */
export class OpenRead implements Cmd {
  readonly what: 'vcCount' | 'denied' | 'deniedCount' | 'metadata';
  readonly owner: WalletName;
  readonly slot: Slot;
  readonly offset: number | undefined;
  readonly limit: number | undefined;
  readonly key: WalletName;
  constructor(
    what: 'vcCount' | 'denied' | 'deniedCount' | 'metadata',
    owner: WalletName,
    slot: Slot,
    offset: number | undefined,
    limit: number | undefined,
    key: WalletName,
  ) {
    this.what = what;
    this.owner = owner;
    this.slot = slot;
    this.offset = offset;
    this.limit = limit;
    this.key = key;
  }
  check = () => true;
  async run(m: Model, r: Real) {
    const v = m.vaults.get(vaultKey(this.owner, this.slot));
    const id = r.wallet(this.owner).id;
    const q = { ...saltBody(r, this.slot) };
    const name = this.toString();
    switch (this.what) {
      case 'vcCount': {
        const a = await r.get(this.key, '/contracts/vault/vc-count', { owner: id, ...q });
        return v ? r.expectBody(a, { count: v.active.length }, name) : r.expectError(a, 404, 'vault_not_found', name);
      }
      case 'deniedCount': {
        const a = await r.get(this.key, '/contracts/vault/issuers/denied/count', { owner: id, ...q });
        return v ? r.expectBody(a, { count: v.denied.length }, name) : r.expectError(a, 404, 'vault_not_found', name);
      }
      case 'metadata': {
        const a = await r.get(this.key, `/contracts/vault/${id}`, q);
        return v
          ? r.expectBody(a, metadataOf(r, this.owner, this.slot, v), name)
          : r.expectError(a, 404, 'vault_not_found', name);
      }
      case 'denied': {
        const a = await r.get(this.key, '/contracts/vault/issuers/denied', {
          owner: id,
          offset: this.offset,
          limit: this.limit,
          ...q,
        });
        const [offset, limit] = [this.offset ?? 0, this.limit ?? 50];
        if (limit > 200) return r.expectError(a, 400, 'limit_too_large', name);
        if (!v) return r.expectError(a, 404, 'vault_not_found', name);
        return r.expectBody(
          a,
          { issuers: v.denied.slice(offset, offset + limit).map((n) => r.wallet(n).id), offset, limit },
          name,
        );
      }
    }
  }
  toString = () =>
    `${this.what}(${this.owner}/${this.slot}${this.what === 'denied' ? ` offset=${this.offset ?? '-'} limit=${this.limit ?? '-'}` : ''} via ${this.key})`;
}
