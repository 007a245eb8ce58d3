// Reads: read-only contract calls (simulated as the simulation account), ledger entries, events, and what the
// RPC says of its network. Reads go through the client's read cache where the caller allows it.
import { Account, rpc, type xdr } from '@stellar/stellar-sdk';
import { chainUnavailable, stateArchived } from './errors.ts';
import { buildTransaction, simulate } from './prepare.ts';
import { readKey } from './read-cache.ts';
import { rpcCall, type ChainContext } from './rpc.ts';
import type { ChainHealth, ContractCall, NetworkCheck, ReadFootprint, ReadRequest } from './types.ts';

/** A read-only contract call: its return value, from the read cache when it holds a fresh one. */
export async function read(ctx: ChainContext, req: ReadRequest): Promise<xdr.ScVal> {
  const kind = ctx.kindOf(req.contractId, req.contract);
  const source = req.source ?? ctx.opts.simulationAccount;
  const load = async () => {
    const tx = buildTransaction(ctx, new Account(source, '0'), req, 0);
    const sim = await simulate(ctx, tx, kind);
    if (!sim.result) throw chainUnavailable(`simulation of ${req.fn} returned no value`, ctx.network);
    if (req.refuseArchived) {
      const archived = archivedKeys(sim.transactionData.build());
      if (archived.length > 0) throw stateArchived(archived);
    }
    return { value: sim.result.retval, ledger: sim.latestLedger };
  };
  if (!ctx.reads.enabled) return (await load()).value;
  return ctx.reads.read(readKey(req.contractId, req.fn, source, req.args), load);
}

/**
 * A read-only contract call simulated afresh, as the simulation account: its value and the ledger keys the
 * simulation names, so a caller learns what a read touches from the contract itself, whatever its storage layout.
 */
export async function readFootprint(ctx: ChainContext, req: ContractCall): Promise<ReadFootprint> {
  const kind = ctx.kindOf(req.contractId, req.contract);
  const tx = buildTransaction(ctx, new Account(ctx.opts.simulationAccount, '0'), req, 0);
  const sim = await simulate(ctx, tx, kind);
  if (!sim.result) throw chainUnavailable(`simulation of ${req.fn} returned no value`, ctx.network);
  const fp = sim.transactionData.build().resources.footprint;
  const keys = [...fp.readOnly, ...fp.readWrite];
  // an RPC that does not restore in simulation (before CAP-66) names the archived keys in a restore preamble
  if (rpc.Api.isSimulationRestore(sim))
    keys.push(...sim.restorePreamble.transactionData.build().resources.footprint.readWrite);
  return { value: sim.result.retval, keys };
}

/** The ledger keys (base64) a simulation found archived: the read-write footprint entries its restore list names
 *  (`SorobanResourcesExtV0.archivedSorobanEntries`; stellar-rpc simulates over archived entries as if restored). */
function archivedKeys(data: xdr.SorobanTransactionData): string[] {
  if (data.ext.type !== 'resourceExt') return [];
  const rw = data.resources.footprint.readWrite;
  return data.ext.resourceExt.archivedSorobanEntries.flatMap((i) => (rw[i] ? [rw[i].toXdr('base64')] : []));
}

/** Base64 of a LedgerKey, memoized per object (the registry's keys are cached objects, see recordLedgerKey). */
const keyTexts = new WeakMap<xdr.LedgerKey, string>();
function keyText(k: xdr.LedgerKey): string {
  let t = keyTexts.get(k);
  if (t === undefined) {
    t = k.toXdr('base64');
    keyTexts.set(k, t);
  }
  return t;
}

/** getLedgerEntries; `cached`: the answer may come from the read cache. */
export async function getLedgerEntries(
  ctx: ChainContext,
  keys: xdr.LedgerKey[],
  o?: { cached?: boolean },
): Promise<rpc.Api.GetLedgerEntriesResponse> {
  const load = async () => {
    const res = await rpcCall(ctx, () => ctx.server.getLedgerEntries(...keys));
    ctx.reads.observeLedger(res.latestLedger);
    return { value: res, ledger: res.latestLedger };
  };
  if (!o?.cached || !ctx.reads.enabled) return (await load()).value;
  return ctx.reads.read(`entries ${keys.map(keyText).join(' ')}`, load);
}

export async function getEvents(
  ctx: ChainContext,
  request: rpc.Api.GetEventsRequest,
): Promise<rpc.Api.GetEventsResponse> {
  const res = await rpcCall(ctx, () => ctx.server.getEvents(request));
  ctx.reads.observeLedger(res.latestLedger);
  return res;
}

/** getNetwork; remembers the protocol version it reports (ChainClient.protocolVersion). */
async function getNetwork(ctx: ChainContext): Promise<{ passphrase: string; protocolVersion: number }> {
  const n = await rpcCall(ctx, () => ctx.server.getNetwork());
  // JSON-RPC answers a number; the SDK's type says string
  ctx.protocolVersion = Number(n.protocolVersion);
  return { passphrase: n.passphrase, protocolVersion: ctx.protocolVersion };
}

export async function health(ctx: ChainContext): Promise<ChainHealth> {
  const h = await rpcCall(ctx, () => ctx.server.getHealth());
  const n = await getNetwork(ctx);
  return {
    status: h.status,
    latestLedger: h.latestLedger,
    passphrase: n.passphrase,
    protocolVersion: String(n.protocolVersion),
  };
}

/** Whether the RPC serves the configured network (its passphrase). */
export async function verifyNetwork(ctx: ChainContext): Promise<NetworkCheck> {
  const n = await getNetwork(ctx);
  return {
    ok: n.passphrase === ctx.passphrase,
    expected: ctx.passphrase,
    actual: n.passphrase,
    protocolVersion: n.protocolVersion,
  };
}
