// Shared plumbing of the simulator-level properties: one in-process simulator per test file on a fixed clock,
// deterministic actors, typed call outcomes, the expected-outcome check, and the fast-check run parameters
// (a fixed, printed seed; FC_SEED / FC_RUNS / FC_PATH override them for replay).
import { Keypair, type xdr } from '@stellar/stellar-sdk';
import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { createSimulator, type SimNetwork } from '../simulator/index.ts';
import { address, bytes, str, toAddress, toBigInt } from '../src/chain/codec.ts';
import type { Network } from '../src/domain.ts';

/** Default seed of every property (override with FC_SEED). */
export const DEFAULT_SEED = 20261122;
/** Ledger clock of every simulator here: fixed, so a replay sees the same close times. */
export const GENESIS_MS = Date.UTC(2026, 0, 1);

/** fast-check parameters of one property: seed, runs and (for replay) path; logs how to replay. */
export function runParams(name: string, defaultRuns = 200): fc.Parameters<unknown> {
  const seed = Number(process.env.FC_SEED ?? DEFAULT_SEED);
  const numRuns = Number(process.env.FC_RUNS ?? defaultRuns);
  const path = process.env.FC_PATH;
  console.log(
    `[property] ${name}: seed=${seed} numRuns=${numRuns}${path ? ` path=${path}` : ''}` +
      ` (replay: FC_SEED=${seed} [FC_PATH=<path> FC_REPLAY_PATH=<replayPath>] npx vitest run --project property <file>)`,
  );
  return { seed, numRuns, ...(path ? { path, endOnFailure: true } : {}) };
}

/** A named key pair; the name makes counterexamples readable and the key is the same on every run. */
export interface Actor {
  readonly name: string;
  readonly kp: Keypair;
  /** G… address. */
  readonly id: string;
}

export function actor(name: string): Actor {
  const kp = Keypair.fromRawEd25519Seed(createHash('sha256').update(`property-tests/${name}`).digest());
  return { name, kp, id: kp.publicKey() };
}

/** The result of one submitted call, reduced to what the properties compare. */
export type Outcome =
  | { ok: true; value: xdr.ScVal; ledger: number }
  | { ok: false; stage: string; error: string; contractError?: number; authOf?: string };

/** What the model predicts for a call. */
export type Expected =
  | { ok: true }
  | { code: number } // Error(Contract, #code)
  | { authOf: string } // the call needs this address's signature, which the submitter cannot give
  | { text: string }; // a host failure whose text contains this

export const OK: Expected = { ok: true };
export const code = (n: number): Expected => ({ code: n });
export const needsAuthOf = (a: Actor | string): Expected => ({ authOf: typeof a === 'string' ? a : a.id });
export const hostText = (text: string): Expected => ({ text });

const AUTH_RE = /no signer for the auth entry of (G[A-Z2-7]{55})/;

/** An in-process network with typed calls. */
export class Chain {
  readonly net: SimNetwork;
  constructor(net: SimNetwork) {
    this.net = net;
  }

  get info(): SimNetwork['info'] {
    return this.net.info;
  }

  /** Back to a snapshot (`sim_revert`); throws for an unknown id (a revert drops every later snapshot). */
  reset(snapshot: string): void {
    if (!this.net.revert(snapshot)) throw new Error(`unknown snapshot ${snapshot}`);
  }

  /** Builds, simulates, signs and submits `fn` with `source` as transaction source; `signers` sign other auth entries. */
  call(source: Actor, contractId: string, fn: string, args: xdr.ScVal[], signers: Actor[] = []): Outcome {
    const r = this.net.invoke({ source: source.kp, contractId, fn, args, signers: signers.map((s) => s.kp) });
    if (r.status === 'SUCCESS') return { ok: true, value: r.returnValue, ledger: r.ledger };
    const auth = r.stage === 'sign' ? AUTH_RE.exec(r.error)?.[1] : undefined;
    return {
      ok: false,
      stage: r.stage,
      error: r.error,
      contractError: r.contractError,
      ...(auth ? { authOf: auth } : {}),
    };
  }

  /** A read-only call that must succeed. */
  read(contractId: string, fn: string, args: xdr.ScVal[] = []): xdr.ScVal {
    const r = this.net.read(contractId, fn, args);
    if (r.status !== 'SUCCESS') throw new Error(`read ${fn} failed: ${firstLine(r.error)}`);
    return r.returnValue;
  }

  /** A read-only call that may fail (its contract error number, if any). */
  tryRead(
    contractId: string,
    fn: string,
    args: xdr.ScVal[] = [],
  ): { ok: true; value: xdr.ScVal } | { ok: false; contractError?: number; error: string } {
    const r = this.net.read(contractId, fn, args);
    return r.status === 'SUCCESS'
      ? { ok: true, value: r.returnValue }
      : { ok: false, contractError: r.contractError, error: r.error };
  }

  /** Native / fee-token balance through the token contract's `balance`. */
  balance(tokenId: string, who: string): bigint {
    return toBigInt(this.read(tokenId, 'balance', [address(who)]));
  }

  /** Deploys `owner`'s vault at `userSalt` (owner signs); throws when it fails. */
  deployVault(owner: Actor, userSalt: Buffer, didUri = 'did:ledger:testnet:owner'): string {
    const r = this.call(owner, this.info.factoryId, 'deploy', [address(owner.id), str(didUri), bytes(userSalt)]);
    if (!r.ok) throw new Error(`deploy failed: ${firstLine(r.error)}`);
    return toAddress(r.value);
  }
}

/** A fresh simulator network on the fixed clock, with `actors` funded by the friendbot. */
export function freshChain(name: Network, actors: Actor[], opts: { protocol?: number } = {}): Chain {
  const sim = createSimulator({ now: () => GENESIS_MS, historyLimit: 1_000, protocol: opts.protocol });
  const net = sim.network(name);
  for (const a of actors) net.friendbot(a.id);
  return new Chain(net);
}

export const firstLine = (s: string): string => s.split('\n')[0] ?? s;

function describe(o: Outcome): string {
  if (o.ok) return 'success';
  if (o.authOf) return `missing auth of ${o.authOf}`;
  return `${o.stage} failure: ${firstLine(o.error)}`;
}

function describeExpected(e: Expected): string {
  if ('ok' in e) return 'success';
  if ('code' in e) return `Error(Contract, #${e.code})`;
  if ('authOf' in e) return `missing auth of ${e.authOf}`;
  return `host failure containing "${e.text}"`;
}

/** Throws (failing the run) unless `actual` is what the model `expected`. */
export function expectOutcome(label: string, actual: Outcome, expected: Expected): void {
  let good: boolean;
  if ('ok' in expected) good = actual.ok;
  else if (actual.ok) good = false;
  else if ('code' in expected) good = actual.contractError === expected.code;
  else if ('authOf' in expected) good = actual.authOf === expected.authOf;
  else good = actual.error.includes(expected.text);
  if (!good) throw new Error(`${label}: expected ${describeExpected(expected)}, got ${describe(actual)}`);
}

/** Deep equality with a readable failure. */
export function expectEqual<T>(label: string, actual: T, expected: T): void {
  const a = JSON.stringify(actual, bigintJson);
  const e = JSON.stringify(expected, bigintJson);
  if (a !== e) throw new Error(`${label}: expected ${e}, got ${a}`);
}

const bigintJson = (_k: string, v: unknown): unknown => (typeof v === 'bigint' ? `${v}n` : v);

/** 32-byte user salts: the canonical one (zeros) and a few named others. */
export const SALTS: readonly Buffer[] = [Buffer.alloc(32), Buffer.alloc(32, 0xab), Buffer.alloc(32, 0x5c)];

/** Counts what a property actually exercised (command × outcome), printed after the run: a property whose
 *  commands were all skipped or all failed the same way proves little. */
export class Coverage {
  private readonly counts = new Map<string, number>();
  readonly name: string;
  constructor(name: string) {
    this.name = name;
  }

  /** Records one executed command: its kind and the outcome class (`ok`, `#N`, `auth`, `host`). */
  hit(kind: string, outcome: Expected): void {
    const cls = 'ok' in outcome ? 'ok' : 'code' in outcome ? `#${outcome.code}` : 'authOf' in outcome ? 'auth' : 'host';
    const key = `${kind} ${cls}`;
    this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
  }

  report(): void {
    const rows = [...this.counts].sort(([a], [b]) => a.localeCompare(b)).map(([k, n]) => `${k}=${n}`);
    console.log(`[coverage] ${this.name}: ${rows.join(', ')}`);
  }
}

/** Command-sequence constraints: up to 20 commands, spread over the whole range (the default size stays near 5);
 *  FC_REPLAY_PATH passes fast-check's printed `replayPath` back, with FC_SEED and FC_PATH. */
export const SEQUENCE: fc.CommandsContraints = {
  maxCommands: 20,
  size: 'max',
  ...(process.env.FC_REPLAY_PATH ? { replayPath: process.env.FC_REPLAY_PATH } : {}),
};

/** A signer choice: a fixed actor, or whoever the model says may sign (resolved when the command runs). */
export type SignerChoice = Actor | 'rightful';

/** Mostly the rightful signer, sometimes any of `actors` (who may or may not be the rightful one). */
export const signerChoice = (actors: readonly Actor[]): fc.Arbitrary<SignerChoice> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constant('rightful' as const) },
    { weight: 2, arbitrary: fc.constantFrom(...actors) },
  );

/** The actor a choice names; `rightful` is the actor whose id is `rightfulId`. */
export function resolveSigner(choice: SignerChoice, rightfulId: string, actors: readonly Actor[]): Actor {
  if (choice !== 'rightful') return choice;
  const a = actors.find((x) => x.id === rightfulId);
  if (!a) throw new Error(`no actor holds ${rightfulId}`);
  return a;
}

/** A choice's label for counterexamples, with the actor it resolved to. */
export const choiceLabel = (choice: SignerChoice, used?: Actor): string =>
  choice === 'rightful' ? `rightful${used ? `=${used.name}` : ''}` : choice.name;

/** A rule's verdict: what the call must return, and the model update when it succeeds. */
export interface Transition {
  expected: Expected;
  apply?: () => void;
}

/** Makes the call, checks it against the rule, counts it, then updates the model. `label` starts with the kind. */
export function perform(coverage: Coverage, label: string, t: Transition, call: () => Outcome): Outcome {
  const out = call();
  expectOutcome(label, out, t.expected);
  const paren = label.indexOf('(');
  coverage.hit(paren > 0 ? label.slice(0, paren) : label, t.expected);
  t.apply?.();
  return out;
}
