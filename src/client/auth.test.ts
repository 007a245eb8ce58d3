// authorizeEntries / authEntries: the other parties' signatures on a prepared transaction, per credential type,
// checked against the SDK's own payload for that type.
import { describe, expect, it } from 'vitest';
import {
  Account,
  Address,
  Contract,
  Keypair,
  Networks,
  Operation,
  StrKey,
  TransactionBuilder,
  buildAuthorizationEntryPreimage,
  buildWithDelegatesEntry,
  hash,
  xdr,
} from '@stellar/stellar-sdk';
import { authEntries, authorizeEntries } from './auth.ts';

const PASS = Networks.TESTNET;
const owner = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 1));
const delegate = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 2));
const relayer = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 3));
const vault = StrKey.encodeContract(Buffer.alloc(32, 4));
const args = new xdr.InvokeContractArgs({
  contractAddress: new Address(vault).toScAddress(),
  functionName: 'revoke',
  args: [xdr.ScVal.scvString('vc-1')],
});
const root = new xdr.SorobanAuthorizedInvocation({
  function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(args),
  subInvocations: [],
});
const creds = new xdr.SorobanAddressCredentials({
  address: new Address(owner.publicKey()).toScAddress(),
  nonce: 42n,
  signatureExpirationLedger: 0,
  signature: xdr.ScVal.scvVoid(),
});
const v2 = new xdr.SorobanAuthorizationEntry({
  credentials: xdr.SorobanCredentials.sorobanCredentialsAddressV2(creds),
  rootInvocation: root,
});
const ENTRIES = {
  address: new xdr.SorobanAuthorizationEntry({
    credentials: xdr.SorobanCredentials.sorobanCredentialsAddress(creds),
    rootInvocation: root,
  }),
  addressV2: v2,
  addressWithDelegates: buildWithDelegatesEntry({
    entry: v2,
    validUntilLedgerSeq: 0,
    delegates: [{ address: delegate.publicKey() }],
  }),
};

/** A prepared relayed transaction (relayer is the source) carrying `entry`, as prepare answers it. */
const prepared = (entry: xdr.SorobanAuthorizationEntry): string =>
  new TransactionBuilder(new Account(relayer.publicKey(), '7'), { fee: '100', networkPassphrase: PASS })
    .addOperation(
      Operation.invokeHostFunction({ func: xdr.HostFunction.hostFunctionTypeInvokeContract(args), auth: [entry] }),
    )
    .setTimeout(300)
    .build()
    .toXdr();

function signatureOf(e: xdr.SorobanAuthorizationEntry, who: 'root' | 'delegate'): Uint8Array {
  const c = e.credentials;
  const sig =
    c.type === 'sorobanCredentialsAddress'
      ? c.address.signature
      : c.type === 'sorobanCredentialsAddressV2'
        ? c.addressV2.signature
        : c.type === 'sorobanCredentialsAddressWithDelegates'
          ? who === 'root'
            ? c.addressWithDelegates.addressCredentials.signature
            : c.addressWithDelegates.delegates[0]!.signature
          : xdr.ScVal.scvVoid();
  if (sig.type !== 'scvVec' || !sig.vec) throw new Error('unsigned');
  const m = sig.vec[0]!;
  if (m.type !== 'scvMap' || !m.map) throw new Error('not a signature map');
  const s = m.map.find((e) => e.key.type === 'scvSymbol' && e.key.sym.toString() === 'signature')!.val;
  if (s.type !== 'scvBytes') throw new Error('no signature bytes');
  return s.bytes.value;
}

describe('authorizeEntries signs each credential type over its own payload', () => {
  it.each(Object.keys(ENTRIES) as (keyof typeof ENTRIES)[])('%s', async (kind) => {
    const x = prepared(ENTRIES[kind]);
    expect(authEntries(x)).toEqual([
      {
        credentialType: kind,
        address: owner.publicKey(),
        signers: [
          { address: owner.publicKey(), signed: false },
          ...(kind === 'addressWithDelegates' ? [{ address: delegate.publicKey(), signed: false }] : []),
        ],
      },
    ]);
    let signed = await authorizeEntries(x, PASS, { address: owner.publicKey(), signer: owner, validUntilLedger: 500 });
    if (kind === 'addressWithDelegates')
      signed = await authorizeEntries(signed, PASS, {
        address: delegate.publicKey(),
        signer: delegate,
        validUntilLedger: 500,
      });
    const body = (xdr.TransactionEnvelope.fromXdr(signed, 'base64') as xdr.TransactionEnvelopeTx).v1.tx.operations[0]!
      .body;
    if (body.type !== 'invokeHostFunction') throw new Error('not an invocation');
    const [entry] = body.invokeHostFunctionOp.auth;
    expect(entry!.credentials.type).toBe(ENTRIES[kind].credentials.type); // the type prepare returned, kept
    // the payload: legacy names no address; V2 and delegates name the entry's address (CAP-71)
    const payload = hash(buildAuthorizationEntryPreimage(entry!, 500, PASS).toXdr());
    expect(owner.verify(payload, signatureOf(entry!, 'root'))).toBe(true);
    if (kind === 'addressWithDelegates') expect(delegate.verify(payload, signatureOf(entry!, 'delegate'))).toBe(true);
    expect(authEntries(signed).every((e) => e.signers.every((s) => s.signed))).toBe(true);
    // the relayer signs last: the envelope of the authorized transaction, not of the prepared one
    expect(TransactionBuilder.fromXdr(signed, PASS).signatures).toEqual([]);
  });

  it('refuses to sign a transaction that carries no entry for the address', async () => {
    await expect(
      authorizeEntries(prepared(ENTRIES.addressV2), PASS, {
        address: relayer.publicKey(),
        signer: relayer,
        validUntilLedger: 500,
      }),
    ).rejects.toThrow(`the transaction carries no authorization entry for ${relayer.publicKey()}`);
    const plain = new TransactionBuilder(new Account(relayer.publicKey(), '7'), { fee: '100', networkPassphrase: PASS })
      .addOperation(new Contract(vault).call('revoke_vault'))
      .setTimeout(300)
      .build()
      .toXdr();
    expect(authEntries(plain)).toEqual([]);
  });
});
