// The base64 XDR of an applied transaction as getTransaction (and sendTransaction's warm-up) answers it.
import { contractEventXdr } from '../apply.ts';
import { diagnosticXdr } from '../diagnostics.ts';
import type { SimCodec } from '../entries.ts';
import { txXdrFields } from '../meta.ts';
import type { DiagnosticRec, TxRecord } from '../records.ts';

/** Diagnostic records as base64 DiagnosticEvents. */
export const diagnosticsB64 = (codec: SimCodec, log: readonly DiagnosticRec[]): string[] =>
  log.map((d) => diagnosticXdr(d, codec).toXdr('base64'));

/** The base64 XDR of getTransaction for a record, memoized on it (records never change). */
export function transactionXdr(
  codec: SimCodec,
  rec: TxRecord,
): ReturnType<typeof txXdrFields> & { events: readonly string[]; diagnostics: readonly string[] } {
  const x = txXdrFields(codec, rec);
  const c = rec.cache;
  c.diagnostics ??= diagnosticsB64(codec, rec.diagnostics);
  c.events ??= rec.events.map((e) => contractEventXdr(codec, e).toXdr('base64'));
  return { ...x, events: c.events, diagnostics: c.diagnostics };
}
