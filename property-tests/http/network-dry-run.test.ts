// scripts/test-network.ts, run against the RPC simulator started on its own as if it were a real network
// (its RPC URL, passphrase and contract ids in CV_TESTNET_*, friendbot-funded secrets in CV_TEST_SECRETS):
// the path `npm run test:network` takes on a real network — services over an external RPC, new wallets
// paid by createAccount, the conformance flow, the HTTP model — works before anyone points it at one. And
// without the settings it exits 2, never 0.
import { Keypair } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../simulator/index.ts';
import { runNetworkTests } from '../../scripts/test-network.ts';

describe('test:network', () => {
  let sim: RunningSimulator;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0 });
  }, 60_000);
  afterAll(async () => {
    await sim?.close();
  });

  it('without a network: says what it needs and exits 2 (not a pass)', async () => {
    const err: string[] = [];
    const code = await runNetworkTests({}, { out: () => undefined, err: (l) => err.push(l) });
    expect(code).toBe(2);
    expect(err.join('\n')).toMatch(/does NOT count as a pass/);
    for (const name of [
      'CV_TESTNET_RPC_URL',
      'CV_TESTNET_PASSPHRASE',
      'CV_TESTNET_FACTORY_ID',
      'CV_TESTNET_REGISTRY_ID',
      'CV_TESTNET_SIMULATION_ACCOUNT',
      'CV_TEST_SECRETS',
    ]) {
      expect(err.join('\n')).toContain(name);
    }
  });

  /** The settings of the simulator's network as a real network's would be given. */
  function settings(network: 'testnet' | 'mainnet'): NodeJS.ProcessEnv {
    const n = sim.networks[network];
    const N = network.toUpperCase();
    return {
      [`CV_${N}_RPC_URL`]: n.rpcUrl,
      [`CV_${N}_PASSPHRASE`]: n.passphrase,
      [`CV_${N}_FACTORY_ID`]: n.factoryId,
      [`CV_${N}_REGISTRY_ID`]: n.registryId,
      [`CV_${N}_SIMULATION_ACCOUNT`]: n.admin.publicKey,
      [`CV_${N}_VAULT_WASM_HASH`]: n.vaultWasmHash,
    };
  }

  it.each([
    { name: 'testnet only (vault API served alone, resolver for testnet)', mainnet: false, runs: '2' },
    { name: 'both networks (credential-vault start)', mainnet: true, runs: '1' },
  ])(
    'dry run, $name: the simulator as an external network passes the conformance flow and the model',
    async ({ mainnet, runs }) => {
      const funders = [Keypair.random(), Keypair.random()];
      for (const f of funders)
        expect((await fetch(`${sim.networks.testnet.friendbotUrl}?addr=${f.publicKey()}`)).ok).toBe(true);
      const out: string[] = [];
      const err: string[] = [];
      const code = await runNetworkTests(
        {
          ...settings('testnet'),
          ...(mainnet ? settings('mainnet') : {}),
          CV_TEST_SECRETS: funders.map((f) => f.secret()).join(','),
          CV_NETWORK_RUNS: runs,
          CV_LOG_LEVEL: 'silent',
        },
        { out: (l) => out.push(l), err: (l) => err.push(l) },
      );
      console.log(out.join('\n'));
      expect(err.join('\n')).toBe('');
      expect(code).toBe(0);
    },
    240_000,
  );

  // GET /config reports the vault template hash (^[0-9a-f]{64}$), so serving the vault API over an external
  // RPC requires CV_TESTNET_VAULT_WASM_HASH: without it the services refuse to start, saying so.
  it('services over an external RPC refuse to start without the vault template hash', async () => {
    const t = sim.networks.testnet;
    const { mkdtemp, rm } = await import('node:fs/promises');
    const { tmpdir } = await import('node:os');
    const path = await import('node:path');
    const { loadConfig } = await import('../../src/config/index.ts');
    const { startServices } = await import('../../src/services.ts');
    const dataDir = await mkdtemp(path.join(tmpdir(), 'cv-config-'));
    const { config } = loadConfig(
      ['--simulator', 'false', '--network', 'testnet', '--port', '0', '--data-dir', dataDir, '--log-level', 'silent'],
      {
        CV_TESTNET_RPC_URL: t.rpcUrl,
        CV_TESTNET_PASSPHRASE: t.passphrase,
        CV_TESTNET_FACTORY_ID: t.factoryId,
        CV_TESTNET_REGISTRY_ID: t.registryId,
        CV_TESTNET_SIMULATION_ACCOUNT: t.admin.publicKey,
      },
    );
    try {
      await expect(startServices(config, { mode: 'serve', validateResponses: true })).rejects.toThrow(
        /CV_TESTNET_VAULT_WASM_HASH/,
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
