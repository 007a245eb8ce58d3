// Property 2 — credential status: issue → Valid → revoke → Revoked(date); double revoke #7, unknown #6;
// push moves a credential (Valid or Revoked, unchanged) to the owner's other vault and leaves Invalid at the
// source; another owner's vault refuses it (#26); get_vc returns exactly what was issued.
import fc from 'fast-check';
import { describe, it } from 'vitest';
import {
  actor,
  choiceLabel,
  Coverage,
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
import { batchIssue, issue, push, revokeVc } from './vault-io.ts';
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

const owner = actor('status/owner');
const stranger = actor('status/stranger'); // owns vault slot 2
const issuerA = actor('status/issuer-a');
const issuerB = actor('status/issuer-b');
const ACTORS = [owner, stranger, issuerA];
const ISSUERS = [issuerA, issuerB];
const IDS = ['vc-1', 'vc-2', 'vc-3', 'vc-4', 'vc-5', 'vc-6'];
const ISSUER_DIDS = ['did:ledger:testnet:issuer-a', 'did:ledger:testnet:issuer-b'];
const DATES = ['2026-01-02', '2026-03-04T05:06:07Z', ''];

interface Model {
  vaults: VaultState[]; // 0: owner canonical, 1: owner salted, 2: stranger canonical
}
interface Real {
  chain: Chain;
}
type Cmd = fc.Command<Model, Real>;

const chain = freshChain('testnet', [owner, stranger, issuerA, issuerB]);
const slots = [
  { who: owner, vault: chain.deployVault(owner, SALTS[0]!) },
  { who: owner, vault: chain.deployVault(owner, SALTS[1]!) },
  { who: stranger, vault: chain.deployVault(stranger, SALTS[0]!) },
];
const genesis = chain.net.snapshot();
const coverage = new Coverage('credential status');

function step(label: string, m: Model, r: Real, t: Transition, call: () => Outcome): void {
  perform(coverage, label, t, call);
  for (const v of m.vaults) checkVault(r.chain, v, IDS);
}

/** issue / batch_issue into `slot`; `names` is the vault the call names as vault_contract (#10 when not `slot`). */
class Issue implements Cmd {
  readonly slot: number;
  readonly by: Actor;
  readonly did: string;
  readonly vcs: { id: string; data: string }[];
  readonly batch: boolean;
  readonly names: number;
  constructor(
    slot: number,
    by: Actor,
    did: string,
    vcs: { id: string; data: string }[],
    batch: boolean,
    names: number,
  ) {
    this.slot = slot;
    this.by = by;
    this.did = did;
    this.vcs = vcs;
    this.batch = batch;
    this.names = names;
  }
  check = (): boolean => true;
  run(m: Model, r: Real): void {
    const v = m.vaults[this.slot]!;
    const named = m.vaults[this.names]!.address;
    const t = rules.issue(v, this.by.id, this.did, this.vcs, this.batch, named);
    step(this.toString(), m, r, t, () =>
      this.batch
        ? batchIssue(r.chain, v.address, this.by, this.did, this.vcs, this.by, named)
        : issue(r.chain, v.address, this.by, { ...this.vcs[0]!, issuerDid: this.did }, this.by, named),
    );
  }
  toString = (): string =>
    `${this.batch ? 'batch_issue' : 'issue'}(slot ${this.slot}${this.names === this.slot ? '' : `, naming slot ${this.names}`}, by ${this.by.name}, ` +
    `[${this.vcs.map((x) => `${x.id}:${JSON.stringify(x.data)}`).join(', ')}])`;
}

class Revoke implements Cmd {
  used?: Actor;
  usedId?: string;
  readonly slot: number;
  readonly signer: SignerChoice;
  readonly id: IdChoice;
  readonly date: string;
  constructor(slot: number, signer: SignerChoice, id: IdChoice, date: string) {
    this.slot = slot;
    this.signer = signer;
    this.id = id;
    this.date = date;
  }
  check = (): boolean => true;
  run(m: Model, r: Real): void {
    const v = m.vaults[this.slot]!;
    const who = (this.used = resolveSigner(this.signer, v.owner, ACTORS));
    const id = (this.usedId = resolveId(this.id, v, IDS));
    step(this.toString(), m, r, rules.revoke(v, who.id, id, this.date), () =>
      revokeVc(r.chain, v.address, who, id, this.date),
    );
  }
  toString = (): string =>
    `revoke(slot ${this.slot}, by ${choiceLabel(this.signer, this.used)}, ${idLabel(this.id, this.usedId)}, ${JSON.stringify(this.date)})`;
}

class Push implements Cmd {
  used?: Actor;
  usedId?: string;
  readonly from: number;
  readonly to: number;
  readonly signer: SignerChoice;
  readonly id: IdChoice;
  constructor(from: number, to: number, signer: SignerChoice, id: IdChoice) {
    this.from = from;
    this.to = to;
    this.signer = signer;
    this.id = id;
  }
  check = (): boolean => true;
  run(m: Model, r: Real): void {
    const src = m.vaults[this.from]!;
    const dest = m.vaults[this.to]!;
    const who = (this.used = resolveSigner(this.signer, src.admin, ACTORS));
    const id = (this.usedId = resolveId(this.id, src, IDS));
    const t = rules.push(src, dest, who.id, id);
    if ('ok' in t.expected && src.vcs.get(id)?.status.tag === 'Revoked')
      coverage.hit('push of a revoked credential', t.expected);
    step(this.toString(), m, r, t, () => push(r.chain, src.address, who, id, dest.address));
  }
  toString = (): string =>
    `push(slot ${this.from} → ${this.to}, by ${choiceLabel(this.signer, this.used)}, ${idLabel(this.id, this.usedId)})`;
}

const slot = fc.integer({ min: 0, max: 2 });
const ownSlot = fc.integer({ min: 0, max: 1 });
const id = fc.constantFrom(...IDS);
const idChoice = idChoiceOf(IDS);
const data = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'grapheme', maxLength: 12 }));
const vc = fc.record({ id, data });
const signer = signerChoice(ACTORS);
/** 1..5 entries mostly; sometimes none (#18) or too many (#17). */
const batchOf = fc.oneof(
  { weight: 8, arbitrary: fc.array(vc, { minLength: 1, maxLength: 5 }) },
  { weight: 1, arbitrary: fc.constantFrom(0, 6, 7).chain((n) => fc.array(vc, { minLength: n, maxLength: n })) },
);
/** Offset of the vault named as vault_contract from the one called: mostly 0 (itself). */
const misdirected = fc.oneof({ weight: 9, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constantFrom(1, 2) });
const commands = fc.commands(
  [
    fc
      .tuple(slot, fc.constantFrom(...ISSUERS), fc.constantFrom(...ISSUER_DIDS), vc, misdirected)
      .map(([s, by, d, x, off]) => new Issue(s, by, d, [x], false, (s + off) % 3)),
    fc
      .tuple(slot, fc.constantFrom(...ISSUERS), fc.constantFrom(...ISSUER_DIDS), batchOf, misdirected)
      .map(([s, by, d, xs, off]) => new Issue(s, by, d, xs, true, (s + off) % 3)),
    fc.tuple(slot, signer, idChoice, fc.constantFrom(...DATES)).map(([s, who, i, d]) => new Revoke(s, who, i, d)),
    // mostly between the owner's two vaults (both directions), sometimes to itself or to the stranger's vault
    fc
      .oneof(
        { weight: 4, arbitrary: ownSlot.map((s) => [s, 1 - s] as const) },
        { weight: 1, arbitrary: fc.tuple(slot, slot) },
      )
      .chain(([f, t]) => fc.tuple(fc.constant(f), fc.constant(t), signer, idChoice))
      .map(([f, t, who, i]) => new Push(f, t, who, i)),
  ],
  SEQUENCE,
);

describe('credential status (simulator)', () => {
  it('issue → Valid → revoke → Revoked(date); push moves to the sibling vault and leaves Invalid behind', () => {
    fc.assert(
      fc.property(commands, (cmds) => {
        const setup = () => {
          chain.reset(genesis);
          return {
            model: { vaults: slots.map((s) => vaultState(s.vault, s.who.id, true, 'did:ledger:testnet:owner')) },
            real: { chain },
          };
        };
        fc.modelRun(setup, cmds);
      }),
      runParams('credential status'),
    );
    coverage.report();
  });
});
