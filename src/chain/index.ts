// src/chain: the only code that speaks Soroban (docs/architecture.md). Handlers use these typed functions.
import { createChainCaches, remembered, type ChainCaches } from './caches.ts';
import { createChainClient } from './client.ts';
import { deriveVaultAddress } from './derive.ts';
import { createFactoryApi, type FactoryApi } from './factory.ts';
import { createRegistryApi, type RegistryApi } from './registry.ts';
import { createTokenApi, type TokenApi } from './token.ts';
import { createVaultApi, type VaultApi } from './vault.ts';
import type { ChainClient, ChainClientOptions, UserSalt } from './types.ts';

export interface ChainConfig extends Omit<ChainClientOptions, 'contracts'> {
  /** C… of this network's factory. */
  factoryId: string;
  /** C… of this network's DID registry. */
  registryId: string;
  /** C… of the fee token, so its failures use the token error table. */
  feeTokenId?: string;
  /**
   * Entries of each of the chain's caches (CV_CHAIN_CACHE_ENTRIES): the read cache's, and those of `caches` unless
   * they are given.
   */
  cacheEntries?: number;
}

export interface Chain {
  client: ChainClient;
  vault: VaultApi;
  factory: FactoryApi;
  registry: RegistryApi;
  token: TokenApi;
  /** The C… address of the owner's vault at userSalt (default: the canonical vault). Never stored. */
  vaultAddress(owner: string, userSalt?: UserSalt): string;
}

/** What the DID resolver uses: the registry and the bare client, no factory. */
export type RegistryChain = Pick<Chain, 'client' | 'registry'>;

/** A chain without a factory, for the resolver alone: it needs no CV_<NET>_FACTORY_ID. */
export function createRegistryChain(config: Omit<ChainConfig, 'factoryId'>): RegistryChain {
  const { registryId, feeTokenId, cacheEntries, ...clientOptions } = config;
  const caches = clientOptions.caches ?? createChainCaches(cacheEntries);
  const client = createChainClient({
    ...(cacheEntries !== undefined ? { readCacheEntries: cacheEntries } : {}),
    ...clientOptions,
    caches,
    contracts: { registryId, ...(feeTokenId ? { tokenIds: [feeTokenId] } : {}) },
  });
  return { client, registry: createRegistryApi(client, { registryId, recordKeys: caches.recordKeys }) };
}

export function createChain(config: ChainConfig): Chain {
  const { factoryId, registryId, feeTokenId, cacheEntries, ...clientOptions } = config;
  const caches = clientOptions.caches ?? createChainCaches(cacheEntries);
  const client = createChainClient({
    ...(cacheEntries !== undefined ? { readCacheEntries: cacheEntries } : {}),
    ...clientOptions,
    caches,
    contracts: { factoryId, registryId, ...(feeTokenId ? { tokenIds: [feeTokenId] } : {}) },
  });
  const vaultAddress = rememberedAddress(caches.vaultAddresses, (owner: string, userSalt?: UserSalt) =>
    deriveVaultAddress({
      networkPassphrase: config.networkPassphrase,
      factoryId,
      owner,
      ...(userSalt !== undefined ? { userSalt } : {}),
    }),
  );
  return {
    client,
    vault: createVaultApi(client, { owners: caches.vaultOwners }),
    factory: createFactoryApi(client, { factoryId, vaults: caches.factoryVaults }),
    registry: createRegistryApi(client, { registryId, recordKeys: caches.recordKeys }),
    token: createTokenApi(client),
    vaultAddress,
  };
}

/**
 * `derive(owner, userSalt)` remembered in the chain's cache; a salt given as hex and as bytes is one entry.
 * Failures (a bad owner or salt) are not remembered: they throw every time.
 */
function rememberedAddress(
  cache: ChainCaches['vaultAddresses'],
  derive: (owner: string, userSalt?: UserSalt) => string,
): (owner: string, userSalt?: UserSalt) => string {
  return (owner, userSalt) => {
    const salt =
      userSalt === undefined
        ? ''
        : typeof userSalt === 'string'
          ? userSalt.toLowerCase()
          : Buffer.from(userSalt).toString('hex');
    return remembered(cache, `${owner} ${salt}`, () => derive(owner, userSalt));
  };
}

export { createChainClient } from './client.ts';
export { ChainError, mapChainFailure, REGISTRY_ERRORS } from './errors.ts';
export * from './inspect.ts';
export type * from './types.ts';
export type { VaultApi } from './vault.ts';
export type { FactoryApi } from './factory.ts';
export type { RegistryApi } from './registry.ts';
export type { TokenApi } from './token.ts';
export { accountExists } from './accounts.ts';
export { protocolRefusal } from './protocol.ts';
