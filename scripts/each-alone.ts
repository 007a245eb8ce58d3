// Runs every test of the given files alone, one vitest run per test (CONTRIBUTING.md "Test layers": each `it` runs
// alone). A shuffled run puts a test after some of its siblings only; this puts it after none, so a test that
// passes only because another one ran before it fails here. The hooks around it still run.
//
//   node scripts/each-alone.ts <project> <file>…    e.g. node scripts/each-alone.ts unit src/stores/windows.test.ts
//
// A test is named by its line (`vitest run <file>:<line>`, as `vitest list --json` locates it): the cases of an
// `it.each` share their line and run together, as do the copies a `describe.each` makes. Tests that start servers
// need what their project needs (docs/testing.md). Exits 1 when any test fails alone.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
// Vitest on the Node that runs this script (npm scripts and `npx` put the pinned one first).
const VITEST = path.join(ROOT, 'node_modules/vitest/vitest.mjs');

/** One entry of `vitest list --json`. */
interface Listed {
  name: string;
  file: string;
  location?: { line: number };
}

export interface TestLine {
  line: number;
  /** The names declared at that line (the `describe` path of each, as vitest lists it). */
  names: string[];
}

/** The lines that declare tests, in order, each once, from the output of `vitest list --json`. */
export function testLines(listed: readonly Listed[]): TestLine[] {
  const byLine = new Map<number, string[]>();
  for (const t of listed) {
    if (t.location === undefined) throw new Error(`vitest listed ${t.name} without a line`);
    const names = byLine.get(t.location.line) ?? [];
    if (!names.includes(t.name)) names.push(t.name);
    byLine.set(t.location.line, names);
  }
  return [...byLine].sort(([a], [b]) => a - b).map(([line, names]) => ({ line, names }));
}

/** The JSON array in `vitest list --json`'s standard output (whatever a setup printed before it). */
export function listedTests(stdout: string): Listed[] {
  const start = stdout.indexOf('[');
  if (start < 0) throw new Error(`vitest list printed no JSON:\n${stdout}`);
  return JSON.parse(stdout.slice(start)) as Listed[];
}

/** Whether a run's summary counts a passed test: a line that matches nothing passes no test, and proves nothing. */
export function ranSome(output: string): boolean {
  return /^\s*Tests\s+.*\b[1-9]\d* passed/m.test(output);
}

/**
 * Whether vitest found no test at the line it listed: `vitest list` reads the file's syntax, and takes a call such
 * as `env.request('/health')` inside a test for a test of its own.
 */
export function noTestAtLine(output: string): boolean {
  return /No test found in \S+ in line \d+/.test(output);
}

function vitest(args: string[]): { ok: boolean; output: string } {
  const env = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
  const r = spawnSync(process.execPath, [VITEST, ...args], { cwd: ROOT, env, encoding: 'utf8', maxBuffer: 1 << 26 });
  return { ok: r.status === 0, output: `${r.stdout}${r.stderr}` };
}

function runFile(project: string, file: string): boolean {
  const list = vitest(['list', '--project', project, file, '--json']);
  if (!list.ok) throw new Error(`vitest list ${file} failed:\n${list.output}`);
  let passed = true;
  for (const { line, names } of testLines(listedTests(list.output))) {
    const run = vitest(['run', '--project', project, '--reporter=dot', `${file}:${line}`]);
    if (!run.ok && noTestAtLine(run.output)) continue;
    const ok = run.ok && ranSome(run.output);
    console.log(`${ok ? 'ok  ' : 'FAIL'} ${file}:${line} ${names.join(' | ')}`);
    if (!ok) {
      passed = false;
      console.log(run.output.split('\n').slice(-60).join('\n'));
    }
  }
  return passed;
}

function main(argv: string[]): number {
  const [project, ...files] = argv;
  if (!project || files.length === 0) {
    console.error('usage: node scripts/each-alone.ts <project> <file>…');
    return 2;
  }
  let passed = true;
  for (const file of files) passed = runFile(project, file) && passed;
  return passed ? 0 : 1;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.exitCode = main(process.argv.slice(2));
