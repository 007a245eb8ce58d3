// `npm run mock:vault` / `npm run mock:resolver`: a Prism mock of one spec, with the rules of mock-spec.ts.
//
//   node scripts/mock.ts <spec file> [--port N] [--host H] [--shutdown-timeout-ms N]
//
// The port is --port, else PORT, else the spec's default (vault API 4010, resolver 4011); the host is --host,
// else 127.0.0.1. Prism's own CORS is off: the mocks answer CORS as the specs do. Prism listens on a free
// loopback port behind the front of mock-front.ts, which listens on the mock's port once Prism answers.
// A TERM or an INT stops as the product does: the front stops listening, the requests under way finish (up to
// --shutdown-timeout-ms, 10 s), then Prism is stopped; a second signal stops Prism at once.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type http from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createMockFront } from './mock-front.ts';
import { loadMockSpec } from './mock-spec.ts';
import { parentMayVanish } from '../src/config/index.ts';
import { watchParent } from '../src/cli/parent-watch.ts';
import { gracefulShutdown } from '../src/observability/shutdown.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const prismBin = path.join(root, 'node_modules', '.bin', 'prism');
const DEFAULT_PORTS: Record<string, number> = { 'vault-api.yaml': 4010, 'did-resolver.yaml': 4011 };
/** The product's default `--shutdown-timeout-ms`. */
const DEFAULT_DRAIN_MS = 10_000;

export interface MockArgs {
  spec: string;
  host: string;
  port: number;
  /** How long requests under way get to finish after a TERM or an INT. */
  drainMs: number;
}

/** Reads the command line and `PORT`; throws with a usage line on anything it cannot use. */
export function parseMockArgs(argv: string[], env: Record<string, string | undefined>): MockArgs {
  const usage = 'usage: mock.ts <spec file> [--port N] [--host H] [--shutdown-timeout-ms N]   (PORT=N works too)';
  let spec: string | undefined;
  let port: string | undefined;
  let drain = String(DEFAULT_DRAIN_MS);
  let host = '127.0.0.1';
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [name, inline] = arg.startsWith('--')
      ? (arg.split('=', 2) as [string, string | undefined])
      : [arg, undefined];
    const value = () => {
      const v = inline ?? argv[++i];
      if (v === undefined) throw new Error(`${name} needs a value\n${usage}`);
      return v;
    };
    if (name === '--port' || name === '-p') port = value();
    else if (name === '--host' || name === '-h') host = value();
    else if (name === '--shutdown-timeout-ms') drain = value();
    else if (!name.startsWith('-') && spec === undefined) spec = name;
    else throw new Error(`unknown argument ${JSON.stringify(arg)}\n${usage}`);
  }
  if (!spec) throw new Error(usage);
  const chosen = port ?? env['PORT'] ?? DEFAULT_PORTS[path.basename(spec)]?.toString();
  if (chosen === undefined || !/^\d+$/.test(chosen) || Number(chosen) > 65535) {
    throw new Error(`the port must be an integer from 0 to 65535, got ${JSON.stringify(chosen)}\n${usage}`);
  }
  if (!/^\d+$/.test(drain) || Number(drain) > 600_000) {
    throw new Error(
      `--shutdown-timeout-ms must be an integer from 0 to 600000, got ${JSON.stringify(drain)}\n${usage}`,
    );
  }
  return { spec, host, port: Number(chosen), drainMs: Number(drain) };
}

/** Runs Prism until it exits or this process is told to stop; resolves to Prism's exit code. */
export async function runMock(argv: string[], env: Record<string, string | undefined>): Promise<number> {
  let args: MockArgs;
  try {
    args = parseMockArgs(argv, env);
  } catch (err) {
    console.error((err as Error).message);
    return 2;
  }
  const dir = mkdtempSync(path.join(tmpdir(), 'cv-mock-'));
  let front: http.Server | undefined;
  try {
    // JSON keeps every local $ref; the file's name keeps the spec's, for Prism's log lines.
    const file = path.join(dir, `${path.basename(args.spec, path.extname(args.spec))}.json`);
    const spec = loadMockSpec(path.resolve(args.spec));
    writeFileSync(file, JSON.stringify(spec));
    const inner = await freePort();
    const child = spawn(prismBin, ['mock', '--cors=false', '--host', '127.0.0.1', '--port', String(inner), file], {
      stdio: 'inherit',
    });
    // The first signal drains the front, then stops Prism; a second one stops Prism now.
    let draining = false;
    const stop = (signal: NodeJS.Signals) => {
      if (draining || !front) {
        front?.closeAllConnections();
        child.kill(signal);
        return;
      }
      draining = true;
      void gracefulShutdown(front, { timeoutMs: args.drainMs }).then(({ forced }) => {
        if (forced) console.error(`the mock's drain deadline passed (${args.drainMs} ms): open connections destroyed`);
        child.kill(signal);
      });
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    // Under `npm run mock:vault` a TERM to npm stops npm and its shell only: gone, they leave Prism behind.
    const unwatch = parentMayVanish(env) ? watchParent() : undefined;
    const exited = new Promise<number>((resolve) => child.once('exit', (c, signal) => resolve(c ?? (signal ? 0 : 1))));
    const upstream = `http://127.0.0.1:${inner}`;
    let gone = false;
    void exited.then(() => {
      gone = true;
    });
    const ready = await Promise.race([answers(upstream, () => gone).then(() => !gone), exited.then(() => false)]);
    if (ready) {
      front = createMockFront(spec, upstream);
      const server = front;
      server.listen(args.port, args.host, () => {
        const { port } = server.address() as AddressInfo;
        console.log(`mock of ${args.spec} on http://${args.host}:${port}`);
      });
      front.once('error', (err) => {
        console.error(`the mock cannot listen on ${args.host}:${args.port}: ${err.message}`);
        child.kill('SIGTERM');
      });
    }
    const code = await exited;
    unwatch?.();
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    return code;
  } finally {
    front?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A port the OS reports free on 127.0.0.1 right now. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Resolves once `url` gives any HTTP answer (Prism parses the spec before it listens), or `gone()`. */
async function answers(url: string, gone: () => boolean): Promise<void> {
  while (!gone()) {
    try {
      const response = await fetch(`${url}/__prism_ready_probe`, { signal: AbortSignal.timeout(1_000) });
      await response.arrayBuffer();
      return;
    } catch {
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await runMock(process.argv.slice(2), process.env);
}
