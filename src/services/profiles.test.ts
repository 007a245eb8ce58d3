// The profiles of the served networks: from the settings, or from a simulator's network.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/index.ts';
import { configuredProfiles, simulatorProfile } from './profiles.ts';

const { config } = loadConfig(['--resolver-networks=mainnet', '--network=mainnet'], {});

describe('configuredProfiles', () => {
  it('takes each served network from the settings, leaving out what is not set', () => {
    const c = structuredClone(config);
    c.networks.testnet = {
      network: 'testnet',
      rpcUrl: 'https://rpc.test/',
      passphrase: 'Test SDF Network ; September 2015',
      registryId: 'CREG',
      simulationAccount: 'GSIM',
    };
    expect(configuredProfiles(c, ['testnet'])).toEqual({
      testnet: {
        network: 'testnet',
        rpcUrl: 'https://rpc.test/',
        networkPassphrase: 'Test SDF Network ; September 2015',
        registryId: 'CREG',
        simulationAccount: 'GSIM',
      },
    });
  });
});

describe('simulatorProfile', () => {
  it("takes a simulator network's contracts, and its factory admin as the account simulations run from", () => {
    const info = {
      network: 'testnet' as const,
      passphrase: 'Test SDF Network ; September 2015',
      rpcUrl: 'http://127.0.0.1:8000/rpc/testnet',
      factoryId: 'CFACTORY',
      registryId: 'CREG',
      vaultWasmHash: 'ab'.repeat(32),
      feeTokenId: 'CFEE',
      admin: { publicKey: 'GADMIN' },
    };
    expect(simulatorProfile(info)).toEqual({
      network: 'testnet',
      rpcUrl: 'http://127.0.0.1:8000/rpc/testnet',
      networkPassphrase: 'Test SDF Network ; September 2015',
      factoryId: 'CFACTORY',
      vaultWasmHash: 'ab'.repeat(32),
      registryId: 'CREG',
      feeTokenId: 'CFEE',
      simulationAccount: 'GADMIN',
    });
  });
});
