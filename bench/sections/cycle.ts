// The full issue cycle over the real vault API — prepare → sign with the SDK's Keypair → submit → confirmed —
// by one client, and by 8 concurrent clients with distinct issuer accounts (no sequence-number conflicts).
import { fmtInt, fmtRate, table, verdict } from '../lib/markdown.ts';
import { attempt, wanted, type Outcome, type SectionContext, type SectionResult } from '../lib/section.ts';
import { raisedLimitsNote, type Stack } from '../lib/stack.ts';
import { ms, summarize, type Summary } from '../lib/stats.ts';
import { failureLabel, failureText, issueCycle, vaultClient, type IssuerIdentity } from '../lib/vault-client.ts';

const CONCURRENT_CLIENTS = 8;
const MAX_CYCLES_PER_CLIENT = 1_000_000;
/** The target for the concurrent case, cycles per second (docs/benchmarks.md). */
const CONCURRENT_TARGET = 300;

interface CycleResult {
  clients: number;
  cycles: number;
  perSecond: number;
  latency: Summary;
  failures: Record<string, number>;
  seconds: number;
  /** CPU time (µs) per completed cycle over the measured run, per process. */
  cpu?: { services: number; simulator: number; clients: number };
  /** JSON-RPC calls the simulator answered per completed cycle over the measured run, by method. */
  rpc?: Record<string, number>;
}

/** `method ×n` per cycle, the total first. */
function rpcText(rpc: Record<string, number> | undefined): string {
  if (!rpc) return '—';
  const total = Object.values(rpc).reduce((a, b) => a + b, 0);
  const parts = Object.entries(rpc).map(([k, n]) => `${k} ${n.toFixed(1)}`);
  return `${total.toFixed(1)} (${parts.join(', ')})`;
}

/** CPU time (µs) used so far by the services' process, the simulator's and this one (the clients). */
async function cpuNow(stack: Stack): Promise<{ services: number; simulator: number; clients: number }> {
  const [services, simulator] = await Promise.all([stack.cpuUs(), stack.simCpuUs()]);
  const own = process.cpuUsage();
  return { services, simulator, clients: own.user + own.system };
}

async function runClients(
  stack: Stack,
  clients: IssuerIdentity[],
  owners: string[],
  seconds: number,
  tag: string,
): Promise<CycleResult> {
  const typed = clients.map((iss) => vaultClient(stack.vaultUrl(), iss.key));
  const samples: number[] = [];
  const failures: Record<string, number> = {};
  let cycles = 0;
  const t0 = performance.now();
  const end = t0 + seconds * 1000;
  await Promise.all(
    clients.map(async (issuer, c) => {
      for (let i = 0; i < MAX_CYCLES_PER_CLIENT && performance.now() < end; i++) {
        const s = performance.now();
        try {
          await issueCycle(typed[c]!, issuer, owners[c]!, `${tag}-${c}-${i}`, i);
          samples.push(performance.now() - s);
          cycles++;
        } catch (e) {
          const label = failureLabel(e);
          failures[label] = (failures[label] ?? 0) + 1;
        }
      }
    }),
  );
  const elapsed = (performance.now() - t0) / 1000;
  return {
    clients: clients.length,
    cycles,
    perSecond: cycles / elapsed,
    latency: summarize(samples),
    failures,
    seconds: elapsed,
  };
}

export async function runCycleSection(ctx: SectionContext): Promise<SectionResult> {
  const rows: { name: string; label: string; outcome: Outcome<CycleResult> }[] = [];
  const modes = [
    { name: 'cycle-sequential', label: 'sequential (1 client)', clients: 1 },
    { name: 'cycle-concurrent', label: `${CONCURRENT_CLIENTS} concurrent clients`, clients: CONCURRENT_CLIENTS },
  ].filter((m) => wanted(ctx, m.name));
  const run = Date.now().toString(36);
  for (const m of modes) {
    const outcome = await attempt(ctx, m.name, async () => {
      const stack = await ctx.stack();
      const issuers = await Promise.all(Array.from({ length: m.clients }, () => stack.issuer()));
      const owners = await Promise.all(issuers.map(async () => (await stack.owner()).keypair.publicKey()));
      // One cycle each first: a client that cannot complete one fails the case with the reason.
      await Promise.all(
        issuers.map((iss, c) =>
          issueCycle(vaultClient(stack.vaultUrl(), iss.key), iss, owners[c]!, `${m.name}-${run}-first-${c}`).catch(
            (e: unknown) => {
              throw new Error(`the first cycle failed: ${failureText(e)}`);
            },
          ),
        ),
      );
      if (ctx.settings.warmup > 0)
        await runClients(stack, issuers, owners, ctx.settings.warmup, `${m.name}-${run}-warm`);
      const [before, rpcBefore] = [await cpuNow(stack), await stack.rpcCalls()];
      const r = await runClients(stack, issuers, owners, ctx.settings.duration, `${m.name}-${run}`);
      const [after, rpcAfter] = [await cpuNow(stack), await stack.rpcCalls()];
      r.rpc = Object.fromEntries(
        Object.entries(rpcAfter)
          .map(([k, n]) => [k, r.cycles > 0 ? (n - (rpcBefore[k] ?? 0)) / r.cycles : 0] as const)
          .filter(([, n]) => n > 0),
      );
      const per = (k: keyof typeof before) => (r.cycles > 0 ? (after[k] - before[k]) / r.cycles : 0);
      r.cpu = { services: per('services'), simulator: per('simulator'), clients: per('clients') };
      ctx.log(
        `    ${fmtRate(r.perSecond)} cycles/s, p50 ${ms(r.latency.p50)} ms, p99 ${ms(r.latency.p99)} ms, failures ${JSON.stringify(r.failures)}; ` +
          `CPU µs per cycle: services ${fmtInt(r.cpu.services)}, simulator ${fmtInt(r.cpu.simulator)}, clients ${fmtInt(r.cpu.clients)}; ` +
          `RPC calls per cycle: ${rpcText(r.rpc)}`,
      );
      return r;
    });
    rows.push({ name: m.name, label: m.label, outcome });
  }
  const body = rows.map(({ label, outcome }) => {
    if (!outcome.ok) return [label, '—', '—', '—', '—', '—', '—', '—', '—', `not measured: ${outcome.error}`];
    const v = outcome.value;
    const failed =
      Object.entries(v.failures)
        .map(([k, n]) => `${k} ×${n}`)
        .join(', ') || '0';
    const cpu = (k: 'services' | 'simulator' | 'clients') => (v.cpu ? fmtInt(v.cpu[k]) : '—');
    return [
      label,
      fmtInt(v.cycles),
      fmtRate(v.perSecond),
      ms(v.latency.p50),
      ms(v.latency.p99),
      cpu('services'),
      cpu('simulator'),
      cpu('clients'),
      rpcText(v.rpc),
      failed,
    ];
  });
  const concurrent = rows.find((r) => r.name === 'cycle-concurrent')?.outcome;
  const rate = concurrent?.ok ? concurrent.value.perSecond : undefined;
  const target: [string, string, boolean | undefined] = [
    `${CONCURRENT_CLIENTS} concurrent clients ≥ ${CONCURRENT_TARGET} cycles/s`,
    rate === undefined ? '—' : `${fmtRate(rate)}/s`,
    rate === undefined ? undefined : rate >= CONCURRENT_TARGET,
  ];
  const markdown = [
    '## Full issue cycle over the vault API',
    '',
    "One cycle: `POST /contracts/vc/issue` (prepare: validate, check the issuer DID, encrypt, build and simulate) → sign the returned XDR with the SDK's `Keypair` → `POST /contracts/vc/issue {signedXdr}` (check, send, wait until final) → `{tx_id}`. " +
      `Each client is its own issuer account (own sequence numbers) with its own standard key and registered DID, issuing into its own owner's vault. ${ctx.settings.warmup} s warm-up, then ${ctx.settings.duration} s measured. Latency is per whole cycle. ` +
      "CPU µs/cycle: each process's CPU time (user + system) over the measured run divided by the cycles completed in it: the services' process (vault API and resolver), the simulator's, and the bench's own (the clients: typed client, signing, JSON). Less exposed to other work on the machine than cycles/s. RPC calls/cycle: the JSON-RPC calls the simulator answered over the measured run per cycle, by method.",
    '',
    '- Why one vault per client: issues into the same vault prepared concurrently conflict — the simulator\'s vault keeps its credential index keyed by position, so a transaction simulated before another issue landed carries a stale footprint and fails with 409 `tx_stale` ("trying to access a ledger entry outside of the footprint"): the client prepares again and re-signs.',
    '',
    `- ${raisedLimitsNote()}`,
    '',
    table(
      [
        'clients',
        'cycles',
        'cycles/s',
        'p50 ms',
        'p99 ms',
        'services CPU µs/cycle',
        'simulator CPU µs/cycle',
        'clients CPU µs/cycle',
        'RPC calls/cycle',
        'failures',
      ],
      body,
      ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l', 'l'],
    ),
    '',
    '### Target',
    '',
    table(['target', 'measured', 'verdict'], [[target[0], target[1], verdict(target[2])]]),
  ].join('\n');
  const summary = [
    ...rows.map(
      ({ label, outcome }) =>
        `${label}: ${outcome.ok ? `${fmtRate(outcome.value.perSecond)} cycles/s` : outcome.error}`,
    ),
    `${target[0]}: ${target[1]} → ${target[2] === undefined ? 'not measured' : target[2] ? 'pass' : 'FAIL'}`,
  ];
  return { markdown, summary };
}
