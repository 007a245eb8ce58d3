// The README's "Register a DID by hand" block, run as written in bash from the repository folder against
// services started in process: only the addresses of `npm start` become the ones of this run, and me.key a
// temporary file. A README edit that breaks the example fails here.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../src/config/index.ts';
import { startServices, type RunningServices } from '../src/services.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = mkdtempSync(path.join(tmpdir(), 'cv-readme-'));
let services: RunningServices;

/** The code block right after `<!-- readme-example:NAME -->`. */
function example(name: string): string {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const m = new RegExp(`<!-- readme-example:${name} -->\\n\`\`\`\\n([\\s\\S]*?)\\n\`\`\``).exec(readme);
  if (!m) throw new Error(`README.md has no example ${name}`);
  return m[1]!;
}

beforeAll(async () => {
  const { config } = loadConfig(
    ['--testnet-port', '0', '--mainnet-port', '0', '--resolver-port', '0', '--simulator-port', '0', '--data-dir', path.join(dir, 'data'), '--log-level', 'silent'],
    {},
  );
  services = await startServices(config, { mode: 'start' });
}, 120_000);
afterAll(async () => {
  await services?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('registers a DID with account new, did new, did multikey and tx sign --submit, then resolves it', async () => {
  const script = example('register-did')
    .replaceAll('http://127.0.0.1:8000', services.simulatorUrl!)
    .replaceAll('http://127.0.0.1:3001', services.resolverUrl!)
    .replaceAll('me.key', path.join(dir, 'me.key'));
  const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], { cwd: ROOT, timeout: 90_000 });
  const lines = stdout.trim().split('\n');
  const submitted = JSON.parse(lines.at(-2)!) as { txId: string };
  const resolved = JSON.parse(lines.at(-1)!) as { didDocument: { id: string; authentication: string[] }; didResolutionMetadata: { error?: string } };
  expect(submitted.txId).toMatch(/^[0-9a-f]{64}$/);
  expect(resolved.didResolutionMetadata.error).toBeUndefined();
  expect(resolved.didDocument.id).toMatch(/^did:ledger:testnet:[a-z2-7]{26}$/);
  expect(resolved.didDocument.authentication).toEqual(['#auth-1']);
}, 120_000);
