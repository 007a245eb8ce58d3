// The base64 XDR of an applied transaction as getTransaction (and sendTransaction's warm-up) answers it.
import { contractEventBytes } from '../apply.ts';
import { asBuffer, xdrBase64 } from '../crypto.ts';
import { diagnosticXdr } from '../diagnostics.ts';
import type { SimCodec } from '../entries.ts';
import { transactionEventXdr } from '../fee-events.ts';
import { txXdrFields } from '../meta.ts';
import type { DiagnosticRec, TxRecord } from '../records.ts';
import type { RpcContext } from './context.ts';
import type { XdrFormat } from './xdr-format.ts';

/** Diagnostic records as base64 DiagnosticEvents. */
export const diagnosticsB64 = (codec: SimCodec, log: readonly DiagnosticRec[]): string[] =>
  log.map((d) => xdrBase64(diagnosticXdr(d, codec)));

/** The base64 XDR of getTransaction for a record, memoized on it (records never change). */
export function transactionXdr(
  codec: SimCodec,
  rec: TxRecord,
): ReturnType<typeof txXdrFields> & {
  events: readonly string[];
  txEvents: readonly string[];
  diagnostics: readonly string[];
} {
  const c = rec.cache;
  let x: ReturnType<typeof txXdrFields>;
  if (c.meta === undefined || c.events === undefined || c.txEvents === undefined || c.diagnostics === undefined) {
    // Encoded once, for their own fields and inside the meta.
    const parts = {
      events: rec.events.map((e) => contractEventBytes(codec, e)),
      txEvents: rec.txEvents.map((e) => transactionEventXdr(codec, e).toXdr()),
      diagnostics: rec.diagnostics.map((d) => diagnosticXdr(d, codec).toXdr()),
    };
    x = txXdrFields(codec, rec, parts);
    const b64 = (b: Uint8Array) => asBuffer(b).toString('base64');
    c.events ??= parts.events.map(b64);
    c.txEvents ??= parts.txEvents.map(b64);
    c.diagnostics ??= parts.diagnostics.map(b64);
  } else x = txXdrFields(codec, rec);
  return { ...x, events: c.events, txEvents: c.txEvents, diagnostics: c.diagnostics };
}

/** What getTransaction and getTransactions say of an applied transaction, in the requested XDR format. */
export function transactionInfo(ctx: RpcContext, rec: TxRecord, format: XdrFormat): Record<string, unknown> {
  const x = transactionXdr(ctx.codec, rec);
  const contractEvents = Array.from({ length: rec.opCount }, (_, i) => (i === 0 ? x.events.slice() : []));
  const base = { status: rec.status, txHash: rec.hash, applicationOrder: rec.applicationOrder, feeBump: false };
  if (format === 'base64') {
    return {
      ...base,
      envelopeXdr: x.envelopeXdr,
      resultXdr: x.resultXdr,
      resultMetaXdr: x.resultMetaXdr,
      ...(x.diagnostics.length ? { diagnosticEventsXdr: x.diagnostics.slice() } : {}),
      events: { transactionEventsXdr: x.txEvents.slice(), contractEventsXdr: contractEvents },
      ledger: rec.ledger,
    };
  }
  const json = (type: string) => (b64: string) => ctx.json.toJson(type, b64);
  return {
    ...base,
    envelopeJson: json('TransactionEnvelope')(x.envelopeXdr),
    resultJson: json('TransactionResult')(x.resultXdr),
    resultMetaJson: json('TransactionMeta')(x.resultMetaXdr),
    ...(x.diagnostics.length ? { diagnosticEventsJson: x.diagnostics.map(json('DiagnosticEvent')) } : {}),
    events: {
      transactionEventsJson: x.txEvents.map(json('TransactionEvent')),
      contractEventsJson: contractEvents.map((op) => op.map(json('ContractEvent'))),
    },
    ledger: rec.ledger,
  };
}
