// getHealth: the node's health and the ledgers it retains.
import type { RpcContext } from './context.ts';

/** stellar-rpc's default history retention window (a day of 5-second ledgers). */
export const RETENTION_WINDOW = 17_280;

export function getHealth({ ledger }: RpcContext): object {
  return {
    status: 'healthy',
    latestLedger: ledger.tick().seq,
    oldestLedger: ledger.oldestLedger,
    ledgerRetentionWindow: RETENTION_WINDOW,
  };
}
