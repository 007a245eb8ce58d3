// Property 3 — issuer access: deny/allow in any order (and by whoever is vault admin at the time); issuance
// succeeds exactly while the issuer is not denied (#25 while denied); the denied list (any page) and count
// match the model, in the order the issuers were denied.
import fc from 'fast-check';
import { describe, it } from 'vitest';
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
  type SignerChoice,
} from './harness.ts';
import { allowIssuer, batchIssue, denyIssuer, issue, listDenied, setVaultAdmin } from './vault-io.ts';
import { checkVault, rules, vaultState, type VaultState } from './vault-model.ts';

const owner = actor('access/owner');
const deputy = actor('access/deputy');
const ISSUERS = [0, 1, 2, 3].map((i) => actor(`access/issuer-${i}`));
const SIGNERS = [owner, deputy, ISSUERS[0]!];
const ISSUER_DID = 'did:ledger:testnet:issuer';

interface Model {
  vault: VaultState;
  /** Next fresh credential number: every issuance uses new ids, so only the denied list decides. */
  next: number;
}
interface Real {
  chain: Chain;
}
type Cmd = fc.Command<Model, Real>;

const chain = freshChain('testnet', [owner, deputy, ...ISSUERS]);
const vault = chain.deployVault(owner, SALTS[0]!);
const genesis = chain.net.snapshot();
const coverage = new Coverage('issuer access');

class Access implements Cmd {
  used?: Actor;
  readonly deny: boolean;
  readonly signer: SignerChoice;
  readonly issuer: Actor;
  constructor(deny: boolean, signer: SignerChoice, issuer: Actor) {
    this.deny = deny;
    this.signer = signer;
    this.issuer = issuer;
  }
  check = (): boolean => true;
  run(m: Model, r: Real): void {
    const who = (this.used = resolveSigner(this.signer, m.vault.admin, SIGNERS));
    const t = this.deny ? rules.deny(m.vault, who.id, this.issuer.id) : rules.allow(m.vault, who.id, this.issuer.id);
    perform(coverage, this.toString(), t, () =>
      (this.deny ? denyIssuer : allowIssuer)(r.chain, vault, who, this.issuer.id),
    );
    checkVault(r.chain, m.vault, []);
  }
  toString = (): string =>
    `${this.deny ? 'deny_issuer' : 'allow_issuer'}(by ${choiceLabel(this.signer, this.used)}, ${this.issuer.name})`;
}

class SetAdmin implements Cmd {
  used?: Actor;
  readonly signer: SignerChoice;
  readonly admin: Actor;
  constructor(signer: SignerChoice, admin: Actor) {
    this.signer = signer;
    this.admin = admin;
  }
  check = (): boolean => true;
  run(m: Model, r: Real): void {
    const who = (this.used = resolveSigner(this.signer, m.vault.admin, SIGNERS));
    perform(coverage, this.toString(), rules.setAdmin(m.vault, who.id, this.admin.id), () =>
      setVaultAdmin(r.chain, vault, who, this.admin.id),
    );
  }
  toString = (): string => `set_vault_admin(by ${choiceLabel(this.signer, this.used)}, → ${this.admin.name})`;
}

class Issue implements Cmd {
  readonly issuer: Actor;
  readonly n: number;
  constructor(issuer: Actor, n: number) {
    this.issuer = issuer;
    this.n = n;
  }
  check = (): boolean => true;
  run(m: Model, r: Real): void {
    const vcs = Array.from({ length: Math.max(this.n, 1) }, (_, i) => ({ id: `vc-${m.next + i}`, data: 'c' }));
    const batch = this.n > 0;
    const denied = m.vault.denied.includes(this.issuer.id);
    const t = rules.issue(m.vault, this.issuer.id, ISSUER_DID, vcs, batch);
    expectEqual(`${this} succeeds exactly while not denied`, 'ok' in t.expected, !denied);
    perform(coverage, this.toString(), t, () =>
      batch
        ? batchIssue(r.chain, vault, this.issuer, ISSUER_DID, vcs)
        : issue(r.chain, vault, this.issuer, { ...vcs[0]!, issuerDid: ISSUER_DID }),
    );
    if (!denied) m.next += vcs.length;
    checkVault(
      r.chain,
      m.vault,
      vcs.map((x) => x.id),
    );
  }
  toString = (): string =>
    this.n > 0 ? `batch_issue(×${this.n}, by ${this.issuer.name})` : `issue(by ${this.issuer.name})`;
}

class Page implements Cmd {
  readonly offset: number;
  readonly limit: number;
  constructor(offset: number, limit: number) {
    this.offset = offset;
    this.limit = limit;
  }
  check = (): boolean => true;
  run(m: Model): void {
    expectEqual(
      `${this}`,
      listDenied(chain, vault, this.offset, this.limit),
      m.vault.denied.slice(this.offset, this.offset + this.limit),
    );
  }
  toString = (): string => `list_denied_issuers(${this.offset}, ${this.limit})`;
}

const issuer = fc.constantFrom(...ISSUERS);
const commands = fc.commands(
  [
    fc.tuple(fc.boolean(), signerChoice(SIGNERS), issuer).map(([d, who, i]) => new Access(d, who, i)),
    fc.tuple(fc.boolean(), signerChoice(SIGNERS), issuer).map(([d, who, i]) => new Access(d, who, i)),
    fc.tuple(signerChoice(SIGNERS), fc.constantFrom(owner, deputy)).map(([who, a]) => new SetAdmin(who, a)),
    fc.tuple(issuer, fc.integer({ min: 0, max: 5 })).map(([i, n]) => new Issue(i, n)),
    fc.tuple(fc.nat({ max: 5 }), fc.nat({ max: 5 })).map(([o, l]) => new Page(o, l)),
  ],
  SEQUENCE,
);

describe('issuer access (simulator)', () => {
  it('deny/allow in any order; issuance succeeds exactly while not denied; denied list and count match', () => {
    fc.assert(
      fc.property(commands, (cmds) => {
        const setup = () => {
          chain.reset(genesis);
          return {
            model: { vault: vaultState(vault, owner.id, true, 'did:ledger:testnet:owner'), next: 0 },
            real: { chain },
          };
        };
        fc.modelRun(setup, cmds);
      }),
      runParams('issuer access'),
    );
    coverage.report();
  });
});
