// The autocannon runner: a warm-up that is thrown away, then a fixed-duration measurement, 127.0.0.1 only.
import autocannon, { type Options, type Result } from 'autocannon';

export interface HttpCase {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: string;
  /** Bodies sent in turn instead of `body` (each connection cycles through them): distinct requests. */
  bodies?: readonly string[];
}

export interface RunSettings {
  /** Measured seconds. */
  duration: number;
  /** Warm-up seconds (not measured). */
  warmup: number;
  connections: number;
}

export interface HttpResult {
  /** Completed requests per second over the measured run. */
  rps: number;
  requests: number;
  /** ms (whole, autocannon's histogram). */
  p50: number;
  p99: number;
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
  statuses: Record<string, number>;
  seconds: number;
  /** CPU time (user + system) the server's process spent per completed request of the measured run, when asked. */
  cpuUsPerRequest?: number;
}

function assertLoopback(url: string): void {
  const host = new URL(url).hostname;
  if (host !== '127.0.0.1' && host !== 'localhost' && host !== '[::1]')
    throw new Error(`bench traffic goes to loopback only, not ${host}`);
}

function once(opts: Options): Promise<Result> {
  return new Promise((resolve, reject) => {
    autocannon(opts, (err, result) => (err ? reject(err) : resolve(result)));
  });
}

/** `serverCpuUs`: reads the CPU time (µs) the server's process has used so far, for `cpuUsPerRequest`. */
export async function measureHttp(
  c: HttpCase,
  s: RunSettings,
  serverCpuUs?: () => Promise<number>,
): Promise<HttpResult> {
  assertLoopback(c.url);
  const base: Options = {
    url: c.url,
    method: c.method ?? 'GET',
    connections: s.connections,
    timeout: 10,
    ...(c.headers ? { headers: c.headers } : {}),
    ...(c.body !== undefined ? { body: c.body } : {}),
    ...(c.bodies ? { requests: c.bodies.map((body) => ({ body })) } : {}),
  };
  if (s.warmup > 0) await once({ ...base, duration: s.warmup });
  const cpuBefore = await serverCpuUs?.();
  const r = await once({ ...base, duration: s.duration });
  const cpuAfter = await serverCpuUs?.();
  const statuses: Record<string, number> = {};
  for (const [code, v] of Object.entries(r.statusCodeStats ?? {})) statuses[code] = Number(v.count);
  const requests = r.requests.total;
  return {
    rps: requests / r.duration,
    requests,
    p50: r.latency.p50,
    p99: r.latency.p99,
    non2xx: r.non2xx,
    errors: r.errors,
    statuses,
    seconds: r.duration,
    ...(cpuBefore !== undefined && cpuAfter !== undefined && requests > 0
      ? { cpuUsPerRequest: (cpuAfter - cpuBefore) / requests }
      : {}),
  };
}

/** One request, to check a case answers 2xx before loading it; throws with the status and body otherwise. */
export async function probe(c: HttpCase): Promise<unknown> {
  assertLoopback(c.url);
  const res = await fetch(c.url, {
    method: c.method ?? 'GET',
    headers: c.headers ?? {},
    ...(c.body !== undefined ? { body: c.body } : {}),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  if (res.status < 200 || res.status >= 300)
    throw new Error(`${c.method ?? 'GET'} ${new URL(c.url).pathname} answered ${res.status}: ${text.slice(0, 300)}`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
