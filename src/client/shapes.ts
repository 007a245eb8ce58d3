// The two services name the same values differently (vault-api.yaml `PrepareResponse`/`SubmitResponse`,
// did-resolver.yaml `PrepareResponse`/`SubmitResponse`): the vault API's `network` is the passphrase, the
// resolver's `network` is the network's name and its passphrase is `networkPassphrase`; submit answers
// `tx_id` on one and `txId` on the other. The vault API now answers both names; these readers accept
// either service's answer, and a vault API that predates the aliases.

/** What a prepare answered, on either service. */
export interface PreparedShape {
  xdr: string;
  network?: string;
  networkPassphrase?: string;
}

/** What a submit answered, on either service. */
export interface SubmittedShape {
  txId?: string;
  tx_id?: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The passphrase to sign a prepared transaction with: `networkPassphrase` (resolver, and the vault API
 * since 1.1.1's alias), else the vault API's `network`. Throws when the answer carries neither.
 */
export function signingPassphrase(prepared: PreparedShape): string {
  if (typeof prepared.networkPassphrase === 'string' && prepared.networkPassphrase) return prepared.networkPassphrase;
  // The resolver's `network` is a name ("testnet"), never a passphrase: only a vault API answer gets here.
  const { network } = prepared;
  if (typeof network === 'string' && network && !/^(testnet|mainnet)$/.test(network)) return network;
  throw new TypeError('the prepare answer names no network passphrase (networkPassphrase or network)');
}

/** The unsigned transaction of a prepare answer, or undefined when the answer is not one. */
export function preparedOf(body: unknown): PreparedShape | undefined {
  return isRecord(body) && typeof body['xdr'] === 'string' ? (body as unknown as PreparedShape) : undefined;
}

/** The transaction hash of a submit answer (`txId` or `tx_id`), or undefined when it has none. */
export function transactionId(body: unknown): string | undefined {
  if (!isRecord(body)) return undefined;
  const id = body['txId'] ?? body['tx_id'];
  return typeof id === 'string' && id ? id : undefined;
}
