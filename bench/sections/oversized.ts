// The worst request bodies within each service's size limit: one collection of tens of
// thousands of items or keys, which froze the vault API for 33-47 s and answered up to 32 MB before the
// collection pre-check. Each is sent sequentially to the real services; the target is an answer in under
// 50 ms, of at most a few KB. Besides the wall-clock latency, the services' own CPU time per request is read
// from /proc: on a machine shared with other work, latency includes waiting for a core, the CPU time does not.
import { readFile } from 'node:fs/promises';
import {
  ERROR_BODY_MAX_BYTES,
  VERIFICATION_ANSWER_MAX_BYTES,
  answerCode,
  oversizedCases,
  type OversizedCase,
} from '../../property-tests/http/oversized-bodies.ts';
import { fmtInt, table, verdict } from '../lib/markdown.ts';
import { attempt, wanted, type Outcome, type SectionContext, type SectionResult } from '../lib/section.ts';
import { ms, summarize, type Summary } from '../lib/stats.ts';

/** The answer time every worst body must stay under. */
export const OVERSIZED_TARGET_MS = 50;
const WARMUP = 2;
/** Samples per case; the vault API's /auth/* allows 60 requests a minute per IP, and three cases use it. */
const SAMPLES = 12;

interface Measured {
  latency: Summary;
  /** CPU time of the services' process per request (user + system), ms; undefined off Linux. */
  cpuMs?: number;
  status: number;
  code: string;
  answerBytes: number;
}

interface Row {
  c: OversizedCase;
  outcome: Outcome<Measured>;
}

/** User + system CPU time of a process so far, in ms (Linux /proc; USER_HZ is 100). */
async function cpuTimeMs(pid: number): Promise<number | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (stat === undefined) return undefined;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

async function sendOnce(
  url: string,
  c: OversizedCase,
  key: string,
): Promise<{ ms: number; status: number; text: string }> {
  const t0 = performance.now();
  const res = await fetch(url + c.path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(c.keyed ? { 'x-svc-key': key } : {}) },
    body: c.body,
  });
  const text = await res.text();
  return { ms: performance.now() - t0, status: res.status, text };
}

/** The largest answer a case may get: an error body, or a bounded verification result. */
function maxAnswer(c: OversizedCase): number {
  if (c.answer !== 'verification') return ERROR_BODY_MAX_BYTES;
  return VERIFICATION_ANSWER_MAX_BYTES[c.path === '/presentations/verify' ? 'presentation' : 'credential'];
}

export async function runOversizedSection(ctx: SectionContext): Promise<SectionResult> {
  const stack = await ctx.stack();
  const key = await stack.key('GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR');
  const rows: Row[] = [];
  for (const c of oversizedCases()) {
    if (!wanted(ctx, c.name)) continue;
    const outcome = await attempt(ctx, c.name, async () => {
      const url = c.service === 'vault' ? stack.vaultUrl() : stack.resolverUrl();
      for (let i = 0; i < WARMUP; i++) await sendOnce(url, c, key);
      const samples: number[] = [];
      let last = { ms: 0, status: 0, text: '' };
      const cpuBefore = await cpuTimeMs(stack.services.pid);
      for (let i = 0; i < SAMPLES; i++) {
        last = await sendOnce(url, c, key);
        samples.push(last.ms);
      }
      const cpuAfter = await cpuTimeMs(stack.services.pid);
      const m: Measured = {
        latency: summarize(samples),
        status: last.status,
        code: String(answerCode(JSON.parse(last.text))),
        answerBytes: Buffer.byteLength(last.text),
      };
      if (cpuBefore !== undefined && cpuAfter !== undefined) m.cpuMs = (cpuAfter - cpuBefore) / SAMPLES;
      ctx.log(
        `    ${m.status} ${m.code}, ${fmtInt(m.answerBytes)} B, p50 ${ms(m.latency.p50)} ms, max ${ms(m.latency.max)} ms, service CPU ${m.cpuMs === undefined ? '—' : ms(m.cpuMs)} ms/request`,
      );
      return m;
    });
    rows.push({ c, outcome });
  }
  const body = rows.map(({ c, outcome }) => {
    const size = `${fmtInt(Buffer.byteLength(c.body))} B`;
    if (!outcome.ok) return [c.name, size, '—', '—', '—', '—', '—', `not measured: ${outcome.error}`];
    const v = outcome.value;
    // The service's CPU time per request where /proc tells it (what the answer costs, load aside), else p50.
    const cost = v.cpuMs ?? v.latency.p50;
    const ok = cost < OVERSIZED_TARGET_MS && v.answerBytes <= maxAnswer(c) && v.status === c.want.status;
    return [
      c.name,
      size,
      `${v.status} ${v.code}`,
      `${fmtInt(v.answerBytes)} B`,
      ms(v.latency.p50),
      ms(v.latency.max),
      v.cpuMs === undefined ? '—' : ms(v.cpuMs),
      verdict(ok),
    ];
  });
  const markdown = [
    '## Oversized collections',
    '',
    `The worst body within each service's size limit (vault API 512 KiB, resolver 256 KiB): one array or object filled with as many items or keys as fit. Before the collection pre-check the vault API took 33 s for 40,000 scopes and 47 s for 80,000 batch items, and answered up to 32 MB. The verification cases are the worst documents a caller may send for verification: before the proof bounds, 260 proofs each naming all the others took 2.7 s of CPU; now at most ${'8'} proofs are verified, each hashed once over a document canonicalized once, and a presentation carries at most 10 credentials (their answers are verification results, at most ${fmtInt(VERIFICATION_ANSWER_MAX_BYTES.credential)} B for a credential and ${fmtInt(VERIFICATION_ANSWER_MAX_BYTES.presentation)} B for a presentation). Each case is sent ${WARMUP} times to warm up, then ${SAMPLES} times one after another, to the real services over HTTP. Target: under ${OVERSIZED_TARGET_MS} ms per answer and at most ${fmtInt(ERROR_BODY_MAX_BYTES)} B. "service CPU" is the services' process CPU time (user + system, from /proc, 10 ms resolution over ${SAMPLES} requests) per request: what an answer costs whatever else runs on the machine, and what the verdict reads (p50 where /proc is missing). What is left is linear in the body: reading and parsing up to 512 KiB of JSON (an object of 50,000 distinct keys is the slowest thing for JSON.parse).`,
    '',
    table(
      ['case', 'request', 'answer', 'answer size', 'p50 ms', 'max ms', 'service CPU ms', `< ${OVERSIZED_TARGET_MS} ms`],
      body,
      ['l', 'r', 'l', 'r', 'r', 'r', 'r', 'l'],
    ),
  ].join('\n');
  const summary = rows.map(
    ({ c, outcome }) =>
      `${c.name}: ${outcome.ok ? `p50 ${ms(outcome.value.latency.p50)} ms, CPU ${outcome.value.cpuMs === undefined ? '—' : ms(outcome.value.cpuMs)} ms, ${outcome.value.answerBytes} B` : outcome.error}`,
  );
  return { markdown, summary };
}
