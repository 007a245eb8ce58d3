// src/chain: the only code that speaks Soroban (docs/architecture.md). Handlers use these typed functions.
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
  const { registryId, feeTokenId, ...clientOptions } = config;
  const client = createChainClient({
    ...clientOptions,
    contracts: { registryId, ...(feeTokenId ? { tokenIds: [feeTokenId] } : {}) },
  });
  return { client, registry: createRegistryApi(client, { registryId }) };
}

export function createChain(config: ChainConfig): Chain {
  const { factoryId, registryId, feeTokenId, ...clientOptions } = config;
  const client = createChainClient({
    ...clientOptions,
    contracts: { factoryId, registryId, ...(feeTokenId ? { tokenIds: [feeTokenId] } : {}) },
  });
  const vaultAddress = memoize(VAULT_ADDRESS_CACHE_SIZE, (owner: string, userSalt?: UserSalt) =>
    deriveVaultAddress({ networkPassphrase: config.networkPassphrase, factoryId, owner, ...(userSalt !== undefined ? { userSalt } : {}) }),
  );
  return {
    client,
    vault: createVaultApi(client),
    factory: createFactoryApi(client, { factoryId }),
    registry: createRegistryApi(client, { registryId }),
    token: createTokenApi(client),
    vaultAddress,
  };
}

/** Vault addresses remembered per chain (the derivation hashes twice and re-validates the StrKeys). */
export const VAULT_ADDRESS_CACHE_SIZE = 10_000;

/**
 * `derive(owner, userSalt)` remembered for the last `size` (owner, salt) pairs; a salt given as hex and as
 * bytes is one entry. Failures (a bad owner or salt) are not remembered: they throw every time.
 */
function memoize(size: number, derive: (owner: string, userSalt?: UserSalt) => string): (owner: string, userSalt?: UserSalt) => string {
  const known = new Map<string, string>();
  return (owner, userSalt) => {
    const salt = userSalt === undefined ? '' : typeof userSalt === 'string' ? userSalt.toLowerCase() : Buffer.from(userSalt).toString('hex');
    const key = `${owner} ${salt}`;
    let address = known.get(key);
    if (address === undefined) {
      address = derive(owner, userSalt);
      if (known.size >= size) known.delete(known.keys().next().value!);
      known.set(key, address);
    }
    return address;
  };
}

export { createChainClient, DEFAULT_TIMEOUTS } from './client.ts';
export { ChainError, mapChainFailure, VAULT_ERRORS, REGISTRY_ERRORS, HOST_FAILURES, type ContractKind } from './errors.ts';
export * from './inspect.ts';
export type * from './types.ts';
export type { VaultApi } from './vault.ts';
export type { FactoryApi } from './factory.ts';
export type { RegistryApi, RegistryEntry, DidRecord, DidRecordInput } from './registry.ts';
export type { TokenApi } from './token.ts';
export { DEFAULT_USER_SALT, parseUserSalt } from './derive.ts';
export { eventLedgerCloseTime, type LedgerCloseTime } from './ledger-time.ts';
export { accountExists } from './accounts.ts';
export { MIN_PROTOCOL, NEWEST_PROTOCOL, protocolRefusal } from './protocol.ts';
