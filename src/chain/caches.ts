// The caches of one network's chain objects, each an LRU of the lru-cache library sized by CV_CHAIN_CACHE_ENTRIES:
// what the SDK would otherwise decode and re-validate on every request (a StrKey's checksum, an Ed25519 key), kept
// per account, per DID and per vault. Created with the chain (createChain) or injected by the caller; never module
// state, so two chains in one process, or two tests, share nothing.
import type { KeyObject } from 'node:crypto';
import type { xdr } from '@stellar/stellar-sdk';
import { LRUCache } from 'lru-cache';

/** An account's Ed25519 public key as node's KeyObject, and its signature hint (the key's last 4 bytes). */
export interface Signer {
  key: KeyObject;
  hint: Buffer;
}

export interface ChainCaches {
  /** G… source account → the LedgerKey of its account entry (prepare reads its sequence number). */
  readonly accountKeys: LRUCache<string, xdr.LedgerKey>;
  /** G… account → its Signer (submit checks the transaction's and the auth entries' signatures). */
  readonly signers: LRUCache<string, Signer>;
  /** `registryId:didId` → the LedgerKey of the DID's record (resolution, the issuer DID of a prepare). */
  readonly recordKeys: LRUCache<string, xdr.LedgerKey>;
  /** `owner salt` → the owner's vault address (the derivation hashes twice and re-validates the StrKeys). */
  readonly vaultAddresses: LRUCache<string, string>;
  /**
   * `factoryId vault` of the contracts the factory answered `is_vault` true for, and vault → its `vault_owner`:
   * answers that never change (docs/chain-abi.md: a factory does not forget a vault it deployed, and a vault's
   * owner is its constructor's and never changes), read by every submit's safe-submit checks.
   */
  readonly factoryVaults: LRUCache<string, true>;
  readonly vaultOwners: LRUCache<string, string>;
}

/** The default of CV_CHAIN_CACHE_ENTRIES (src/config/setting-table.ts). */
export const DEFAULT_CHAIN_CACHE_ENTRIES = 10_000;

/** One network's caches, each holding at most `entries` (least recently used go first). */
export function createChainCaches(entries: number = DEFAULT_CHAIN_CACHE_ENTRIES): ChainCaches {
  if (!Number.isSafeInteger(entries) || entries < 1)
    throw new RangeError(`chain cache entries must be a positive integer, got ${entries}`);
  return {
    accountKeys: new LRUCache({ max: entries }),
    signers: new LRUCache({ max: entries }),
    recordKeys: new LRUCache({ max: entries }),
    vaultAddresses: new LRUCache({ max: entries }),
    factoryVaults: new LRUCache({ max: entries }),
    vaultOwners: new LRUCache({ max: entries }),
  };
}

/** `cache.get(key)`, else `make()` remembered; without a cache, `make()`. What `make` throws is not remembered. */
export function remembered<V extends {}>(cache: LRUCache<string, V> | undefined, key: string, make: () => V): V {
  if (!cache) return make();
  let v = cache.get(key);
  if (v === undefined) {
    v = make();
    cache.set(key, v);
  }
  return v;
}
