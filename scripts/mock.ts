// `npm run mock:vault` / `npm run mock:resolver`: a Prism mock of one spec, with the rules of mock-spec.ts.
//
//   node scripts/mock.ts <spec file> [--port N] [--host H]
//
// The port is --port, else PORT, else the spec's default (vault API 4010, resolver 4011); the host is --host,
// else 127.0.0.1. Prism's own CORS is off: the mocks answer CORS as the specs do.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { loadMockSpec } from './mock-spec.ts';
import { parentMayVanish } from '../src/config/index.ts';
import { watchParent } from '../src/cli/parent-watch.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const prismBin = path.join(root, 'node_modules', '.bin', 'prism');
const DEFAULT_PORTS: Record<string, number> = { 'vault-api.yaml': 4010, 'did-resolver.yaml': 4011 };

export interface MockArgs {
  spec: string;
  host: string;
  port: number;
}

/** Reads the command line and `PORT`; throws with a usage line on anything it cannot use. */
export function parseMockArgs(argv: string[], env: Record<string, string | undefined>): MockArgs {
  const usage = 'usage: mock.ts <spec file> [--port N] [--host H]   (PORT=N works too)';
  let spec: string | undefined;
  let port: string | undefined;
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
    else if (!name.startsWith('-') && spec === undefined) spec = name;
    else throw new Error(`unknown argument ${JSON.stringify(arg)}\n${usage}`);
  }
  if (!spec) throw new Error(usage);
  const chosen = port ?? env['PORT'] ?? DEFAULT_PORTS[path.basename(spec)]?.toString();
  if (chosen === undefined || !/^\d+$/.test(chosen) || Number(chosen) > 65535) {
    throw new Error(`the port must be an integer from 0 to 65535, got ${JSON.stringify(chosen)}\n${usage}`);
  }
  return { spec, host, port: Number(chosen) };
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
  try {
    // JSON keeps every local $ref; the file's name keeps the spec's, for Prism's log lines.
    const file = path.join(dir, `${path.basename(args.spec, path.extname(args.spec))}.json`);
    writeFileSync(file, JSON.stringify(loadMockSpec(path.resolve(args.spec))));
    const child = spawn(prismBin, ['mock', '--cors=false', '--host', args.host, '--port', String(args.port), file], {
      stdio: 'inherit',
    });
    const stop = (signal: NodeJS.Signals) => child.kill(signal);
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    // Under `npm run mock:vault` a TERM to npm stops npm and its shell only: gone, they leave Prism behind.
    const unwatch = parentMayVanish(env) ? watchParent() : undefined;
    const code = await new Promise<number>((resolve) =>
      child.once('exit', (c, signal) => resolve(c ?? (signal ? 0 : 1))),
    );
    unwatch?.();
    process.off('SIGINT', stop);
    process.off('SIGTERM', stop);
    return code;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await runMock(process.argv.slice(2), process.env);
}
