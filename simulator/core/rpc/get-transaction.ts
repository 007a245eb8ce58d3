// getTransaction: a transaction of the retained history by hash (NOT_FOUND otherwise), with its XDR and events.
import type { Params, RpcContext } from './context.ts';
import { INVALID_PARAMS, RpcError } from './error.ts';
import { requiredString } from './params.ts';
import { transactionInfo } from './tx-xdr.ts';
import { xdrFormatOf } from './xdr-format.ts';

export function getTransaction(ctx: RpcContext, p: Params): object {
  const { ledger } = ctx;
  const format = xdrFormatOf(p);
  if (typeof format !== 'string') throw new RpcError(INVALID_PARAMS, format.refused);
  const hash = requiredString(p, 'hash');
  if (!/^[0-9a-fA-F]{64}$/.test(hash)) throw new RpcError(INVALID_PARAMS, `unexpected hash length (${hash.length})`);
  const l = ledger.tick();
  const base = {
    latestLedger: l.seq,
    latestLedgerCloseTime: String(l.closeTime),
    oldestLedger: ledger.oldestLedger,
    oldestLedgerCloseTime: String(ledger.oldestCloseTime),
  };
  const rec = ledger.txs.get(hash.toLowerCase());
  if (!rec) return { status: 'NOT_FOUND', txHash: hash, ...base };
  const { status, txHash, ...info } = transactionInfo(ctx, rec, format);
  return { status, txHash, ...base, ...info, createdAt: String(rec.createdAt) };
}
