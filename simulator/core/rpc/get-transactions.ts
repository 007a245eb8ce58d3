// getTransactions: the retained transactions in ledger and application order, from `startLedger` or after a
// cursor, a page at a time (stellar-rpc's methods/get_transactions.go and protocol's GetTransactionsRequest). The
// cursor is the TOID (ledger << 32 | application order << 12 | 1) of the last transaction the page looked at, in
// decimal; a page that runs out of transactions ends at the latest ledger.
import type { TxRecord } from '../records.ts';
import type { Params, RpcContext } from './context.ts';
import { INVALID_PARAMS, INVALID_REQUEST, RpcError } from './error.ts';
import { transactionInfo } from './tx-xdr.ts';
import { xdrFormatOf } from './xdr-format.ts';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;

const toid = (ledger: number, order: number): bigint => (BigInt(ledger) << 32n) | (BigInt(order) << 12n) | 1n;

interface Page {
  readonly ledger: number;
  /** First application order to answer in `ledger` (later ledgers: from 1). */
  readonly order: number;
  readonly limit: number;
}

function pageOf(ctx: RpcContext, p: Params): Page {
  const { ledger } = ctx;
  const latest = ledger.tick();
  const pagination = (p.pagination ?? {}) as { cursor?: unknown; limit?: unknown };
  if (typeof pagination !== 'object' || pagination === null)
    throw new RpcError(INVALID_PARAMS, 'pagination must be an object');
  const cursor = pagination.cursor ?? '';
  const start = p.startLedger ?? 0;
  const limit = pagination.limit ?? 0;
  if (typeof cursor !== 'string' || typeof start !== 'number' || !Number.isInteger(start) || start < 0)
    throw new RpcError(INVALID_PARAMS, 'startLedger must be a ledger sequence and cursor a string');
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0)
    throw new RpcError(INVALID_PARAMS, 'limit must be a non-negative integer');
  if (cursor !== '') {
    if (start !== 0) throw new RpcError(INVALID_REQUEST, 'startLedger and cursor cannot both be set');
  } else if (start < ledger.oldestLedger || start > latest.seq) {
    throw new RpcError(
      INVALID_REQUEST,
      `start ledger must be between the oldest ledger: ${ledger.oldestLedger} and the latest ledger: ${latest.seq} for this rpc instance`,
    );
  }
  if (limit > MAX_LIMIT) throw new RpcError(INVALID_REQUEST, `limit must not exceed ${MAX_LIMIT}`);
  const format = xdrFormatOf(p);
  if (typeof format !== 'string') throw new RpcError(INVALID_REQUEST, format.refused);
  const size = limit || DEFAULT_LIMIT;
  if (cursor === '') return { ledger: start, order: 1, limit: size };
  if (!/^\d{1,19}$/.test(cursor))
    throw new RpcError(INVALID_PARAMS, `strconv.ParseInt: parsing ${JSON.stringify(cursor)}: invalid syntax`);
  const id = BigInt(cursor);
  return { ledger: Number(id >> 32n), order: Number((id >> 12n) & 0xfffffn) + 1, limit: size };
}

export function getTransactions(ctx: RpcContext, p: Params): object {
  const { ledger } = ctx;
  const page = pageOf(ctx, p);
  const format = xdrFormatOf(p) as 'base64' | 'json';
  const latest = ledger.latest;
  const out: object[] = [];
  let last: TxRecord | undefined;
  for (const rec of ledger.txs.values()) {
    if (rec.ledger < page.ledger || (rec.ledger === page.ledger && rec.applicationOrder < page.order)) continue;
    if (rec.ledger > latest.seq) break;
    out.push({ ...transactionInfo(ctx, rec, format), createdAt: rec.createdAt });
    last = rec;
    if (out.length >= page.limit) break;
  }
  const cursor =
    out.length >= page.limit && last ? toid(last.ledger, last.applicationOrder) : toid(latest.seq, latest.txCount);
  return {
    transactions: out,
    latestLedger: latest.seq,
    latestLedgerCloseTimestamp: latest.closeTime,
    oldestLedger: ledger.oldestLedger,
    oldestLedgerCloseTimestamp: ledger.oldestCloseTime,
    cursor: cursor.toString(),
  };
}
