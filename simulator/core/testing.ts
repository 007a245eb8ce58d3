// Test support for the simulator's own tests: a controllable clock, a tiny counter contract exercising the host
// (storage, auth, events, cross-contract calls, deployment, failures), and a network with it installed.
import { Account, Keypair, TransactionBuilder, type Transaction, type xdr as X, xdr } from '@stellar/stellar-sdk';
import { createHash } from 'node:crypto';
import { ContractError, addressFromScVal, addressToScVal, type ContractImpl } from '../host.ts';
import { toBytes, toU32 } from './scval.ts';
import { FACTORY_WASM_HASH, REGISTRY_WASM_HASH, VAULT_WASM_HASH, contractImpls } from '../contracts/index.ts';
import { PROFILES } from '../index.ts';
import { addressCredentialsOf } from './auth.ts';
import type { TtlSettings } from './ledger.ts';
import { SimNetwork } from './network.ts';
import type { Clock, Network } from './network-names.ts';
import { stellarAssetContract } from './sac.ts';

export const COUNTER_HASH = createHash('sha256').update('test counter').digest();

const COUNT = xdr.ScVal.scvSymbol('Count');
const OWNER = xdr.ScVal.scvVec([xdr.ScVal.scvSymbol('Owner')]);
const u32 = (n: number): X.ScVal => xdr.ScVal.scvU32(n);
const count = (ctx: Parameters<ContractImpl['invoke']>[0]): number => {
  const v = ctx.storage.get(COUNT);
  return v ? toU32(v) : 0;
};

/** counter: `__constructor(owner)`, `incr(by: u32) -> u32` (sig owner, event `incr`), `get() -> u32`,
 *  `fail(code)` (writes, then fails with #code), `guarded(caller) -> u32` (sig caller), `poke(other) -> u32`
 *  (calls other.guarded(self)), `try_fail(other) -> u32` (catches other.fail(7), returns other's count),
 *  `spawn(salt)` (deploys another counter), `temp(v)` (temporary storage). */
export const counter: ContractImpl = {
  name: 'counter',
  construct(ctx, [owner]) {
    ctx.storage.set(OWNER, owner!, 'instance');
  },
  invoke(ctx, fn, args) {
    switch (fn) {
      case 'incr': {
        ctx.requireAuth(addressFromScVal(ctx.storage.get(OWNER, 'instance')!));
        const next = count(ctx) + toU32(args[0]!);
        ctx.storage.set(COUNT, u32(next));
        ctx.emit([xdr.ScVal.scvSymbol('incr')], u32(next));
        return u32(next);
      }
      case 'get':
        return u32(count(ctx));
      case 'fail':
        ctx.storage.set(COUNT, u32(999));
        ctx.emit([xdr.ScVal.scvSymbol('never')], u32(0));
        throw new ContractError(toU32(args[0]!));
      case 'guarded':
        ctx.requireAuth(addressFromScVal(args[0]!));
        return u32(1);
      case 'poke':
        return ctx.call(addressFromScVal(args[0]!), 'guarded', [addressToScVal(ctx.contractId)]);
      case 'try_fail': {
        const other = addressFromScVal(args[0]!);
        try {
          ctx.call(other, 'fail', [u32(7)]);
        } catch {
          // the callee's writes are rolled back
        }
        return ctx.call(other, 'get', []);
      }
      case 'spawn':
        return addressToScVal(
          ctx.deployContract(COUNTER_HASH, toBytes(args[0]!), [ctx.storage.get(OWNER, 'instance')!]),
        );
      case 'temp':
        ctx.storage.set(COUNT, args[0]!, 'temporary');
        return xdr.ScVal.scvVoid();
      default:
        throw new Error(`no function ${fn}`);
    }
  },
};

/** A clock a test moves by hand. */
export interface TestClock {
  now: Clock;
  advance(ms: number): void;
}

export function clock(startMs = Date.UTC(2026, 0, 1)): TestClock {
  let t = startMs;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

/** A bootstrapped network with the counter template installed (the real contracts too). */
export function testNetwork(
  opts: { name?: Network; now?: Clock; protocol?: number; ledgerCloseMs?: number; ttl?: Partial<TtlSettings> } = {},
): SimNetwork {
  const name = opts.name ?? 'testnet';
  const wasm = new Map(contractImpls);
  wasm.set(COUNTER_HASH.toString('hex'), counter);
  const net = new SimNetwork({
    name,
    profile: PROFILES[name],
    contracts: { wasm, sac: stellarAssetContract },
    vaultWasmHash: VAULT_WASM_HASH,
    now: opts.now ?? Date.now,
    protocol: opts.protocol,
    ledgerCloseMs: opts.ledgerCloseMs,
    ...(opts.ttl ? { ttl: opts.ttl } : {}),
  });
  net.bootstrap({ factory: FACTORY_WASM_HASH, vault: VAULT_WASM_HASH, registry: REGISTRY_WASM_HASH });
  return net;
}

/** A funded account. */
export function funded(net: SimNetwork, xlm = 10_000n): Keypair {
  const kp = Keypair.random();
  net.fund(kp.publicKey(), xlm * 10_000_000n);
  return kp;
}

/** A classic (or any) transaction from `source` at its next sequence number, signed by `signers` (default source). */
export function classicTx(
  net: SimNetwork,
  source: Keypair,
  ops: X.Operation[],
  opts: {
    signers?: Keypair[];
    passphrase?: string;
    seqOffset?: bigint;
    timeout?: number;
    minTime?: number;
    fee?: string;
  } = {},
): Transaction {
  const seq = net.account(source.publicKey())?.seqNum ?? 0n;
  const b = new TransactionBuilder(new Account(source.publicKey(), (seq + (opts.seqOffset ?? 0n)).toString()), {
    fee: opts.fee ?? '100',
    networkPassphrase: opts.passphrase ?? net.info.passphrase,
  });
  for (const op of ops) b.addOperation(op);
  const now = net.ledger.nowSec();
  const tx = b.setTimebounds(opts.minTime ?? 0, now + (opts.timeout ?? 300)).build();
  for (const s of opts.signers ?? [source]) tx.sign(s);
  return tx;
}

/** sendTransaction through the in-process RPC. */
export async function send(
  net: SimNetwork,
  tx: Transaction,
): Promise<{ status: string; hash: string; errorResultXdr?: string }> {
  return (await net.rpc('sendTransaction', { transaction: tx.toXdr() })) as {
    status: string;
    hash: string;
    errorResultXdr?: string;
  };
}

/** The result code name of an ERROR sendTransaction reply (txBadSeq, …). */
export function errorCode(reply: { errorResultXdr?: string }): string {
  return xdr.TransactionResult.fromXdr(reply.errorResultXdr!, 'base64').result.type;
}

/** The address credentials of an auth entry, of any address credential type (throws for source-account ones). */
export function addressCreds(e: xdr.SorobanAuthorizationEntry): xdr.SorobanAddressCredentials {
  const c = addressCredentialsOf(e.credentials);
  if (!c) throw new Error(`expected address credentials, got ${e.credentials.type}`);
  return c.creds;
}

/** The contract call of an authorized invocation node (throws for a host-function node). */
export const contractFnOf = (i: xdr.SorobanAuthorizedInvocation): xdr.InvokeContractArgs =>
  xdr.expectUnionVariant(i.function, 'sorobanAuthorizedFunctionTypeContractFn').contractFn;

/** The operation results of a transaction result (throws unless it is txSuccess or txFailed). */
export function opResultsOf(r: xdr.TransactionResult): xdr.OperationResult[] {
  const res = r.result;
  if (res.type !== 'txSuccess' && res.type !== 'txFailed') throw new Error(`no operation results in ${res.type}`);
  return res.results;
}

/** The inner result of an operation result (throws unless it is opInner). */
export const innerResult = (r: xdr.OperationResult): xdr.OperationResultTr => xdr.expectUnionVariant(r, 'opInner').tr;

/** The auth entries of `env`'s single InvokeHostFunction operation. */
export function authOf(env: xdr.TransactionEnvelope): xdr.SorobanAuthorizationEntry[] {
  return invokeOp(env).body.invokeHostFunctionOp.auth;
}

/** `env` (a v1 envelope with one InvokeHostFunction operation) with its auth entries replaced; signatures kept. */
export function withAuth(env: xdr.TransactionEnvelope, auth: xdr.SorobanAuthorizationEntry[]): xdr.TransactionEnvelope {
  const op = invokeOp(env);
  const tx = (env as xdr.TransactionEnvelopeTx).v1.tx;
  const body = xdr.OperationBody.invokeHostFunction(
    new xdr.InvokeHostFunctionOp({ hostFunction: op.body.invokeHostFunctionOp.hostFunction, auth }),
  );
  const replaced = new xdr.Transaction({
    sourceAccount: tx.sourceAccount,
    fee: tx.fee,
    seqNum: tx.seqNum,
    cond: tx.cond,
    memo: tx.memo,
    operations: [new xdr.Operation({ sourceAccount: op.sourceAccount, body })],
    ext: tx.ext,
  });
  return xdr.TransactionEnvelope.envelopeTypeTx(
    new xdr.TransactionV1Envelope({ tx: replaced, signatures: (env as xdr.TransactionEnvelopeTx).v1.signatures }),
  );
}

function invokeOp(env: xdr.TransactionEnvelope): xdr.Operation & { body: xdr.OperationBodyInvokeHostFunction } {
  if (env.type !== 'envelopeTypeTx') throw new Error(`expected a v1 transaction envelope, got ${env.type}`);
  const ops = env.v1.tx.operations;
  const op = ops[0];
  if (ops.length !== 1 || op?.body.type !== 'invokeHostFunction')
    throw new Error('expected one InvokeHostFunction operation');
  return op as xdr.Operation & { body: xdr.OperationBodyInvokeHostFunction };
}
