// Signing as a wallet does, with node's crypto: transaction envelopes and Soroban authorization entries (the
// in-process `invoke` and the friendbot sign their own transactions).
import { type Keypair, xdr } from '@stellar/stellar-sdk';
import { addressCredentialsOf, authPreimage } from './auth.ts';
import { txHash } from './check.ts';
import { sha256 } from './crypto.ts';
import type { SimCodec } from './entries.ts';

/** Signs a transaction envelope with node's crypto (the same bytes as Keypair.sign). */
export function signEnvelope(
  codec: SimCodec,
  tx: xdr.Transaction,
  kp: Keypair,
  networkId: Buffer,
): xdr.TransactionEnvelope {
  const hash = txHash(codec, tx, networkId);
  return xdr.TransactionEnvelope.envelopeTypeTx(
    new xdr.TransactionV1Envelope({
      tx,
      signatures: [
        new xdr.DecoratedSignature({ hint: kp.rawPublicKey().subarray(28), signature: codec.signEd25519(kp, hash) }),
      ],
    }),
  );
}

/** The address-credential auth entry signed by `kp` (the SDK's `authorizeEntry` format: the payload of the entry's
 *  credential type, legacy or address-bound); the root invocation object is shared with `entry`. Delegates are
 *  kept as they are. */
export function signAuthEntry(
  codec: SimCodec,
  entry: xdr.SorobanAuthorizationEntry,
  kp: Keypair,
  networkId: Buffer,
  expiration: number,
): xdr.SorobanAuthorizationEntry {
  const c = addressCredentialsOf(entry.credentials);
  if (!c) throw new Error(`cannot sign ${entry.credentials.type} credentials`);
  const creds = c.creds;
  const payload = { nonce: creds.nonce, signatureExpirationLedger: expiration, address: creds.address };
  const preimage = authPreimage(c.type, networkId, payload, entry.rootInvocation);
  const signature = codec.signEd25519(kp, sha256(preimage.toXdr()));
  const signed = new xdr.SorobanAddressCredentials({
    address: creds.address,
    nonce: creds.nonce,
    signatureExpirationLedger: expiration,
    signature: xdr.ScVal.scvVec([
      xdr.ScVal.scvMap([
        new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol('public_key'), val: xdr.ScVal.scvBytes(kp.rawPublicKey()) }),
        new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol('signature'), val: xdr.ScVal.scvBytes(signature) }),
      ]),
    ]),
  });
  const credentials =
    c.type === 'sorobanCredentialsAddress'
      ? xdr.SorobanCredentials.sorobanCredentialsAddress(signed)
      : c.type === 'sorobanCredentialsAddressV2'
        ? xdr.SorobanCredentials.sorobanCredentialsAddressV2(signed)
        : xdr.SorobanCredentials.sorobanCredentialsAddressWithDelegates(
            new xdr.SorobanAddressCredentialsWithDelegates({ addressCredentials: signed, delegates: [...c.delegates] }),
          );
  return new xdr.SorobanAuthorizationEntry({ credentials, rootInvocation: entry.rootInvocation });
}
