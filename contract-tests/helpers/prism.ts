// Starts the Prism mock of one spec exactly as `npm run mock:vault` / `mock:resolver` do (scripts/mock.ts,
// with its mock rules), on a free loopback port; waits until it answers, and stops it.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** A running Prism mock. */
export interface PrismMock {
  /** Base URL, e.g. `http://127.0.0.1:41234`. */
  readonly url: string;
  readonly port: number;
  /** Terminates the mock and waits for it to exit. */
  stop(): Promise<void>;
}

export interface StartPrismOptions {
  /** How long to wait for the first answer; Prism parses the spec first. */
  readonly readyTimeoutMs?: number;
  /** Port to listen on; a free one when absent. */
  readonly port?: number;
}

/** A port the OS reports free on 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
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

/** Runs `scripts/mock.ts <spec> --port <port>` and resolves once it answers HTTP. */
export async function startPrismMock(specPath: string, options: StartPrismOptions = {}): Promise<PrismMock> {
  const port = options.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, [path.join(root, 'scripts', 'mock.ts'), specPath, '--port', String(port)], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const collect = (chunk: Buffer): void => {
    output = (output + chunk.toString()).slice(-8_000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let hasExited = false;
  void exited.then(() => {
    hasExited = true;
  });

  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  while (true) {
    if (hasExited) throw new Error(`prism exited before answering (${specPath}):\n${output}`);
    if (await answers(url)) break;
    if (Date.now() > deadline) {
      await stopChild(child, exited);
      throw new Error(`prism did not answer on ${url} in time (${specPath}):\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { url, port, stop: () => stopChild(child, exited) };
}

/** Any HTTP answer (Prism replies 404 to unknown paths) means the server is up. */
async function answers(url: string): Promise<boolean> {
  try {
    const response = await fetch(`${url}/__prism_ready_probe`, { signal: AbortSignal.timeout(1_000) });
    await response.arrayBuffer();
    return true;
  } catch {
    return false;
  }
}

async function stopChild(child: ChildProcess, exited: Promise<number | null>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
