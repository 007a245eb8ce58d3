// The profiles of the served networks from the settings (the embedded simulator's are in src/services.test.ts).
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/index.ts';
import { configuredProfiles } from './profiles.ts';

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
