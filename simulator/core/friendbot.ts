// The friendbot of a simulated network: a createAccount of 10,000 XLM from the friendbot account, answered in
// Horizon's transaction shape (or its problem shape when the account exists already).
import { StrKey, xdr } from '@stellar/stellar-sdk';
import { BASE_FEE, type Ledger } from './ledger.ts';
import type { Genesis } from './bootstrap.ts';
import type { AccountEntry, SimCodec } from './entries.ts';
import { txXdrFields } from './meta.ts';
import type { QueueOutcome, TxQueue } from './queue.ts';
import type { TxRecord } from './records.ts';
import { signEnvelope } from './signing.ts';

export const FRIENDBOT_AMOUNT = 100_000_000_000n;

/** A friendbot answer other than a funded account: the HTTP status and its problem body. */
export class FriendbotError extends Error {
  readonly status: number;
  readonly body: Record<string, unknown>;
  constructor(status: number, body: Record<string, unknown>) {
    super(String(body.detail ?? body.title));
    this.status = status;
    this.body = body;
  }
}

/** What the friendbot answers for a funded account (Horizon's transaction shape). */
export interface FriendbotReply {
  hash: string;
  ledger: number;
  successful: true;
  envelope_xdr: string;
  result_xdr: string;
  result_meta_xdr: string;
}

/** What building the friendbot's transaction needs of a network. */
export interface FriendbotNetwork {
  readonly ledger: Ledger;
  readonly genesis: Genesis;
  readonly queue: TxQueue;
  account(address: string): AccountEntry | undefined;
}

/** The friendbot's createAccount transaction for `address`, signed; its sequence number follows the friendbot's
 *  transactions already queued. */
export function friendbotEnvelope(net: FriendbotNetwork, address: string): xdr.TransactionEnvelope {
  if (!StrKey.isValidEd25519PublicKey(address)) {
    const detail = 'addr is not a valid account address (G…)';
    throw new FriendbotError(400, { title: 'Bad Request', status: 400, detail });
  }
  const fb = net.genesis.friendbot;
  const acc = net.account(fb.publicKey())!;
  const tx = new xdr.Transaction({
    sourceAccount: xdr.MuxedAccount.keyTypeEd25519(fb.rawPublicKey()),
    fee: BASE_FEE,
    // its own transactions may wait in the queue together: each takes the next number
    seqNum: acc.seqNum + 1n + BigInt(net.queue.waiting(fb.publicKey())),
    cond: xdr.Preconditions.precondNone(),
    memo: xdr.Memo.memoNone(),
    operations: [
      new xdr.Operation({
        sourceAccount: null,
        body: xdr.OperationBody.createAccount(
          new xdr.CreateAccountOp({
            destination: xdr.PublicKey.publicKeyTypeEd25519(StrKey.decodeEd25519PublicKey(address)),
            startingBalance: FRIENDBOT_AMOUNT,
          }),
        ),
      }),
    ],
    ext: xdr.TransactionExt.v0(),
  });
  return signEnvelope(net.ledger.codec, tx, fb, net.ledger.networkId);
}

export function friendbotOutcome(codec: SimCodec, outcome: QueueOutcome | undefined): FriendbotReply {
  if (!outcome || 'dropped' in outcome) {
    const why = outcome && 'dropped' in outcome ? outcome.dropped : 'not applied';
    const detail = `the funding transaction was dropped (${why}): try again`;
    throw new FriendbotError(503, { title: 'Service Unavailable', status: 503, detail });
  }
  return friendbotReply(codec, outcome.record);
}

export function friendbotReply(codec: SimCodec, rec: TxRecord): FriendbotReply {
  const x = txXdrFields(codec, rec);
  if (rec.status !== 'SUCCESS') {
    throw new FriendbotError(400, {
      type: 'transaction_failed',
      title: 'Transaction Failed',
      status: 400,
      detail: 'createAccountAlreadyExist: the account is already funded',
      extras: {
        envelope_xdr: x.envelopeXdr,
        result_xdr: x.resultXdr,
        result_codes: { transaction: 'tx_failed', operations: ['op_already_exists'] },
      },
    });
  }
  return {
    hash: rec.hash,
    ledger: rec.ledger,
    successful: true,
    envelope_xdr: x.envelopeXdr,
    result_xdr: x.resultXdr,
    result_meta_xdr: x.resultMetaXdr,
  };
}
