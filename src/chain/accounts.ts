// Account reads the routes need without touching ledger keys themselves.
import { Keypair, xdr } from '@stellar/stellar-sdk';
import type { ChainClient } from './types.ts';

/** Whether a classic account exists on the ledger (simulation does not need the source to exist). */
export async function accountExists(client: ChainClient, account: string): Promise<boolean> {
  const key = xdr.LedgerKey.account(
    new xdr.LedgerKeyAccount({ accountId: Keypair.fromPublicKey(account).xdrPublicKey() }),
  );
  return (await client.getLedgerEntries([key])).entries.length > 0;
}
