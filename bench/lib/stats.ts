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
  return {
    count: sorted.length,
    p50: at(0.5),
    p99: at(0.99),
    max: sorted[sorted.length - 1]!,
    mean: sum / sorted.length,
  };
}

/** The middle value; for an even count, the mean of the two middle values. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Milliseconds: three decimals under 0.1 ms, two under 10 ms, whole above. */
export function ms(n: number): string {
  if (!Number.isFinite(n)) return '—';
  if (n < 0.1) return n.toFixed(3);
  return n < 10 ? n.toFixed(2) : Math.round(n).toLocaleString('en-US');
}

/** Throughput and latency of one operation run back to back. */
export interface Rate {
  perSecond: number;
  latency: Summary;
  failures: number;
  seconds: number;
}

const MAX_ITERATIONS = 5_000_000;

/** Runs `op` back to back for `seconds` (bounded in count too), synchronously; `false` counts as a failure. */
export function timedSync(seconds: number, op: (i: number) => boolean): Rate {
  const samples: number[] = [];
  let failures = 0;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  let i = 0;
  for (; i < MAX_ITERATIONS; i++) {
    const s = performance.now();
    if (s >= end) break;
    if (!op(i)) failures++;
    samples.push(performance.now() - s);
  }
  const elapsed = (performance.now() - t0) / 1000;
  return { perSecond: i / elapsed, latency: summarize(samples), failures, seconds: elapsed };
}

/** timedSync for an asynchronous `op`, one call at a time. */
export async function timedAsync(seconds: number, op: (i: number) => Promise<boolean>): Promise<Rate> {
  const samples: number[] = [];
  let failures = 0;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  let i = 0;
  for (; i < MAX_ITERATIONS; i++) {
    const s = performance.now();
    if (s >= end) break;
    if (!(await op(i))) failures++;
    samples.push(performance.now() - s);
  }
  const elapsed = (performance.now() - t0) / 1000;
  return { perSecond: i / elapsed, latency: summarize(samples), failures, seconds: elapsed };
}

export const sleep = (msDelay: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, msDelay));
