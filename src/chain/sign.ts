// Signing a prepared transaction as a wallet does (`credential-vault tx sign`): the Soroban authorization
// entries that name the signer's address first (SDK authorizeEntry, bound to the network passphrase and
// valid until a ledger), then the envelope when the signer is the transaction's or an operation's source.
// The order matters: an authorization signature changes the transaction, so the envelope is signed last.
// A key that neither is refused: an extra signature would fail the transaction (txBAD_AUTH_EXTRA).
import { Address, Keypair, Transaction, authorizeEntry, rpc, xdr } from '@stellar/stellar-sdk';

export interface SignPreparedOptions {
  /** The prepared transaction, base64 XDR (the prepare answer's `xdr`). */
  xdr: string;
  /** The passphrase the prepare answer names; a signature for another network is worthless. */
  passphrase: string;
  keypair: Keypair;
  /** Last ledger an authorization signature is valid for; needed only when an entry names the signer. */
  validUntilLedger?: number;
}

export interface SignPreparedResult {
  signedXdr: string;
  /** Whether the envelope was signed (the signer is a source of the transaction). */
  envelopeSigned: boolean;
  /** Authorization entries signed for the signer's address. */
  authEntriesSigned: number;
  /** The transaction's source account. */
  source: string;
}

export class SignError extends Error {}

/**
 * Credentials an account signs itself: ADDRESS, and from Protocol 27 ADDRESS_V2 (CAP-71, the same body
 * bound to the address; docs/chain-abi.md "Protocol line"), both signed by the SDK's authorizeEntry. An
 * ADDRESS_WITH_DELEGATES entry needs its delegates' signatures too and is left to a wallet that knows them.
 */

type InvokeOperation = xdr.Operation & { body: xdr.OperationBodyInvokeHostFunction };

/** Indexes of the authorization entries (of the transaction's one invocation) whose credentials name `address`. */
function entriesFor(env: xdr.TransactionEnvelopeTx, address: string): { op: InvokeOperation | undefined; indexes: number[] } {
  const op = env.v1.tx.operations.find((o): o is InvokeOperation => o.body.type === 'invokeHostFunction');
  const indexes: number[] = [];
  op?.body.invokeHostFunctionOp.auth.forEach((entry, index) => {
    const creds = entry.credentials;
    if (creds.type === 'sorobanCredentialsAddress' && Address.fromScAddress(creds.address.address).toString() === address) indexes.push(index);
    if (creds.type === 'sorobanCredentialsAddressV2' && Address.fromScAddress(creds.addressV2.address).toString() === address) indexes.push(index);
  });
  return { op, indexes };
}

/** Whether the transaction has authorization entries for `address` (then `validUntilLedger` is needed). */
export function needsAuthorization(xdrText: string, address: string): boolean {
  return entriesFor(parseEnvelope(xdrText), address).indexes.length > 0;
}

function parseEnvelope(xdrText: string): xdr.TransactionEnvelopeTx {
  let env: xdr.TransactionEnvelope;
  try {
    env = xdr.TransactionEnvelope.fromXdr(xdrText.trim(), 'base64');
  } catch {
    throw new SignError('not a transaction envelope (base64 XDR)');
  }
  if (env.type !== 'envelopeTypeTx') throw new SignError('only a plain transaction envelope can be signed here (not a fee bump or a v0 envelope)');
  return env;
}

/** The same envelope with the invocation's authorization entries replaced (SDK 17 values are immutable). */
function withAuth(env: xdr.TransactionEnvelopeTx, op: InvokeOperation, auth: xdr.SorobanAuthorizationEntry[]): xdr.TransactionEnvelopeTx {
  const tx = env.v1.tx;
  const body = xdr.OperationBody.invokeHostFunction(new xdr.InvokeHostFunctionOp({ hostFunction: op.body.invokeHostFunctionOp.hostFunction, auth }));
  const operations = tx.operations.map((o) => (o === op ? new xdr.Operation({ sourceAccount: op.sourceAccount, body }) : o));
  const replaced = new xdr.Transaction({ sourceAccount: tx.sourceAccount, fee: tx.fee, seqNum: tx.seqNum, cond: tx.cond, memo: tx.memo, operations, ext: tx.ext });
  return xdr.TransactionEnvelope.envelopeTypeTx(new xdr.TransactionV1Envelope({ tx: replaced, signatures: env.v1.signatures })) as xdr.TransactionEnvelopeTx;
}

export async function signPrepared(o: SignPreparedOptions): Promise<SignPreparedResult> {
  let env = parseEnvelope(o.xdr);
  const address = o.keypair.publicKey();
  const { op, indexes } = entriesFor(env, address);
  if (op && indexes.length > 0) {
    if (o.validUntilLedger === undefined) throw new SignError(`the transaction needs ${address}'s authorization: give the ledger it is valid until (or an RPC URL to read the latest ledger)`);
    const auth = [...op.body.invokeHostFunctionOp.auth];
    for (const index of indexes) auth[index] = await authorizeEntry(auth[index]!, o.keypair, o.validUntilLedger, o.passphrase);
    env = withAuth(env, op, auth);
  }
  const tx = new Transaction(env, o.passphrase);
  const sources = new Set([tx.source, ...tx.operations.map((op) => op.source).filter((s): s is string => s !== undefined)]);
  const envelopeSigned = sources.has(address);
  if (envelopeSigned) tx.sign(o.keypair);
  else if (indexes.length === 0) throw new SignError(`${address} has nothing to sign: the transaction's source is ${tx.source} and no authorization entry names it`);
  return { signedXdr: tx.toXdr(), envelopeSigned, authEntriesSigned: indexes.length, source: tx.source };
}

/** The passphrase an RPC serves and its latest ledger: where an authorization's validity starts from. */
export async function latestLedgerOf(rpcUrl: string): Promise<{ passphrase: string; sequence: number }> {
  const server = new rpc.Server(rpcUrl, { allowHttp: rpcUrl.startsWith('http:') });
  const [network, latest] = await Promise.all([server.getNetwork(), server.getLatestLedger()]);
  return { passphrase: network.passphrase, sequence: latest.sequence };
}
