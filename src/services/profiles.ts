// Where the served networks' profiles come from: the embedded simulator's networks, or the settings.
import type { Config } from '../config/index.ts';
import { stateFileOf } from '../data-dir-lock.ts';
import { type Network, NETWORKS } from '../domain.ts';
import { type Logger, withFields } from '../observability/index.ts';
import type { NetworkProfileInfo } from '../vault-api/context.ts';
import type { Closers } from './lifecycle.ts';
import { listenFailure } from './listen-error.ts';

/** A served network's settings; factoryId and vaultWasmHash only where a vault API runs (requireProfiles). */
export interface ResolvedProfile extends Omit<NetworkProfileInfo, 'factoryId' | 'vaultWasmHash'> {
  factoryId?: string;
  vaultWasmHash?: string;
  simulationAccount: string;
}

/** The embedded simulator, started, and the profiles of its networks. */
export async function startEmbeddedSimulator(
  config: Config,
  logger: Logger,
  closers: Closers,
): Promise<{ profiles: Record<Network, ResolvedProfile>; simulatorUrl: string }> {
  const { startSimulator } = await import('../../simulator/index.ts');
  const simulatorLogger = withFields(logger, { service: 'simulator' });
  const sim = await startSimulator({
    port: config.simulatorPort,
    protocol: config.simulatorProtocol,
    ledgerCloseMs: config.ledgerCloseMs,
    host: config.host,
    stateFile: stateFileOf(config),
    // A JSON line that names its service, as every other line of the process (not a bare stderr line).
    onCloseError: (error: unknown) => simulatorLogger.error('ledger close failed', { error }),
  }).catch((e: unknown) => {
    const what = { service: 'the chain simulator', setting: 'CV_SIMULATOR_PORT (--simulator-port)' };
    throw listenFailure(e, { ...what, host: config.host, port: config.simulatorPort });
  });
  closers.push(() => sim.close());
  const profiles = Object.fromEntries(NETWORKS.map((n) => [n, simulatorProfile(sim.networks[n])]));
  return { profiles: profiles as Record<Network, ResolvedProfile>, simulatorUrl: sim.url };
}

/** What a profile takes of a simulator's network (simulator/index.ts `NetworkInfo`, which it matches by shape:
 * only the start wiring imports the simulator). */
interface SimulatorNetwork {
  network: Network;
  passphrase: string;
  rpcUrl?: string;
  factoryId: string;
  vaultWasmHash: string;
  registryId: string;
  feeTokenId: string;
  admin: { publicKey: string };
}

/** A simulator network's profile: its contracts, and its factory admin as the account simulations run from. */
export function simulatorProfile(info: SimulatorNetwork): ResolvedProfile & NetworkProfileInfo {
  return {
    network: info.network,
    rpcUrl: info.rpcUrl!,
    networkPassphrase: info.passphrase,
    factoryId: info.factoryId,
    vaultWasmHash: info.vaultWasmHash,
    registryId: info.registryId,
    feeTokenId: info.feeTokenId,
    simulationAccount: info.admin.publicKey,
  };
}

/** The profiles of the served networks from the settings (requireProfiles checked they are complete). */
export function configuredProfiles(config: Config, served: Network[]): Record<Network, ResolvedProfile> {
  const profiles = {} as Record<Network, ResolvedProfile>;
  for (const n of served) {
    const p = config.networks[n];
    profiles[n] = {
      network: n,
      rpcUrl: p.rpcUrl!,
      ...(p.publicRpcUrl ? { publicRpcUrl: p.publicRpcUrl } : {}),
      networkPassphrase: p.passphrase!,
      ...(p.factoryId ? { factoryId: p.factoryId } : {}),
      ...(p.vaultWasmHash ? { vaultWasmHash: p.vaultWasmHash } : {}),
      registryId: p.registryId!,
      ...(p.feeTokenId ? { feeTokenId: p.feeTokenId } : {}),
      simulationAccount: p.simulationAccount!,
    };
  }
  return profiles;
}
