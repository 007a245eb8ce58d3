// The RPC connection of a chain client and what every call on it shares: the SDK's rpc.Server with the service's
// transport, the settings, the read cache, and one way of turning RPC failures into chain_unavailable.
import { rpc } from '@stellar/stellar-sdk';
import { CHAIN_TIMEOUT_DEFAULTS } from '../config/index.ts';
import type { Clock, Network } from '../domain.ts';
import { createChainCaches, type ChainCaches } from './caches.ts';
import { ChainError, chainUnavailable, type ContractKind } from './errors.ts';
import { ReadCache } from './read-cache.ts';
import { createJsonPostClient } from './transport.ts';
import type { ChainClientOptions, ChainTimeouts } from './types.ts';

/** The settings' defaults (src/config), so that a client built without timeouts behaves as a configured one. */
export const DEFAULT_TIMEOUTS: ChainTimeouts = { ...CHAIN_TIMEOUT_DEFAULTS };
const DEFAULT_BASE_FEE = '100';

/**
 * The SDK's rpc.Server with the service's transport and one RPC timeout: the one place an RPC connection is made
 * (the chain client's, and the `tx sign` command's read of the latest ledger).
 */
export function createRpcServer(o: {
  rpcUrl: string;
  allowHttp: boolean;
  timeoutMs: number;
  transport: 'node' | 'sdk';
}): rpc.Server {
  const server = new rpc.Server(o.rpcUrl, { allowHttp: o.allowHttp });
  if (o.transport === 'node') {
    // The SDK's client, configured with its public `adapter` option: rpc.Server only posts JSON and reads `data`,
    // which transport.ts does over node:http(s).
    const transport = createJsonPostClient({ timeoutMs: o.timeoutMs });
    server.httpClient.defaults.adapter = async (config) => {
      const res = await transport.post(String(config.url), config.data);
      return { data: res.data, status: res.status, statusText: '', headers: {}, config };
    };
  } else {
    // rpc.Server accepts a `timeout` option but does not apply it: set it on its HTTP client.
    server.httpClient.defaults.timeout = o.timeoutMs;
  }
  return server;
}

/** What the pieces of one chain client share (prepare.ts, submit.ts, poll.ts, reads.ts). */
export interface ChainContext {
  readonly opts: ChainClientOptions;
  readonly network: Network;
  readonly passphrase: string;
  readonly timeouts: ChainTimeouts;
  readonly caches: ChainCaches;
  readonly baseFee: string;
  readonly fastAssemble: boolean;
  readonly now: Clock;
  readonly sleep: (ms: number) => Promise<void>;
  readonly server: rpc.Server;
  readonly reads: ReadCache;
  /** The error table of a contract id: the configured factory/registry/tokens, otherwise a vault. */
  kindOf(contractId: string, explicit?: ContractKind): ContractKind;
  /** What getNetwork last said: a network upgrades while the service runs, and health probes see it. */
  protocolVersion: number | undefined;
}

/** The options with their defaults applied, the RPC server and the read cache of one client. */
export function createChainContext(opts: ChainClientOptions): ChainContext {
  const timeouts: ChainTimeouts = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
  const now = opts.now ?? Date.now;
  const tokenIds = new Set(opts.contracts?.tokenIds ?? []);
  return {
    opts,
    network: opts.network,
    passphrase: opts.networkPassphrase,
    timeouts,
    caches: opts.caches ?? createChainCaches(),
    baseFee: opts.baseFee ?? DEFAULT_BASE_FEE,
    fastAssemble: opts.fastAssemble ?? true,
    now,
    sleep: opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms))),
    server: createRpcServer({
      rpcUrl: opts.rpcUrl,
      allowHttp: opts.allowHttp ?? false,
      timeoutMs: timeouts.rpcMs,
      transport: opts.rpcTransport ?? 'node',
    }),
    reads: new ReadCache({
      ttlMs: opts.readCacheMs ?? 0,
      now,
      ...(opts.readCacheEntries ? { maxEntries: opts.readCacheEntries } : {}),
    }),
    kindOf(contractId, explicit) {
      if (explicit) return explicit;
      if (contractId === opts.contracts?.factoryId) return 'factory';
      if (contractId === opts.contracts?.registryId) return 'registry';
      if (tokenIds.has(contractId)) return 'token';
      return 'vault';
    },
    protocolVersion: undefined,
  };
}

/** Runs an RPC request; transport failures, HTTP errors and JSON-RPC errors → chain_unavailable. */
export async function rpcCall<T>(ctx: ChainContext, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof ChainError) throw e;
    throw chainUnavailable(e, ctx.network, ctx.opts.rpcWhere);
  }
}
