// Chain failures as values with a stable code (docs/vault-api.md "Errors", docs/did-resolver.md "Errors").
// Contract error numbers come from docs/chain-abi.md; the same number means different things per contract,
// so every mapping takes the contract that was called.

import { redactUrls } from '../config/redact.ts';

/** How long a prepared transaction stays valid: its time bounds end this long after prepare (both specs say so). */
export const PREPARED_TX_VALIDITY_S = 300;

/** Which contract a call went to; selects the error table. */
export type ContractKind = 'vault' | 'factory' | 'registry' | 'token';

/** A chain failure with the spec's code, an HTTP status, and the chain's own words. */
export class ChainError extends Error {
  override readonly name = 'ChainError';
  readonly code: string;
  readonly status: number;
  readonly chainMessage?: string;
  readonly txId?: string;
  /** The network whose RPC failed, for failures of the RPC itself (chain_unavailable, tx_timeout). */
  readonly network?: string;
  constructor(
    code: string,
    status: number,
    message: string,
    chainMessage?: string,
    /** The transaction hash, when the failure happened after sending. */
    txId?: string,
    network?: string,
  ) {
    super(message);
    this.code = code;
    this.status = status;
    this.chainMessage = chainMessage;
    this.txId = txId;
    this.network = network;
  }
}

export interface ErrorRow {
  code: string;
  status: number;
  /** What the contract error means, put before the chain's words. */
  text?: string;
}

const row = (code: string, status: number, text?: string): ErrorRow =>
  text ? { code, status, text } : { code, status };

/** Vault template 0.4.0 errors (docs/chain-abi.md "Vault"). Others → `tx_failed`. */
export const VAULT_ERRORS: Readonly<Record<number, ErrorRow>> = {
  4: row('vault_revoked', 409, 'the vault is revoked'),
  6: row('vc_not_found', 404, 'credential not found'),
  7: row('vc_already_revoked', 409, 'credential already revoked'),
  10: row('tx_operation_mismatch', 400, 'vault_contract is not this vault'),
  12: row('vc_already_exists', 409, 'a credential with this id already exists'),
  16: row('limit_too_large', 400, 'limit above 200'),
  17: row('batch_too_large', 400, 'more than 5 credentials in a batch'),
  18: row('batch_too_large', 400, 'empty batch'),
  19: row('input_too_long', 400, 'input too long'),
  20: row('issuer_list_too_long', 400, 'denied issuer list is full'),
  24: row('source_not_a_vault', 400, 'source is not a vault of this factory'),
  25: row('issuer_denied', 403, 'the issuer is denied by this vault'),
  26: row('push_owner_mismatch', 400, 'both vaults must have the same owner'),
};

/** DID registry 0.2.0 errors (docs/chain-abi.md "DID registry"). Others → `tx_submission_failed`. */
export const REGISTRY_ERRORS: Readonly<Record<number, ErrorRow>> = {
  1: row('did_already_exists', 409, 'DID already registered'),
  2: row('did_not_found', 404, 'DID not registered'),
  3: row('version_mismatch', 409, 'expectedVersion is not the current version'),
  4: row('did_deactivated', 409, 'DID is deactivated'),
  5: row('key_count_invalid', 400),
  6: row('key_count_invalid', 400),
  7: row('key_count_invalid', 400),
  8: row('key_count_invalid', 400),
  9: row('duplicate_key', 400),
  10: row('key_invalid', 400),
  11: row('key_invalid', 400),
  12: row('service_invalid', 400),
  13: row('service_invalid', 400),
  14: row('service_invalid', 400),
  15: row('service_invalid', 400),
  16: row('url_not_https', 400),
  18: row('service_invalid', 400),
  20: row('metadata_inconsistent', 400),
  21: row('service_invalid', 400),
};

/** Factory 0.1.0 errors are admin-only fee settings: all → `tx_failed`. */
export const FACTORY_ERRORS: Readonly<Record<number, ErrorRow>> = {
  2: row('fee_invalid', 400, 'the fee amount is negative'),
  3: row('fee_invalid', 400, 'the fee amount is above 10^18'),
  4: row('fee_invalid', 400, 'the fee amount is below the minimum fee'),
  6: row('expiresAt_in_past', 400, 'the expiry lies in the past'),
};

const TABLES: Readonly<Record<ContractKind, Readonly<Record<number, ErrorRow>>>> = {
  vault: VAULT_ERRORS,
  registry: REGISTRY_ERRORS,
  factory: FACTORY_ERRORS,
  token: {},
};

/** The code of a failure nothing more specific explains. */
export const FALLBACK: Readonly<Record<ContractKind, ErrorRow>> = {
  vault: row('tx_failed', 400),
  factory: row('tx_failed', 400),
  token: row('tx_failed', 400),
  registry: row('tx_submission_failed', 400),
};

/**
 * Host failures recognised by the chain's words, checked before contract numbers: a fee-token failure
 * surfaces through the vault with the token's number (e.g. the asset contract's #10/#13), which would
 * otherwise read as a vault error.
 */
export const HOST_FAILURES: readonly { pattern: RegExp; code: string; status: number; text?: string }[] = [
  { pattern: /contract already exists|already deployed/i, code: 'vault_already_deployed', status: 409 },
  { pattern: /trustline entry is missing for account/i, code: 'trustline_missing', status: 400 },
  { pattern: /balance is not sufficient/i, code: 'insufficient_balance', status: 400 },
  // Prepare snapshots the ledger: a transaction that landed in between (e.g. another credential into the
  // same vault) can move what this one must touch outside its footprint. The client must prepare again.
  { pattern: /outside of the footprint/i, code: 'tx_stale', status: 409 },
  // The time bounds prepare set (PREPARED_TX_VALIDITY_S) have passed: only a new prepare helps.
  {
    pattern: /\btxTooLate\b/,
    code: 'tx_expired',
    status: 400,
    text: `the prepared transaction expired (it is valid for ${PREPARED_TX_VALIDITY_S / 60} minutes after prepare); prepare again, sign and submit`,
  },
];

const CONTRACT_ERROR = /Error\(Contract, #(\d+)\)/;

/** The first `Error(Contract, #N)` of a host error text (the outermost failure). */
export function contractErrorNumber(text: string): number | undefined {
  const m = CONTRACT_ERROR.exec(text);
  return m ? Number(m[1]) : undefined;
}

export interface ChainFailure {
  /** The contract the transaction invoked. */
  contract: ContractKind;
  /** The chain's text: simulation error string, diagnostic messages, result codes. */
  text: string;
  /** A contract error number found in structured form (diagnostic events), if any. */
  contractCode?: number;
  txId?: string;
}

/** Maps a chain failure to a ChainError whose message keeps the chain's words. */
export function mapChainFailure({ contract, text, contractCode, txId }: ChainFailure): ChainError {
  const chainMessage = text.trim();
  for (const h of HOST_FAILURES) {
    const line = lineMatching(chainMessage, h.pattern);
    if (line !== undefined)
      return new ChainError(h.code, h.status, h.text ? `${h.text} (${line})` : line, chainMessage, txId);
  }
  const n = contractCode ?? contractErrorNumber(chainMessage);
  const first = firstLine(chainMessage) || 'transaction failed';
  if (n !== undefined) {
    const hit = TABLES[contract][n];
    if (hit)
      return new ChainError(hit.code, hit.status, hit.text ? `${hit.text} (${first})` : first, chainMessage, txId);
    const fb = FALLBACK[contract];
    const msg = CONTRACT_ERROR.test(first) ? first : `Error(Contract, #${n}): ${first}`;
    return new ChainError(fb.code, fb.status, msg, chainMessage, txId);
  }
  const fb = FALLBACK[contract];
  return new ChainError(fb.code, fb.status, first, chainMessage, txId);
}

const MAX_MESSAGE = 500;

function firstLine(text: string): string {
  const line =
    text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l.length > 0) ?? '';
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE)}…` : line;
}

/** From the chain's phrase to the end of its line, without the event log's quotes and brackets. */
function lineMatching(text: string, pattern: RegExp): string | undefined {
  for (const line of text.split('\n')) {
    const m = pattern.exec(line);
    if (!m) continue;
    const t = line
      .slice(m.index)
      .replace(/["[\]]/g, '')
      .replace(/,\s*/g, ' ')
      .trim();
    return t.length > MAX_MESSAGE ? `${t.slice(0, MAX_MESSAGE)}…` : t;
  }
  return undefined;
}

/**
 * The chain cannot be reached or answered out of protocol. `where` names the RPC and its setting
 * (ChainClientOptions.rpcWhere): "chain RPC unavailable at http://… (setting CV_TESTNET_RPC_URL / --testnet-rpc-url):
 * HTTP 404".
 */
export function chainUnavailable(cause: unknown, network?: string, where?: string): ChainError {
  const text = `chain RPC unavailable${where ? ` at ${where}` : ''}: ${httpWords(errorText(cause))}`;
  return new ChainError('chain_unavailable', 502, text, undefined, undefined, network);
}

/** The HTTP client's "Request failed with status code 404" as "HTTP 404". */
function httpWords(text: string): string {
  return text.replace(/\bRequest failed with status code (\d{3})\b/g, 'HTTP $1');
}

/** A failure's words, without the userinfo or query of any URL they quote (an RPC URL may carry a key). */
export function errorText(e: unknown): string {
  let text: string;
  if (e instanceof Error) text = e.message || e.name;
  else if (e && typeof e === 'object' && 'message' in e) text = String((e as { message: unknown }).message);
  else text = String(e);
  return redactUrls(text);
}

/** A credential read that met archived state (its TTL ran out): 409 with the ledger keys to restore. */
export function stateArchived(keys: readonly string[]): ChainError {
  return new ChainError(
    'state_archived',
    409,
    'the ledger state of this credential is archived (its TTL ran out): restore it with POST ' +
      '/contracts/vault/extend-ttl (which then extends it), with a RestoreFootprint transaction over the ledger ' +
      `keys ${keys.join(', ')}, or with any write prepared through this API that touches them (the restore is in ` +
      'its fee); docs/vault-api.md, "Credential lifetime"',
  );
}
