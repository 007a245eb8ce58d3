// The chain simulator's public API: both networks in-process (`createSimulator`), or served over HTTP as Soroban
// JSON-RPC endpoints with friendbots (`startSimulator`). One contract code behind both.
import fs from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { FACTORY_WASM_HASH, REGISTRY_WASM_HASH, VAULT_WASM_HASH, contractImpls } from './contracts/index.ts';
import type { Profile } from './core/bootstrap.ts';
import type { ContractRegistry } from './core/invocation.ts';
import { txXdrFields } from './core/meta.ts';
import { SimCodec } from './core/entries.ts';
import { SimNetwork } from './core/network.ts';
import type { NetworkInfo } from './core/network-types.ts';
import { stellarAssetContract } from './core/sac.ts';
import { StateJournal } from './core/journal.ts';
import { createHttpServer } from './core/server.ts';
import { STATE_FORMAT, loadNetwork, saveNetwork, type SavedState } from './core/state.ts';
import { type Clock, type Network, NETWORKS } from './core/network-names.ts';
import type { TtlSettings } from './core/ledger.ts';

export type { InvokeResult } from './core/network.ts';
export type { NetworkInfo } from './core/network-types.ts';
export { SimNetwork } from './core/network.ts';
export {
  MAX_LEDGER_CLOSE_MS,
  MAX_PROTOCOL,
  MIN_LEDGER_CLOSE_MS,
  MIN_PROTOCOL,
  PROTOCOL_VERSION,
  parseLedgerCloseMs,
  parseProtocol,
} from './core/ledger.ts';
export type { SavedState } from './core/state.ts';
export type { TtlSettings } from './core/ledger.ts';

export const PROFILES: Record<Network, Profile> = {
  testnet: { passphrase: 'Credential Vault Simulator Testnet ; 2026', feeAsset: 'native', feeAmount: 50_000_000n },
  mainnet: {
    passphrase: 'Credential Vault Simulator Mainnet ; 2026',
    feeAsset: { code: 'USDC' },
    feeAmount: 10_000_000n,
  },
};

export interface SimulatorOptions {
  /** Wall clock in ms (default Date.now); ledgers close on it. */
  now?: Clock;
  /** Restore this state instead of a fresh genesis. */
  state?: SavedState;
  /** Transactions kept per network for getTransaction (default 10,000). */
  historyLimit?: number;
  /** Protocol version both networks emulate (26..28, default 28). */
  protocol?: number;
  /** 0 (default): every transaction is applied at once. N > 0: transactions queue until a network's
   *  `closeLedger()`, which nothing calls in process (tests close by hand); startSimulator calls it every N ms. */
  ledgerCloseMs?: number;
  /** State archival settings of both networks (default TTL_SETTINGS, Protocol 28's testnet and mainnet: minimum
   *  persistent TTL 2,073,600 ledgers, temporary 17,280, maximum 3,110,400). Small values let a test close ledgers
   *  past a TTL. */
  ttl?: Partial<TtlSettings>;
}

export interface Simulator {
  network(name: Network): SimNetwork;
  readonly networks: Readonly<Record<Network, SimNetwork>>;
  /** The whole state (what `--state-file` writes). */
  saveState(): SavedState;
}

const registry: ContractRegistry = { wasm: contractImpls, sac: stellarAssetContract };

export function createSimulator(opts: SimulatorOptions = {}): Simulator {
  const now = opts.now ?? Date.now;
  if (opts.state && opts.state.format !== STATE_FORMAT) throw new Error('not a credential-vault simulator state file');
  const codec = new SimCodec();
  const make = (name: Network): SimNetwork => {
    const net = new SimNetwork({
      codec,
      name,
      profile: PROFILES[name],
      contracts: registry,
      vaultWasmHash: VAULT_WASM_HASH,
      now,
      historyLimit: opts.historyLimit,
      protocol: opts.protocol,
      ledgerCloseMs: opts.ledgerCloseMs,
      ...(opts.ttl ? { ttl: opts.ttl } : {}),
    });
    const saved = opts.state?.networks[name];
    if (saved) loadNetwork(net, saved);
    else net.bootstrap({ factory: FACTORY_WASM_HASH, vault: VAULT_WASM_HASH, registry: REGISTRY_WASM_HASH });
    return net;
  };
  const networks = { testnet: make('testnet'), mainnet: make('mainnet') };
  return {
    networks,
    network(name) {
      const n = networks[name];
      if (!n) throw new RangeError(`unknown network ${String(name)} (testnet | mainnet)`);
      return n;
    },
    saveState() {
      return {
        format: STATE_FORMAT,
        version: 1,
        savedAt: new Date(now()).toISOString(),
        networks: {
          testnet: saveNetwork(networks.testnet, txXdrFields),
          mainnet: saveNetwork(networks.mainnet, txXdrFields),
        },
      };
    },
  };
}

export interface StartSimulatorOptions {
  /** Default 8000; 0 picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Loaded at start when present (with its journal replayed), journaled before every answer that changed the
   *  state, compacted at close. */
  stateFile?: string;
  now?: Clock;
  /** Protocol version both networks emulate (26..28, default 28). */
  protocol?: number;
  /** 0 (default): every transaction is applied at once. N > 0: a ledger closes on both networks every N ms, with
   *  the transactions queued since the last one (sendTransaction answers PENDING, getTransaction NOT_FOUND). */
  ledgerCloseMs?: number;
  /** Runs `close` every `everyMs` until the returned stop is called (default: setInterval). */
  ledgerClock?: LedgerClock;
  /** State archival settings (SimulatorOptions.ttl). */
  ttl?: Partial<TtlSettings>;
  /** A failed close (default: written to standard error). */
  onCloseError?: (err: unknown) => void;
}

/** Calls `close` every `everyMs` ms; returns what stops it. */
export type LedgerClock = (everyMs: number, close: () => void) => () => void;

const intervalClock: LedgerClock = (everyMs, close) => {
  const timer = setInterval(close, everyMs);
  return () => clearInterval(timer);
};

export interface RunningSimulator {
  /** Base URL, e.g. http://127.0.0.1:8000 (rpc at `${url}/testnet/rpc`). */
  url: string;
  sim: Simulator;
  networks: Record<Network, NetworkInfo>;
  /** Writes the state file (if any) now and empties its journal. */
  save(): Promise<void>;
  /** Stops serving and writes the state file (if any). */
  close(): Promise<void>;
}

async function readState(file: string): Promise<SavedState | undefined> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  return JSON.parse(text) as SavedState;
}

export async function startSimulator(opts: StartSimulatorOptions = {}): Promise<RunningSimulator> {
  const state = opts.stateFile ? await readState(opts.stateFile) : undefined;
  const sim = createSimulator({
    now: opts.now,
    state,
    protocol: opts.protocol,
    ledgerCloseMs: opts.ledgerCloseMs,
    ...(opts.ttl ? { ttl: opts.ttl } : {}),
  });
  const journal = opts.stateFile
    ? new StateJournal({
        stateFile: opts.stateFile,
        networks: sim.networks,
        ...(state ? { loaded: state } : {}),
        saveState: () => sim.saveState(),
        txXdr: txXdrFields,
      })
    : undefined;
  const server = createHttpServer(sim.networks, journal ? { beforeAnswer: () => journal.flush() } : {});
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 8000, host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((e: unknown) => {
    journal?.close();
    throw e;
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  for (const name of NETWORKS) sim.network(name).setUrls(`${url}/${name}/rpc`, `${url}/${name}/friendbot`);
  const onCloseError =
    opts.onCloseError ?? ((e: unknown) => console.error(`ledger close failed: ${e instanceof Error ? e.stack : e}`));
  const stopClock = opts.ledgerCloseMs
    ? (opts.ledgerClock ?? intervalClock)(opts.ledgerCloseMs, () => {
        for (const name of NETWORKS) {
          try {
            sim.network(name).closeLedger();
          } catch (e) {
            onCloseError(e);
          }
        }
      })
    : undefined;
  let closed = false;
  const save = async (): Promise<void> => journal?.compact();
  return {
    url,
    sim,
    networks: { testnet: sim.network('testnet').info, mainnet: sim.network('mainnet').info },
    save,
    async close() {
      if (closed) return;
      closed = true;
      stopClock?.();
      // What still waits for a ledger is lost, as a node's queue is when it stops.
      for (const name of NETWORKS) sim.network(name).queue.drop('the simulator stopped');
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      journal?.close();
    },
  };
}
