// The pure steps of startServices: which networks a mode serves, the banner.
import { describe, expect, it } from 'vitest';
import { loadConfig } from './config/index.ts';
import { describeServices, servedNetworks } from './services.ts';
import type { RegistryChain } from './chain/index.ts';

const { config } = loadConfig(['--resolver-networks=mainnet', '--network=mainnet'], {});

describe('servedNetworks', () => {
  it.each([
    { mode: 'serve', want: ['mainnet'] },
    { mode: 'resolver', want: ['mainnet'] },
    { mode: 'start', want: ['testnet', 'mainnet'] },
  ] as const)('$mode → $want', ({ mode, want }) => expect(servedNetworks(config, mode)).toEqual(want));
});

describe('describeServices', () => {
  it('names each running part, and the chain protocol of each vault API', () => {
    const chain = { client: { protocolVersion: 28 } } as unknown as RegistryChain;
    const lines = describeServices(config, {
      vault: { testnet: { url: 'http://127.0.0.1:3000', profile: {} as never } },
      chains: { testnet: chain, mainnet: chain },
      resolverUrl: 'http://127.0.0.1:3001',
      simulatorUrl: undefined,
    });
    expect(lines[0]).toMatch(/^runtime {11}Node \d+/);
    expect(lines).toContain(
      'vault API testnet http://127.0.0.1:3000  (docs: http://127.0.0.1:3000/docs; chain Protocol 28)',
    );
    expect(lines).toContain('DID resolver      http://127.0.0.1:3001  (docs: http://127.0.0.1:3001/docs)');
    expect(lines.some((l) => l.startsWith('chain simulator'))).toBe(false);
  });
});
