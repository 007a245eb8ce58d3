// npm run bench: measures side by side, in one run on this machine, and writes docs/benchmarks.md.
//   --only http,registrar,cycle,vault-size,verify,oversized,hostile,simulator,stores   sections to run (default all)
//   --case <part>[,<part>]                   cases whose name contains one of these (e.g. bare,service-config)
//   --duration <s> --warmup <s> --connections <n> --out <file> --sizes 10,1000,10000
//   --node20-tree <dir> [--node20-bin <node>]   the http section also measures the pre-migration product on Node 20
import path from 'node:path';
import { listFlag, parseFlags, UsageError, type FlagSpec } from './lib/args.ts';
import { ROOT } from './lib/child.ts';
import { loadNow, machineInfo, machineLines, machineSummary } from './lib/machine.ts';
import { updateDoc, type SectionName } from './lib/markdown.ts';
import type { SectionContext, SectionResult } from './lib/section.ts';
import { currentRuntime, node20Runtime, type Runtime } from './lib/runtimes.ts';
import { RAISED_LIMIT_FLAGS, startStack, type Stack } from './lib/stack.ts';
import { runCycleSection } from './sections/cycle.ts';
import { runHostileSection } from './sections/hostile.ts';
import { runHttpSection } from './sections/http.ts';
import { runOversizedSection } from './sections/oversized.ts';
import { runRegistrarSection } from './sections/registrar.ts';
import { runSimulatorSection } from './sections/simulator.ts';
import { runStoresSection } from './sections/stores.ts';
import { DEFAULT_SIZES, runVaultSizeSection } from './sections/vault-size.ts';
import { runVerifySection } from './sections/verify.ts';

// verify runs beside the services, before the in-process sections stop them.
const SECTIONS = [
  'http',
  'registrar',
  'cycle',
  'vault-size',
  'verify',
  'oversized',
  'hostile',
  'simulator',
  'stores',
] as const;
type Section = (typeof SECTIONS)[number];

const FLAGS: FlagSpec[] = [
  { name: 'only', kind: 'string', doc: `comma list of sections: ${SECTIONS.join(', ')}` },
  { name: 'case', kind: 'string', doc: 'comma list: run only the cases whose name contains one of these' },
  { name: 'duration', kind: 'number', default: 10, doc: 'measured seconds per case' },
  // 5 s: measured on this machine, a fresh server process (the framework ceiling, the services) still gains
  // about 20 % between its first 2 s under load and the next few seconds.
  { name: 'warmup', kind: 'number', default: 5, allowZero: true, doc: 'warm-up seconds per case (not measured)' },
  { name: 'connections', kind: 'number', default: 10, doc: 'autocannon connections' },
  { name: 'sizes', kind: 'string', default: DEFAULT_SIZES.join(','), doc: 'vault sizes of the vault-size section' },
  {
    name: 'node20-tree',
    kind: 'string',
    doc: 'checkout of the pre-migration product (npm ci done): the http section adds its Node 20 rows',
  },
  {
    name: 'node20-bin',
    kind: 'string',
    doc: 'the Node 20 to run it with (default: the first Node 20 of `which -a node`)',
  },
  {
    name: 'out',
    kind: 'string',
    default: 'docs/benchmarks.md',
    doc: 'markdown file to write (sections between markers are replaced)',
  },
];

const INTRO = `# Benchmarks

Written by \`npm run bench\` (sections \`http\`, \`registrar\`, \`cycle\`, \`vault-size\`, \`verify\`, \`oversized\`, \`hostile\`, \`simulator\`, \`stores\`; one alone with \`--only\`) and
\`npm run load\` (section \`load\`). Every section says when and how it was measured; the figures are only comparable
within one section, measured side by side in one run on the machine described below. Re-run on a quiet machine:
other processes on the same cores lower every figure.

Everything runs on the pinned Node 24. With \`--node20-tree <dir>\` the \`http\` section also measures, in the same
run and case by case, the product of before the migration to Node 24 (a checkout of it: \`@stellar/stellar-sdk\` 15,
run through its tsx loader) on the system's Node 20, and both baselines on Node 20. The current tree cannot run on
Node 20 (it needs \`node:sqlite\` and Node's own type stripping); the other sections are of Node 24 only.`;

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
  const runtimes: Runtime[] = [currentRuntime()];
  let node20Missing: string | undefined = 'no --node20-tree given';
  if (flags['node20-tree'] !== undefined) {
    try {
      runtimes.push(
        node20Runtime(
          String(flags['node20-tree']),
          flags['node20-bin'] === undefined ? undefined : String(flags['node20-bin']),
        ),
      );
      node20Missing = undefined;
    } catch (e) {
      console.error((e as Error).message);
      return 2;
    }
  } else if (flags['node20-bin'] !== undefined) {
    console.error('--node20-bin needs --node20-tree');
    return 2;
  }
  const out = path.resolve(ROOT, String(flags.out));
  const log = (line: string) => console.log(line);
  const machine = machineInfo();
  console.log(`credential-vault bench — ${machineSummary(machine)}`);
  for (const rt of runtimes) console.log(`${rt.label}: ${rt.description}`);
  console.log(`rate limits raised for the bench: ${RAISED_LIMIT_FLAGS.join(' ')}`);

  let stack: Promise<Stack> | undefined;
  const cases = listFlag(flags.case);
  const ctx: SectionContext = {
    settings: {
      duration: Number(flags.duration),
      warmup: Number(flags.warmup),
      connections: Number(flags.connections),
    },
    ...(cases ? { cases } : {}),
    log,
    stack: () => {
      stack ??= startStack(log);
      return stack;
    },
  };
  const runners: Record<Section, () => Promise<SectionResult>> = {
    http: () => runHttpSection(ctx, { runtimes, ...(node20Missing ? { node20Missing } : {}) }),
    registrar: () => runRegistrarSection(ctx),
    cycle: () => runCycleSection(ctx),
    'vault-size': () => runVaultSizeSection(ctx, sizes),
    verify: () => runVerifySection(ctx),
    oversized: () => runOversizedSection(ctx),
    hostile: () => runHostileSection(ctx),
    simulator: () => runSimulatorSection(ctx),
    stores: () => runStoresSection(ctx),
  };

  const written: Partial<Record<SectionName, string>> = {};
  const summary: string[] = [];
  const busy = machine.load1 > machine.cores;
  const short = ctx.settings.duration < 10;
  const warning =
    busy || short
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
  const runtimeLines = [
    ...runtimes.map((rt) => `- ${rt.label}: ${rt.description}`),
    ...(node20Missing ? [`- Node 20: not measured in this run (${node20Missing})`] : []),
  ];
  written.machine = ['## Machine', '', ...machineLines(machine, loadNow()), ...runtimeLines].join('\n');
  await updateDoc(out, written);
  console.log(`\nwrote ${path.relative(ROOT, out)}\n${summary.join('\n')}`);
  return 0;
}

process.exitCode = await main();
// Anything left open (a keep-alive socket, a child's pipe) must not keep the command alive.
setTimeout(() => process.exit(), 2_000).unref();
