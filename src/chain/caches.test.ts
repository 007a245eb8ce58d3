// The chain's caches are instances its chain creates (or is given), sized by CV_CHAIN_CACHE_ENTRIES: two chains in
// one process share nothing, the bound holds, and a cached answer is the one computed without a cache.
import { describe, expect, it } from 'vitest';
import { Account, Contract, Keypair, Networks, StrKey, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { createChainCaches, remembered } from './caches.ts';
import { createChain, createChainClient } from './index.ts';
import { inspectTransaction } from './inspect.ts';
import { recordLedgerKey } from './registry.ts';

const PASS = Networks.TESTNET;
const owner = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 3));
const factoryId = StrKey.encodeContract(Buffer.alloc(32, 2));
const registryId = StrKey.encodeContract(Buffer.alloc(32, 9));
const chainOptions = {
  rpcUrl: 'http://127.0.0.1:9',
  networkPassphrase: PASS,
  network: 'testnet' as const,
  simulationAccount: owner.publicKey(),
  allowHttp: true,
  factoryId,
  registryId,
};

function signedCall(kp: Keypair): string {
  const tx = new TransactionBuilder(new Account(kp.publicKey(), '1'), { fee: '100', networkPassphrase: PASS })
    .addOperation(
      new Contract(registryId).call('deactivate', xdr.ScVal.scvBytes(Buffer.alloc(16)), xdr.ScVal.scvU32(1)),
    )
    .setTimeout(300)
    .build();
  tx.sign(kp);
  return tx.toXdr();
}

describe('chain caches', () => {
  it('refuses a size that is not a positive integer', () => {
    for (const n of [0, -1, 1.5, Number.NaN]) expect(() => createChainCaches(n)).toThrow(RangeError);
  });

  it('keeps at most the configured entries, least recently used going first', () => {
    const caches = createChainCaches(2);
    const chain = createChain({ ...chainOptions, caches });
    const salts = ['01', '02', '03'].map((b) => b.repeat(32));
    const first = chain.vaultAddress(owner.publicKey(), salts[0]);
    chain.vaultAddress(owner.publicKey(), salts[1]);
    chain.vaultAddress(owner.publicKey(), salts[0]); // used again: now the most recent
    chain.vaultAddress(owner.publicKey(), salts[2]);
    expect(caches.vaultAddresses.size).toBe(2);
    expect([...caches.vaultAddresses.values()]).toContain(first);
    expect(caches.vaultAddresses.has(`${owner.publicKey()} ${salts[1]}`)).toBe(false);
  });

  it('two chains in one process share none of them', () => {
    const a = createChainCaches(10);
    const b = createChainCaches(10);
    createChain({ ...chainOptions, caches: a }).vaultAddress(owner.publicKey());
    createChain({ ...chainOptions, caches: b });
    expect([a.vaultAddresses.size, b.vaultAddresses.size]).toEqual([1, 0]);
    const client = createChainClient({ ...chainOptions, caches: b });
    client.inspect(signedCall(owner));
    expect([a.signers.size, b.signers.size]).toEqual([0, 1]);
  });

  it('sizes each network from cacheEntries when no caches are given', () => {
    // The vault addresses of a chain of 1 entry: the second pair evicts the first, answers stay right.
    const chain = createChain({ ...chainOptions, cacheEntries: 1 });
    const want = chain.vaultAddress(owner.publicKey());
    expect(chain.vaultAddress(owner.publicKey(), '02'.repeat(32))).not.toBe(want);
    expect(chain.vaultAddress(owner.publicKey())).toBe(want);
  });

  it('a cached answer is the one computed without the cache', () => {
    const caches = createChainCaches(10);
    const x = signedCall(owner);
    expect(inspectTransaction(x, PASS, caches.signers)).toEqual(inspectTransaction(x, PASS));
    expect(inspectTransaction(x, PASS, caches.signers).signedBy).toEqual([owner.publicKey()]);
    const didId = Buffer.alloc(16, 5);
    const cached = recordLedgerKey(registryId, didId, caches.recordKeys);
    expect(recordLedgerKey(registryId, didId, caches.recordKeys)).toBe(cached);
    expect(cached.toXdr('base64')).toBe(recordLedgerKey(registryId, didId).toXdr('base64'));
  });

  it('remembered: what make throws is not kept', () => {
    const caches = createChainCaches(10);
    let calls = 0;
    const fail = () => {
      calls++;
      throw new TypeError('bad');
    };
    expect(() => remembered(caches.vaultAddresses, 'k', fail)).toThrow(TypeError);
    expect(() => remembered(caches.vaultAddresses, 'k', fail)).toThrow(TypeError);
    expect([calls, caches.vaultAddresses.size]).toEqual([2, 0]);
  });
});
