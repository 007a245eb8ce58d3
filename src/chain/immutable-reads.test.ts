// Answers the chain never changes are read once per chain (caches.ts factoryVaults, vaultOwners): the factory's
// `is_vault` true for a vault it deployed, and a vault's `vault_owner`. A false `is_vault` is asked again every time.
// Against the simulator over JSON-RPC; its RPC handler is watched (and still answers) to count what reaches it.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Address, Keypair, xdr } from '@stellar/stellar-sdk';
import { createChainCaches } from './caches.ts';
import { createChain, type Chain } from './index.ts';
import { startSimulator, type RunningSimulator, type SimNetwork } from '../../simulator/index.ts';
import { funded } from '../../simulator/core/testing.ts';

let sim: RunningSimulator;
let net: SimNetwork;
let owner: Keypair;
let vault: string;

function chainOf(caches = createChainCaches(10)): Chain {
  const info = net.info;
  return createChain({
    rpcUrl: info.rpcUrl!,
    networkPassphrase: info.passphrase,
    network: 'testnet',
    simulationAccount: info.admin.publicKey,
    allowHttp: true,
    readCacheMs: 0,
    factoryId: info.factoryId,
    registryId: info.registryId,
    caches,
  });
}

beforeAll(async () => {
  sim = await startSimulator({ port: 0 });
  net = sim.sim.network('testnet');
  owner = funded(net);
  const deployed = net.invoke({
    source: owner,
    contractId: net.info.factoryId,
    fn: 'deploy',
    args: [
      new Address(owner.publicKey()).toScVal(),
      xdr.ScVal.scvString(`did:ledger:testnet:${'a'.repeat(26)}`),
      xdr.ScVal.scvBytes(Buffer.alloc(32)),
    ],
  });
  if (deployed.status !== 'SUCCESS') throw new Error(`deploy failed: ${deployed.status}`);
  vault = Address.fromScVal(deployed.returnValue).toString();
});

afterAll(async () => {
  vi.restoreAllMocks();
  await sim?.close();
});

describe('immutable chain answers', () => {
  it('is_vault true and vault_owner are simulated once, then answered from memory', async () => {
    const caches = createChainCaches(10);
    const chain = chainOf(caches);
    const rpc = vi.spyOn(net, 'rpc');
    const simulations = () => rpc.mock.calls.filter(([m]) => m === 'simulateTransaction').length;
    expect(await chain.factory.isVault(vault)).toBe(true);
    expect(await chain.factory.isVault(vault)).toBe(true);
    expect(simulations()).toBe(1);
    expect(await chain.vault.vaultOwner({ vault })).toBe(owner.publicKey());
    expect(await chain.vault.vaultOwner({ vault })).toBe(owner.publicKey());
    expect(simulations()).toBe(2);
    expect([caches.factoryVaults.size, caches.vaultOwners.size]).toEqual([1, 1]);
    rpc.mockRestore();
  });

  it('is_vault false is asked every time (the contract may be deployed by the factory later)', async () => {
    const chain = chainOf();
    const rpc = vi.spyOn(net, 'rpc');
    const notAVault = net.info.registryId;
    expect(await chain.factory.isVault(notAVault)).toBe(false);
    expect(await chain.factory.isVault(notAVault)).toBe(false);
    expect(rpc.mock.calls.filter(([m]) => m === 'simulateTransaction').length).toBe(2);
    rpc.mockRestore();
  });

  it('a chain with its own caches asks the chain itself and gets the same answers', async () => {
    const a = chainOf();
    const b = chainOf();
    expect(await a.factory.isVault(vault)).toBe(true);
    const rpc = vi.spyOn(net, 'rpc');
    expect(await b.factory.isVault(vault)).toBe(true);
    expect(await b.vault.vaultOwner({ vault })).toBe(await a.vault.vaultOwner({ vault }));
    expect(rpc.mock.calls.filter(([m]) => m === 'simulateTransaction').length).toBeGreaterThanOrEqual(2);
    rpc.mockRestore();
  });
});
