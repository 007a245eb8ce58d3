// What every JSON-RPC method of one network works with: the network, its ledger and codec, and the handler's own
// caches (owned by the handler createRpcHandler builds for that network, never module state).
import type { LRUCache } from 'lru-cache';
import type { Preexecuted } from '../apply.ts';
import type { SimCodec } from '../entries.ts';
import type { Ledger } from '../ledger.ts';
import type { LedgerXdrMemo } from '../ledger-xdr.ts';
import type { RpcNetwork } from '../network-types.ts';
import type { LedgerEvent } from '../records.ts';
import type { XdrJson } from './xdr-format.ts';

export interface RpcContext {
  readonly net: RpcNetwork;
  readonly ledger: Ledger;
  readonly codec: SimCodec;
  /** Recent recording-mode simulations by invocation (sendTransaction applies a matching one without running it
   *  again). */
  readonly simulations: LRUCache<string, Preexecuted>;
  /** Ledger header and close-meta XDR per retained header. */
  readonly ledgerXdr: LedgerXdrMemo;
  /** Base64 topics per event (getEvents matches filters against them). */
  readonly topics: WeakMap<LedgerEvent, string[]>;
  /** `xdrFormat: "json"`: XDR as stellar-xdr's JSON. */
  readonly json: XdrJson;
}

/** A method's params: the JSON-RPC `params` object (by name, as stellar-rpc takes them). */
export type Params = Record<string, unknown>;

/** One JSON-RPC method. */
export type RpcMethod = (ctx: RpcContext, params: Params) => unknown;
