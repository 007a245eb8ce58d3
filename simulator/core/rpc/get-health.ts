// getHealth: the node's health and the ledgers it retains, with their close times (unix seconds as strings, as the
// description's schema and example give them).
import type { RpcContext } from './context.ts';

/** stellar-rpc's default history retention window (a day of 5-second ledgers). */
export const RETENTION_WINDOW = 17_280;

export function getHealth({ ledger }: RpcContext): object {
  const latest = ledger.tick();
  return {
    status: 'healthy',
    latestLedger: latest.seq,
    latestLedgerCloseTime: String(latest.closeTime),
    oldestLedger: ledger.oldestLedger,
    oldestLedgerCloseTime: String(ledger.oldestCloseTime),
    ledgerRetentionWindow: RETENTION_WINDOW,
  };
}
