// What auth tracking uses of the invocation in progress and of its call frames. invocation.ts creates the
// AuthTracker and its Invocation and Frame satisfy these shapes; declared here so that auth.ts does not import
// invocation.ts back.
import type { xdr } from '@stellar/stellar-sdk';
import type { Entry } from './entries.ts';
import type { Ledger } from './ledger.ts';

/** A contract call frame, as auth sees it: who is called, with what, and by whom. */
export interface AuthFrame {
  readonly contractId: string;
  readonly fn: string;
  readonly args: xdr.ScVal[];
  readonly parent: AuthFrame | undefined;
  argsXdr(): Buffer;
}

/** The invocation's ledger view, as auth uses it to read accounts and consume nonces. */
export interface AuthInvocation {
  readonly ledger: Ledger;
  readonly seq: number;
  readonly verifySignatures: boolean;
  get(key: string): Entry | undefined;
  put(key: string, entry: Entry | undefined): void;
  dataKey(contract: string, durability: 'persistent' | 'temporary', key: xdr.ScVal): string;
  touchWrite(key: string): void;
}
