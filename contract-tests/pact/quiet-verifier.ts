// Pact's verifier in a child process, so that its report is shown only when asked or when it failed.
//
// The verifier is native code: it prints its report (every interaction, OK or FAILED, in colour) straight to
// the process's standard output, past vitest's console capture, so a passing run printed hundreds of lines.
// Here the verifier runs in a child whose output is kept; its provider states are still built in this
// process (the provider's app and its harness live here): the child's state handlers ask this process over
// a loopback HTTP endpoint. The output is written out when the verification failed (in the error) or when the
// run asked for output (DEBUG / LOG_LEVEL, test-support/log-level.ts).
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SHOW_OUTPUT } from '../../test-support/log-level.ts';

const CHILD = fileURLToPath(new URL('./quiet-verifier-child.ts', import.meta.url));

export type QuietStateHandler = (params?: unknown) => Promise<unknown>;

export interface QuietVerifierOptions {
  provider: string;
  providerBaseUrl: string;
  pactUrls: string[];
  stateHandlers: Record<string, QuietStateHandler>;
  logLevel: 'error' | 'warn' | 'info' | 'debug';
  failIfNoPactsFound?: boolean;
}

/** What the child is told (the handlers stay here: the child knows their names and where to ask). */
export interface ChildOptions extends Omit<QuietVerifierOptions, 'stateHandlers'> {
  states: string[];
  stateUrl: string;
  resultsFile: string;
}

export interface QuietVerification {
  /** Whether every interaction verified. */
  passed: boolean;
  /** The verifier's JSON results (its error message when it failed, as pact-js answers it). */
  results: string;
  /** Everything the verifier printed. */
  output: string;
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Runs the verifier in a child process; never prints what it printed unless asked. */
export async function verifyQuietly(options: QuietVerifierOptions): Promise<QuietVerification> {
  const { stateHandlers, ...rest } = options;
  const server = createServer((req, res) => {
    void (async () => {
      try {
        const { state, params } = JSON.parse(await bodyOf(req)) as { state: string; params?: unknown };
        const handler = stateHandlers[state];
        if (!handler) throw new Error(`no handler for the provider state ${JSON.stringify(state)}`);
        const value = await handler(params);
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(value ?? {}));
      } catch (err) {
        res.writeHead(500, { 'Content-Type': 'text/plain' }).end(err instanceof Error ? err.message : String(err));
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const dir = await mkdtemp(path.join(tmpdir(), 'cv-pact-verify-'));
  try {
    const { port } = server.address() as AddressInfo;
    const child: ChildOptions = {
      ...rest,
      states: Object.keys(stateHandlers),
      stateUrl: `http://127.0.0.1:${port}/state`,
      resultsFile: path.join(dir, 'results.json'),
    };
    const optionsFile = path.join(dir, 'options.json');
    await writeFile(optionsFile, JSON.stringify(child));
    const proc = spawn(process.execPath, [CHILD, optionsFile], { stdio: ['ignore', 'pipe', 'pipe'], env: process.env });
    let output = '';
    const keep = (c: Buffer) => {
      output += c.toString('utf8');
      if (SHOW_OUTPUT) process.stdout.write(c);
    };
    proc.stdout.on('data', keep);
    proc.stderr.on('data', keep);
    const code = await new Promise<number | null>((resolve, reject) => {
      proc.once('error', reject);
      proc.once('close', resolve);
    });
    const saved = await readFile(child.resultsFile, 'utf8').catch(() => undefined);
    if (saved === undefined) {
      throw new Error(`the Pact verifier (child process) exited ${code} without results:\n${output}`);
    }
    const { passed, results } = JSON.parse(saved) as { passed: boolean; results: string };
    return { passed: passed && code === 0, results, output };
  } finally {
    server.close();
    server.closeAllConnections();
    await rm(dir, { recursive: true, force: true });
  }
}
