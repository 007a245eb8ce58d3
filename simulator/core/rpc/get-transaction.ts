// getTransaction: a transaction of the retained history by hash (NOT_FOUND otherwise), with its XDR and events.
import type { Params, RpcContext } from './context.ts';
import { INVALID_PARAMS, RpcError } from './error.ts';
import { requiredString } from './params.ts';
import { transactionXdr } from './tx-xdr.ts';

export function getTransaction({ ledger, codec }: RpcContext, p: Params): object {
  const hash = requiredString(p, 'hash');
  if (!/^[0-9a-fA-F]{64}$/.test(hash)) throw new RpcError(INVALID_PARAMS, 'unexpected hash length');
  const l = ledger.tick();
  const base = {
    latestLedger: l.seq,
    latestLedgerCloseTime: String(l.closeTime),
    oldestLedger: ledger.oldestLedger,
    oldestLedgerCloseTime: String(ledger.oldestCloseTime),
  };
  const rec = ledger.txs.get(hash.toLowerCase());
  if (!rec) return { status: 'NOT_FOUND', txHash: hash, ...base };
  const x = transactionXdr(codec, rec);
  return {
    status: rec.status,
    txHash: rec.hash,
    ...base,
    applicationOrder: rec.applicationOrder,
    feeBump: false,
    envelopeXdr: x.envelopeXdr,
    resultXdr: x.resultXdr,
    resultMetaXdr: x.resultMetaXdr,
    ...(x.diagnostics.length ? { diagnosticEventsXdr: x.diagnostics.slice() } : {}),
    events: {
      transactionEventsXdr: [],
      contractEventsXdr: Array.from({ length: rec.opCount }, (_, i) => (i === 0 ? x.events.slice() : [])),
    },
    ledger: rec.ledger,
    createdAt: String(rec.createdAt),
  };
}
