// The other parties of a write: a prepared transaction may carry authorization entries that an address other
// than the transaction's source must sign (a relayed revoke or deny, where a relayer pays the fee). Signed with
// @stellar/stellar-sdk 17's authorizeEntry, which signs each credential type over its own payload: legacy
// ADDRESS, and CAP-71's ADDRESS_V2 and ADDRESS_WITH_DELEGATES (Protocol 27), which networks return from
// Protocol 28. An SDK older than 16 cannot decode V2 entries (docs/protocol.md).
import { authorizeEntry, inspectAuthEntry, xdr } from '@stellar/stellar-sdk';

/** What signs an entry's payload: a Keypair, or a wallet's callback (the SDK's SigningCallback). */
export type AuthEntrySigner = Parameters<typeof authorizeEntry>[1];

/** A SorobanCredentials type as the SDK names it. */
export type CredentialType = ReturnType<typeof inspectAuthEntry>['credentialType'];

export interface AuthorizeOptions {
  /** The address (G…) whose credential nodes to sign: an entry's own address or one of its delegates. */
  address: string;
  signer: AuthEntrySigner;
  /** Last ledger at which the signatures are valid (a few minutes past the network's latest ledger). */
  validUntilLedger: number;
}

/** One authorization entry of a prepared transaction: its credential type, address and who signs it. */
export interface AuthEntryInfo {
  credentialType: CredentialType;
  /** The address the entry authorizes for; null for source-account credentials (the envelope signs those). */
  address: string | null;
  /** Addresses with a signature node (the entry's own, then its delegates), and whether each is signed. */
  signers: { address: string; signed: boolean }[];
}

/** The authorization entries of a base64 transaction envelope (one InvokeHostFunction operation, else none). */
export function authEntries(txXdr: string): AuthEntryInfo[] {
  return entriesOf(xdr.TransactionEnvelope.fromXdr(txXdr, 'base64')).map((e) => {
    const i = inspectAuthEntry(e);
    return {
      credentialType: i.credentialType,
      address: i.address,
      signers: i.signers.map((s) => ({ address: s.address, signed: s.signed })),
    };
  });
}

/**
 * Signs every credential node for `address` in the transaction's authorization entries and returns the
 * transaction (base64) with them replaced; the envelope's own signatures are dropped, since the hash changes:
 * authorize first, then the source signs the envelope. Throws when no entry has a node for `address`.
 */
export async function authorizeEntries(txXdr: string, networkPassphrase: string, o: AuthorizeOptions): Promise<string> {
  const env = xdr.TransactionEnvelope.fromXdr(txXdr, 'base64');
  let matched = 0;
  const signed: xdr.SorobanAuthorizationEntry[] = [];
  for (const entry of entriesOf(env)) {
    const forAddress = inspectAuthEntry(entry).signers.some((s) => s.address === o.address);
    if (!forAddress) {
      signed.push(entry);
      continue;
    }
    matched++;
    signed.push(await authorizeEntry(entry, o.signer, o.validUntilLedger, networkPassphrase, o.address));
  }
  if (matched === 0) throw new Error(`the transaction carries no authorization entry for ${o.address}`);
  return withEntries(env, signed).toXdr('base64');
}

function invocation(
  env: xdr.TransactionEnvelope,
): { tx: xdr.Transaction; op: xdr.Operation; body: xdr.InvokeHostFunctionOp } | undefined {
  if (env.type !== 'envelopeTypeTx') return undefined;
  const tx = env.v1.tx;
  const op = tx.operations[0];
  if (tx.operations.length !== 1 || !op || op.body.type !== 'invokeHostFunction') return undefined;
  return { tx, op, body: op.body.invokeHostFunctionOp };
}

function entriesOf(env: xdr.TransactionEnvelope): xdr.SorobanAuthorizationEntry[] {
  return invocation(env)?.body.auth ?? [];
}

function withEntries(env: xdr.TransactionEnvelope, auth: xdr.SorobanAuthorizationEntry[]): xdr.TransactionEnvelope {
  const { tx, op, body } = invocation(env)!;
  const replaced = new xdr.Transaction({
    sourceAccount: tx.sourceAccount,
    fee: tx.fee,
    seqNum: tx.seqNum,
    cond: tx.cond,
    memo: tx.memo,
    operations: [
      new xdr.Operation({
        sourceAccount: op.sourceAccount,
        body: xdr.OperationBody.invokeHostFunction(
          new xdr.InvokeHostFunctionOp({ hostFunction: body.hostFunction, auth }),
        ),
      }),
    ],
    ext: tx.ext,
  });
  return xdr.TransactionEnvelope.envelopeTypeTx(new xdr.TransactionV1Envelope({ tx: replaced, signatures: [] }));
}
