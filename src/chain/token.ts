// Fee tokens (docs/chain-abi.md "Fee tokens"): Stellar Asset Contracts; the service only reads balances.
import { address, toBigInt } from './codec.ts';
import type { ChainClient } from './types.ts';

export interface TokenApi {
  /** `balance(id) -> i128` in stroops. */
  balance(tokenId: string, holder: string): Promise<bigint>;
}

export function createTokenApi(client: ChainClient): TokenApi {
  return {
    balance: async (tokenId, holder) =>
      toBigInt(await client.read({ contractId: tokenId, fn: 'balance', args: [address(holder)], contract: 'token' })),
  };
}
