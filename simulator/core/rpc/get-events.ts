// getEvents: contract events of the retained ledgers, filtered by type / contract ids / topics (`*` matches one
// segment, a trailing `**` any number), paged by startLedger or by cursor. Ids and cursors use stellar-rpc's
// format `%019d-%010d` (TOID(ledger, tx, op) - event index).
import { StrKey, xdr } from '@stellar/stellar-sdk';
import { xdrBase64 } from '../crypto.ts';
import type { LedgerEvent } from '../records.ts';
import type { Params, RpcContext } from './context.ts';
import { RpcError } from './error.ts';
import { xdrFormatOf } from './xdr-format.ts';

export interface EventFilter {
  readonly type?: string;
  readonly contractIds?: readonly string[];
  readonly topics?: readonly (readonly string[])[];
}

/** Segments a topic filter may have (a trailing `**` included). */
const MAX_SEGMENTS = 4;
/** stellar-rpc's default and maximum getEvents page. */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 10_000;

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
    t = e.topics.map(xdrBase64);
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
      (!f.type || f.type.split(',').includes('contract')) &&
      (!f.contractIds?.length || f.contractIds.includes(e.contractId)) &&
      (!f.topics?.length || f.topics.some((t) => topicMatches(t, topicsB64(memo, e)))),
  );
}

/** Why a topic filter is invalid (protocol's TopicFilter.Valid and SegmentFilter), or undefined. */
function topicProblem(t: unknown): string | undefined {
  if (!Array.isArray(t) || t.length === 0) return 'topic must have at least one segment';
  if (t.length > MAX_SEGMENTS) return `topic cannot have more than ${MAX_SEGMENTS} segments`;
  const fixed = t[t.length - 1] === '**' ? t.slice(0, -1) : t;
  for (const [i, seg] of fixed.entries()) {
    if (seg === '*') continue;
    if (seg === '**') return `segment ${i + 1} invalid: wildcard must be '*'`;
    try {
      if (typeof seg !== 'string') throw new TypeError('not a string');
      xdr.ScVal.fromXdr(seg, 'base64');
    } catch {
      return `segment ${i + 1} invalid: not '*', '**' or a base64 ScVal`;
    }
  }
  return undefined;
}

/** Why a filter is invalid (protocol's EventFilter.Valid), or undefined. */
function filterProblem(f: EventFilter): string | undefined {
  // stellar-rpc 23+ serves no diagnostic events: a filter can ask for contract and system events only
  for (const type of typeof f.type === 'string' && f.type !== '' ? f.type.split(',') : []) {
    if (type !== 'contract' && type !== 'system')
      return "filter type invalid: if set, type must be either 'system' or 'contract'";
  }
  if ((f.contractIds?.length ?? 0) > 5) return 'maximum 5 contract IDs per filter';
  if ((f.topics?.length ?? 0) > 5) return 'maximum 5 topics per filter';
  for (const [i, c] of (f.contractIds ?? []).entries()) {
    if (!StrKey.isValidContract(c)) return `contract ID ${i + 1} invalid`;
  }
  for (const [i, t] of (f.topics ?? []).entries()) {
    const problem = topicProblem(t);
    if (problem) return `topic ${i + 1} invalid: ${problem}`;
  }
  return undefined;
}

function validate(filters: unknown): EventFilter[] {
  if (filters === undefined || filters === null) return [];
  if (!Array.isArray(filters)) throw new RpcError(-32602, 'filters must be an array');
  if (filters.length > 5) throw new RpcError(-32602, 'maximum 5 filters per request');
  return filters.map((f: EventFilter, i) => {
    const problem = filterProblem(f);
    if (problem) throw new RpcError(-32602, `filter ${i + 1} invalid: ${problem}`);
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

interface Range {
  readonly from: Pos;
  /** Strictly after `from` (a cursor) or from it on. */
  readonly after: boolean;
  /** First ledger past the range. */
  readonly end: number;
  readonly limit: number;
}

/** The ledgers and page a request asks for, checked as protocol's GetEventsRequest.Valid (-32602) and the handler's
 *  range check (-32600) do. */
function rangeOf(ctx: RpcContext, params: GetEventsParams): Range {
  const { ledger } = ctx;
  const latest = ledger.latest;
  const limit = params.pagination?.limit || DEFAULT_LIMIT;
  if (!Number.isInteger(limit) || limit < 1) throw new RpcError(-32602, 'limit must be a positive integer');
  if (limit > MAX_LIMIT) throw new RpcError(-32602, `limit must not exceed ${MAX_LIMIT}`);
  const endLedger = params.endLedger ?? 0;
  if (!Number.isInteger(endLedger) || endLedger < 0 || endLedger > 0xffffffff)
    throw new RpcError(-32602, 'endLedger must be a ledger sequence (uint32)');
  const cursor = params.pagination?.cursor;
  if (cursor) {
    if (params.startLedger || params.endLedger)
      throw new RpcError(-32602, 'ledger ranges and cursor cannot both be set');
    const from = parseCursor(cursor);
    return { from, after: true, end: latest.seq + 1, limit };
  }
  const start = params.startLedger ?? 0;
  if (!Number.isInteger(start) || start <= 0) throw new RpcError(-32602, 'startLedger must be positive');
  if (start < ledger.oldestLedger || start > latest.seq) {
    throw new RpcError(-32600, `startLedger must be within the ledger range: ${ledger.oldestLedger} - ${latest.seq}`);
  }
  // endLedger is exclusive and only narrows the scan: one at or before startLedger is an empty range, not an error
  // (get_events.go: `endLedger = min(request.EndLedger, endLedger)`; Valid checks it only against a cursor)
  return {
    from: [start, 0, 0, 0],
    after: false,
    end: Math.min(params.endLedger || latest.seq + 1, latest.seq + 1),
    limit,
  };
}

export function getEvents(ctx: RpcContext, p: Params) {
  const { ledger } = ctx;
  const params = p as GetEventsParams;
  const latest = ledger.tick();
  const format = xdrFormatOf(p);
  if (typeof format !== 'string') throw new RpcError(-32602, format.refused);
  const filters = validate(params.filters);
  const { from, after, end, limit } = rangeOf(ctx, params);
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
      inSuccessfulContractCall: !e.failedTx,
      ...(format === 'json'
        ? {
            topicJson: topicsB64(ctx.topics, e).map((t) => ctx.json.toJson('ScVal', t)),
            valueJson: ctx.json.toJson('ScVal', xdrBase64(e.data)),
          }
        : { topic: topicsB64(ctx.topics, e), value: xdrBase64(e.data) }),
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
