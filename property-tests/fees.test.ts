// Property 5 — issuance fees (docs/chain-abi.md "Factory" quote_fee, "Vault" issue/batch_issue, "Fee tokens"):
// every issuance moves exactly quote_fee(issuer).amount × n from the issuer to the fee destination and nothing
// else; the quote follows the model through standard, minimum and custom fees, custom expiry (the time cheat
// crosses expires_at), removal and disabling. On mainnet (USDC) an issuer without a trustline or without enough
// balance fails with the token's words and nothing moves.
import { Account, Asset, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import fc from 'fast-check';
import { describe, it } from 'vitest';
import {
  actor,
  choiceLabel,
  code,
  Coverage,
  expectEqual,
  freshChain,
  hostText,
  needsAuthOf,
  OK,
  perform,
  resolveSigner,
  runParams,
  SALTS,
  SEQUENCE,
  signerChoice,
  type Actor,
  type Chain,
  type SignerChoice,
  type Transition,
} from './harness.ts';
import { batchIssue, factoryCall, feeArgs, issue, quoteFee, type FeeQuote } from './vault-io.ts';

const MAX_FEE = 10n ** 18n;
const FactoryErr = { InvalidFeeAmount: 2, FeeOutOfBounds: 3, FeeBelowMin: 4, ExpiryInPast: 6 } as const;
const START = 1_800_000_000; // ledger time of every run (after the simulator's genesis)

interface FeeModel {
  enabled: boolean;
  standard: bigint;
  min: bigint;
  custom: Map<string, { amount: bigint; expiresAt?: bigint }>;
  now: number;
  token: string;
  dest: string;
  admin: string;
  /** Fee-token balances of the issuers, tracked from their genesis balances. */
  balances: Map<string, bigint>;
  /** Issuers that can hold the fee token (every account for the native asset; a trustline for USDC). */
  holders: Set<string>;
  /** Credentials issued so far (fresh ids). */
  issued: number;
}

/** quote_fee as the model sees it, and which rule produced it. */
function quote(m: FeeModel, issuer: string): FeeQuote & { rule: string } {
  if (!m.enabled) return { enabled: false, amount: 0n, rule: 'disabled' };
  const c = m.custom.get(issuer);
  const live = c && (c.expiresAt === undefined || BigInt(m.now) <= c.expiresAt);
  const rule = live
    ? c.expiresAt === BigInt(m.now)
      ? 'custom (last second)'
      : 'custom'
    : c
      ? 'custom expired, standard'
      : 'standard';
  return { enabled: true, amount: live ? c.amount : m.standard, token: m.token, dest: m.dest, rule };
}

/** Amount rules of every fee setter: negative #2, above 10^18 #3, below the minimum #4. */
function amountError(m: FeeModel, amount: bigint, againstMin = true): number | undefined {
  if (amount < 0n) return FactoryErr.InvalidFeeAmount;
  if (amount > MAX_FEE) return FactoryErr.FeeOutOfBounds;
  if (againstMin && amount < m.min) return FactoryErr.FeeBelowMin;
  return undefined;
}

/** A factory admin setter: a bad amount first (simulation fails before the signature matters), then the admin. */
function adminRule(m: FeeModel, signer: string, error: number | undefined, apply: () => void): Transition {
  if (error !== undefined) return { expected: code(error) };
  if (signer !== m.admin) return { expected: needsAuthOf(m.admin) };
  return { expected: OK, apply };
}

type FeeCmd<R> = fc.Command<FeeModel, R>;

/** Factory admin commands shared by both networks. */
function adminCommands<R extends { chain: Chain }>(
  coverage: Coverage,
  admin: Actor,
  others: Actor[],
  issuers: Actor[],
  amount: fc.Arbitrary<bigint>,
): fc.Arbitrary<FeeCmd<R>>[] {
  const signers = [admin, ...others];
  const signer = signerChoice(signers);
  const label = (c: SignerChoice, used: Actor | undefined, s: string): string =>
    `${s.replace('(', `(by ${choiceLabel(c, used)}, `)}`;
  class Setter implements FeeCmd<R> {
    used?: Actor;
    readonly signer: SignerChoice;
    readonly what: string;
    readonly rule: (m: FeeModel, who: string) => Transition;
    readonly fn: string;
    readonly args: () => ReturnType<typeof feeArgs.amount>;
    constructor(
      signer: SignerChoice,
      what: string,
      rule: (m: FeeModel, who: string) => Transition,
      fn: string,
      args: () => ReturnType<typeof feeArgs.amount>,
    ) {
      this.signer = signer;
      this.what = what;
      this.rule = rule;
      this.fn = fn;
      this.args = args;
    }
    check = (): boolean => true;
    run(m: FeeModel, r: R): void {
      const who = (this.used = resolveSigner(this.signer, m.admin, signers));
      perform(coverage, this.toString(), this.rule(m, who.id), () => factoryCall(r.chain, who, this.fn, this.args()));
    }
    toString = (): string => label(this.signer, this.used, this.what);
  }
  const anyAmount = fc.oneof(
    { weight: 6, arbitrary: amount },
    { weight: 1, arbitrary: fc.bigInt({ min: -(10n ** 9n), max: -1n }) },
    { weight: 1, arbitrary: fc.bigInt({ min: MAX_FEE + 1n, max: MAX_FEE * 10n }) },
  );
  const advance = fc.integer({ min: 1, max: 6 }).map(
    (d): FeeCmd<R> => ({
      check: () => true,
      run(m: FeeModel, r: R) {
        m.now += d;
        r.chain.net.setTime(m.now);
        coverage.hit('advance time', OK);
      },
      toString: () => `advance time +${d}s`,
    }),
  );
  // expires_at is relative to the ledger time when the command runs (d < 0: already past, #6)
  const custom = fc
    .tuple(
      signer,
      fc.constantFrom(...issuers),
      anyAmount,
      fc.option(fc.integer({ min: -2, max: 8 }), { freq: 4, nil: undefined }),
    )
    .map(([s, i, a, d]) => {
      let expiresAt: bigint | undefined;
      const what = `set_fee_custom(${i.name}, ${a}, ${d === undefined ? 'never' : `now${d >= 0 ? '+' : ''}${d}`})`;
      const rule = (m: FeeModel, who: string): Transition => {
        expiresAt = d === undefined ? undefined : BigInt(m.now + d);
        const error =
          amountError(m, a) ??
          (expiresAt !== undefined && expiresAt < BigInt(m.now) ? FactoryErr.ExpiryInPast : undefined);
        return adminRule(m, who, error, () => void m.custom.set(i.id, { amount: a, expiresAt }));
      };
      return new Setter(s, what, rule, 'set_fee_custom', () => feeArgs.custom(i.id, a, expiresAt));
    });
  return [
    fc
      .tuple(
        signer,
        fc.oneof({ weight: 1, arbitrary: fc.constant(false) }, { weight: 2, arbitrary: fc.constant(true) }),
      )
      .map(
        ([s, b]) =>
          new Setter(
            s,
            `set_fee_enabled(${b})`,
            (m, who) => adminRule(m, who, undefined, () => void (m.enabled = b)),
            'set_fee_enabled',
            () => feeArgs.enabled(b),
          ),
      ),
    fc.tuple(signer, anyAmount).map(
      ([s, a]) =>
        new Setter(
          s,
          `set_fee_standard(${a})`,
          (m, who) => adminRule(m, who, amountError(m, a), () => void (m.standard = a)),
          'set_fee_standard',
          () => feeArgs.amount(a),
        ),
    ),
    fc.tuple(signer, fc.oneof(amount, anyAmount, fc.constant(MAX_FEE))).map(
      ([s, a]) =>
        new Setter(
          s,
          `set_min_fee(${a})`,
          (m, who) => adminRule(m, who, amountError(m, a, false), () => void (m.min = a)),
          'set_min_fee',
          () => feeArgs.amount(a),
        ),
    ),
    custom,
    custom, // twice, with issuance listed twice by the callers: custom fees must meet issuances often
    fc.tuple(signer, fc.constantFrom(...issuers)).map(
      ([s, i]) =>
        new Setter(
          s,
          `remove_fee_custom(${i.name})`,
          (m, who) => adminRule(m, who, undefined, () => void m.custom.delete(i.id)),
          'remove_fee_custom',
          () => feeArgs.issuer(i.id),
        ),
    ),
    advance,
    advance, // twice: time must pass often for custom fees to expire between issuances
  ];
}

/** Issues `n` credentials (single `issue` when n = 0) through a relayer, so the issuer's balance moves by the fee only. */
function issueCommand<R extends { chain: Chain; vault: string }>(
  coverage: Coverage,
  relayer: Actor,
  issuers: Actor[],
): fc.Arbitrary<FeeCmd<R>> {
  return fc.tuple(fc.constantFrom(...issuers), fc.integer({ min: 0, max: 5 })).map(([issuer, n]) => {
    const count = Math.max(n, 1);
    return {
      check: () => true,
      run(m: FeeModel, r: R) {
        const { rule, ...q } = quote(m, issuer.id);
        expectEqual(`quote_fee(${issuer.name})`, quoteFee(r.chain, issuer.id), q);
        coverage.hit(`quote ${rule}`, OK);
        const total = q.enabled ? q.amount * BigInt(count) : 0n;
        const held = m.balances.get(issuer.id)!;
        expectEqual(`${issuer.name} balance before`, r.chain.balance(m.token, issuer.id), held);
        const destBefore = r.chain.balance(m.token, m.dest);
        const why =
          total === 0n
            ? undefined
            : !m.holders.has(issuer.id)
              ? 'trustline entry is missing for account'
              : held < total
                ? 'balance is not sufficient'
                : undefined;
        const ids = Array.from({ length: count }, () => `vc-${m.issued++}`);
        const did = 'did:ledger:testnet:issuer';
        const kind = `${n > 0 ? 'batch_issue' : 'issue'}[${total > 0n ? 'fee' : 'no fee'}${why ? `: ${why.split(' ')[0]}` : ''}]`;
        perform(coverage, `${kind}(${issuer.name})`, { expected: why ? hostText(why) : OK }, () =>
          n > 0
            ? batchIssue(
                r.chain,
                r.vault,
                issuer,
                did,
                ids.map((id) => ({ id, data: 'c' })),
                relayer,
              )
            : issue(r.chain, r.vault, issuer, { id: ids[0]!, data: 'c', issuerDid: did }, relayer),
        );
        const moved = why ? 0n : total;
        m.balances.set(issuer.id, held - moved);
        expectEqual(`${issuer.name} balance after`, r.chain.balance(m.token, issuer.id), held - moved);
        expectEqual('fee destination balance after', r.chain.balance(m.token, m.dest), destBefore + moved);
      },
      toString: () => `${n > 0 ? `batch_issue(×${n}` : 'issue('}, by ${issuer.name})`,
    };
  });
}

/** The model at genesis: the network's standard fee, enabled; balances as the genesis gave them. */
function feeModel(chain: Chain, issuers: Actor[], holders: Actor[]): FeeModel {
  const info = chain.info;
  return {
    enabled: true,
    standard: BigInt(info.feeAmount),
    min: 0n,
    custom: new Map(),
    now: START,
    token: info.feeTokenId,
    dest: info.admin.publicKey,
    admin: info.admin.publicKey,
    balances: new Map(issuers.map((i) => [i.id, chain.balance(info.feeTokenId, i.id)])),
    holders: new Set(holders.map((h) => h.id)),
    issued: 0,
  };
}

const operator = (chain: Chain): Actor => ({
  name: 'operator',
  kp: Keypair.fromSecret(chain.info.admin.secret),
  id: chain.info.admin.publicKey,
});

describe('fees (simulator)', () => {
  it('testnet: every issuance moves exactly the quoted fee × n; custom fees, expiry, removal, disabling', () => {
    const owner = actor('fees/owner');
    const relayer = actor('fees/relayer');
    const issuers = [actor('fees/issuer-0'), actor('fees/issuer-1')];
    const chain = freshChain('testnet', [owner, relayer, ...issuers]);
    const vault = chain.deployVault(owner, SALTS[0]!);
    // valid amounts stay small: the issuers' 10,000 XLM always cover a sequence
    runFees('fees testnet', { chain, vault, relayer, issuers, holders: issuers, maxAmount: 200_000_000n });
  });

  it('mainnet: USDC fees; no trustline or too little balance fails with the token words and nothing moves', async () => {
    const owner = actor('fees-main/owner');
    const relayer = actor('fees-main/relayer');
    const noTrust = actor('fees-main/no-trustline');
    const empty = actor('fees-main/empty-trustline');
    const poor = actor('fees-main/poor');
    const rich = actor('fees-main/rich');
    const issuers = [noTrust, empty, poor, rich];
    const chain = freshChain('mainnet', [owner, relayer, ...issuers]);
    const vault = chain.deployVault(owner, SALTS[0]!);
    await changeTrust(chain, empty);
    chain.net.fund(poor.id, 15_000_000n, 'USDC'); // 1.5 credentials at the standard fee
    chain.net.fund(rich.id, 10_000_000_000n, 'USDC');
    runFees('fees mainnet', { chain, vault, relayer, issuers, holders: [empty, poor, rich], maxAmount: 30_000_000n });
  });
});

/**
 * The fee property over `chain` as it stands now (its genesis): admin fee commands and issuance by `relayer` for
 * `issuers`, checked against feeModel; `holders` are the issuers with a trustline for the fee token.
 */
function runFees(
  name: string,
  o: { chain: Chain; vault: string; relayer: Actor; issuers: Actor[]; holders: Actor[]; maxAmount: bigint },
): void {
  const { chain, vault, relayer, issuers } = o;
  const genesis = chain.net.snapshot();
  const coverage = new Coverage(name);
  type R = { chain: Chain; vault: string };
  const amount = fc.oneof(
    fc.constant(0n),
    fc.constant(BigInt(chain.info.feeAmount)),
    fc.bigInt({ min: 1n, max: o.maxAmount }),
  );
  const commands = fc.commands(
    [
      ...adminCommands<R>(coverage, operator(chain), [relayer], issuers, amount),
      issueCommand<R>(coverage, relayer, issuers),
      issueCommand<R>(coverage, relayer, issuers),
    ],
    SEQUENCE,
  );
  fc.assert(
    fc.property(commands, (cmds) => {
      fc.modelRun(() => {
        chain.reset(genesis);
        chain.net.setTime(START);
        return { model: feeModel(chain, issuers, o.holders), real: { chain, vault } };
      }, cmds);
    }),
    runParams(name, 500),
  );
  coverage.report();
}

/** A USDC trustline with no balance, by a real classic ChangeTrust transaction. */
async function changeTrust(chain: Chain, who: Actor): Promise<void> {
  const sc = chain.info.stablecoin!;
  const seq = chain.net.account(who.id)!.seqNum.toString();
  const tx = new TransactionBuilder(new Account(who.id, seq), { fee: '100', networkPassphrase: chain.info.passphrase })
    .addOperation(Operation.changeTrust({ asset: new Asset(sc.code, sc.issuer) }))
    .setTimeout(0)
    .build();
  tx.sign(who.kp);
  await chain.net.rpc('sendTransaction', { transaction: tx.toXdr() });
  const got = (await chain.net.rpc('getTransaction', { hash: Buffer.from(tx.hash()).toString('hex') })) as {
    status: string;
  };
  if (got.status !== 'SUCCESS') throw new Error(`changeTrust: ${got.status}`);
}
