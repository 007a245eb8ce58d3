// getLedgers: the retained ledgers from `startLedger` (or after a cursor, which is the last sequence a page
// returned), each with its hash, close time, LedgerHeaderHistoryEntry and LedgerCloseMeta
// (simulator/core/ledger-xdr.ts).
import { ledgerXdr } from '../ledger-xdr.ts';
import type { Params, RpcContext } from './context.ts';
import { INVALID_PARAMS, RpcError } from './error.ts';

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
  if (params.xdrFormat !== undefined && params.xdrFormat !== 'base64') {
    const format = JSON.stringify(params.xdrFormat);
    throw new RpcError(INVALID_PARAMS, `xdrFormat ${format} is not supported by the simulator (base64 only)`);
  }
  const p = params.pagination ?? {};
  const limit = p.limit ?? DEFAULT_LIMIT;
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) {
    throw new RpcError(INVALID_PARAMS, `limit must be between 1 and ${MAX_LIMIT}`);
  }
  let start: number;
  if (p.cursor !== undefined) {
    if (params.startLedger !== undefined) {
      throw new RpcError(INVALID_PARAMS, 'startLedger and cursor cannot both be set');
    }
    if (typeof p.cursor !== 'string' || !/^\d{1,10}$/.test(p.cursor)) {
      throw new RpcError(INVALID_PARAMS, `invalid cursor ${JSON.stringify(p.cursor)}`);
    }
    start = Number(p.cursor) + 1;
  } else {
    const s = params.startLedger;
    if (typeof s !== 'number' || !Number.isInteger(s) || s < oldest.seq || s > latest.seq) {
      const range = `the oldest ledger: ${oldest.seq} and the latest ledger: ${latest.seq}`;
      throw new RpcError(INVALID_PARAMS, `start ledger must be between ${range} for this rpc instance`);
    }
    start = s;
  }
  const ledgers: object[] = [];
  let last = start - 1;
  for (let seq = Math.max(start, oldest.seq); seq <= latest.seq && ledgers.length < limit; seq++) {
    const h = ledger.headerOf(seq);
    if (!h) continue;
    const x = ledgerXdr(ledger, h, memo);
    ledgers.push({
      hash: h.hash.toString('hex'),
      sequence: h.seq,
      ledgerCloseTime: String(h.closeTime),
      headerXdr: x.historyEntry,
      metadataXdr: x.meta,
    });
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
