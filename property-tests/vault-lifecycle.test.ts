// Property 1 — vault lifecycle: deploy (own or sponsored) at the derived address, set DID, set admin, deny/allow,
// revoke vault; once revoked every write fails #4 and every read still answers (docs/chain-abi.md "Vault").
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { address, bytes, str, toAddress } from '../src/chain/codec.ts';
import { deriveVaultAddress } from '../src/chain/derive.ts';
import {
  actor,
  choiceLabel,
  Coverage,
  expectEqual,
  freshChain,
  perform,
  resolveSigner,
  runParams,
  SALTS,
  SEQUENCE,
  signerChoice,
  type Actor,
  type Chain,
  type Outcome,
  type SignerChoice,
  type Transition,
} from './harness.ts';
import { allowIssuer, denyIssuer, issue, push, revokeVault, revokeVc, setVaultAdmin, setVaultDid } from './vault-io.ts';
import {
  checkVault,
  idChoiceOf,
  idLabel,
  resolveId,
  rules,
  vaultState,
  type IdChoice,
  type VaultState,
} from './vault-model.ts';

const owner = actor('lifecycle/owner');
const alice = actor('lifecycle/alice');
const bob = actor('lifecycle/bob');
const issuer = actor('lifecycle/issuer');
const sponsor = actor('lifecycle/sponsor');
const SIGNERS = [owner, alice, bob];
const IDS = ['vc-a', 'vc-b', 'vc-c'];
const DIDS = ['did:ledger:testnet:aaaa', 'did:ledger:testnet:bbbb', 'did:ledger:testnet:cccc'];
const ISSUER_DID = 'did:ledger:testnet:issuer';

interface Model {
  vaults: VaultState[]; // slot 0: canonical vault, slot 1: salted vault, both of `owner`
}
interface Real {
  chain: Chain;
}
type Cmd = fc.Command<Model, Real>;

const chain = freshChain('testnet', [owner, alice, bob, issuer, sponsor]);
const slotAddress = SALTS.slice(0, 2).map((salt) =>
  deriveVaultAddress({
    networkPassphrase: chain.info.passphrase,
    factoryId: chain.info.factoryId,
    owner: owner.id,
    userSalt: salt,
  }),
);
chain.deployVault(owner, SALTS[0]!, DIDS[0]);
const genesis = chain.net.snapshot();
const coverage = new Coverage('vault lifecycle');

/** Runs a rule against a real call and checks everything the model knows afterwards. */
function step(label: string, m: Model, r: Real, t: Transition, call: () => Outcome): Outcome {
  const out = perform(coverage, label, t, call);
  for (const v of m.vaults) checkVault(r.chain, v, IDS);
  return out;
}

const deployed = (m: Readonly<Model>, slot: number): boolean => m.vaults[slot]!.deployed;

class Deploy implements Cmd {
  readonly slot: number;
  readonly by: Actor | undefined;
  readonly did: string;
  constructor(slot: number, by: Actor | undefined, did: string) {
    this.slot = slot;
    this.by = by;
    this.did = did;
  }
  check = (): boolean => true;
  run(m: Model, r: Real): void {
    const v = m.vaults[this.slot]!;
    const salt = bytes(SALTS[this.slot]!);
    const out = step(this.toString(), m, r, rules.deploy(v, this.did), () =>
      this.by
        ? r.chain.call(this.by, chain.info.factoryId, 'deploy_sponsored', [
            address(this.by.id),
            address(owner.id),
            str(this.did),
            salt,
          ])
        : r.chain.call(owner, chain.info.factoryId, 'deploy', [address(owner.id), str(this.did), salt]),
    );
    if (out.ok) expectEqual('deployed at the derived address', toAddress(out.value), v.address);
  }
  toString = (): string => `deploy(slot ${this.slot}${this.by ? `, sponsor ${this.by.name}` : ''}, ${this.did})`;
}

class SetDid implements Cmd {
  used?: Actor;
  readonly slot: number;
  readonly signer: SignerChoice;
  readonly did: string;
  constructor(slot: number, signer: SignerChoice, did: string) {
    this.slot = slot;
    this.signer = signer;
    this.did = did;
  }
  check = (m: Readonly<Model>): boolean => deployed(m, this.slot);
  run(m: Model, r: Real): void {
    const v = m.vaults[this.slot]!;
    const who = (this.used = resolveSigner(this.signer, v.owner, SIGNERS));
    step(this.toString(), m, r, rules.setDid(v, who.id, this.did), () =>
      setVaultDid(r.chain, v.address, who, this.did),
    );
  }
  toString = (): string => `set_vault_did(slot ${this.slot}, by ${choiceLabel(this.signer, this.used)}, ${this.did})`;
}

class SetAdmin implements Cmd {
  used?: Actor;
  readonly slot: number;
  readonly signer: SignerChoice;
  readonly admin: Actor;
  constructor(slot: number, signer: SignerChoice, admin: Actor) {
    this.slot = slot;
    this.signer = signer;
    this.admin = admin;
  }
  check = (m: Readonly<Model>): boolean => deployed(m, this.slot);
  run(m: Model, r: Real): void {
    const v = m.vaults[this.slot]!;
    const who = (this.used = resolveSigner(this.signer, v.admin, SIGNERS));
    step(this.toString(), m, r, rules.setAdmin(v, who.id, this.admin.id), () =>
      setVaultAdmin(r.chain, v.address, who, this.admin.id),
    );
  }
  toString = (): string =>
    `set_vault_admin(slot ${this.slot}, by ${choiceLabel(this.signer, this.used)}, → ${this.admin.name})`;
}

class Access implements Cmd {
  used?: Actor;
  readonly slot: number;
  readonly deny: boolean;
  readonly signer: SignerChoice;
  readonly target: Actor;
  constructor(slot: number, deny: boolean, signer: SignerChoice, target: Actor) {
    this.slot = slot;
    this.deny = deny;
    this.signer = signer;
    this.target = target;
  }
  check = (m: Readonly<Model>): boolean => deployed(m, this.slot);
  run(m: Model, r: Real): void {
    const v = m.vaults[this.slot]!;
    const who = (this.used = resolveSigner(this.signer, v.admin, SIGNERS));
    const t = this.deny ? rules.deny(v, who.id, this.target.id) : rules.allow(v, who.id, this.target.id);
    step(this.toString(), m, r, t, () =>
      (this.deny ? denyIssuer : allowIssuer)(r.chain, v.address, who, this.target.id),
    );
  }
  toString = (): string =>
    `${this.deny ? 'deny' : 'allow'}_issuer(slot ${this.slot}, by ${choiceLabel(this.signer, this.used)}, ${this.target.name})`;
}

class RevokeVault implements Cmd {
  used?: Actor;
  readonly slot: number;
  readonly signer: SignerChoice;
  constructor(slot: number, signer: SignerChoice) {
    this.slot = slot;
    this.signer = signer;
  }
  check = (m: Readonly<Model>): boolean => deployed(m, this.slot);
  run(m: Model, r: Real): void {
    const v = m.vaults[this.slot]!;
    const who = (this.used = resolveSigner(this.signer, v.admin, SIGNERS));
    step(this.toString(), m, r, rules.revokeVault(v, who.id), () => revokeVault(r.chain, v.address, who));
  }
  toString = (): string => `revoke_vault(slot ${this.slot}, by ${choiceLabel(this.signer, this.used)})`;
}

class Issue implements Cmd {
  readonly slot: number;
  readonly by: Actor;
  readonly id: string;
  constructor(slot: number, by: Actor, id: string) {
    this.slot = slot;
    this.by = by;
    this.id = id;
  }
  check = (m: Readonly<Model>): boolean => deployed(m, this.slot);
  run(m: Model, r: Real): void {
    const v = m.vaults[this.slot]!;
    const vc = { id: this.id, data: `ciphertext of ${this.id}`, issuerDid: ISSUER_DID };
    step(this.toString(), m, r, rules.issue(v, this.by.id, ISSUER_DID, [vc], false), () =>
      issue(r.chain, v.address, this.by, vc),
    );
  }
  toString = (): string => `issue(slot ${this.slot}, by ${this.by.name}, ${this.id})`;
}

class Revoke implements Cmd {
  used?: Actor;
  usedId?: string;
  readonly slot: number;
  readonly signer: SignerChoice;
  readonly id: IdChoice;
  constructor(slot: number, signer: SignerChoice, id: IdChoice) {
    this.slot = slot;
    this.signer = signer;
    this.id = id;
  }
  check = (m: Readonly<Model>): boolean => deployed(m, this.slot);
  run(m: Model, r: Real): void {
    const v = m.vaults[this.slot]!;
    const who = (this.used = resolveSigner(this.signer, v.owner, SIGNERS));
    const id = (this.usedId = resolveId(this.id, v, IDS));
    step(this.toString(), m, r, rules.revoke(v, who.id, id, '2026-01-02'), () =>
      revokeVc(r.chain, v.address, who, id, '2026-01-02'),
    );
  }
  toString = (): string =>
    `revoke(slot ${this.slot}, by ${choiceLabel(this.signer, this.used)}, ${idLabel(this.id, this.usedId)})`;
}

class Push implements Cmd {
  used?: Actor;
  usedId?: string;
  readonly slot: number;
  readonly signer: SignerChoice;
  readonly id: IdChoice;
  constructor(slot: number, signer: SignerChoice, id: IdChoice) {
    this.slot = slot;
    this.signer = signer;
    this.id = id;
  }
  check = (m: Readonly<Model>): boolean => deployed(m, 0) && deployed(m, 1);
  run(m: Model, r: Real): void {
    const src = m.vaults[this.slot]!;
    const dest = m.vaults[1 - this.slot]!;
    const who = (this.used = resolveSigner(this.signer, src.admin, SIGNERS));
    const id = (this.usedId = resolveId(this.id, src, IDS));
    step(this.toString(), m, r, rules.push(src, dest, who.id, id), () =>
      push(r.chain, src.address, who, id, dest.address),
    );
  }
  toString = (): string =>
    `push(slot ${this.slot} → ${1 - this.slot}, by ${choiceLabel(this.signer, this.used)}, ${idLabel(this.id, this.usedId)})`;
}

const slot = fc.integer({ min: 0, max: 1 });
const signer = signerChoice(SIGNERS);
const did = fc.constantFrom(...DIDS);
const commands = fc.commands(
  [
    fc
      .tuple(slot, fc.option(fc.constantFrom(sponsor, alice), { nil: undefined }), did)
      .map(([s, by, d]) => new Deploy(s, by, d)),
    fc.tuple(slot, signer, did).map(([s, who, d]) => new SetDid(s, who, d)),
    fc.tuple(slot, signer, fc.constantFrom(...SIGNERS)).map(([s, who, a]) => new SetAdmin(s, who, a)),
    fc
      .tuple(slot, fc.boolean(), signer, fc.constantFrom(issuer, bob))
      .map(([s, d, who, t]) => new Access(s, d, who, t)),
    fc.tuple(slot, signer).map(([s, who]) => new RevokeVault(s, who)),
    fc.tuple(slot, fc.constantFrom(issuer, bob), fc.constantFrom(...IDS)).map(([s, by, id]) => new Issue(s, by, id)),
    fc.tuple(slot, signer, idChoiceOf(IDS)).map(([s, who, id]) => new Revoke(s, who, id)),
    fc.tuple(slot, signer, idChoiceOf(IDS)).map(([s, who, id]) => new Push(s, who, id)),
  ],
  SEQUENCE,
);

describe('vault lifecycle (simulator)', () => {
  it('create, set DID, set admin, deny/allow, revoke vault: writes blocked after revoke, reads keep working', () => {
    fc.assert(
      fc.property(commands, (cmds) => {
        const setup = () => {
          chain.reset(genesis);
          return {
            model: { vaults: slotAddress.map((a, i) => vaultState(a, owner.id, i === 0, DIDS[0])) },
            real: { chain },
          };
        };
        fc.modelRun(setup, cmds);
      }),
      runParams('vault lifecycle'),
    );
    coverage.report();
  });
});
