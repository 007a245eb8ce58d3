// Signing a prepared transaction as a wallet does (`credential-vault tx sign`): the Soroban authorization
// entries that name the signer's address first (SDK authorizeEntry, bound to the network passphrase and
// valid until a ledger), then the envelope when the signer is the transaction's or an operation's source.
// The order matters: an authorization signature changes the transaction, so the envelope is signed last.
// A key that neither is refused: an extra signature would fail the transaction (txBAD_AUTH_EXTRA).
import { Keypair, Transaction, xdr } from '@stellar/stellar-sdk';
import { DEFAULT_TIMEOUTS, createRpcServer } from '../chain/rpc.ts';
import { authEntries, authorizeEntries } from '../client/auth.ts';

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

/** The plain envelope in `xdrText`, or a SignError saying why it cannot be signed here. */
function checkEnvelope(xdrText: string): string {
  let env: xdr.TransactionEnvelope;
  try {
    env = xdr.TransactionEnvelope.fromXdr(xdrText.trim(), 'base64');
  } catch {
    throw new SignError('not a transaction envelope (base64 XDR)');
  }
  if (env.type !== 'envelopeTypeTx')
    throw new SignError('only a plain transaction envelope can be signed here (not a fee bump or a v0 envelope)');
  return xdrText.trim();
}

/** Authorization entries with a signature node for `address`: its own ADDRESS / ADDRESS_V2, or as a delegate. */
const entriesNaming = (xdrText: string, address: string): number =>
  authEntries(xdrText).filter((e) => e.signers.some((s) => s.address === address)).length;

/** Whether the transaction has authorization entries for `address` (then `validUntilLedger` is needed). */
export function needsAuthorization(xdrText: string, address: string): boolean {
  return entriesNaming(checkEnvelope(xdrText), address) > 0;
}

export async function signPrepared(o: SignPreparedOptions): Promise<SignPreparedResult> {
  let text = checkEnvelope(o.xdr);
  const address = o.keypair.publicKey();
  const named = entriesNaming(text, address);
  if (named > 0) {
    if (o.validUntilLedger === undefined)
      throw new SignError(
        `the transaction needs ${address}'s authorization: give the ledger it is valid until (or an RPC URL to read the latest ledger)`,
      );
    // The client's signer (src/client/auth.ts): every credential type over its own payload, delegates included.
    text = await authorizeEntries(text, o.passphrase, {
      address,
      signer: o.keypair,
      validUntilLedger: o.validUntilLedger,
    });
  }
  const tx = new Transaction(text, o.passphrase);
  const sources = new Set([
    tx.source,
    ...tx.operations.map((op) => op.source).filter((s): s is string => s !== undefined),
  ]);
  const envelopeSigned = sources.has(address);
  if (envelopeSigned) tx.sign(o.keypair);
  else if (named === 0)
    throw new SignError(
      `${address} has nothing to sign: the transaction's source is ${tx.source} and no authorization entry names it`,
    );
  return { signedXdr: tx.toXdr(), envelopeSigned, authEntriesSigned: named, source: tx.source };
}

/**
 * The passphrase an RPC serves and its latest ledger: where an authorization's validity starts from. Through the
 * SDK's own HTTP client (a wallet's machine may need its proxy), within the service's RPC timeout.
 */
export async function latestLedgerOf(
  rpcUrl: string,
  timeoutMs: number = DEFAULT_TIMEOUTS.rpcMs,
): Promise<{ passphrase: string; sequence: number }> {
  const server = createRpcServer({ rpcUrl, allowHttp: rpcUrl.startsWith('http:'), timeoutMs, transport: 'sdk' });
  const [network, latest] = await Promise.all([server.getNetwork(), server.getLatestLedger()]);
  return { passphrase: network.passphrase, sequence: latest.sequence };
}
