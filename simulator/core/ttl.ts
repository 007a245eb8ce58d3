// State archival's two operations (ExtendFootprintTTLOp, RestoreFootprintOp), applied and simulated as Protocol 28
// does them (stellar-docs learn/fundamentals/contract-development/storage/state-archival.mdx; stellar-rpc
// lib/preflight/src/shared.rs), and the rent the simulator charges for the ledgers an entry is kept live.
import { xdr } from '@stellar/stellar-sdk';
import type { Entry } from './entries.ts';
import { Invocation, isArchived, isExpiredTemporary } from './invocation.ts';
import { approxEntrySize, rentFee, resourceFee, type Core } from './simulate.ts';

/** An applied TTL operation (apply.ts's OpRun): its invocation's writes, whether it succeeded, its result. */
export interface TtlRun {
  readonly inv: Invocation;
  readonly ok: boolean;
  readonly opResults: () => xdr.OperationResult[];
  readonly error?: string;
}

type Footprint = { readonly readOnly: ReadonlySet<string>; readonly readWrite: ReadonlySet<string> };

const hasTtl = (e: Entry | undefined): e is Extract<Entry, { liveUntil: number }> =>
  !!e && (e.t === 'data' || e.t === 'instance');
const isTemporary = (e: Entry | undefined): boolean => !!e && e.t === 'data' && e.durability === 'temporary';
/** A temporary key by its canonical id (SimCodec.dataKeyId: `d|<contract>|t|…`); the contract id has no '|'. */
const temporaryKey = (id: string): boolean => id.startsWith('d|') && id.split('|', 3)[2] === 't';

const opResult =
  (tr: xdr.OperationResultTr): (() => xdr.OperationResult[]) =>
  () => [xdr.OperationResult.opInner(tr)];

/**
 * Applies ExtendFootprintTTL (every live read-only entry lives at least `extendTo` ledgers after this one; archived
 * entries are skipped, they must be restored first) or RestoreFootprint (every archived read-write entry is live
 * again for the minimum persistent TTL). A read-write footprint on an extension, a read-only one or a temporary key
 * on a restore, or `extendTo` beyond the maximum TTL is MALFORMED, as stellar-core's doCheckValid has it.
 */
export function applyTtlOp(
  core: Core,
  header: { seq: number; closeTime: number },
  op: xdr.Operation,
  _data: xdr.SorobanTransactionData,
  fp: Footprint,
): TtlRun {
  const ledger = core.ledger;
  const inv = new Invocation({
    ledger,
    contracts: core.contracts,
    seq: header.seq,
    closeTime: header.closeTime,
    mode: 'genesis',
  });
  const body = op.body;
  if (body.type === 'extendFootprintTtl') {
    const extendTo = body.extendFootprintTtlOp.extendTo;
    const malformed = opResult(
      xdr.OperationResultTr.extendFootprintTtl(xdr.ExtendFootprintTtlResult.extendFootprintTtlMalformed()),
    );
    if (fp.readWrite.size > 0 || extendTo > ledger.ttl.maxEntryTTL - 1)
      return { inv, ok: false, error: 'ExtendFootprintTTL is malformed', opResults: malformed };
    for (const k of fp.readOnly) {
      const e = ledger.get(k);
      if (!hasTtl(e) || isArchived(e, header.seq) || isExpiredTemporary(e, header.seq)) continue;
      const to = header.seq + extendTo;
      if (e.liveUntil < to) inv.put(k, { ...e, liveUntil: to });
    }
    return {
      inv,
      ok: true,
      opResults: opResult(
        xdr.OperationResultTr.extendFootprintTtl(xdr.ExtendFootprintTtlResult.extendFootprintTtlSuccess()),
      ),
    };
  }
  if (body.type === 'restoreFootprint') {
    const malformed = opResult(
      xdr.OperationResultTr.restoreFootprint(xdr.RestoreFootprintResult.restoreFootprintMalformed()),
    );
    if (fp.readOnly.size > 0 || [...fp.readWrite].some(temporaryKey))
      return { inv, ok: false, error: 'RestoreFootprint is malformed', opResults: malformed };
    for (const k of fp.readWrite) inv.restoreListed(k);
    return {
      inv,
      ok: true,
      opResults: opResult(xdr.OperationResultTr.restoreFootprint(xdr.RestoreFootprintResult.restoreFootprintSuccess())),
    };
  }
  return { inv, ok: false, opResults: () => [xdr.OperationResult.opNotSupported()] };
}

/** simulateTransaction's answer for ExtendFootprintTTL / RestoreFootprint over the footprint the request gives. */
export interface TtlSimulation {
  readonly transactionData: xdr.SorobanTransactionData;
  readonly minResourceFee: bigint;
  /** An extension over archived entries: the RestoreFootprint to send first (stellar-rpc preflight_extend_ttl_op). */
  readonly restorePreamble?: { readonly transactionData: xdr.SorobanTransactionData; readonly minResourceFee: bigint };
}

function data(readOnly: xdr.LedgerKey[], readWrite: xdr.LedgerKey[], read: number, write: number, rent: bigint) {
  const fee =
    resourceFee({
      instructions: 0,
      diskReadBytes: read,
      writeBytes: write,
      readOnly: readOnly.length,
      readWrite: readWrite.length,
    }) + rent;
  return {
    minResourceFee: fee,
    transactionData: new xdr.SorobanTransactionData({
      ext: xdr.SorobanTransactionDataExt.v0(),
      resources: new xdr.SorobanResources({
        footprint: new xdr.LedgerFootprint({ readOnly, readWrite }),
        instructions: 0,
        diskReadBytes: read,
        writeBytes: write,
      }),
      resourceFee: fee,
    }),
  };
}

export function simulateTtlOp(core: Core, op: xdr.Operation, footprint: xdr.LedgerFootprint): TtlSimulation {
  const ledger = core.ledger;
  const seq = ledger.nextTxLedger().seq;
  const entry = (k: xdr.LedgerKey): Entry | undefined => {
    const id = ledger.codec.keyIdOfLedgerKey(k);
    return id === undefined ? undefined : ledger.get(id);
  };
  if (op.body.type === 'restoreFootprint') {
    const keys = footprint.readWrite;
    let bytes = 0;
    let rent = 0n;
    for (const k of keys) {
      const e = entry(k);
      const size = approxEntrySize(e);
      bytes += size;
      if (isArchived(e, seq)) rent += rentFee(size, ledger.ttl.minPersistentTTL);
    }
    return data([], keys, bytes, bytes, rent);
  }
  const extendTo = op.body.type === 'extendFootprintTtl' ? op.body.extendFootprintTtlOp.extendTo : 0;
  const keys = footprint.readOnly;
  let bytes = 0;
  let rent = 0n;
  const archived: xdr.LedgerKey[] = [];
  let restoreBytes = 0;
  let restoreRent = 0n;
  for (const k of keys) {
    const e = entry(k);
    const size = approxEntrySize(e);
    bytes += size;
    if (!hasTtl(e) || isExpiredTemporary(e, seq)) continue;
    let live = e.liveUntil;
    if (isArchived(e, seq)) {
      archived.push(k);
      restoreBytes += size;
      restoreRent += rentFee(size, ledger.ttl.minPersistentTTL);
      live = ledger.minLiveUntil('persistent', seq);
    }
    rent += rentFee(size, seq + extendTo - live, isTemporary(e));
  }
  const extend = data(keys, [], bytes, 0, rent);
  if (archived.length === 0) return extend;
  return { ...extend, restorePreamble: data([], archived, restoreBytes, restoreBytes, restoreRent) };
}
