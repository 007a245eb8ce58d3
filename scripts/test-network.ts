// `npm run test:network`: the HTTP-level model (property-tests/http) and the demo-like conformance flow
// against a REAL network. It starts the vault API and the resolver with src/services.ts over the network's
// RPC (`--simulator false`, response validation on), pays for new wallets from the funded test secrets,
// and reports. Without the network's settings it says what it needs and exits 2: that is not a pass.
//
//   CV_TESTNET_RPC_URL=… CV_TESTNET_PASSPHRASE=… CV_TESTNET_FACTORY_ID=C… CV_TESTNET_REGISTRY_ID=C…
//   CV_TESTNET_SIMULATION_ACCOUNT=G… CV_TEST_SECRETS=S…,S… npm run test:network
//
// Also required by the services: CV_TESTNET_VAULT_WASM_HASH (the vault template's hash, reported by GET /config).
// Optional: CV_NETWORK_RUNS (model sequences, default 3), FC_SEED (default the HTTP
// properties' seed) and FC_PATH (replay one failing sequence),
// CV_TEST_STARTING_BALANCE (native units per new wallet, default 100), CV_LOG_LEVEL (default error), and
// the CV_MAINNET_* profile: with it the services start as `credential-vault start` does (both networks);
// without it the vault API is served for testnet alone and the resolver is wired for testnet alone,
// because `start` requires both profiles.
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Keypair } from '@stellar/stellar-sdk';
import { createChain, type Chain } from '../src/chain/index.ts';
import { ConfigError, loadConfig, type Config } from '../src/config/index.ts';
import { startServices, type RunningServices } from '../src/services.ts';
import { createHttpServer } from '../src/http/server.ts';
import { runConformanceFlow } from '../property-tests/http/conformance-flow.ts';
import { networkModelEnv } from '../property-tests/http/model-env.ts';
import { HTTP_SEED } from '../property-tests/http/params.ts';
import { runVaultModel } from '../property-tests/http/run-model.ts';

const REQUIRED: [string, string][] = [
  ['CV_TESTNET_RPC_URL', 'the Soroban RPC URL of the network'],
  ['CV_TESTNET_PASSPHRASE', 'its network passphrase (checked against the RPC at start)'],
  ['CV_TESTNET_FACTORY_ID', 'the vc-vault-factory contract id deployed there (C…)'],
  ['CV_TESTNET_REGISTRY_ID', 'the DID registry contract id deployed there (C…)'],
  ['CV_TESTNET_VAULT_WASM_HASH', 'the hash of the vault template the factory deploys (64 hex)'],
  ['CV_TESTNET_SIMULATION_ACCOUNT', 'an existing account (G…) used as the source of read-only simulations'],
  [
    'CV_TEST_SECRETS',
    'comma-separated secret seeds (S…) of funded accounts that pay for the test wallets and their fees',
  ],
];
const MAINNET = [
  'CV_MAINNET_RPC_URL',
  'CV_MAINNET_PASSPHRASE',
  'CV_MAINNET_FACTORY_ID',
  'CV_MAINNET_REGISTRY_ID',
  'CV_MAINNET_VAULT_WASM_HASH',
  'CV_MAINNET_SIMULATION_ACCOUNT',
];
/** Sequences are short on a real network: every write waits for a ledger. */
const MAX_COMMANDS = 10;

export interface Output {
  out: (line: string) => void;
  err: (line: string) => void;
}

function needs(missing: string[], problems: string[], o: Output): number {
  o.err('test:network needs a real network and funded test accounts; this run does NOT count as a pass.');
  if (missing.length) {
    o.err('missing:');
    for (const [name, what] of REQUIRED.filter(([n]) => missing.includes(n))) o.err(`  ${name.padEnd(31)} ${what}`);
  }
  for (const p of problems) o.err(`  ${p}`);
  o.err(
    'optional: CV_NETWORK_RUNS (default 3), FC_SEED, CV_TEST_STARTING_BALANCE (default 100), CV_LOG_LEVEL, CV_MAINNET_* (serve both networks as `start` does)',
  );
  return 2;
}

/** The resolver for one network, wired as src/services.ts wires it (used when only testnet is configured). */
async function startTestnetResolver(config: Config, chain: Chain): Promise<{ url: string; close(): Promise<void> }> {
  const [{ createResolverApp }, { createMemoryCache, createMemoryRateLimiter }] = await Promise.all([
    import('../src/resolver/app.ts'),
    import('../src/stores/memory.ts'),
  ]);
  const p = config.networks.testnet;
  const app = await createResolverApp({
    networks: { testnet: { chain, networkPassphrase: p.passphrase!, registryId: p.registryId! } },
    cache: createMemoryCache({}),
    rateLimiter: createMemoryRateLimiter({}),
    limits: { rateLimit: 1_000_000, rateWindowMs: config.resolverRateWindowMs, cacheTtlMs: config.resolverCacheTtlMs },
    now: Date.now,
    validateResponses: true,
  });
  const server = createHttpServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export async function runNetworkTests(
  env: NodeJS.ProcessEnv,
  o: Output = { out: console.log, err: console.error },
): Promise<number> {
  const missing = REQUIRED.map(([n]) => n).filter((n) => !env[n]);
  const problems: string[] = [];
  let funders: Keypair[] = [];
  if (env['CV_TEST_SECRETS']) {
    try {
      funders = env['CV_TEST_SECRETS'].split(',').map((s) => Keypair.fromSecret(s.trim()));
    } catch {
      problems.push('CV_TEST_SECRETS: every entry must be a secret seed (S…)');
    }
  }
  const runs = Number(env['CV_NETWORK_RUNS'] ?? 3);
  const seed = Number(env['FC_SEED'] ?? HTTP_SEED);
  const startingBalance = env['CV_TEST_STARTING_BALANCE'] ?? '100';
  if (!Number.isInteger(runs) || runs < 1) problems.push('CV_NETWORK_RUNS must be a positive integer');
  if (!Number.isInteger(seed)) problems.push('FC_SEED must be an integer');
  if (!/^\d+(\.\d{1,7})?$/.test(startingBalance))
    problems.push('CV_TEST_STARTING_BALANCE must be an amount of native units');
  if (missing.length || problems.length) return needs(missing, problems, o);

  const dataDir = await mkdtemp(path.join(tmpdir(), 'cv-test-network-'));
  const closers: (() => Promise<void>)[] = [async () => rm(dataDir, { recursive: true, force: true })];
  const unlimited = ['standard', 'early', 'admin'].flatMap((role) => [
    `--rate-${role}-read`,
    '1000000',
    `--rate-${role}-write`,
    '1000000',
  ]);
  const flags = [
    '--simulator',
    'false',
    '--data-dir',
    dataDir,
    '--log-level',
    env['CV_LOG_LEVEL'] ?? 'error',
    '--testnet-port',
    '0',
    '--mainnet-port',
    '0',
    '--resolver-port',
    '0',
    '--port',
    '0',
    '--network',
    'testnet',
    '--resolver-rate-limit',
    '1000000',
    ...unlimited,
  ];
  const started = Date.now();
  try {
    let config: Config;
    try {
      config = loadConfig(flags, env).config;
    } catch (e) {
      if (e instanceof ConfigError) return needs([], e.problems, o);
      throw e;
    }
    const p = config.networks.testnet;
    const chain = createChain({
      rpcUrl: p.rpcUrl!,
      networkPassphrase: p.passphrase!,
      network: 'testnet',
      simulationAccount: p.simulationAccount!,
      factoryId: p.factoryId!,
      registryId: p.registryId!,
      ...(p.feeTokenId ? { feeTokenId: p.feeTokenId } : {}),
      allowHttp: p.rpcUrl!.startsWith('http:'),
      timeouts: { rpcMs: config.rpcTimeoutMs, submitMs: config.submitTimeoutMs, pollIntervalMs: config.pollIntervalMs },
      rpcTransport: config.rpcTransport,
    });
    const both = MAINNET.every((n) => env[n]);
    let services: RunningServices;
    let resolverUrl: string;
    if (both) {
      services = await startServices(config, { mode: 'start', validateResponses: true });
      closers.push(() => services.close());
      resolverUrl = services.resolverUrl!;
    } else {
      services = await startServices(config, { mode: 'serve', validateResponses: true });
      closers.push(() => services.close());
      const resolver = await startTestnetResolver(config, chain);
      closers.push(() => resolver.close());
      resolverUrl = resolver.url;
    }
    const vaultUrl = services.vault.testnet!.url;
    o.out(`test:network against ${p.rpcUrl} ("${p.passphrase}"), factory ${p.factoryId}, registry ${p.registryId}`);
    o.out(
      `  services (${both ? 'start: both networks' : 'testnet only'}, response validation on): vault API ${vaultUrl}, resolver ${resolverUrl}`,
    );

    o.out('conformance flow:');
    await runConformanceFlow({
      vaultUrl,
      resolverUrl,
      rpcUrl: p.rpcUrl!,
      passphrase: p.passphrase!,
      funder: funders[0]!,
      startingBalance,
      log: o.out,
    });

    o.out(
      `HTTP model: ${runs} sequences of at most ${MAX_COMMANDS} commands, seed ${seed} (replay a failure: FC_SEED=${seed} FC_PATH=<path it prints> npm run test:network)`,
    );
    const modelEnv = networkModelEnv({
      vaultUrl,
      network: 'testnet',
      passphrase: p.passphrase!,
      rpcUrl: p.rpcUrl!,
      chain,
      keys: services.stores.keys,
      funders,
      startingBalance,
      log: o.out,
    });
    // No shrinking on a real network (every step waits for ledgers): the failure is reported as found.
    const fcPath = env['FC_PATH'];
    const report = await runVaultModel(
      modelEnv,
      { seed, numRuns: runs, endOnFailure: true, ...(fcPath ? { path: fcPath } : {}) },
      {
        maxCommands: MAX_COMMANDS,
        onRun: (ms) => o.out(`  sequence passed in ${(ms / 1000).toFixed(1)} s`),
      },
    );
    o.out(
      `test:network passed: conformance flow and ${report.runs} model sequences (${report.requests} requests) in ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    return 0;
  } catch (e) {
    const cause =
      e instanceof Error && e.cause !== undefined
        ? `\ncaused by: ${e.cause instanceof Error ? (e.cause.stack ?? e.cause.message) : String(e.cause)}`
        : '';
    o.err(`test:network FAILED: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}${cause}`);
    return 1;
  } finally {
    for (const c of closers.reverse()) await c().catch(() => undefined);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  process.exitCode = await runNetworkTests(process.env);
}
