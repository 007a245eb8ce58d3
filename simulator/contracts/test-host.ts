// A small in-memory ContractContext for the contracts' unit tests only. The real host — ledger, accounts,
// signatures, auth entries, footprints, RPC — is simulator/core. This one keeps per-contract storage, an explicit
// set of authorized addresses, cross-contract calls, deployments, events, and rolls a failed invocation back.
import { randomBytes } from 'node:crypto';
import { Keypair, StrKey, scValToNative, xdr } from '@stellar/stellar-sdk';
import {
  ContractError,
  HostError,
  type ContractContext,
  type ContractImpl,
  type ContractStorage,
  type Durability,
} from '../host.ts';
import { i128, sym, unit, vec } from '../core/scval.ts';
import { contractIdFromAddress } from '../core/derive.ts';
import { contractImpls } from './index.ts';
import { SimCodec } from '../core/entries.ts';
import { arg, defineContract } from './support.ts';

export interface TestEvent {
  contractId: string;
  topics: xdr.ScVal[];
  data: xdr.ScVal;
}

/** A token with `transfer(from, to, amount)` (sig: from), `balance(id)` and an unauthenticated `mint`. */
export const testToken: ContractImpl = defineContract('test token', {
  transfer: [
    3,
    (ctx, [from, to, amount]) => {
      ctx.requireAuth(arg.address(from!));
      const n = arg.i128(amount!);
      const have = balanceOf(ctx, from!);
      if (n < 0n) throw new HostError('negative amount is not allowed', 'Contract');
      if (have < n) throw new HostError('balance is not sufficient', 'Contract');
      ctx.storage.set(vec([sym('Balance'), from!]), i128(have - n));
      ctx.storage.set(vec([sym('Balance'), to!]), i128(balanceOf(ctx, to!) + n));
      ctx.emit([sym('transfer'), from!, to!], i128(n)); // as a Stellar Asset Contract does
      return unit();
    },
  ],
  balance: [1, (ctx, [id]) => i128(balanceOf(ctx, id!))],
  mint: [
    2,
    (ctx, [to, amount]) => {
      ctx.storage.set(vec([sym('Balance'), to!]), i128(balanceOf(ctx, to!) + arg.i128(amount!)));
      return unit();
    },
  ],
});
function balanceOf(ctx: ContractContext, id: xdr.ScVal): bigint {
  const v = ctx.storage.get(vec([sym('Balance'), id]));
  return v ? arg.i128(v) : 0n;
}

/** A fresh contract id for top-level test contracts (random, so distinct without a counter). */
export function testContractId(): string {
  const b = randomBytes(32);
  b[0] = 0xee;
  return StrKey.encodeContract(b);
}

export class TestHost {
  readonly networkPassphrase = 'credential-vault test host';
  ledgerSequence = 1_000;
  ledgerTimestamp = 1_750_000_000n;
  /** Addresses whose require_auth passes (besides a contract that directly invokes the call). */
  readonly authorized = new Set<string>();
  readonly events: TestEvent[] = [];
  /** Every address a require_auth asked for, in order (also the failed ones). */
  readonly authRequests: string[] = [];
  private readonly contracts = new Map<string, ContractImpl>();
  private readonly data = new Map<string, Map<string, xdr.ScVal>>();
  private readonly undo: (() => void)[] = [];
  private depth = 0;
  private readonly codec = new SimCodec();
  /** Storage reads so far (to check that an operation's cost does not grow with the data). */
  reads = 0;

  /** Puts `impl` at `id` (default: a fresh id) and runs its constructor, unless `constructorArgs` is null. */
  register(impl: ContractImpl, constructorArgs: xdr.ScVal[] | null = [], id = testContractId()): string {
    this.contracts.set(id, impl);
    if (constructorArgs) this.atomically(() => impl.construct?.(this.frame(id, undefined), constructorArgs));
    return id;
  }

  /** A top-level invocation, as a transaction would make it; `auth` adds to `authorized` for this call only. */
  invoke(contractId: string, fn: string, args: xdr.ScVal[], auth: string[] = []): xdr.ScVal {
    const added = auth.filter((a) => !this.authorized.has(a));
    for (const a of added) this.authorized.add(a);
    try {
      return this.atomically(() => this.call(contractId, fn, args, undefined));
    } finally {
      for (const a of added) this.authorized.delete(a);
    }
  }

  /** Raw storage of a contract, outside any invocation (to inspect or to set up edge cases). */
  storage(contractId: string): ContractStorage {
    return this.store(contractId);
  }

  private atomically<R>(run: () => R): R {
    const events = this.events.length;
    this.depth++;
    try {
      return run();
    } catch (e) {
      while (this.undo.length > 0) this.undo.pop()!();
      this.events.length = events;
      throw e;
    } finally {
      this.depth--;
      this.undo.length = 0;
    }
  }

  private call(contractId: string, fn: string, args: xdr.ScVal[], invoker: string | undefined): xdr.ScVal {
    const impl = this.contracts.get(contractId);
    if (!impl) throw new HostError(`contract not found: ${contractId}`, 'Storage');
    return impl.invoke(this.frame(contractId, invoker), fn, args);
  }

  private frame(contractId: string, invoker: string | undefined): ContractContext {
    return {
      contractId,
      ledgerSequence: this.ledgerSequence,
      ledgerTimestamp: this.ledgerTimestamp,
      networkPassphrase: this.networkPassphrase,
      storage: this.store(contractId),
      requireAuth: (address) => {
        this.authRequests.push(address);
        if (address !== invoker && !this.authorized.has(address)) {
          throw new HostError(`Error(Auth, InvalidAction): require_auth not satisfied for ${address}`, 'Auth');
        }
      },
      emit: (topics, data) => {
        this.events.push({ contractId, topics, data });
      },
      call: (id, fn, args) => this.call(id, fn, args, contractId),
      deployContract: (wasmHash, salt, constructorArgs) => {
        const impl = contractImpls.get(wasmHash.toString('hex'));
        if (!impl) throw new HostError('Wasm does not exist', 'Storage');
        const id = contractIdFromAddress(this.networkPassphrase, contractId, salt);
        if (this.contracts.has(id)) throw new HostError('contract already exists', 'Storage');
        this.contracts.set(id, impl);
        if (this.depth > 0) this.undo.push(() => this.contracts.delete(id));
        impl.construct?.(this.frame(id, contractId), constructorArgs);
        return id;
      },
    };
  }

  private store(contractId: string): ContractStorage {
    let m = this.data.get(contractId);
    if (!m) this.data.set(contractId, (m = new Map()));
    const map = m;
    const k = (key: xdr.ScVal, d: Durability = 'persistent') => `${d}:${this.codec.scValKey(key)}`;
    const write = (key: string, value: xdr.ScVal | undefined) => {
      const before = map.get(key);
      if (this.depth > 0) this.undo.push(() => (before === undefined ? map.delete(key) : map.set(key, before)));
      if (value === undefined) map.delete(key);
      else map.set(key, value);
    };
    return {
      get: (key, d) => (this.reads++, map.get(k(key, d))),
      has: (key, d) => (this.reads++, map.has(k(key, d))),
      set: (key, value, d) => write(k(key, d), value),
      remove: (key, d) => write(k(key, d), undefined),
    };
  }
}

/** A G… account from a one-byte seed. */
export const account = (n: number): string => Keypair.fromRawEd25519Seed(Buffer.alloc(32, n)).publicKey();

/** What `run` threw, in a shape tables can match: `{ code }` for a contract error, `{ kind, message }` for a
 *  host error; undefined when it did not throw. */
export function errorOf(run: () => unknown): { code?: number; kind?: string; message: string } | undefined {
  try {
    run();
  } catch (e) {
    if (e instanceof ContractError) return { code: e.code, message: e.message };
    if (e instanceof HostError) return { kind: e.kind, message: e.message };
    throw e;
  }
  return undefined;
}

/** Events of `host` named `name` (first topic), data as native values. */
export function eventsNamed(host: TestHost, name: string): { contractId: string; data: unknown }[] {
  return host.events
    .filter((e) => e.topics[0]?.type === 'scvSymbol' && e.topics[0].sym.toString() === name)
    .map((e) => ({ contractId: e.contractId, data: scValToNative(e.data) }));
}
