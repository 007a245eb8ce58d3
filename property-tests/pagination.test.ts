// Property 4 — pagination: list_vc_ids pages (random offset, limit ≤ 200) are exactly the model's slice of the
// active ids in arrival order, pages of any size concatenate to all of them, vc_count matches, and a limit over
// 200 fails #16 (list_vc_ids and list_denied_issuers). Revoke and push take ids out of the middle of the index.
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { u32 } from '../src/chain/codec.ts';
import {
  actor,
  Coverage,
  expectEqual,
  freshChain,
  perform,
  runParams,
  SALTS,
  SEQUENCE,
  type Chain,
  type Expected,
  type Outcome,
  type Transition,
} from './harness.ts';
import { batchIssue, listVcIds, push, revokeVc, vcCount, walkPages } from './vault-io.ts';
import { rules, VaultErr, vaultState, type VaultState } from './vault-model.ts';

const owner = actor('pages/owner');
const issuer = actor('pages/issuer');

interface Model {
  vault: VaultState;
  sibling: VaultState; // the owner's salted vault, where pushed credentials go
  next: number;
}
interface Real {
  chain: Chain;
}
type Cmd = fc.Command<Model, Real>;

/** A network with the owner's two vaults (same addresses on every such network: keys and ids are deterministic). */
function prepare(): { chain: Chain; vault: string; sibling: string } {
  const chain = freshChain('testnet', [owner, issuer]);
  return { chain, vault: chain.deployVault(owner, SALTS[0]!), sibling: chain.deployVault(owner, SALTS[1]!) };
}
const { chain: small, vault, sibling } = prepare();
const emptyModel = (): Model => ({
  vault: vaultState(vault, owner.id, true),
  sibling: vaultState(sibling, owner.id, true),
  next: 0,
});
const coverage = new Coverage('pagination');

/** A second network whose vault starts large: 300 issued in batches of 5, every 7th revoked (holes throughout).
 *  Its own simulator, because a revert drops every later snapshot of the same one. */
function prepareLarge(): { chain: Chain; model: Model } {
  const { chain } = prepare();
  const model = emptyModel();
  const must = (t: Transition, out: Outcome): void => {
    if (!('ok' in t.expected) || !out.ok)
      throw new Error(`preparing the large vault failed: ${out.ok ? 'model refused' : out.error.split('\n')[0]}`);
    t.apply?.();
  };
  for (let b = 0; b < 60; b++) {
    const vcs = Array.from({ length: 5 }, () => ({ id: `vc-${model.next++}`, data: 'c' }));
    must(
      rules.issue(model.vault, issuer.id, 'did:ledger:testnet:issuer', vcs, true),
      batchIssue(chain, vault, issuer, 'did:ledger:testnet:issuer', vcs),
    );
  }
  for (let i = 0; i < 300; i += 7)
    must(
      rules.revoke(model.vault, owner.id, `vc-${i}`, '2026-01-02'),
      revokeVc(chain, vault, owner, `vc-${i}`, '2026-01-02'),
    );
  return { chain, model };
}
const large = prepareLarge();
const starts = [
  { chain: small, snapshot: small.net.snapshot(), model: emptyModel() },
  { chain: large.chain, snapshot: large.chain.net.snapshot(), model: large.model },
];

function checkCount(m: Model, r: Real): void {
  expectEqual('vc_count', vcCount(r.chain, vault), m.vault.active.length);
}

/** `batches` batch_issue calls of `size` fresh ids each. */
class Issue implements Cmd {
  readonly batches: number;
  readonly size: number;
  constructor(batches: number, size: number) {
    this.batches = batches;
    this.size = size;
  }
  check = (): boolean => true;
  run(m: Model, r: Real): void {
    for (let b = 0; b < this.batches; b++) {
      const vcs = Array.from({ length: this.size }, () => ({ id: `vc-${m.next++}`, data: 'c' }));
      const t = rules.issue(m.vault, issuer.id, 'did:ledger:testnet:issuer', vcs, true);
      perform(coverage, `batch_issue(${vcs.map((x) => x.id).join(',')})`, t, () =>
        batchIssue(r.chain, vault, issuer, 'did:ledger:testnet:issuer', vcs),
      );
    }
    checkCount(m, r);
    const n = m.vault.active.length;
    coverage.hit(`active count ${n < 64 ? '< 64' : n < 256 ? '64–255' : '≥ 256'}`, { ok: true });
  }
  toString = (): string => `issue(${this.batches} × batch of ${this.size})`;
}

/** Revokes (or pushes to the sibling vault) the active id at `at` (a fraction of the count). */
class TakeOut implements Cmd {
  usedId?: string;
  readonly at: number;
  readonly byPush: boolean;
  constructor(at: number, byPush: boolean) {
    this.at = at;
    this.byPush = byPush;
  }
  check = (m: Readonly<Model>): boolean => m.vault.active.length > 0;
  run(m: Model, r: Real): void {
    const id = (this.usedId = m.vault.active[Math.floor(this.at * m.vault.active.length)]!);
    if (this.byPush)
      perform(coverage, `push(${id})`, rules.push(m.vault, m.sibling, owner.id, id), () =>
        push(r.chain, vault, owner, id, sibling),
      );
    else
      perform(coverage, `revoke(${id})`, rules.revoke(m.vault, owner.id, id, '2026-01-02'), () =>
        revokeVc(r.chain, vault, owner, id, '2026-01-02'),
      );
    checkCount(m, r);
  }
  toString = (): string =>
    `${this.byPush ? 'push' : 'revoke'}(active[${this.at.toFixed(3)}]${this.usedId ? `=${this.usedId}` : ''})`;
}

/** One page at an offset spread over [0, count + 3) and a limit in [0, 200]. */
class Page implements Cmd {
  offset?: number;
  readonly at: number;
  readonly limit: number;
  constructor(at: number, limit: number) {
    this.at = at;
    this.limit = limit;
  }
  check = (): boolean => true;
  run(m: Model, r: Real): void {
    const offset = (this.offset = Math.floor(this.at * (m.vault.active.length + 3)));
    expectEqual(
      `${this}`,
      listVcIds(r.chain, vault, offset, this.limit),
      m.vault.active.slice(offset, offset + this.limit),
    );
    coverage.hit(this.limit === 0 ? 'page(limit 0)' : offset >= m.vault.active.length ? 'page(past the end)' : 'page', {
      ok: true,
    });
  }
  toString = (): string => `list_vc_ids(${this.offset ?? `${this.at.toFixed(3)}×(count+3)`}, ${this.limit})`;
}

/** An offset far past any count (up to u32::MAX): an empty page, never an overflow. */
class FarPage implements Cmd {
  readonly offset: number;
  readonly limit: number;
  constructor(offset: number, limit: number) {
    this.offset = offset;
    this.limit = limit;
  }
  check = (): boolean => true;
  run(_m: Model, r: Real): void {
    expectEqual(`${this}`, listVcIds(r.chain, vault, this.offset, this.limit), []);
    coverage.hit('page(far offset)', { ok: true });
  }
  toString = (): string => `list_vc_ids(${this.offset}, ${this.limit})`;
}

/** All pages of one size, concatenated. */
class Walk implements Cmd {
  readonly limit: number;
  constructor(limit: number) {
    this.limit = limit;
  }
  check = (): boolean => true;
  run(m: Model, r: Real): void {
    expectEqual(
      `${this}`,
      walkPages((o, l) => listVcIds(r.chain, vault, o, l), this.limit),
      m.vault.active,
    );
    coverage.hit('walk', { ok: true });
  }
  toString = (): string => `walk pages of ${this.limit}`;
}

class TooLarge implements Cmd {
  readonly fn: 'list_vc_ids' | 'list_denied_issuers';
  readonly offset: number;
  readonly limit: number;
  constructor(fn: 'list_vc_ids' | 'list_denied_issuers', offset: number, limit: number) {
    this.fn = fn;
    this.offset = offset;
    this.limit = limit;
  }
  check = (): boolean => true;
  run(_m: Model, r: Real): void {
    const out = r.chain.tryRead(vault, this.fn, [u32(this.offset), u32(this.limit)]);
    const expected: Expected = { code: VaultErr.LimitTooLarge };
    expectEqual(`${this}`, out.ok ? 'success' : out.contractError, VaultErr.LimitTooLarge);
    coverage.hit(this.fn, expected);
  }
  toString = (): string => `${this.fn}(${this.offset}, ${this.limit})`;
}

const frac = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });
const commands = fc.commands(
  [
    fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 5 })).map(([b, s]) => new Issue(b, s)),
    fc.tuple(fc.integer({ min: 4, max: 12 }), fc.constant(5)).map(([b, s]) => new Issue(b, s)),
    fc.tuple(frac, fc.boolean()).map(([at, p]) => new TakeOut(at, p)),
    fc.tuple(frac, fc.boolean()).map(([at, p]) => new TakeOut(at, p)),
    fc
      .tuple(frac, fc.oneof(fc.integer({ min: 0, max: 10 }), fc.integer({ min: 0, max: 200 })))
      .map(([at, l]) => new Page(at, l)),
    fc.integer({ min: 1, max: 40 }).map((l) => new Walk(l)),
    fc
      .tuple(fc.integer({ min: 100_000, max: 0xffffffff }), fc.integer({ min: 0, max: 200 }))
      .map(([o, l]) => new FarPage(o, l)),
    fc
      .tuple(
        fc.constantFrom('list_vc_ids' as const, 'list_denied_issuers' as const),
        fc.nat({ max: 10 }),
        fc.integer({ min: 201, max: 0xffffffff }),
      )
      .map(([fn, o, l]) => new TooLarge(fn, o, l)),
  ],
  SEQUENCE,
);

describe('pagination (simulator)', () => {
  it('pages concatenate to exactly the active ids in order; vc_count matches; limit > 200 → #16', () => {
    fc.assert(
      // one run in four starts from the large vault
      fc.property(
        fc.boolean().chain((b) => (b ? fc.boolean() : fc.constant(false))),
        commands,
        (fromLarge, cmds) => {
          const setup = () => {
            const start = starts[fromLarge ? 1 : 0]!;
            start.chain.reset(start.snapshot);
            return { model: structuredClone(start.model), real: { chain: start.chain } };
          };
          fc.modelRun(setup, cmds);
        },
      ),
      runParams('pagination'),
    );
    coverage.report();
  });
});
