// getLatestLedger: the latest closed ledger, with its header and close meta.
import { ledgerXdr } from '../ledger-xdr.ts';
import type { RpcContext } from './context.ts';

export function getLatestLedger(ctx: RpcContext): object {
  const { ledger } = ctx;
  const l = ledger.tick();
  const x = ledgerXdr(ledger, l, ctx.ledgerXdr);
  return {
    id: l.hash.toString('hex'),
    sequence: l.seq,
    protocolVersion: ledger.protocol,
    closeTime: String(l.closeTime),
    headerXdr: x.header,
    metadataXdr: x.meta,
  };
}
