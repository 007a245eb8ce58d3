// A TERM or an INT reaches the server whichever way an operator or a process manager started it: npm start,
// npx credential-vault start|serve, node bin/credential-vault.js, the Prism mock scripts. Each form runs in a process
// group of its own; the signal goes to the top process alone (what a process manager signals), and every process of
// the group must be gone within the drain timeout plus the parent watch's poll, having closed gracefully: the data
// directory's lock released and the simulator's state saved (a killed process leaves the one and not the other).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
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
afterAll(() => {
  for (const g of groups) groupAlive(g) && process.kill(-g, 'SIGKILL');
});

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
  {
    form: 'node scripts/mock.ts',
    signal: 'SIGTERM',
    command: () => [process.execPath, ['scripts/mock.ts', 'spec/did-resolver.yaml', '--port', '0']],
    ready: /Prism is listening/,
    product: false,
  },
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
    const [cmd, args] = command(dir);
    const child = spawn(cmd, args, { cwd: ROOT, env: childEnv(), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    groups.add(child.pid!);
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    try {
      await vi.waitFor(() => expect(out).toMatch(ready), { timeout: 60_000, interval: 100 });
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
    } finally {
      if (groupAlive(child.pid!)) process.kill(-child.pid!, 'SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    }
  },
  120_000,
);
