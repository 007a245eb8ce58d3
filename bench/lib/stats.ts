// Latency summaries for the hand-written loops (issue cycles, simulator, load); autocannon has its own.

export interface Summary {
  count: number;
  /** ms */
  p50: number;
  p99: number;
  max: number;
  mean: number;
}

export function summarize(samplesMs: readonly number[]): Summary {
  if (samplesMs.length === 0) return { count: 0, p50: Number.NaN, p99: Number.NaN, max: Number.NaN, mean: Number.NaN };
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
  const sum = sorted.reduce((a, b) => a + b, 0);
  return { count: sorted.length, p50: at(0.5), p99: at(0.99), max: sorted[sorted.length - 1]!, mean: sum / sorted.length };
}

/** Milliseconds: three decimals under 0.1 ms, two under 10 ms, whole above. */
export function ms(n: number): string {
  if (!Number.isFinite(n)) return '—';
  if (n < 0.1) return n.toFixed(3);
  return n < 10 ? n.toFixed(2) : Math.round(n).toLocaleString('en-US');
}

export const sleep = (msDelay: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, msDelay));
