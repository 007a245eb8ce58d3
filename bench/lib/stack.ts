// The real services for the benchmarks: one simulator process (Soroban JSON-RPC, and in-process fixtures),
// and one process running the vault API (testnet) and the resolver through `startServices`, exactly as
// `credential-vault serve` and `credential-vault resolver` do, with every limit raised by its setting.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Keypair } from '@stellar/stellar-sdk';
import type { NetworkInfo } from '../../simulator/index.ts';
import { startHost, THIS_RUNTIME, type Host, type HostRuntime } from './child.ts';
import type { IssuerIdentity } from './vault-client.ts';
import type { Network } from '../../src/domain.ts';

/** Requests per minute every limit is raised to, so that no benchmark is throttled. */
export const RAISED_LIMIT = 100_000_000;

/** The flags that raise the limits: printed in the output and written into docs/benchmarks.md. */
export const RAISED_LIMIT_FLAGS = [
  ...['standard', 'early', 'admin'].flatMap((role) => [
    `--rate-${role}-read`,
    String(RAISED_LIMIT),
    `--rate-${role}-write`,
    String(RAISED_LIMIT),
  ]),
  '--resolver-rate-limit',
  String(RAISED_LIMIT),
];

export function raisedLimitsNote(): string {
  return `Rate limits raised for the bench (not the defaults): \`${RAISED_LIMIT_FLAGS.join(' ')}\`; everything else at its default (resolution cache TTL 30 s, embedded stores).`;
}

export interface SimReady {
  url: string;
  networks: Record<Network, NetworkInfo>;
}

/** The `--{network}-…` profile flags that point a service at the simulator (with `--simulator false`). */
export function profileFlags(sim: SimReady, networks: readonly Network[]): string[] {
  return networks.flatMap((n) => {
    const i = sim.networks[n];
    return [
      `--${n}-rpc-url`,
      `${sim.url}/${n}/rpc`,
      `--${n}-passphrase`,
      i.passphrase,
      `--${n}-factory-id`,
      i.factoryId,
      `--${n}-registry-id`,
      i.registryId,
      `--${n}-vault-wasm-hash`,
      i.vaultWasmHash,
      `--${n}-fee-token-id`,
      i.feeTokenId,
      `--${n}-simulation-account`,
      i.admin.publicKey,
    ];
  });
}

type Endpoint = { url?: string; error?: string };

export interface Owner {
  keypair: Keypair;
  vault: string;
}

export interface Stack {
  sim: Host<SimReady>;
  services: Host<{ vault?: Endpoint; resolver?: Endpoint }>;
  /** Vault API base URL, or throws why it is not running. */
  vaultUrl(): string;
  resolverUrl(): string;
  passphrase: string;
  /** A funded issuer with a registered DID and a standard key bound to its wallet. */
  issuer(): Promise<IssuerIdentity>;
  /** A funded owner with a deployed vault. */
  owner(): Promise<Owner>;
  /** A standard key bound to `wallet`. */
  key(wallet: string): Promise<string>;
  /** Credentials issued straight into the simulator (batch_issue), not through the API. */
  fill(o: {
    vault: string;
    issuer: IssuerIdentity;
    count: number;
    prefix: string;
  }): Promise<{ count: number; ms: number }>;
  /**
   * A second vault API (testnet) against the same simulator, started on first use with `extraFlags` (e.g.
   * `--fast-assemble false`) and its own data directory; `key` makes a standard key in its own store. Stopped by close().
   */
  variant(
    extraFlags: readonly string[],
  ): Promise<{ url: string; key(wallet: string): Promise<string>; cpuUs(): Promise<number> }>;
  /** CPU time (µs) the services' process has used so far. */
  cpuUs(): Promise<number>;
  /** CPU time (µs) the simulator's process has used so far. */
  simCpuUs(): Promise<number>;
  /** JSON-RPC calls the simulator answered so far on testnet, by method. */
  rpcCalls(): Promise<Record<string, number>>;
  close(): Promise<void>;
}

/** `rt`: which Node and which tree's host.ts runs the simulator and the services (bench/lib/runtimes.ts). */
export async function startStack(log: (line: string) => void, rt: HostRuntime = THIS_RUNTIME): Promise<Stack> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'cv-bench-'));
  const sim = await startHost<SimReady>({ kind: 'simulator' }, undefined, rt);
  let services: Stack['services'] | undefined;
  try {
    const common = ['--host', '127.0.0.1', '--simulator', 'false', ...RAISED_LIMIT_FLAGS];
    const vaultArgv = [
      '--network',
      'testnet',
      '--port',
      '0',
      '--data-dir',
      path.join(dataDir, 'vault'),
      ...common,
      ...profileFlags(sim.ready, ['testnet']),
    ];
    const resolverArgv = [
      '--resolver-port',
      '0',
      '--data-dir',
      path.join(dataDir, 'resolver'),
      ...common,
      ...profileFlags(sim.ready, ['testnet', 'mainnet']),
    ];
    log(`  starting the vault API and the resolver against the simulator at ${sim.ready.url}`);
    services = await startHost({ kind: 'services', args: { vaultArgv, resolverArgv } }, undefined, rt);
  } catch (e) {
    await sim.stop();
    await rm(dataDir, { recursive: true, force: true });
    throw e;
  }
  const svc = services;
  for (const [name, ep] of Object.entries(svc.ready)) log(`  ${name}: ${ep?.url ?? ep?.error}`);
  const endpoint = (ep: Endpoint | undefined, what: string) => {
    if (ep?.url) return ep.url;
    throw new Error(ep?.error ?? `${what} not started`);
  };
  const key = async (wallet: string) => (await svc.call<{ key: string }>('createKey', { wallet })).key;
  const variants = new Map<string, Promise<Host<{ vault?: Endpoint }>>>();
  const variant: Stack['variant'] = async (extraFlags) => {
    const id = extraFlags.join(' ');
    let host = variants.get(id);
    if (!host) {
      const dir = path.join(dataDir, `variant-${variants.size}`);
      const argv = [
        '--network',
        'testnet',
        '--port',
        '0',
        '--data-dir',
        dir,
        '--host',
        '127.0.0.1',
        '--simulator',
        'false',
        ...RAISED_LIMIT_FLAGS,
        ...profileFlags(sim.ready, ['testnet']),
        ...extraFlags,
      ];
      log(`  starting a second vault API with ${id}`);
      host = startHost<{ vault?: Endpoint }>({ kind: 'services', args: { vaultArgv: argv } }, undefined, rt);
      variants.set(id, host);
    }
    const h = await host;
    return {
      url: endpoint(h.ready.vault, `vault API with ${id}`),
      key: async (wallet: string) => (await h.call<{ key: string }>('createKey', { wallet })).key,
      cpuUs: async () => (await h.call<{ us: number }>('cpu')).us,
    };
  };
  return {
    sim,
    services: svc,
    vaultUrl: () => endpoint(svc.ready.vault, 'vault API'),
    resolverUrl: () => endpoint(svc.ready.resolver, 'resolver'),
    passphrase: sim.ready.networks.testnet.passphrase,
    async issuer() {
      const i = await sim.call<{ secret: string; publicKey: string; did: string }>('issuer');
      return { keypair: Keypair.fromSecret(i.secret), did: i.did, key: await key(i.publicKey) };
    },
    async owner() {
      const o = await sim.call<{ secret: string; vault: string }>('owner');
      return { keypair: Keypair.fromSecret(o.secret), vault: o.vault };
    },
    key,
    variant,
    cpuUs: async () => (await svc.call<{ us: number }>('cpu')).us,
    simCpuUs: async () => (await sim.call<{ us: number }>('cpu')).us,
    rpcCalls: () => sim.call<Record<string, number>>('rpcCalls'),
    fill: (o) =>
      sim.call('fill', { vault: o.vault, issuer: o.issuer.keypair.publicKey(), count: o.count, prefix: o.prefix }),
    async close() {
      for (const h of variants.values()) await (await h.catch(() => undefined))?.stop();
      await svc.stop();
      await sim.stop();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
