// The simulator's small shared names: its two networks and the clock ledgers close on (a leaf module).

/** The two simulated networks (the service's `Network` names them the same way). */
export type Network = 'testnet' | 'mainnet';
export const NETWORKS: readonly Network[] = ['testnet', 'mainnet'];

/** A wall clock in milliseconds, read each time it is called (ledgers close on it). */
export type Clock = () => number;
