// `npm run demo` is part of the product: it must walk through every step against freshly started services
// and exit 0, and it must exit non-zero, naming the step, when a step fails.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Every step the demo prints, in order. */
const STEPS = [
  'connect',
  'create issuer account',
  'create holder account',
  'create relayer account',
  'API key for issuer (challenge → sign → /auth/keys)',
  'API key for holder (challenge → sign → /auth/keys)',
  'register issuer DID (prepare → sign → submit)',
  'resolve issuer DID',
  'register holder DID (prepare → sign → submit)',
  'fee quote and balances before',
  'create holder vault (holder signs)',
  'sponsor a salted vault for the holder (issuer signs and pays)',
  'issue a credential',
  'batch-issue credentials',
  'verify a credential',
  'read a credential (decrypted)',
  'verifier: check a presented credential (no API key)',
  'verifier: account and API key',
  'verifier: a presentation over its challenge (holder signs with its DID key), once',
  'holder: check a credential in its own vault by reference (owner + vcId)',
  'list and count',
  'deny the issuer (relayed: holder authorizes, relayer pays)',
  'issuance refused while denied',
  'allow the issuer again and issue',
  'issue into the salted vault',
  'push from the salted vault to the canonical vault (holder signs)',
  'revoke a credential (relayed: holder authorizes, relayer pays)',
  'verifier: the revoked credential no longer verifies',
  'revoke the salted vault (holder signs)',
  'write into the revoked vault refused',
  'fees paid',
  // The mainnet leg: the same API on the mainnet vault API, the fee paid in USDC.
  'mainnet: connect',
  'mainnet: create issuer account',
  'mainnet: create holder account',
  'mainnet: API key for issuer (challenge → sign → /auth/keys)',
  'mainnet: API key for holder (challenge → sign → /auth/keys)',
  'mainnet: register issuer DID (prepare → sign → submit)',
  'mainnet: register holder DID (prepare → sign → submit)',
  'mainnet: create holder vault (holder signs)',
  'mainnet: fee quote',
  'mainnet: issuance refused without a USDC trustline',
  "mainnet: issuer's wallet adds a USDC trustline (changeTrust → rpc sendTransaction)",
  'mainnet: issuer receives USDC from the asset issuer',
  'mainnet: issue a credential',
  'mainnet: verify the credential',
  'mainnet: USDC fee paid',
];

function runDemo(args: string[], timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['scripts/demo.ts', ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the demo did not finish in ${timeoutMs} ms\n${stdout}\n${stderr}`));
    }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Every step printed, in order, with the key facts of the walk-through. */
function expectWholeWalkThrough(run: { code: number | null; stdout: string; stderr: string }): void {
  const { code, stdout, stderr } = run;
  expect(code, `${stdout}\n${stderr}`).toBe(0);
  expect(stderr).not.toMatch(/FAILED|demo failed/);
  const lines = stdout.split('\n');
  STEPS.forEach((title, i) => {
    const prefix = `${i + 1}. ${title}: `;
    expect(
      lines.some((l) => l.startsWith(prefix)),
      `missing step line "${prefix}…" in\n${stdout}`,
    ).toBe(true);
  });
  expect(
    lines.some((l) => l.startsWith(`${STEPS.length + 1}. `)),
    'a step this test does not know',
  ).toBe(false);
  // The key facts of the walk-through.
  expect(stdout).toMatch(/issuance refused while denied: 403 issuer_denied/);
  expect(stdout).toMatch(/is revoked since \d{4}-\d\d-\d\dT/);
  // The verifier: a signed credential verifies presented (without a key), its status read through its
  // LedgerVaultStatusEntry; a presentation over the verifier's challenge verifies once; the owner verifies by
  // reference and another wallet's key may not; once revoked the presented credential does not verify.
  expect(stdout).toMatch(
    /issue a credential: degree-[0-9a-f]+ into the holder's vault, signed by the issuer \(eddsa-jcs-2022/,
  );
  expect(stdout).toMatch(
    /verifier: check a presented credential \(no API key\): verified: true \(proof passed, validFrom passed, credentialStatus valid, issuerDid passed, issuerAllowed passed\)/,
  );
  expect(stdout).toMatch(
    /verifier: a presentation over its challenge \(holder signs with its DID key\), once: holder did:ledger:testnet:\S+ bound, credential verified: true; the same presentation again: INVALID_CHALLENGE_ERROR \(challenge_unknown\)/,
  );
  expect(stdout).toMatch(
    /holder: check a credential in its own vault by reference \(owner \+ vcId\): degree-[0-9a-f]+ verified: true \(proof passed, validFrom passed, credentialStatus valid, issuerDid passed, issuerAllowed passed\); another wallet's key: 403/,
  );
  expect(stdout).toMatch(
    /verifier: the revoked credential no longer verifies: course-[0-9a-f]+-1 presented: verified false, CREDENTIAL_REVOKED: the credential was revoked on \d{4}-/,
  );
  // The relayed writes on today's network: prepare returns ADDRESS_V2 entries, which the holder signs with SDK 17.
  expect(stdout).toMatch(/1\. connect: .*\(testnet, Protocol 28,/);
  const relayed = '\\(relayed: holder authorizes, relayer pays\\): .*holder signed 1 addressV2 entry';
  expect(stdout).toMatch(new RegExp(`deny the issuer ${relayed} \\(SDK 17 authorizeEntry\\)`));
  expect(stdout).toMatch(new RegExp(`revoke a credential ${relayed}`));
  expect(stdout).toMatch(/write into the revoked vault refused: 409 vault_revoked/);
  expect(stdout).toMatch(/6 credentials × 5 = 30 in issuance fees/);
  // The mainnet leg: its own passphrase and fee token, refused without a trustline (the API's code and the
  // chain's words), then issued and verified once the issuer holds USDC, which pays the 1 USDC fee.
  expect(stdout).toMatch(
    /mainnet: connect: .*\(mainnet, passphrase "Credential Vault Simulator Mainnet ; 2026".*fee token USDC:G/,
  );
  expect(stdout).toMatch(/mainnet: register issuer DID \(prepare → sign → submit\): did:ledger:mainnet:/);
  const noTrustline = 'refused without a USDC trustline: 400 trustline_missing: "[^"]*trustline entry is missing';
  expect(stdout).toMatch(new RegExp(`mainnet: issuance ${noTrustline} for account G[A-Z2-7]{55}`));
  expect(stdout).toMatch(/on a real network you would acquire USDC/);
  expect(stdout).toMatch(/mainnet: issue a credential: mainnet-degree-[0-9a-f]+ into the holder's mainnet vault/);
  expect(stdout).toMatch(/mainnet: verify the credential: mainnet-degree-[0-9a-f]+ is valid/);
  expect(stdout).toMatch(/mainnet: USDC fee paid: issuer 10 → 9 USDC \(1 credential × 1 USDC/);
  expect(stdout).toMatch(/demo passed in/);
}

describe('npm run demo', () => {
  it('walks through every step against in-process services and exits 0', async () => {
    const run = await runDemo(['--start'], 540_000);
    expectWholeWalkThrough(run);
    expect(run.stdout).toMatch(/^started in-process: simulator \S+ \(transactions applied at once\)/m);
  }, 600_000);

  // As on a real network: every write waits for a ledger to close (NOT_FOUND until then), friendbot answers once
  // its ledger closed, a second transaction of the same account meanwhile is TRY_AGAIN_LATER.
  it('walks through every step the same way when a ledger closes every 1000 ms', async () => {
    const run = await runDemo(['--start', '--ledger-close-ms', '1000'], 540_000);
    expectWholeWalkThrough(run);
    expect(run.stdout).toMatch(/^started in-process: simulator \S+ \(a ledger every 1000 ms\)/m);
  }, 600_000);

  it('exits 1 and names the failing step when a service cannot be reached', async () => {
    const { code, stdout, stderr } = await runDemo(
      [
        '--vault-url',
        'http://127.0.0.1:9',
        '--resolver-url',
        'http://127.0.0.1:9',
        '--simulator-url',
        'http://127.0.0.1:9',
      ],
      240_000,
    );
    expect(code).toBe(1);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/^1\. connect: FAILED: fetch failed/);
    expect(stderr).toMatch(/npm start/);
  }, 300_000);
});
