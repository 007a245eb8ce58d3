// Small TTL settings for the tests that close ledgers past a credential's lifetime (docs/vault-api.md "Credential
// lifetime"): persistent entries live 40 ledgers, at most 400.
import type { RunningSimulator } from '../simulator/index.ts';

export const SMALL_TTL = { minPersistentTTL: 40, minTemporaryTTL: 10, maxEntryTTL: 400 };

/** Closes ledgers of `sim`'s testnet until the latest is `seq`. */
export function closeLedgersUntil(sim: RunningSimulator, seq: number): void {
  const net = sim.sim.network('testnet');
  while (net.ledger.latest.seq < seq) net.closeLedger();
}
