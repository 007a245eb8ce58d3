// getLedgers: the retained ledgers from `startLedger` (or after a cursor, which is the last sequence a page
// returned), each with its hash, close time, LedgerHeaderHistoryEntry and LedgerCloseMeta
// (simulator/core/ledger-xdr.ts).
import { ledgerXdr } from '../ledger-xdr.ts';
import type { Params, RpcContext } from './context.ts';
import { INVALID_PARAMS, INVALID_REQUEST, RpcError } from './error.ts';
import { xdrFormatOf } from './xdr-format.ts';

export interface GetLedgersParams {
  startLedger?: unknown;
  pagination?: { cursor?: unknown; limit?: unknown };
  xdrFormat?: unknown;
}

// stellar-rpc's range and default for getLedgers
const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 200;

export function getLedgers(ctx: RpcContext, raw: Params) {
  const { ledger } = ctx;
  const memo = ctx.ledgerXdr;
  const params = raw as GetLedgersParams;
  const latest = ledger.tick();
  const headers = ledger.headers;
  const oldest = headers[0]!;
  // protocol's GetLedgersRequest.Validate answers -32600; the cursor's parsing (initializePagination) -32602
  const format = xdrFormatOf(raw);
  if (typeof format !== 'string') throw new RpcError(INVALID_REQUEST, format.refused);
  const p = params.pagination ?? {};
  const limit = p.limit || DEFAULT_LIMIT;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1)
    throw new RpcError(INVALID_PARAMS, 'limit must be a positive integer');
  if (limit > MAX_LIMIT) throw new RpcError(INVALID_REQUEST, `limit must not exceed ${MAX_LIMIT}`);
  let start: number;
  if (p.cursor !== undefined && p.cursor !== '') {
    if (params.startLedger !== undefined && params.startLedger !== 0) {
      throw new RpcError(INVALID_REQUEST, 'startLedger and cursor cannot both be set');
    }
    if (typeof p.cursor !== 'string' || !/^\d{1,10}$/.test(p.cursor)) {
      throw new RpcError(INVALID_PARAMS, `invalid cursor ${JSON.stringify(p.cursor)}`);
    }
    start = Number(p.cursor) + 1;
  } else {
    const s = params.startLedger ?? 0;
    if (typeof s !== 'number' || !Number.isInteger(s) || s < 0)
      throw new RpcError(INVALID_PARAMS, 'startLedger must be a ledger sequence');
    if (s < oldest.seq || s > latest.seq) {
      const range = `the oldest ledger: ${oldest.seq} and the latest ledger: ${latest.seq}`;
      throw new RpcError(INVALID_REQUEST, `start ledger must be between ${range} for this rpc instance`);
    }
    start = s;
  }
  const ledgers: object[] = [];
  let last = start - 1;
  for (let seq = Math.max(start, oldest.seq); seq <= latest.seq && ledgers.length < limit; seq++) {
    const h = ledger.headerOf(seq);
    if (!h) continue;
    const x = ledgerXdr(ledger, h, memo);
    const encoded =
      format === 'json'
        ? {
            headerJson: ctx.json.toJson('LedgerHeaderHistoryEntry', x.historyEntry),
            metadataJson: ctx.json.toJson('LedgerCloseMeta', x.meta),
          }
        : { headerXdr: x.historyEntry, metadataXdr: x.meta };
    ledgers.push({ hash: h.hash.toString('hex'), sequence: h.seq, ledgerCloseTime: String(h.closeTime), ...encoded });
    last = h.seq;
  }
  return {
    ledgers,
    latestLedger: latest.seq,
    latestLedgerCloseTime: latest.closeTime,
    oldestLedger: oldest.seq,
    oldestLedgerCloseTime: oldest.closeTime,
    cursor: String(last),
  };
}
