// The Soroban JSON-RPC methods of one network, with the result shapes of stellar-rpc (close times as strings,
// XDR as base64), plus the developer cheats under `sim_`; one file per method. Errors are RpcError (code + message).
import { LRUCache } from 'lru-cache';
import type { RpcNetwork } from '../network-types.ts';
import { simCloseLedger, simFund, simInfo, simRevert, simSetTime, simSnapshot } from './cheats.ts';
import type { RpcContext, RpcMethod } from './context.ts';
import { METHOD_NOT_FOUND, RpcError } from './error.ts';
import { getEvents } from './get-events.ts';
import { getFeeStats } from './get-fee-stats.ts';
import { getHealth } from './get-health.ts';
import { getLatestLedger } from './get-latest-ledger.ts';
import { getLedgerEntries } from './get-ledger-entries.ts';
import { getLedgers } from './get-ledgers.ts';
import { getNetwork } from './get-network.ts';
import { getTransaction } from './get-transaction.ts';
import { getTransactions } from './get-transactions.ts';
import { getVersionInfo } from './get-version-info.ts';
import { paramsObject } from './params.ts';
import { sendTransaction } from './send-transaction.ts';
import { simulateTransaction } from './simulate-transaction.ts';
import { XdrJson } from './xdr-format.ts';

/** Recording-mode simulations kept for sendTransaction (a client submits what it just simulated). */
const SIMULATIONS_KEPT = 32;

const METHODS: Readonly<Record<string, RpcMethod>> = {
  getHealth,
  getNetwork,
  getVersionInfo,
  getFeeStats,
  getLatestLedger,
  getLedgers,
  getLedgerEntries,
  simulateTransaction,
  sendTransaction,
  getTransaction,
  getTransactions,
  getEvents,
  sim_fund: simFund,
  sim_setTime: simSetTime,
  sim_closeLedger: simCloseLedger,
  sim_snapshot: simSnapshot,
  sim_revert: simRevert,
  sim_info: simInfo,
};

/** The JSON-RPC methods of `net`, with their caches. */
export function createRpcHandler(net: RpcNetwork): (method: string, params?: unknown) => Promise<unknown> {
  const ctx: RpcContext = {
    net,
    ledger: net.ledger,
    codec: net.ledger.codec,
    simulations: new LRUCache({ max: SIMULATIONS_KEPT }),
    ledgerXdr: new WeakMap(),
    topics: new WeakMap(),
    json: new XdrJson(),
  };
  return async (method, params) => {
    const fn = Object.hasOwn(METHODS, method) ? METHODS[method] : undefined;
    if (!fn) throw new RpcError(METHOD_NOT_FOUND, 'method not found');
    return fn(ctx, paramsObject(params));
  };
}
