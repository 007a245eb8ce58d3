// The verifier in a child process (./quiet-verifier.ts): provider states still built in this process, the
// report kept out of a passing run and handed over with a failing one.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { verifyQuietly } from './quiet-verifier.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'cv-quiet-verifier-'));
const pactPath = path.join(dir, 'consumer-provider.json');
let server: Server;
let url: string;
/** What the provider answers GET /thing/1 with: 200 (the pact's) unless a test says otherwise. */
let status = 200;
const target = () => ({ provider: 'provider', providerBaseUrl: url, pactUrls: [pactPath], logLevel: 'error' as const });

beforeAll(async () => {
  // One interaction: given a thing, GET /thing/1 answers {ok: true}.
  const pact = {
    consumer: { name: 'consumer' },
    provider: { name: 'provider' },
    interactions: [
      {
        description: 'a thing',
        providerStates: [{ name: 'a thing exists', params: { colour: 'red' } }],
        request: { method: 'GET', path: '/thing/1' },
        response: { status: 200, headers: { 'Content-Type': 'application/json' }, body: { ok: true } },
      },
    ],
    metadata: { pactSpecification: { version: '3.0.0' } },
  };
  writeFileSync(pactPath, JSON.stringify(pact));
  server = createServer((req, res) => {
    res.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify({ ok: req.url === '/thing/1' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
// The tests run in a random order: the failing run's 500 must not reach the passing one.
beforeEach(() => {
  status = 200;
});
afterAll(() => {
  server?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('builds the provider states in this process and keeps the report of a passing run', async () => {
  const seen: unknown[] = [];
  const states = { 'a thing exists': async (params?: unknown) => (seen.push(params), {}) };
  const write = process.stdout.write;
  let printed = '';
  process.stdout.write = ((chunk: string | Uint8Array) => ((printed += String(chunk)), true)) as typeof write;
  let run;
  try {
    run = await verifyQuietly({ ...target(), stateHandlers: states });
  } finally {
    process.stdout.write = write;
  }
  expect(run.passed, run.output).toBe(true);
  expect(seen).toEqual([{ colour: 'red' }]);
  expect(run.output).toContain('a thing');
  expect(printed).toBe('');
});

it('answers a failing verification with its report', async () => {
  status = 500;
  const states = { 'a thing exists': async () => ({}) };
  const run = await verifyQuietly({ ...target(), stateHandlers: states });
  expect(run.passed).toBe(false);
  expect(run.output).toMatch(/FAILED/);
  expect(run.results).toContain('a thing');
});
