// getEvents: contract events of the retained ledgers, filtered by type / contract ids / topics (`*` matches one
// segment, a trailing `**` any number), paged by startLedger or by cursor. Ids and cursors use stellar-rpc's
// format `%019d-%010d` (TOID(ledger, tx, op) - event index).
import { StrKey } from '@stellar/stellar-sdk';
import type { LedgerEvent } from '../records.ts';
import type { Params, RpcContext } from './context.ts';
import { RpcError } from './error.ts';

export interface EventFilter {
  readonly type?: string;
  readonly contractIds?: readonly string[];
  readonly topics?: readonly (readonly string[])[];
}

type Pos = readonly [ledger: number, tx: number, op: number, event: number];

const toid = (ledger: number, tx: number, op: number): bigint =>
  (BigInt(ledger) << 32n) | (BigInt(tx) << 12n) | BigInt(op);

export function eventId(p: Pos): string {
  return `${toid(p[0], p[1], p[2]).toString().padStart(19, '0')}-${p[3].toString().padStart(10, '0')}`;
}

function parseCursor(c: string): Pos {
  const m = /^(\d{1,19})-(\d{1,10})$/.exec(c);
  if (!m) throw new RpcError(-32602, `invalid cursor ${JSON.stringify(c)}`);
  const id = BigInt(m[1]!);
  return [Number(id >> 32n), Number((id >> 12n) & 0xfffffn), Number(id & 0xfffn), Number(m[2])];
}

const posOf = (e: LedgerEvent): Pos => [e.ledger, e.txIndex, e.opIndex, e.eventIndex];

function cmp(a: Pos, b: Pos): number {
  for (let i = 0; i < 4; i++) if (a[i]! !== b[i]!) return a[i]! - b[i]!;
  return 0;
}

/** First index whose event is at or after `p` (strictly after when `after`). */
function lowerBound(events: readonly LedgerEvent[], p: Pos, after: boolean): number {
  let lo = 0;
  let hi = events.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const c = cmp(posOf(events[mid]!), p);
    if (c < 0 || (after && c === 0)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** An event's topics as base64, remembered in the handler's memo. */
function topicsB64(memo: WeakMap<LedgerEvent, string[]>, e: LedgerEvent): string[] {
  let t = memo.get(e);
  if (!t) {
    t = e.topics.map((x) => x.toXdr('base64'));
    memo.set(e, t);
  }
  return t;
}

function topicMatches(filter: readonly string[], topics: string[]): boolean {
  const greedy = filter.length > 0 && filter[filter.length - 1] === '**';
  const fixed = greedy ? filter.slice(0, -1) : filter;
  if (greedy ? topics.length < fixed.length : topics.length !== fixed.length) return false;
  return fixed.every((seg, i) => seg === '*' || seg === topics[i]);
}

function matches(memo: WeakMap<LedgerEvent, string[]>, e: LedgerEvent, filters: readonly EventFilter[]): boolean {
  if (filters.length === 0) return true;
  return filters.some(
    (f) =>
      (!f.type || f.type === 'contract') &&
      (!f.contractIds?.length || f.contractIds.includes(e.contractId)) &&
      (!f.topics?.length || f.topics.some((t) => topicMatches(t, topicsB64(memo, e)))),
  );
}

function validate(filters: unknown): EventFilter[] {
  if (filters === undefined) return [];
  if (!Array.isArray(filters)) throw new RpcError(-32602, 'filters must be an array');
  if (filters.length > 5) throw new RpcError(-32602, 'maximum 5 filters per request');
  return filters.map((f: EventFilter, i) => {
    if (f.type && !['contract', 'system', 'diagnostic'].includes(f.type)) {
      throw new RpcError(
        -32602,
        `filter ${i + 1} invalid: if set, type must be either 'system', 'contract' or 'diagnostic'`,
      );
    }
    if ((f.contractIds?.length ?? 0) > 5)
      throw new RpcError(-32602, `filter ${i + 1} invalid: maximum 5 contract IDs per filter`);
    for (const c of f.contractIds ?? []) {
      if (!StrKey.isValidContract(c))
        throw new RpcError(-32602, `filter ${i + 1} invalid: contract ID ${i + 1} invalid`);
    }
    if ((f.topics?.length ?? 0) > 5) throw new RpcError(-32602, `filter ${i + 1} invalid: maximum 5 topics per filter`);
    for (const t of f.topics ?? []) {
      if (!Array.isArray(t) || t.length === 0 || t.length > 5)
        throw new RpcError(-32602, `filter ${i + 1} invalid: topic filter must have 1 to 5 segments`);
    }
    return f;
  });
}

const iso = (unix: number): string => new Date(unix * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

export interface GetEventsParams {
  startLedger?: number;
  endLedger?: number;
  filters?: EventFilter[];
  pagination?: { cursor?: string; limit?: number };
}

export function getEvents(ctx: RpcContext, p: Params) {
  const { ledger } = ctx;
  const params = p as GetEventsParams;
  const latest = ledger.tick();
  const filters = validate(params.filters);
  const limit = params.pagination?.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
    throw new RpcError(-32602, 'limit must be between 1 and 10000');
  const cursor = params.pagination?.cursor;
  if (cursor && params.startLedger) throw new RpcError(-32602, 'ledger ranges and cursor cannot both be set');
  let start: number;
  let from: Pos;
  let after = false;
  if (cursor) {
    from = parseCursor(cursor);
    start = from[0];
    after = true;
  } else {
    start = params.startLedger ?? 0;
    if (!Number.isInteger(start) || start < ledger.oldestLedger || start > latest.seq) {
      throw new RpcError(
        -32600,
        `startLedger must be between the oldest ledger: ${ledger.oldestLedger} and the latest ledger: ${latest.seq}`,
      );
    }
    from = [start, 0, 0, 0];
  }
  const end = Math.min(params.endLedger ?? latest.seq + 1, latest.seq + 1);
  if (params.endLedger !== undefined && params.endLedger <= start)
    throw new RpcError(-32602, 'endLedger must be after startLedger');
  const out: object[] = [];
  let last: Pos | undefined;
  const events = ledger.events;
  for (let i = lowerBound(events, from, after); i < events.length; i++) {
    const e = events[i]!;
    if (e.ledger >= end) break;
    if (!matches(ctx.topics, e, filters)) continue;
    last = posOf(e);
    out.push({
      type: 'contract',
      ledger: e.ledger,
      ledgerClosedAt: iso(e.closeTime),
      contractId: e.contractId,
      id: eventId(last),
      operationIndex: e.opIndex,
      transactionIndex: e.txIndex,
      txHash: e.txHash,
      inSuccessfulContractCall: true,
      topic: topicsB64(ctx.topics, e),
      value: e.data.toXdr('base64'),
    });
    if (out.length >= limit) break;
  }
  let next: Pos;
  if (out.length >= limit && last) next = last;
  else {
    const endSeq = end - 1;
    next =
      endSeq >= latest.seq ? [latest.seq, latest.txCount, 0xfff, 0x7fffffff] : [endSeq, 0xfffff, 0xfff, 0x7fffffff];
  }
  return {
    events: out,
    cursor: eventId(next),
    latestLedger: latest.seq,
    oldestLedger: ledger.oldestLedger,
    latestLedgerCloseTime: String(latest.closeTime),
    oldestLedgerCloseTime: String(ledger.oldestCloseTime),
  };
}
