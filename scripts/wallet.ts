// The wallet's side of signing, shared by `npm run demo` and the conformance flow (property-tests/http):
// it signs only for the network it expects, signs a web-auth challenge only when it is one for its account,
// and signs credential proofs with the account's key.
import { Keypair, Transaction, TransactionBuilder, WebAuth } from '@stellar/stellar-sdk';
import type { ProofSigner, Signer } from '../src/client/index.ts';

/** The wallet: signs only for the network it expects. */
export function walletSigner(kp: Keypair, expectedPassphrase: string): Signer {
  return (txXdr, passphrase) => {
    if (passphrase !== expectedPassphrase) throw new Error(`refusing to sign for network "${passphrase}" (expected "${expectedPassphrase}")`);
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
    if (!first || first.type !== 'manageData' || !first.name.endsWith(' auth')) throw new Error('not a web-auth challenge');
    const homeDomain = first.name.slice(0, -' auth'.length);
    const webAuthDomain = webAuth && webAuth.type === 'manageData' && webAuth.value ? Buffer.from(webAuth.value).toString() : homeDomain;
    const read = WebAuth.readChallengeTx(challenge, tx.source, passphrase, homeDomain, webAuthDomain);
    if (read.clientAccountID !== kp.publicKey()) throw new Error(`the challenge is for ${read.clientAccountID}, not ${kp.publicKey()}`);
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
