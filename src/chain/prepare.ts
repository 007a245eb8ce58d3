// Prepare: the source's sequence number, build, simulate, assemble → the unsigned transaction's XDR.
import { Account, Contract, Keypair, StrKey, Transaction, TransactionBuilder, rpc, xdr } from '@stellar/stellar-sdk';
import type { ChainCaches } from './caches.ts';
import { opt, readEvents } from './diagnostics.ts';
import { ChainError, chainUnavailable, mapChainFailure, PREPARED_TX_VALIDITY_S, type ContractKind } from './errors.ts';
import { fastAssembler, sdkAssembler } from './assembly.ts';
import { rpcCall, type ChainContext } from './rpc.ts';
import type { ContractCall, PreparedTransaction, PrepareRequest } from './types.ts';

/** G… address → the LedgerKey of its account (undefined for anything else); the StrKey checked once per cache. */
export function accountLedgerKey(caches: ChainCaches, source: string): xdr.LedgerKey | undefined {
  const hit = caches.accountKeys.get(source);
  if (hit) return hit;
  if (!StrKey.isValidEd25519PublicKey(source)) return undefined;
  const key = xdr.LedgerKey.account(
    new xdr.LedgerKeyAccount({ accountId: Keypair.fromPublicKey(source).xdrPublicKey() }),
  );
  caches.accountKeys.set(source, key);
  return key;
}

/** The current sequence number of `source` (a G… account that exists). */
export async function loadSequence(ctx: ChainContext, source: string): Promise<string> {
  const key = typeof source === 'string' ? accountLedgerKey(ctx.caches, source) : undefined;
  if (!key)
    throw new ChainError('source_account_not_found', 400, `source account ${String(source)} is not an account address`);
  const res = await rpcCall(ctx, () => ctx.server.getLedgerEntries(key));
  ctx.reads.observeLedger(res.latestLedger);
  const entry = res.entries[0];
  if (!entry)
    throw new ChainError('source_account_not_found', 400, `source account ${source} does not exist on ${ctx.network}`);
  const val = entry.val;
  if (val.type !== 'account')
    throw new ChainError('source_account_not_found', 400, `source account ${source} does not exist on ${ctx.network}`);
  return val.account.seqNum.toString();
}

/** The SDK's TransactionBuilder for one contract call. */
export function buildTransaction(
  ctx: ChainContext,
  account: Account,
  { contractId, fn, args }: ContractCall,
  maxTime: number,
): Transaction {
  return new TransactionBuilder(account, { fee: ctx.baseFee, networkPassphrase: ctx.passphrase })
    .addOperation(new Contract(contractId).call(fn, ...args))
    .setTimebounds(0, maxTime)
    .build();
}

/** simulateTransaction; a simulation error becomes the contract's ChainError. */
export async function simulate(
  ctx: ChainContext,
  tx: Transaction,
  kind: ContractKind,
): Promise<rpc.Api.SimulateTransactionSuccessResponse> {
  // Recording mode asks for ADDRESS_V2 entries (useUpgradedAuth, at Protocols 27 and 28 a request flag): their
  // signature names the address, so it cannot be moved to another one (docs/protocol.md).
  const sim = await rpcCall(ctx, () => ctx.server.simulateTransaction(tx, undefined, undefined, true));
  ctx.reads.observeLedger(sim.latestLedger);
  if (rpc.Api.isSimulationError(sim)) {
    const { contractCode, lines } = readEvents(sim.events ?? []);
    // soroban-rpc's error text already carries the event log; a bare one gets the decoded events appended
    const text = /Event log/.test(sim.error) ? sim.error : [sim.error, ...lines].join('\n');
    throw mapChainFailure({ contract: kind, text, ...opt('contractCode', contractCode) });
  }
  if (!rpc.Api.isSimulationSuccess(sim)) {
    throw chainUnavailable('simulation returned neither result nor error', ctx.network);
  }
  return sim;
}

/** Build → simulate → assemble: the unsigned transaction of one contract call. */
export async function prepare(ctx: ChainContext, req: PrepareRequest): Promise<PreparedTransaction> {
  const kind = ctx.kindOf(req.contractId, req.contract);
  const sequence = await (req.sequence ?? loadSequence(ctx, req.source));
  const maxTime = Math.floor(ctx.now() / 1000) + (ctx.opts.txValiditySeconds ?? PREPARED_TX_VALIDITY_S);
  // The same bytes as the SDK's builder and assembleTransaction, written once (assembly.ts, a workaround switched
  // off by CV_FAST_ASSEMBLE=false).
  const assembler = ctx.fastAssemble ? fastAssembler : sdkAssembler;
  const assembly = assembler({ ...req, sequence, baseFee: ctx.baseFee, maxTime }, ctx.passphrase);
  const sim = await simulate(ctx, assembly.transaction, kind);
  if (rpc.Api.isSimulationRestore(sim)) {
    throw mapChainFailure({ contract: kind, text: 'contract state is archived and must be restored first' });
  }
  return { xdr: assembly.assemble(sim), network: ctx.passphrase };
}
