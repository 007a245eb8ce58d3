// The README's five-minute path and the resolver guide's "Register a DID by hand" block, each run as written
// in bash from the repository folder against services started in process: only the addresses of
// `npm start` become the ones of this run, and the secret files temporary ones. A documentation edit that
// breaks an example fails here.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { loadConfig } from '../src/config/index.ts';
import { startServices, type RunningServices } from '../src/services.ts';
import { TEST_LOG_ARGS } from '../test-support/log-level.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dir = mkdtempSync(path.join(tmpdir(), 'cv-readme-'));
let services: RunningServices;

/** The code block right after `<!-- <marker> -->` in `file`. */
function example(file: string, marker: string): string {
  const text = readFileSync(path.join(ROOT, file), 'utf8');
  const escaped = marker.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`<!-- ${escaped} -->\\n\`\`\`\\n([\\s\\S]*?)\\n\`\`\``).exec(text);
  if (!m) throw new Error(`${file} has no example ${marker}`);
  return m[1]!;
}

/**
 * The block with the addresses of this run's services and its secret files in a temporary folder of its own:
 * two blocks that each make `me.key` must not meet (`account new` never overwrites a key).
 */
function localised(script: string, files: string[]): string {
  const own = mkdtempSync(path.join(dir, 'block-'));
  let out = script
    .replaceAll('http://127.0.0.1:8000', services.simulatorUrl!)
    .replaceAll('http://127.0.0.1:3001', services.resolverUrl!)
    .replaceAll('http://127.0.0.1:3000', services.vault.testnet!.url);
  for (const f of files) out = out.replaceAll(f, path.join(own, f));
  return out;
}

/**
 * The PATH of the reader's shell: this run's without the node_modules/.bin folders that `npm test` put first.
 * So the blocks run on the system's Node, as pasted, and must put the pinned one first themselves.
 */
const READER_PATH = (process.env['PATH'] ?? '')
  .split(path.delimiter)
  .filter((dir) => !/[\\/]node_modules[\\/]\.bin$|[\\/]node-gyp-bin$/.test(dir))
  .join(path.delimiter);

/** Runs a block in bash; answers its stdout, and fails on npm's warnings (EBADENGINE on an older Node). */
const run = async (script: string) => {
  const env = { ...process.env, PATH: READER_PATH };
  const options = { cwd: ROOT, timeout: 240_000, maxBuffer: 16 * 1024 * 1024, env };
  const { stdout, stderr } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script], options);
  expect(stderr, 'what the block printed on stderr').not.toMatch(/npm (warn|error)|EBADENGINE/i);
  return stdout;
};

beforeAll(async () => {
  const { config } = loadConfig(
    [
      '--testnet-port',
      '0',
      '--mainnet-port',
      '0',
      '--resolver-port',
      '0',
      '--simulator-port',
      '0',
      '--data-dir',
      path.join(dir, 'data'),
      ...TEST_LOG_ARGS,
    ],
    {},
  );
  services = await startServices(config, { mode: 'start' });
}, 120_000);
afterAll(async () => {
  await services?.close();
  rmSync(dir, { recursive: true, force: true });
});

it('README: accounts, wallet-proof keys, an issuer DID, a vault, a signed issue, verify, revoke, verify, present', async () => {
  const script = localised(example('README.md', 'readme-example:first-credential'), ['issuer.key', 'holder.key']);
  // Each variable holds one thing: the block's names must not be reused for another meaning.
  const assigned = [...script.matchAll(/^([A-Z_]+)=/gm)].map((m) => m[1]);
  expect(new Set(assigned).size, `assigned twice: ${assigned.join(' ')}`).toBe(assigned.length);
  const lines = (await run(script)).trim().split('\n');
  // Four submits (DID, vault, issue, revoke) and three verifications, in order.
  const answers = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
  expect(answers).toHaveLength(7);
  const [did, vault, issued, first, revoked, second, presented] = answers as [
    { txId: string },
    { tx_id: string; txId: string },
    { tx_id: string; txId: string },
    {
      verified: boolean;
      problemDetails: { level: string; check?: string; reason: string }[];
      results: Record<string, unknown>;
    },
    { tx_id: string; txId: string },
    { verified: boolean; problemDetails: { level: string; check?: string; reason: string }[] },
    {
      verified: boolean;
      problemDetails: { level: string; check?: string; reason: string }[];
      results: { credentialStatus: { type?: string; input: { type: string } }[] };
    },
  ];
  expect(did.txId).toMatch(/^[0-9a-f]{64}$/);
  for (const w of [vault, issued, revoked]) expect(w.txId).toBe(w.tx_id);
  expect(first.verified, JSON.stringify(first)).toBe(true);
  expect(first.problemDetails.filter((p) => p.level === 'error')).toEqual([]);
  expect(Object.keys(first.results).sort()).toEqual(['credentialStatus', 'issuerAllowed', 'issuerDid', 'proof']);
  expect(second.verified).toBe(false);
  expect(second.problemDetails).toContainEqual(
    expect.objectContaining({ level: 'error', check: 'credentialStatus', reason: 'revoked' }),
  );
  // The revoked credential presented, keyless: its own LedgerVaultStatusEntry leads the verifier to the chain.
  expect(presented.verified, JSON.stringify(presented)).toBe(false);
  expect(presented.problemDetails.filter((p) => p.level === 'error')).toEqual([
    expect.objectContaining({ check: 'credentialStatus', reason: 'revoked' }),
  ]);
  expect(presented.results.credentialStatus).toEqual([
    expect.objectContaining({
      verified: false,
      status: 'revoked',
      input: expect.objectContaining({ type: 'LedgerVaultStatusEntry' }),
    }),
  ]);
}, 300_000);

// A reader pastes blocks of several pages into one shell: a name that holds a key says which kind, everywhere.
it('names every key variable of the README and docs/ by its kind: *_API_KEY or *MULTIKEY', () => {
  const guides = readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md'));
  const pages = ['README.md', ...guides.map((f) => `docs/${f}`)];
  const vague: string[] = [];
  for (const page of pages) {
    const text = readFileSync(path.join(ROOT, page), 'utf8');
    for (const m of text.matchAll(/(?:^|[\s({"'])\$?\{?((?=[A-Z])[A-Z0-9_]*KEY)\b(?==|\}|["'\s)])/gm)) {
      const name = m[1]!;
      if (!/(_API_KEY|MULTIKEY)$/.test(name) && !/^CV_/.test(name)) vague.push(`${page}: ${name}`);
    }
  }
  expect([...new Set(vague)]).toEqual([]);
});

it('docs/did-resolver.md: account new, did new, did multikey and tx sign --submit register a DID', async () => {
  const script = localised(example('docs/did-resolver.md', 'example:register-did'), ['me.key']);
  const lines = (await run(script)).trim().split('\n');
  const submitted = JSON.parse(lines.at(-2)!) as { txId: string };
  type Resolved = { didDocument: { id: string; authentication: string[] }; didResolutionMetadata: { error?: string } };
  const resolved = JSON.parse(lines.at(-1)!) as Resolved;
  expect(submitted.txId).toMatch(/^[0-9a-f]{64}$/);
  expect(resolved.didResolutionMetadata.error).toBeUndefined();
  expect(resolved.didDocument.id).toMatch(/^did:ledger:testnet:[a-z2-7]{26}$/);
  expect(resolved.didDocument.authentication).toEqual(['#auth-1']);
}, 120_000);

it('docs/did-resolver.md: did create --registrar, then update and deactivate through the registrar by hand', async () => {
  const script = localised(example('docs/did-resolver.md', 'example:registrar'), ['me.key']);
  const lines = (await run(script)).trim().split('\n');
  const resolved = JSON.parse(lines.at(-2)!) as { didDocument: { id: string; service: { id: string }[] } };
  const mine = JSON.parse(lines.at(-1)!) as { dids: { did: string; deactivated: boolean; version: number }[] };
  expect(resolved.didDocument.service.map((s) => s.id)).toEqual([`${resolved.didDocument.id}#service-inbox`]);
  expect(mine.dids).toEqual([expect.objectContaining({ did: resolved.didDocument.id, deactivated: true, version: 3 })]);
}, 180_000);
