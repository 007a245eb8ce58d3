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
const SIGNED_BY_ADDRESS = new Set(['sorobanCredentialsAddress', 'sorobanCredentialsAddressV2']);

/** Authorization entries (across the invocations) whose credentials name `address`. */
function entriesFor(env: xdr.TransactionEnvelope, address: string): { op: xdr.InvokeHostFunctionOp; index: number }[] {
  const found: { op: xdr.InvokeHostFunctionOp; index: number }[] = [];
  for (const operation of env.v1().tx().operations()) {
    if (operation.body().switch() !== xdr.OperationType.invokeHostFunction()) continue;
    const op = operation.body().invokeHostFunctionOp();
    op.auth().forEach((entry, index) => {
      const creds = entry.credentials();
      if (!SIGNED_BY_ADDRESS.has(creds.switch().name)) return;
      const body = creds.value() as xdr.SorobanAddressCredentials;
      if (Address.fromScAddress(body.address()).toString() === address) found.push({ op, index });
    });
  }
  return found;
}

/** Whether the transaction has authorization entries for `address` (then `validUntilLedger` is needed). */
export function needsAuthorization(xdrText: string, address: string): boolean {
  return entriesFor(parseEnvelope(xdrText), address).length > 0;
}

function parseEnvelope(xdrText: string): xdr.TransactionEnvelope {
  let env: xdr.TransactionEnvelope;
  try {
    env = xdr.TransactionEnvelope.fromXDR(xdrText.trim(), 'base64');
  } catch {
    throw new SignError('not a transaction envelope (base64 XDR)');
  }
  if (env.switch() !== xdr.EnvelopeType.envelopeTypeTx()) throw new SignError('only a plain transaction envelope can be signed here (not a fee bump or a v0 envelope)');
  return env;
}

export async function signPrepared(o: SignPreparedOptions): Promise<SignPreparedResult> {
  const env = parseEnvelope(o.xdr);
  const address = o.keypair.publicKey();
  const entries = entriesFor(env, address);
  if (entries.length > 0) {
    if (o.validUntilLedger === undefined) throw new SignError(`the transaction needs ${address}'s authorization: give the ledger it is valid until (or an RPC URL to read the latest ledger)`);
    for (const { op, index } of entries) {
      const auth = op.auth();
      auth[index] = await authorizeEntry(auth[index]!, o.keypair, o.validUntilLedger, o.passphrase);
      op.auth(auth);
    }
  }
  const tx = new Transaction(env, o.passphrase);
  const sources = new Set([tx.source, ...tx.operations.map((op) => op.source).filter((s): s is string => s !== undefined)]);
  const envelopeSigned = sources.has(address);
  if (envelopeSigned) tx.sign(o.keypair);
  else if (entries.length === 0) throw new SignError(`${address} has nothing to sign: the transaction's source is ${tx.source} and no authorization entry names it`);
  return { signedXdr: tx.toXDR(), envelopeSigned, authEntriesSigned: entries.length, source: tx.source };
}

/** The passphrase an RPC serves and its latest ledger: where an authorization's validity starts from. */
export async function latestLedgerOf(rpcUrl: string): Promise<{ passphrase: string; sequence: number }> {
  const server = new rpc.Server(rpcUrl, { allowHttp: rpcUrl.startsWith('http:') });
  const [network, latest] = await Promise.all([server.getNetwork(), server.getLatestLedger()]);
  return { passphrase: network.passphrase, sequence: latest.sequence };
}
