// What sendTransaction does with an envelope, as stellar-core and its transaction queue answer it. Ledger timing off:
// checked and applied at once (PENDING with its record). On: checked against the next ledger and queued until the
// network closes one (closeQueued). Either way, a transaction sent again once it is in a ledger is banned for
// RESEND_BAN_LEDGERS ledgers (TRY_AGAIN_LATER), then checked as any other: its used sequence number makes it
// txBadSeq. DUPLICATE means only that it still waits in the queue.
import type { xdr } from '@stellar/stellar-sdk';
import { applyChecked, type Preexecuted } from './apply.ts';
import { checkEnvelope, envelopeHash, type Rejection } from './check.ts';
import { muxedToAccount } from './classic.ts';
import type { Ledger } from './ledger.ts';
import { QUEUE_LIMIT, settle, type QueueOutcome, type TxQueue } from './queue.ts';
import type { TxRecord } from './records.ts';
import type { Core } from './simulate.ts';

/** What sendTransaction answers (stellar-rpc's statuses): ERROR carries the TransactionResult of the rejection;
 *  PENDING carries the record when the transaction was applied at once (ledger timing off). */
export type SendOutcome =
  | { readonly status: 'PENDING'; readonly hash: string; readonly record?: TxRecord }
  | { readonly status: 'DUPLICATE' | 'TRY_AGAIN_LATER'; readonly hash: string }
  | Rejection;

/** What sendAtOnce answers: PENDING with the record of the transaction it applied, or why it did not. */
export type AppliedAtOnce =
  | { readonly status: 'PENDING'; readonly hash: string; readonly record: TxRecord }
  | { readonly status: 'TRY_AGAIN_LATER'; readonly hash: string }
  | Rejection;

/** Ledgers during which stellar-core refuses a transaction applied before (its queue's ban depth). */
export const RESEND_BAN_LEDGERS = 10;

/** Sent again while its hash is still banned: it landed in a ledger fewer than RESEND_BAN_LEDGERS ledgers ago. */
function banned(ledger: Ledger, hash: string): boolean {
  const rec = ledger.txs.get(hash);
  return rec !== undefined && ledger.tick().seq - rec.ledger < RESEND_BAN_LEDGERS;
}

/** Ledger timing off: checked and applied at once, in the ledger of this wall-clock second. `b64`, when given, is
 *  the envelope as received (base64). */
export function sendAtOnce(core: Core, env: xdr.TransactionEnvelope, pre?: Preexecuted, b64?: string): AppliedAtOnce {
  const ledger = core.ledger;
  const hash = envelopeHash(core, env);
  if (banned(ledger, hash)) return { status: 'TRY_AGAIN_LATER', hash };
  const checked = checkEnvelope(core, env, ledger.nextTxLedger());
  if ('status' in checked) return checked;
  const record = applyChecked(core, checked, ledger.openTxLedger(), pre, b64);
  return { status: 'PENDING', hash, record };
}

/** Ledger timing on: checked against the next ledger and queued (PENDING); `settled` hears how it ended. */
export function sendQueued(
  core: Core,
  queue: TxQueue,
  env: xdr.TransactionEnvelope,
  o: { pre?: Preexecuted; b64?: string; settled?: (o: QueueOutcome) => void } = {},
): SendOutcome {
  const hash = envelopeHash(core, env);
  if (queue.has(hash)) return { status: 'DUPLICATE', hash };
  if (banned(core.ledger, hash)) return { status: 'TRY_AGAIN_LATER', hash };
  // As stellar-core's queue: a source with a transaction waiting is told to try later, before any other check.
  const source = env.type === 'envelopeTypeTx' ? muxedToAccount(core.ledger.codec, env.v1.tx.sourceAccount) : undefined;
  const waits = source !== undefined && queue.waiting(source) > 0;
  if (waits || queue.size >= QUEUE_LIMIT) return { status: 'TRY_AGAIN_LATER', hash };
  const checked = checkEnvelope(core, env, core.ledger.nextTxLedger());
  if ('status' in checked) return checked;
  queue.push({
    hash,
    env,
    source: checked.source,
    ...(o.b64 !== undefined ? { b64: o.b64 } : {}),
    ...(o.pre ? { pre: o.pre } : {}),
    ...(o.settled ? { settle: o.settled } : {}),
  });
  return { status: 'PENDING', hash };
}

/** A ledger a close made, with how many queued transactions it applied and dropped. */
export interface ClosedLedger {
  readonly sequence: number;
  readonly closeTime: number;
  readonly applied: number;
  readonly dropped: number;
}

/**
 * Closes a ledger with every queued transaction, in arrival order, each checked again against this ledger (time
 * bounds, sequence number, balance): one that fails is dropped, as stellar-core leaves an invalid transaction out of
 * the set, and getTransaction never finds it.
 */
export function closeQueued(core: Core, queue: TxQueue): ClosedLedger {
  const header = core.ledger.openLedger();
  let dropped = 0;
  for (const q of queue.take()) {
    const checked = checkEnvelope(core, q.env, header);
    if ('status' in checked) {
      dropped += 1;
      settle(q, { dropped: checked.code });
      continue;
    }
    settle(q, { record: applyChecked(core, checked, header, q.pre, q.b64) });
  }
  header.sealed = true;
  return { sequence: header.seq, closeTime: header.closeTime, applied: header.txCount, dropped };
}
