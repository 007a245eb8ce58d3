// How prepare builds the transaction it simulates and assembles it after simulation: one interface, two ways. The
// SDK's TransactionBuilder and rpc.assembleTransaction are the maintained path; fast-assemble.ts writes the same
// bytes without their repeated XDR round trips (CV_FAST_ASSEMBLE), and falls back to the SDK's path wherever it
// cannot promise the same. A property test holds the two to the same bytes (fast-assemble.test.ts).
import { Account, Contract, type Transaction, TransactionBuilder, rpc, type xdr } from '@stellar/stellar-sdk';
import { assembleCall, buildCall, sdkTransaction } from './fast-assemble.ts';

/** One contract call from `source` at its current `sequence`, valid from 0 to `maxTime`. */
export interface CallToAssemble {
  source: string;
  sequence: string;
  baseFee: string;
  maxTime: number;
  contractId: string;
  fn: string;
  args: xdr.ScVal[];
}

/** The transaction to simulate, and the base64 envelope assembled from its simulation. */
export interface Assembly {
  transaction: Transaction;
  assemble(sim: rpc.Api.SimulateTransactionSuccessResponse): string;
}

export type Assembler = (call: CallToAssemble, networkPassphrase: string) => Assembly;

/** The maintained path: TransactionBuilder, then rpc.assembleTransaction. */
export const sdkAssembler: Assembler = (c, networkPassphrase) => {
  const transaction = new TransactionBuilder(new Account(c.source, c.sequence), { fee: c.baseFee, networkPassphrase })
    .addOperation(new Contract(c.contractId).call(c.fn, ...c.args))
    .setTimebounds(0, c.maxTime)
    .build();
  return { transaction, assemble: (sim) => rpc.assembleTransaction(transaction, sim).build().toXdr() };
};

/** The same bytes written once (fast-assemble.ts); the SDK's path for what it does not cover. */
export const fastAssembler: Assembler = (c, networkPassphrase) => {
  const call = buildCall(c);
  if (!call) return sdkAssembler(c, networkPassphrase);
  const transaction = sdkTransaction(call, networkPassphrase);
  return {
    transaction,
    assemble: (sim) => assembleCall(call, sim) ?? rpc.assembleTransaction(transaction, sim).build().toXdr(),
  };
};
