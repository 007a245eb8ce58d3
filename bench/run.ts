// npm run bench: measures side by side, in one run on this machine, and writes docs/benchmarks.md.
//   --only http,cycle,vault-size,verify,oversized,simulator,stores   sections to run (default all)
//   --case <part>[,<part>]                   cases whose name contains one of these (e.g. bare,service-config)
//   --duration <s> --warmup <s> --connections <n> --out <file> --sizes 10,1000,10000
import path from 'node:path';
import { listFlag, parseFlags, UsageError, type FlagSpec } from './lib/args.ts';
import { ROOT } from './lib/child.ts';
import { machineInfo, machineLines, machineSummary } from './lib/machine.ts';
import { updateDoc, type SectionName } from './lib/markdown.ts';
import type { SectionContext, SectionResult } from './lib/section.ts';
import { RAISED_LIMIT_FLAGS, startStack, type Stack } from './lib/stack.ts';
import { runCycleSection } from './sections/cycle.ts';
import { runHttpSection } from './sections/http.ts';
import { runOversizedSection } from './sections/oversized.ts';
import { runSimulatorSection } from './sections/simulator.ts';
import { runStoresSection } from './sections/stores.ts';
import { DEFAULT_SIZES, runVaultSizeSection } from './sections/vault-size.ts';
import { runVerifySection } from './sections/verify.ts';

// verify runs beside the services, before the in-process sections stop them.
const SECTIONS = ['http', 'cycle', 'vault-size', 'verify', 'oversized', 'simulator', 'stores'] as const;
type Section = (typeof SECTIONS)[number];

const FLAGS: FlagSpec[] = [
  { name: 'only', kind: 'string', doc: `comma list of sections: ${SECTIONS.join(', ')}` },
  { name: 'case', kind: 'string', doc: 'comma list: run only the cases whose name contains one of these' },
  { name: 'duration', kind: 'number', default: 10, doc: 'measured seconds per case' },
  { name: 'warmup', kind: 'number', default: 2, allowZero: true, doc: 'warm-up seconds per case (not measured)' },
  { name: 'connections', kind: 'number', default: 10, doc: 'autocannon connections' },
  { name: 'sizes', kind: 'string', default: DEFAULT_SIZES.join(','), doc: 'vault sizes of the vault-size section' },
  { name: 'out', kind: 'string', default: 'docs/benchmarks.md', doc: 'markdown file to write (sections between markers are replaced)' },
];

const INTRO = `# Benchmarks

Written by \`npm run bench\` (sections \`http\`, \`cycle\`, \`vault-size\`, \`verify\`, \`oversized\`, \`simulator\`, \`stores\`; one alone with \`--only\`) and
\`npm run load\` (section \`load\`). Every section says when and how it was measured; the figures are only comparable
within one section, measured side by side in one run on the machine described below. Re-run on a quiet machine:
other processes on the same cores lower every figure.`;

async function main(): Promise<number> {
  let flags;
  try {
    flags = parseFlags(process.argv.slice(2), FLAGS);
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(e.message);
      return 2;
    }
    throw e;
  }
  const only = listFlag(flags.only);
  for (const s of only ?? []) {
    if (!SECTIONS.includes(s as Section)) {
      console.error(`unknown section ${s} (${SECTIONS.join(', ')})`);
      return 2;
    }
  }
  const sizes = String(flags.sizes).split(',').map(Number);
  if (sizes.some((n) => !Number.isInteger(n) || n < 1 || n > 100_000)) {
    console.error('--sizes: integers from 1 to 100000');
    return 2;
  }
  const out = path.resolve(ROOT, String(flags.out));
  const log = (line: string) => console.log(line);
  const machine = machineInfo();
  console.log(`credential-vault bench — ${machineSummary(machine)}`);
  console.log(`rate limits raised for the bench: ${RAISED_LIMIT_FLAGS.join(' ')}`);

  let stack: Promise<Stack> | undefined;
  const cases = listFlag(flags.case);
  const ctx: SectionContext = {
    settings: { duration: Number(flags.duration), warmup: Number(flags.warmup), connections: Number(flags.connections) },
    ...(cases ? { cases } : {}),
    log,
    stack: () => {
      stack ??= startStack(log);
      return stack;
    },
  };
  const runners: Record<Section, () => Promise<SectionResult>> = {
    http: () => runHttpSection(ctx),
    cycle: () => runCycleSection(ctx),
    'vault-size': () => runVaultSizeSection(ctx, sizes),
    verify: () => runVerifySection(ctx),
    oversized: () => runOversizedSection(ctx),
    simulator: () => runSimulatorSection(ctx),
    stores: () => runStoresSection(ctx),
  };

  const written: Partial<Record<SectionName, string>> = {};
  const summary: string[] = [];
  const busy = machine.load1 > machine.cores;
  const short = ctx.settings.duration < 10;
  const warning = busy || short
    ? `\n\n> **Indicative only:** ${[short ? `a short run (${ctx.settings.duration} s per case)` : '', busy ? `a busy machine (load average ${machine.load1} on ${machine.cores} cores at the start)` : ''].filter(Boolean).join(' on ')}. Re-run \`npm run bench\` on a quiet machine for figures to quote.`
    : '';
  const stamp = `_Measured ${machine.date} at commit ${machine.commit}, duration ${ctx.settings.duration} s per case${cases ? `, cases matching ${[...cases].join(', ')}` : ''}._${warning}`;
  try {
    for (const s of SECTIONS) {
      if (only && !only.has(s)) continue;
      // The simulator and stores sections run in this process: stop the services first so nothing else competes.
      if ((s === 'simulator' || s === 'stores') && stack) {
        await (await stack.catch(() => undefined))?.close();
        stack = undefined;
      }
      log(`\n== ${s}`);
      const r = await runners[s]();
      written[s] = `${r.markdown}\n\n${stamp}`;
      summary.push(...r.summary.map((l) => `[${s}] ${l}`));
    }
  } finally {
    if (stack) await (await stack.catch(() => undefined))?.close();
  }
  written.intro = INTRO;
  written.machine = ['## Machine', '', ...machineLines(machine)].join('\n');
  await updateDoc(out, written);
  console.log(`\nwrote ${path.relative(ROOT, out)}\n${summary.join('\n')}`);
  return 0;
}

process.exitCode = await main();
// Anything left open (a keep-alive socket, a child's pipe) must not keep the command alive.
setTimeout(() => process.exit(), 2_000).unref();
