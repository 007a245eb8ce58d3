// The chain's own words for a failure: error lines of diagnostic events and transaction result codes, which
// mapChainFailure (errors.ts) turns into the service's codes.
import { Address, type xdr } from '@stellar/stellar-sdk';

/**
 * Error lines of diagnostic events (`Error(Contract, #6): message …`) and the contract error number of the
 * last error event, which is the outermost failing frame.
 */
export function readEvents(events: xdr.DiagnosticEvent[]): { contractCode?: number; lines: string[] } {
  let contractCode: number | undefined;
  const lines: string[] = [];
  for (const ev of events) {
    const body = ev.event.body.v0;
    const topics = body.topics;
    const isError = topics.some(
      (t) => t.type === 'scvError' || (t.type === 'scvSymbol' && t.sym.toString() === 'error'),
    );
    if (!isError) continue;
    const errs = topics.flatMap((t) => (t.type === 'scvError' ? [t.error] : []));
    for (const e of errs) if (e.type === 'sceContract') contractCode = e.contractCode;
    const head = errs.map(renderError).join(' ');
    const data = renderData(body.data);
    lines.push([head, data].filter((s) => s.length > 0).join(': '));
  }
  return { ...opt('contractCode', contractCode), lines };
}

/** The diagnostic events a transaction's meta carries (v3 and v4 metas; none for older ones). */
export function metaDiagnostics(meta: xdr.TransactionMeta | undefined): xdr.DiagnosticEvent[] {
  if (!meta) return [];
  switch (meta.type) {
    case 'v4':
      return meta.v4.diagnosticEvents;
    case 'v3':
      return meta.v3.sorobanMeta?.diagnosticEvents ?? [];
    default:
      return [];
  }
}

/** `txFailed/invokeHostFunctionTrapped`-style result codes. */
export function resultCodes(res: xdr.TransactionResult): string {
  const r = res.result;
  const codes: string[] = [r.type];
  const opResults = r.type === 'txSuccess' || r.type === 'txFailed' ? r.results : [];
  for (const op of opResults) codes.push(op.type === 'opInner' ? op.tr.value.type : op.type);
  return codes.join('/');
}

function renderError(e: xdr.ScError): string {
  if (e.type === 'sceContract') return `Error(Contract, #${e.contractCode})`;
  return `Error(${e.type.replace(/^sce/, '')}, ${e.code.name.replace(/^scec/, '')})`;
}

function renderData(v: xdr.ScVal): string {
  switch (v.type) {
    case 'scvString':
      return v.str.toString();
    case 'scvSymbol':
      return v.sym.toString();
    case 'scvVec':
      return (v.vec ?? [])
        .map(renderData)
        .filter((s) => s.length > 0)
        .join(' ');
    case 'scvAddress':
      return Address.fromScVal(v).toString();
    case 'scvU32':
      return String(v.u32);
    case 'scvI32':
      return String(v.i32);
    case 'scvError':
      return renderError(v.error);
    default:
      return '';
  }
}

/** `{key: value}` when value is defined, `{}` otherwise (exactOptionalPropertyTypes-friendly spreading). */
export function opt<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}
