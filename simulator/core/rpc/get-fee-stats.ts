// getFeeStats: inclusion fee statistics.
import type { RpcContext } from './context.ts';

export function getFeeStats({ ledger }: RpcContext): object {
  const d = {
    max: '100',
    min: '100',
    mode: '100',
    p10: '100',
    p20: '100',
    p30: '100',
    p40: '100',
    p50: '100',
    p60: '100',
    p70: '100',
    p80: '100',
    p90: '100',
    p95: '100',
    p99: '100',
    transactionCount: '0',
    ledgerCount: 1,
  };
  return { sorobanInclusionFee: d, inclusionFee: d, latestLedger: ledger.tick().seq };
}
