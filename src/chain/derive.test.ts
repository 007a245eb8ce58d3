import { describe, expect, it } from 'vitest';
import { Keypair, StrKey } from '@stellar/stellar-sdk';
import { contractIdFromAddress, deploySalt, deriveVaultAddress, parseUserSalt } from './derive.ts';
import { createChain } from './index.ts';

// Test vector of docs/chain-abi.md ("Vault address derivation").
const passphrase = 'Test SDF Network ; September 2015';
const owner = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 1)).publicKey();
const factoryId = StrKey.encodeContract(Buffer.alloc(32, 2));

describe('chain-abi vector inputs', () => {
  it('owner and factory', () => {
    expect(owner).toBe('GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR');
    expect(factoryId).toBe('CABAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAFNSZ');
  });
});

describe.each([
  { name: 'default salt', userSalt: undefined, want: 'CD4FWXJVWXKDA6QU36W7SMC7PVVM2F43RTJIXY7G4PSF3A2YH52YRHWZ' },
  {
    name: 'zero salt as hex',
    userSalt: '00'.repeat(32),
    want: 'CD4FWXJVWXKDA6QU36W7SMC7PVVM2F43RTJIXY7G4PSF3A2YH52YRHWZ',
  },
  {
    name: '0xab salt as hex',
    userSalt: 'ab'.repeat(32),
    want: 'CANONPF2ORKR6OEA5I7A5ZMQZZCNXLSWJDVXY2IKWHCNHLPCXSD4HTVG',
  },
  {
    name: '0xAB salt as upper hex',
    userSalt: 'AB'.repeat(32),
    want: 'CANONPF2ORKR6OEA5I7A5ZMQZZCNXLSWJDVXY2IKWHCNHLPCXSD4HTVG',
  },
  {
    name: '0xab salt as Buffer',
    userSalt: Buffer.alloc(32, 0xab),
    want: 'CANONPF2ORKR6OEA5I7A5ZMQZZCNXLSWJDVXY2IKWHCNHLPCXSD4HTVG',
  },
])('deriveVaultAddress: $name', ({ userSalt, want }) => {
  it('matches the vector', () => {
    expect(deriveVaultAddress({ networkPassphrase: passphrase, factoryId, owner, userSalt })).toBe(want);
  });
  it('equals contractIdFromAddress(factory, deploySalt)', () => {
    expect(contractIdFromAddress(passphrase, factoryId, deploySalt(owner, userSalt))).toBe(want);
  });
  it('is what a chain answers, every time (remembered per chain)', () => {
    const chain = chainOf(passphrase, factoryId);
    expect([chain.vaultAddress(owner, userSalt), chain.vaultAddress(owner, userSalt)]).toEqual([want, want]);
  });
});

function chainOf(networkPassphrase: string, factory: string, cacheEntries?: number) {
  return createChain({
    rpcUrl: 'http://127.0.0.1:9',
    networkPassphrase,
    network: 'testnet',
    simulationAccount: owner,
    allowHttp: true,
    factoryId: factory,
    registryId: factory,
    ...(cacheEntries ? { cacheEntries } : {}),
  });
}

describe('chain.vaultAddress remembers per chain', () => {
  it('another passphrase or factory is another chain, with its own addresses', () => {
    const other = StrKey.encodeContract(Buffer.alloc(32, 3));
    expect(chainOf(passphrase, factoryId).vaultAddress(owner)).toBe(
      deriveVaultAddress({ networkPassphrase: passphrase, factoryId, owner }),
    );
    expect(chainOf('other', factoryId).vaultAddress(owner)).toBe(
      deriveVaultAddress({ networkPassphrase: 'other', factoryId, owner }),
    );
    expect(chainOf(passphrase, other).vaultAddress(owner)).toBe(
      deriveVaultAddress({ networkPassphrase: passphrase, factoryId: other, owner }),
    );
  });
  it('a bad owner or salt throws every time (nothing remembered)', () => {
    const chain = chainOf(passphrase, factoryId);
    for (let i = 0; i < 2; i++) {
      expect(() => chain.vaultAddress('GNOPE')).toThrow();
      expect(() => chain.vaultAddress(owner, 'zz'.repeat(32))).toThrow(TypeError);
      expect(() => chain.vaultAddress(owner, Buffer.alloc(31))).toThrow(TypeError);
    }
  });
  it('stays right past its bound', () => {
    const chain = chainOf(passphrase, factoryId, 8);
    const salts = Array.from({ length: 8 + 2 }, (_, i) => i.toString(16).padStart(64, '0'));
    const first = chain.vaultAddress(owner, salts[0]);
    for (const s of salts) chain.vaultAddress(owner, s);
    expect(chain.vaultAddress(owner, salts[0])).toBe(first);
    expect(first).toBe(deriveVaultAddress({ networkPassphrase: passphrase, factoryId, owner, userSalt: salts[0] }));
  });
});

describe('derivation depends on every input', () => {
  const base = deriveVaultAddress({ networkPassphrase: passphrase, factoryId, owner });
  it.each([
    { name: 'passphrase', opts: { networkPassphrase: 'other', factoryId, owner } },
    {
      name: 'factory',
      opts: { networkPassphrase: passphrase, factoryId: StrKey.encodeContract(Buffer.alloc(32, 3)), owner },
    },
    {
      name: 'owner',
      opts: {
        networkPassphrase: passphrase,
        factoryId,
        owner: Keypair.fromRawEd25519Seed(Buffer.alloc(32, 4)).publicKey(),
      },
    },
  ])('$name', ({ opts }) => {
    expect(deriveVaultAddress(opts)).not.toBe(base);
  });
});

describe('deploySalt', () => {
  it('is keccak-256 (not SHA3-256) of 32 + 44 bytes', () => {
    expect(deploySalt(owner)).toHaveLength(32);
    // The owner's ScVal XDR: 00000012 00000000 00000000 + ed25519 key.
    expect(deploySalt(owner).equals(deploySalt(owner, Buffer.alloc(32)))).toBe(true);
  });
});

describe.each([
  { given: 'ab'.repeat(31), why: 'short hex' },
  { given: 'zz'.repeat(32), why: 'not hex' },
  { given: Buffer.alloc(31), why: 'short buffer' },
])('parseUserSalt rejects $why', ({ given }) => {
  it('throws', () => expect(() => parseUserSalt(given)).toThrow(TypeError));
});
