// getFeeStats: inclusion fee distributions over the simulator's own recent ledgers, as stellar-rpc's fee windows
// compute them (internal/feewindow/feewindow.go): Soroban transactions (one InvokeHostFunction, ExtendFootprintTTL
// or RestoreFootprint) over the last 50 ledgers, each counting its fee charged less its resource fee; the others
// over the last 10, each counting its fee charged per operation. Nearest-rank percentiles; the mode is the value
// repeated most (the smallest of equals); no transactions in a window: every figure 0.
import type { TxRecord } from '../records.ts';
import type { RpcContext } from './context.ts';

const SOROBAN_WINDOW = 50;
const CLASSIC_WINDOW = 10;

function mode(sorted: readonly bigint[]): bigint {
  let best = sorted[0]!;
  let bestRun = 0;
  let run = 0;
  for (let i = 1; i <= sorted.length; i++) {
    if (i < sorted.length && sorted[i] === sorted[i - 1]) {
      run += 1;
      continue;
    }
    if (run > bestRun) {
      bestRun = run;
      best = sorted[i - 1]!;
    }
    run = 0;
  }
  return best;
}

function distribution(fees: bigint[], ledgerCount: number): Record<string, string | number> {
  const n = fees.length;
  const zero = '0';
  if (n === 0) {
    const stats = ['max', 'min', 'mode', 'p10', 'p20', 'p30', 'p40', 'p50', 'p60', 'p70', 'p80', 'p90', 'p95', 'p99'];
    return { ...Object.fromEntries(stats.map((k) => [k, zero])), transactionCount: zero, ledgerCount: 0 };
  }
  const sorted = fees.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const pct = (p: number): string => sorted[Math.ceil((p * n) / 100) - 1]!.toString();
  return {
    max: sorted[n - 1]!.toString(),
    min: sorted[0]!.toString(),
    mode: mode(sorted).toString(),
    ...Object.fromEntries([10, 20, 30, 40, 50, 60, 70, 80, 90, 95, 99].map((p) => [`p${p}`, pct(p)])),
    transactionCount: String(n),
    ledgerCount,
  };
}

/** The inclusion fee a Soroban transaction paid, or undefined for a classic one. */
function sorobanInclusionFee(rec: TxRecord): bigint | undefined {
  if (!rec.soroban || rec.envelope.type !== 'envelopeTypeTx') return undefined;
  const ext = rec.envelope.v1.tx.ext;
  const resourceFee = ext.type === 'sorobanData' ? BigInt(ext.sorobanData.resourceFee) : 0n;
  const inclusion = rec.feeCharged + rec.feeRefund - resourceFee; // charged before apply, less the resource fee
  return inclusion > 0n ? inclusion : 0n;
}

export function getFeeStats({ ledger }: RpcContext): object {
  const latest = ledger.tick();
  const retained = latest.seq - ledger.oldestLedger + 1;
  const soroban: bigint[] = [];
  const classic: bigint[] = [];
  for (const rec of ledger.txs.values()) {
    const age = latest.seq - rec.ledger;
    if (age >= SOROBAN_WINDOW) continue;
    const inclusion = sorobanInclusionFee(rec);
    if (inclusion !== undefined) soroban.push(inclusion);
    else if (age < CLASSIC_WINDOW) classic.push(rec.feeCharged / BigInt(Math.max(1, rec.opCount)));
  }
  return {
    sorobanInclusionFee: distribution(soroban, Math.min(SOROBAN_WINDOW, retained)),
    inclusionFee: distribution(classic, Math.min(CLASSIC_WINDOW, retained)),
    latestLedger: latest.seq,
  };
}
