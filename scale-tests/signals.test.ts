// A TERM or an INT reaches the server whichever way an operator or a process manager started it: npm start,
// npx credential-vault start|serve, node bin/credential-vault.js, the Prism mock scripts (npm run mock:vault|
// mock:resolver, node scripts/mock.ts). Each form runs in a process group of its own; the signal goes to the top
// process alone (what a process manager signals); a SIGKILL to npm, which passes nothing on, must lead to the
// same stop. The stop must drain, not just end: a POST is held in flight across the signal (its head is sent and
// parsed, its body sent half before and half after), new connections must then be refused, the held request must
// get its whole answer, and the drain must not reach its deadline (--shutdown-timeout-ms). Every process of the
// group must then be gone, having closed gracefully: the data directory's lock released and the simulator's state
// saved (a killed process leaves the one and not the other).
//
// The npx forms get an INT too since .npmrc sets npm's script-shell to bash: npm passes a signal to the shell it
// runs a command under, and bash -c execs a single command (the server is npm's own child), where sh (dash) held
// an INT until its command ended (docs/operations.md "Stopping").
//
// Every process a form starts is found again by a mark in its environment (inherited by all of its descendants,
// whatever their process group): none may be left once the test is over, passed or failed. A watchdog outside the
// group kills the group should this test's worker die before its own clean-up runs.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it, vi } from 'vitest';
import { DATA_DIR_LOCK } from '../src/data-dir-lock.ts';
import { PARENT_POLL_MS } from '../src/cli/parent-watch.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'credential-vault.js');
// The product's default: a loaded host must not turn a drain into a forced close before the held request ends.
const DRAIN_MS = 10_000;
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
const mock = ['--port', '0', '--shutdown-timeout-ms', String(DRAIN_MS)];

/** A POST that reads its body before it answers, and the status it answers with. */
interface Held {
  path: string;
  body: string;
  status: number;
}
const CHALLENGE: Held = {
  path: '/v1/proof/challenge',
  body: JSON.stringify({ did: 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza', domain: 'vault.example.org' }),
  status: 200,
};
const WALLET_PROOF: Held = { path: '/auth/keys', body: JSON.stringify({ transaction: 'AAAA' }), status: 400 };
/** Prism checks the body's shape only, and answers with the spec's example. */
const MOCK_WALLET_PROOF: Held = { ...WALLET_PROOF, status: 201 };

interface Form {
  form: string;
  signal: NodeJS.Signals;
  command: (dir: string) => [string, string[]];
  /** The line that says every server listens; its group 1 is the port the held request goes to. */
  ready: RegExp;
  held: Held;
  /** A product form: it holds the data directory and saves the simulator's state. */
  product: boolean;
}

const SIGNALS = ['SIGTERM', 'SIGINT'] as const;
const RESOLVER = /DID resolver\s+http:\/\/127\.0\.0\.1:(\d+)/;
const MOCK = /mock of \S+ on http:\/\/127\.0\.0\.1:(\d+)/;
const SIGNALLED: Form[] = SIGNALS.flatMap((signal): Form[] => [
  {
    form: 'npm start --',
    signal,
    command: (dir) => ['npm', ['start', '--', ...product(dir)]],
    ready: RESOLVER,
    held: CHALLENGE,
    product: true,
  },
  {
    form: 'npx credential-vault start',
    signal,
    command: (dir) => ['npx', ['credential-vault', 'start', ...product(dir)]],
    ready: RESOLVER,
    held: CHALLENGE,
    product: true,
  },
  {
    form: 'npx credential-vault serve',
    signal,
    command: (dir) => ['npx', ['credential-vault', 'serve', ...serve(dir)]],
    ready: /vault API testnet\s+http:\/\/127\.0\.0\.1:(\d+)/,
    held: WALLET_PROOF,
    product: true,
  },
  {
    form: 'node bin/credential-vault.js start',
    signal,
    command: (dir) => [process.execPath, [BIN, 'start', ...product(dir)]],
    ready: RESOLVER,
    held: CHALLENGE,
    product: true,
  },
  {
    form: 'npm run mock:vault',
    signal,
    command: () => ['npm', ['run', 'mock:vault', '--', ...mock]],
    ready: MOCK,
    held: MOCK_WALLET_PROOF,
    product: false,
  },
  {
    form: 'npm run mock:resolver',
    signal,
    command: () => ['npm', ['run', 'mock:resolver', '--', ...mock]],
    ready: MOCK,
    held: CHALLENGE,
    product: false,
  },
  {
    form: 'node scripts/mock.ts',
    signal,
    command: () => [process.execPath, ['scripts/mock.ts', 'spec/did-resolver.yaml', ...mock]],
    ready: MOCK,
    held: CHALLENGE,
    product: false,
  },
]);
// npm killed outright passes nothing on: the server (or the mock) notices that its parent is gone and drains all
// the same (src/cli/parent-watch.ts), which is what any npm that ends without passing a signal on leads to.
const ORPHANED: Form[] = SIGNALLED.filter((f) => f.signal === 'SIGTERM' && f.form.startsWith('npm ')).map((f) => ({
  ...f,
  signal: 'SIGKILL',
}));
const FORMS = [...SIGNALLED, ...ORPHANED];

function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** What came back on a raw connection: the answer's status and body once whole, or why there is none. */
interface Answer {
  status?: number;
  body?: string;
  error?: string;
}

/** The final answer in `raw` (after any 100 Continue), once its whole body has arrived. */
function parseAnswer(raw: string): Answer | undefined {
  const text = raw.replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, '');
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const head = text.slice(0, end);
  const body = text.slice(end + 4);
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
  const length = /\r\ncontent-length: *(\d+)/i.exec(head)?.[1];
  if (length !== undefined) return Buffer.byteLength(body, 'latin1') >= Number(length) ? { status, body } : undefined;
  if (/\r\ntransfer-encoding: *chunked/i.test(head)) {
    if (!body.endsWith('0\r\n\r\n')) return undefined;
    const chunks = body.replace(/(^|\r\n)[0-9a-f]+\r\n/gi, '$1').replace(/\r\n/g, '');
    return { status, body: chunks };
  }
  return undefined;
}

/**
 * A POST held in flight: its head (with `Expect: 100-continue`, which Node's server answers once it has parsed
 * the head and the request is under way) and half its body go now, the rest at `finish()`.
 */
function holdPost(port: number, held: Held) {
  const socket = connect(port, '127.0.0.1');
  let raw = '';
  let error: string | undefined;
  socket.on('data', (d: Buffer) => (raw += d.toString('latin1')));
  socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
  socket.on('close', () => (error ??= 'closed'));
  const half = Math.floor(held.body.length / 2);
  const head = [
    `POST ${held.path} HTTP/1.1`,
    `Host: 127.0.0.1:${port}`,
    'Content-Type: application/json',
    `Content-Length: ${Buffer.byteLength(held.body)}`,
    'Expect: 100-continue',
  ];
  socket.write(`${head.join('\r\n')}\r\n\r\n${held.body.slice(0, half)}`);
  return {
    /** True once the server said 100 Continue: the request is under way. */
    underWay: () => raw.startsWith('HTTP/1.1 100 Continue\r\n'),
    finish: () => void socket.write(held.body.slice(half)),
    /** The answer once whole; else the error or close that came instead, or undefined while waiting. */
    answer: (): Answer | undefined => parseAnswer(raw) ?? (error === undefined ? undefined : { error }),
    destroy: () => socket.destroy(),
  };
}

/** Whether a new connection to `port` is refused (a draining server has closed its listener at once). */
function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.on('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.on('error', () => resolve(true));
  });
}

/** Signals the form with a request in flight and checks that it drains: refuses new work, answers the held one. */
async function signalWhileHeld(
  child: ChildProcess,
  port: number,
  held: Held,
  signal: NodeJS.Signals,
  log: () => string,
) {
  const request = holdPost(port, held);
  try {
    await vi.waitFor(() => expect(request.underWay(), `no 100 Continue: ${request.answer()?.error}`).toBe(true), {
      timeout: 20_000,
      interval: 20,
    });
    child.kill(signal);
    // Draining: the listener is closed while the held request still waits for its body. (Not /ready's 503: a
    // readiness check that is slow on a loaded host gives one too.)
    await vi.waitFor(async () => expect(await refused(port), log()).toBe(true), {
      timeout: DRAIN_MS,
      interval: 50,
    });
    expect(request.answer(), 'the held request was answered or cut before its body ended').toBeUndefined();
    request.finish();
    await vi.waitFor(() => expect(request.answer(), log()).toBeDefined(), { timeout: DRAIN_MS, interval: 20 });
    const answer = request.answer()!;
    expect(answer.error, `the held request was cut:\n${log()}`).toBeUndefined();
    expect(answer.status, answer.body).toBe(held.status);
    expect(() => JSON.parse(answer.body!), answer.body).not.toThrow();
  } finally {
    request.destroy();
  }
}

it.each(FORMS)(
  '$signal to `$form` drains a request in flight and stops every process of it',
  async ({ signal, command, ready, held, product: isProduct }) => {
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
      await signalWhileHeld(child, Number(ready.exec(out)![1]), held, signal, () => out);
      // Saving and exiting after the drain; the parent watch's poll where a parent dies first.
      await vi.waitFor(() => expect(groupAlive(child.pid!), out).toBe(false), {
        timeout: PARENT_POLL_MS + 20_000,
        interval: 100,
      });
      expect(out, 'the drain met its deadline').not.toMatch(/deadline passed/);
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
