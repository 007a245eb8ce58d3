// Factory 0.1.0 (docs/chain-abi.md "Factory") as typed functions. Vault addresses are derived off-chain (derive.ts).
import type { xdr } from '@stellar/stellar-sdk';
import type { LRUCache } from 'lru-cache';
import {
  address,
  bytes,
  field,
  fromOption,
  fromStruct,
  i128,
  option,
  str,
  toAddress,
  toBigInt,
  toBool,
  u64,
} from './codec.ts';
import { parseUserSalt } from './derive.ts';
import type { ChainClient, FeeQuote, PreparedTransaction, UserSalt } from './types.ts';

export interface FactoryApi {
  readonly factoryId: string;
  /** `deploy(owner, did_uri, user_salt)`, signed by the owner. */
  deploy(o: { source: string; owner: string; didUri: string; userSalt?: UserSalt }): Promise<PreparedTransaction>;
  /** `deploy_sponsored(deployer, owner, did_uri, user_salt)`, signed by the deployer (the API's sponsor). */
  deploySponsored(o: {
    source: string;
    deployer: string;
    owner: string;
    didUri: string;
    userSalt?: UserSalt;
  }): Promise<PreparedTransaction>;
  isVault(vault: string): Promise<boolean>;
  quoteFee(issuer: string): Promise<FeeQuote>;
  setFeeCustom(o: { source: string; issuer: string; amount: bigint; expiresAt?: bigint }): Promise<PreparedTransaction>;
  removeFeeCustom(o: { source: string; issuer: string }): Promise<PreparedTransaction>;
  getAdmin(): Promise<string>;
}

export function decodeFeeQuote(v: xdr.ScVal): FeeQuote {
  const s = fromStruct(v);
  const token = fromOption(field(s, 'token'), toAddress);
  const dest = fromOption(field(s, 'dest'), toAddress);
  return {
    enabled: toBool(field(s, 'enabled')),
    amount: toBigInt(field(s, 'amount')),
    ...(token !== undefined ? { token } : {}),
    ...(dest !== undefined ? { dest } : {}),
  };
}

/** `vaults`: where the contracts `is_vault` answered true for are remembered (a vault stays one; caches.ts). */
export function createFactoryApi(
  client: ChainClient,
  { factoryId, vaults }: { factoryId: string; vaults?: LRUCache<string, true> },
): FactoryApi {
  const prepare = (source: string, fn: string, args: xdr.ScVal[]) =>
    client.prepare({ source, contractId: factoryId, fn, args, contract: 'factory' });
  const read = (fn: string, args: xdr.ScVal[] = []) =>
    client.read({ contractId: factoryId, fn, args, contract: 'factory' });
  return {
    factoryId,
    deploy: (o) => prepare(o.source, 'deploy', [address(o.owner), str(o.didUri), bytes(parseUserSalt(o.userSalt))]),
    deploySponsored: (o) =>
      prepare(o.source, 'deploy_sponsored', [
        address(o.deployer),
        address(o.owner),
        str(o.didUri),
        bytes(parseUserSalt(o.userSalt)),
      ]),
    isVault: async (vault) => {
      const key = `${factoryId} ${vault}`;
      if (vaults?.get(key)) return true;
      const is = toBool(await read('is_vault', [address(vault)]));
      if (is) vaults?.set(key, true);
      return is;
    },
    quoteFee: async (issuer) => decodeFeeQuote(await read('quote_fee', [address(issuer)])),
    setFeeCustom: (o) =>
      prepare(o.source, 'set_fee_custom', [address(o.issuer), i128(o.amount), option(o.expiresAt, u64)]),
    removeFeeCustom: (o) => prepare(o.source, 'remove_fee_custom', [address(o.issuer)]),
    getAdmin: async () => toAddress(await read('get_admin')),
  };
}
