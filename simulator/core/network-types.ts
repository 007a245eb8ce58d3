// The shapes of a simulated network that network.ts and rpc.ts share. network.ts builds the JSON-RPC handler from
// its SimNetwork, which satisfies RpcNetwork; declared here so that rpc.ts does not import network.ts back.
import type { xdr } from '@stellar/stellar-sdk';
import type { Preexecuted } from './apply.ts';
import type { Genesis } from './bootstrap.ts';
import type { SendOutcome } from './sending.ts';
import type { Core } from './simulate.ts';
import type { Network } from './network-names.ts';

/** What clients need to know about a network (also `sim_info`). */
export interface NetworkInfo {
  network: Network;
  passphrase: string;
  rpcUrl?: string;
  friendbotUrl?: string;
  factoryId: string;
  registryId: string;
  /** hex */
  vaultWasmHash: string;
  feeTokenId: string;
  /** stroops per credential, decimal string */
  feeAmount: string;
  stablecoin?: { code: 'USDC'; issuer: string };
  /** Factory admin and fee destination. */
  admin: { publicKey: string; secret: string };
  /** The native asset's contract (SAC). */
  nativeTokenId: string;
}

export type { SendOutcome } from './sending.ts';

/** What the JSON-RPC methods use of a network: its ledger and contracts, what it reports about itself, the cheats. */
export interface RpcNetwork extends Core {
  readonly genesis: Genesis;
  readonly info: NetworkInfo;
  send(env: xdr.TransactionEnvelope, o?: { pre?: Preexecuted; b64?: string }): SendOutcome;
  fund(address: string, amount?: bigint, asset?: 'native' | 'USDC'): bigint;
  setTime(unixSeconds: number): { sequence: number; closeTime: number };
  closeLedger(): { sequence: number; closeTime: number };
  snapshot(): string;
  revert(id: string): boolean;
}
