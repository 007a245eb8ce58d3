// Where XDR travels on the wire, and as which type: the Soroban JSON-RPC methods (field types as stellar-rpc
// declares them in go-stellar-sdk protocols/rpc and stellar-rpc internal/methods), the friendbot's
// Horizon-shaped answer, and the vault API's and resolver's bodies. Anything else in a body that looks like
// XDR is reported as unknown, so a new field is never skipped silently.

/** An XDR type name (`'ScVal'`), an array of a shape, or an object whose listed fields have shapes. */
export type Shape = string | readonly [Shape] | { readonly [field: string]: Shape };

/** One topic segment of a getEvents filter: an ScVal, or the wildcards `*` / `**`. */
const TOPIC_SEGMENT = 'ScVal|wildcard';

const TX_DETAILS: Shape = {
  envelopeXdr: 'TransactionEnvelope',
  resultXdr: 'TransactionResult',
  resultMetaXdr: 'TransactionMeta',
  diagnosticEventsXdr: ['DiagnosticEvent'],
  events: {
    diagnosticEventsXdr: ['DiagnosticEvent'],
    transactionEventsXdr: ['TransactionEvent'],
    contractEventsXdr: [['ContractEvent']],
  },
};

/** JSON-RPC params by method. */
export const RPC_PARAMS: Readonly<Record<string, Shape>> = {
  simulateTransaction: { transaction: 'TransactionEnvelope' },
  sendTransaction: { transaction: 'TransactionEnvelope' },
  getLedgerEntries: { keys: ['LedgerKey'] },
  getEvents: { filters: [{ topics: [[TOPIC_SEGMENT]] }] },
};

/** JSON-RPC results by method. getLatestLedger's header is a bare LedgerHeader, getLedgers' a LedgerHeaderHistoryEntry. */
export const RPC_RESULTS: Readonly<Record<string, Shape>> = {
  getLatestLedger: { headerXdr: 'LedgerHeader', metadataXdr: 'LedgerCloseMeta' },
  getLedgers: { ledgers: [{ headerXdr: 'LedgerHeaderHistoryEntry', metadataXdr: 'LedgerCloseMeta' }] },
  getLedgerEntries: { entries: [{ key: 'LedgerKey', xdr: 'LedgerEntryData' }] },
  simulateTransaction: {
    transactionData: 'SorobanTransactionData',
    events: ['DiagnosticEvent'],
    results: [{ auth: ['SorobanAuthorizationEntry'], xdr: 'ScVal' }],
    restorePreamble: { transactionData: 'SorobanTransactionData' },
    stateChanges: [{ key: 'LedgerKey', before: 'LedgerEntry', after: 'LedgerEntry' }],
  },
  sendTransaction: { errorResultXdr: 'TransactionResult', diagnosticEventsXdr: ['DiagnosticEvent'] },
  getTransaction: TX_DETAILS,
  getTransactions: { transactions: [TX_DETAILS] },
  getEvents: { events: [{ topic: ['ScVal'], value: 'ScVal' }] },
};

/** The friendbot answers like Horizon's POST /transactions. */
export const FRIENDBOT: Shape = {
  envelope_xdr: 'TransactionEnvelope',
  result_xdr: 'TransactionResult',
  result_meta_xdr: 'TransactionMeta',
};

/**
 * The vault API and the resolver, by field name at any depth: prepare answers `xdr`, submit takes `signedXdr`,
 * the wallet challenge is `transaction` both ways, and a failed submission's details carry `resultXdr`.
 */
export const SERVICE_FIELDS: Readonly<Record<string, string>> = {
  xdr: 'TransactionEnvelope',
  signedXdr: 'TransactionEnvelope',
  transaction: 'TransactionEnvelope',
  resultXdr: 'TransactionResult',
};

/** One XDR value found in a body. */
export interface XdrValue {
  /** e.g. `testnet rpc simulateTransaction result.results[0].auth[1]` */
  where: string;
  type: string;
  base64: string;
}

/** What a body holds: its XDR values, and the problems (a string that looks like XDR in an unmapped field, a mapped field that is no string). */
export interface Found {
  values: XdrValue[];
  problems: string[];
}

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Multibase base58btc (`z…`, e.g. a DID document's publicKeyMultibase); XDR's leading word makes base64 start `AAA`. */
const MULTIBASE_BASE58 = /^z[1-9A-HJ-NP-Za-km-z]+$/;

/**
 * Whether a string in an unmapped field looks like XDR: any non-empty value of a field named `…xdr…`, or
 * canonical base64 of a whole number of 4-byte XDR units that is not hex, decimal, a base32 StrKey, multibase or
 * a lower-case word (a field name such as a verification check `credentialStatus`: XDR's leading word makes
 * base64 start with an upper-case `A`).
 */
export function looksLikeXdr(field: string, s: string): boolean {
  if (/xdr/i.test(field)) return s !== '';
  if (s.length < 8 || s.length % 4 !== 0 || !BASE64.test(s)) return false;
  if (/^[0-9a-fA-F]+$/.test(s) || /^[A-Z2-7]+$/.test(s) || MULTIBASE_BASE58.test(s) || /^[a-z][A-Za-z]*$/.test(s))
    return false;
  return Buffer.from(s, 'base64').length % 4 === 0;
}

function scan(value: unknown, where: string, field: string, out: Found): void {
  if (typeof value === 'string') {
    if (looksLikeXdr(field, value))
      out.problems.push(`${where}: unmapped field carries what looks like XDR (${value.slice(0, 40)}…)`);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => scan(v, `${where}[${i}]`, field, out));
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) scan(v, `${where}.${k}`, k, out);
  }
}

/** Collects the values of `body` that `shape` maps, and flags XDR-looking strings it does not map. */
export function walk(shape: Shape, body: unknown, where: string, out: Found, field = ''): void {
  if (body === undefined || body === null) return;
  if (typeof shape === 'string') {
    if (shape === TOPIC_SEGMENT && (body === '*' || body === '**')) return;
    const type = shape === TOPIC_SEGMENT ? 'ScVal' : shape;
    if (typeof body === 'string') out.values.push({ where, type, base64: body });
    else out.problems.push(`${where}: expected base64 ${type}, got ${JSON.stringify(body).slice(0, 60)}`);
  } else if (Array.isArray(shape)) {
    if (Array.isArray(body)) body.forEach((v, i) => walk(shape[0], v, `${where}[${i}]`, out, field));
    else out.problems.push(`${where}: expected an array`);
  } else if (typeof body === 'object') {
    for (const [k, v] of Object.entries(body)) {
      const sub = (shape as Record<string, Shape>)[k];
      if (Object.hasOwn(shape, k) && sub !== undefined) walk(sub, v, `${where}.${k}`, out, k);
      else scan(v, `${where}.${k}`, k, out);
    }
  } else {
    scan(body, where, field, out);
  }
}

/** A service body: fields named in SERVICE_FIELDS are XDR wherever they hold a string. */
export function walkService(body: unknown, where: string, out: Found): void {
  if (Array.isArray(body)) body.forEach((v, i) => walkService(v, `${where}[${i}]`, out));
  else if (body !== null && typeof body === 'object') {
    for (const [k, v] of Object.entries(body)) {
      const type = Object.hasOwn(SERVICE_FIELDS, k) ? SERVICE_FIELDS[k] : undefined;
      if (type && typeof v === 'string') out.values.push({ where: `${where}.${k}`, type, base64: v });
      else if (typeof v === 'string') scan(v, `${where}.${k}`, k, out);
      else walkService(v, `${where}.${k}`, out);
    }
  }
}

interface RpcMessage {
  method?: unknown;
  params?: unknown;
  id?: unknown;
  result?: unknown;
  error?: unknown;
}

/**
 * One JSON-RPC exchange (single or batch): each request's params and the matching response's result, by
 * method. Methods without XDR (getHealth, getNetwork, sim_info, …) are still scanned for XDR-looking strings.
 */
export function walkRpc(request: unknown, response: unknown, where: string, out: Found): void {
  const reqs = (Array.isArray(request) ? request : [request]) as RpcMessage[];
  const resps = (Array.isArray(response) ? response : response === undefined ? [] : [response]) as RpcMessage[];
  const methodById = new Map<unknown, string>();
  for (const r of reqs) {
    const method = typeof r?.method === 'string' ? r.method : '?';
    if (r?.id !== undefined) methodById.set(r.id, method);
    walk(RPC_PARAMS[method] ?? {}, r?.params ?? {}, `${where} ${method} params`, out);
  }
  for (const r of resps) {
    const method = methodById.get(r?.id) ?? (reqs.length === 1 ? String(reqs[0]?.method) : '?');
    if (r?.result !== undefined) walk(RPC_RESULTS[method] ?? {}, r.result, `${where} ${method} result`, out);
    if (r?.error !== undefined) scan(r.error, `${where} ${method} error`, 'error', out);
  }
}
