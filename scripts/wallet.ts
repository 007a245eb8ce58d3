// The wallet's side of signing, shared by `npm run demo` and the conformance flow (property-tests/http):
// it signs only for the network it expects, signs a web-auth challenge only when it is one for its account,
// and signs credential proofs with the account's key.
import { Keypair, Transaction, TransactionBuilder, WebAuth } from '@stellar/stellar-sdk';
import {
  authEntries,
  authorizeEntries,
  type CredentialType,
  type ProofSigner,
  type Signer,
} from '../src/client/index.ts';

/** The wallet: signs only for the network it expects. */
export function walletSigner(kp: Keypair, expectedPassphrase: string): Signer {
  return (txXdr, passphrase) => {
    if (passphrase !== expectedPassphrase)
      throw new Error(`refusing to sign for network "${passphrase}" (expected "${expectedPassphrase}")`);
    const tx = TransactionBuilder.fromXdr(txXdr, passphrase);
    tx.sign(kp);
    return tx.toXdr();
  };
}

/** The wallet's side of the web-auth challenge: check it is a valid challenge for this account, then sign. */
export function challengeSigner(kp: Keypair): Signer {
  return (challenge, passphrase) => {
    const tx = TransactionBuilder.fromXdr(challenge, passphrase) as Transaction;
    const first = tx.operations[0];
    const webAuth = tx.operations.find((op) => op.type === 'manageData' && op.name === 'web_auth_domain');
    if (!first || first.type !== 'manageData' || !first.name.endsWith(' auth'))
      throw new Error('not a web-auth challenge');
    const homeDomain = first.name.slice(0, -' auth'.length);
    const webAuthDomain =
      webAuth && webAuth.type === 'manageData' && webAuth.value ? Buffer.from(webAuth.value).toString() : homeDomain;
    const read = WebAuth.readChallengeTx(challenge, tx.source, passphrase, homeDomain, webAuthDomain);
    if (read.clientAccountID !== kp.publicKey())
      throw new Error(`the challenge is for ${read.clientAccountID}, not ${kp.publicKey()}`);
    tx.sign(kp);
    return tx.toXdr();
  };
}

/**
 * The wallet's side of a credential proof (Data Integrity eddsa-jcs-2022): it signs the 64 bytes the proof
 * covers with the account's Ed25519 key, which the issuer's DID lists as its assertion key. The key never
 * leaves the wallet.
 */
export function credentialSigner(kp: Keypair): ProofSigner {
  return (data) => new Uint8Array(kp.sign(Buffer.from(data)));
}

/**
 * A relayed write's two wallets: `authorizer` signs the transaction's authorization entries for its address
 * with SDK 17's authorizeEntry (whatever credential type prepare recorded: ADDRESS_V2 from a Protocol 27 or 28
 * network when the simulation asked for useUpgradedAuth, as the service does, else legacy ADDRESS), valid until
 * `validUntilLedger()`; then `relayer`, the source, signs the envelope and pays. `seen` receives the credential
 * types of the entries the authorizer signed, as prepare returned them.
 */
export function relayedSigner(o: {
  authorizer: Keypair;
  relayer: Keypair;
  expectedPassphrase: string;
  validUntilLedger: () => Promise<number>;
  seen?: (types: CredentialType[]) => void;
}): Signer {
  const envelope = walletSigner(o.relayer, o.expectedPassphrase);
  return async (txXdr, passphrase) => {
    if (passphrase !== o.expectedPassphrase)
      throw new Error(`refusing to sign for network "${passphrase}" (expected "${o.expectedPassphrase}")`);
    const mine = authEntries(txXdr).filter((e) => e.signers.some((s) => s.address === o.authorizer.publicKey()));
    o.seen?.(mine.map((e) => e.credentialType));
    const authorized = await authorizeEntries(txXdr, passphrase, {
      address: o.authorizer.publicKey(),
      signer: o.authorizer,
      validUntilLedger: await o.validUntilLedger(),
    });
    return envelope(authorized, passphrase);
  };
}
