// A classified failure of a contract call. Its own module because diagnostics.ts (which builds it) imports the
// record types, and records.ts (which stores it in a transaction record) must not import diagnostics.ts back.
import type { xdr } from '@stellar/stellar-sdk';

/** A classified failure: `Error(Type, Code)` text, its ScVal, the contract error number, the host's detail. */
export interface Failure {
  readonly code: string;
  readonly value: xdr.ScVal;
  readonly contractCode?: number;
  readonly detail: xdr.ScVal;
}
