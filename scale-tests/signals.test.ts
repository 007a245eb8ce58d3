// A TERM or an INT reaches the server whichever way an operator or a process manager started it: npm start,
// npx credential-vault start|serve, node bin/credential-vault.js, the Prism mock scripts. Each form runs in a process
// group of its own; the signal goes to the top process alone (what a process manager signals), and every process of
// the group must be gone within the drain timeout plus the parent watch's poll, having closed gracefully: the data
// directory's lock released and the simulator's state saved (a killed process leaves the one and not the other).
//
// `npx credential-vault start|serve` (without `exec`) is tested with TERM only: npm passes a signal to the `sh -c`
// it runs the command under, and sh holds an INT until its command ends, so no INT sent to npx alone can arrive
// (docs/operations.md "Stopping": a process manager that stops with INT runs `npm start` or the node form).
//
// Every process a form starts is found again by a mark in its environment (inherited by all of its descendants,
// whatever their process group): none may be left once the test is over, passed or failed. A watchdog outside the
// group kills the group should this test's worker die before its own clean-up runs.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it, vi } from 'vitest';
import { DATA_DIR_LOCK } from '../src/data-dir-lock.ts';
import { PARENT_POLL_MS } from '../src/cli/parent-watch.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'credential-vault.js');
const DRAIN_MS = 2000;
const groups = new Set<number>();
const killGroups = () => {
  for (const g of groups) if (groupAlive(g)) process.kill(-g, 'SIGKILL');
};
// On a failure, a timeout or the worker's normal exit alike.
process.once('exit', killGroups);
afterAll(() => {
  killGroups();
  process.off('exit', killGroups);
});

/** The name of the environment mark every process of a form inherits (not `CV_`: childEnv drops those). */
const MARK = 'CREDENTIAL_VAULT_SIGNALS_TEST';

/** The PIDs of the processes that carry `mark` in their environment (Linux /proc; this user's processes). */
function marked(mark: string): number[] {
  const needle = `${MARK}=${mark}\0`;
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/environ`, 'latin1').includes(needle)) found.push(Number(entry));
    } catch {
      // Gone meanwhile, or another user's.
    }
  }
  return found;
}

/** What `ps` says of some PIDs, for a failure's message. */
function described(pids: number[]): string {
  return pids
    .map((pid) => {
      try {
        return `${pid}: ${readFileSync(`/proc/${pid}/cmdline`, 'latin1').replaceAll('\0', ' ')}`;
      } catch {
        return `${pid}: gone`;
      }
    })
    .join('\n');
}

/** Kills the group `pgid` once this process is gone (it polls, outside the group). Kill it when done. */
function watchdog(pgid: number): ChildProcess {
  const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 1; done; kill -KILL -- -${pgid} 2>/dev/null`;
  const dog = spawn('sh', ['-c', script], { detached: true, stdio: 'ignore' });
  dog.unref();
  return dog;
}

/** The environment without the product's settings and without npm's marks: each form sets its own. */
function childEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env))
    if (!(k.startsWith('CV_') || k.startsWith('npm_') || k === 'DATABASE_URL' || k === 'REDIS_URL')) env[k] = v;
  env['PATH'] = `${path.join(ROOT, 'node_modules', '.bin')}${path.delimiter}${process.env['PATH']}`;
  return env;
}

const product = (dir: string) => [
  ...['--host', '127.0.0.1', '--data-dir', dir, '--shutdown-timeout-ms', String(DRAIN_MS), '--log-level', 'warn'],
  ...['--testnet-port', '0', '--mainnet-port', '0', '--resolver-port', '0', '--simulator-port', '0'],
];
const serve = (dir: string) => [
  ...['--network', 'testnet', '--port', '0', '--simulator-port', '0', '--host', '127.0.0.1', '--data-dir', dir],
  ...['--shutdown-timeout-ms', String(DRAIN_MS), '--log-level', 'warn'],
];

interface Form {
  form: string;
  signal: NodeJS.Signals;
  command: (dir: string) => [string, string[]];
  ready: RegExp;
  /** A product form: it holds the data directory and saves the simulator's state. */
  product: boolean;
}

const FORMS: Form[] = [
  ...(['SIGTERM', 'SIGINT'] as const).map((signal) => ({
    form: 'npm start --',
    signal,
    command: (dir: string): [string, string[]] => ['npm', ['start', '--', ...product(dir)]],
    ready: /DID resolver\s+http/,
    product: true,
  })),
  {
    form: 'npx credential-vault start',
    signal: 'SIGTERM',
    command: (dir) => ['npx', ['credential-vault', 'start', ...product(dir)]],
    ready: /DID resolver\s+http/,
    product: true,
  },
  {
    // npx runs the command under `sh -c`, which defers an INT (see package.json scriptsNote): TERM only.
    form: 'npx credential-vault serve',
    signal: 'SIGTERM',
    command: (dir) => ['npx', ['credential-vault', 'serve', ...serve(dir)]],
    ready: /vault API testnet\s+http/,
    product: true,
  },
  ...(['SIGTERM', 'SIGINT'] as const).map((signal) => ({
    form: 'node bin/credential-vault.js start',
    signal,
    command: (dir: string): [string, string[]] => [process.execPath, [BIN, 'start', ...product(dir)]],
    ready: /DID resolver\s+http/,
    product: true,
  })),
  ...(['SIGTERM', 'SIGINT'] as const).map((signal) => ({
    form: 'npm run mock:vault',
    signal,
    command: (): [string, string[]] => ['npm', ['run', 'mock:vault', '--', '--port', '0']],
    ready: /Prism is listening/,
    product: false,
  })),
  ...(['SIGTERM', 'SIGINT'] as const).map((signal) => ({
    form: 'node scripts/mock.ts',
    signal,
    command: (): [string, string[]] => [process.execPath, ['scripts/mock.ts', 'spec/did-resolver.yaml', '--port', '0']],
    ready: /Prism is listening/,
    product: false,
  })),
];

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

it.each(FORMS)(
  '$signal to `$form` stops every process of it gracefully',
  async ({ signal, command, ready, product: isProduct }) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'cv-signals-'));
    const mark = path.basename(dir);
    const [cmd, args] = command(dir);
    const env = { ...childEnv(), [MARK]: mark };
    const child = spawn(cmd, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    groups.add(child.pid!);
    const dog = watchdog(child.pid!);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await vi.waitFor(() => expect(out).toMatch(ready), { timeout: 60_000, interval: 100 });
      expect(marked(mark).length, 'the mark reaches the processes of the form').toBeGreaterThan(0);
      child.kill(signal);
      // The drain timeout, the parent watch's poll, and the time a loaded machine takes to save and exit.
      await vi.waitFor(() => expect(groupAlive(child.pid!), out).toBe(false), {
        timeout: DRAIN_MS + PARENT_POLL_MS + 20_000,
        interval: 100,
      });
      if (isProduct) {
        expect(existsSync(path.join(dir, DATA_DIR_LOCK)), `lock left behind:\n${out}`).toBe(false);
        expect(existsSync(path.join(dir, 'simulator-state.json')), `state not saved:\n${out}`).toBe(true);
      }
      // Nothing of the form outside its group either (ps: every process that carries its mark).
      const left = marked(mark);
      expect(left, `left running:\n${described(left)}`).toEqual([]);
    } finally {
      if (groupAlive(child.pid!)) process.kill(-child.pid!, 'SIGKILL');
      for (const pid of marked(mark)) process.kill(pid, 'SIGKILL');
      dog.kill('SIGKILL');
      groups.delete(child.pid!);
      rmSync(dir, { recursive: true, force: true });
    }
  },
  120_000,
);
