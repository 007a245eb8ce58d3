// What may sign a prepared transaction: a Keypair held by the program, a browser wallet (Freighter,
// Stellar Wallets Kit: `signTransaction(xdr, {networkPassphrase})`), or a plain signer callback. Every
// prepare → sign → submit helper takes any of the three and turns it into one Signer here.
import { TransactionBuilder, type Keypair } from '@stellar/stellar-sdk';

/**
 * Signs a transaction the way a wallet does: base64 XDR in, signed base64 XDR out, for the given network
 * passphrase. The services never hold keys; this is where the user's key lives.
 */
export type Signer = (xdr: string, networkPassphrase: string) => string | Promise<string>;

/**
 * A browser wallet's signing call, the shape `@stellar/freighter-api` and Stellar Wallets Kit export:
 * answers the signed XDR, or `{signedTxXdr}` (with `error` set when the user declined).
 */
export interface BrowserWallet {
  signTransaction(
    xdr: string,
    opts: { networkPassphrase: string },
  ): Promise<string | { signedTxXdr: string; error?: unknown }>;
}

/** Anything the write helpers can sign with. */
export type Wallet = Signer | Keypair | BrowserWallet;

/** A Signer over a Keypair; with `expectedPassphrase`, it refuses to sign for any other network. */
export function keypairSigner(keypair: Keypair, expectedPassphrase?: string): Signer {
  return (xdr, networkPassphrase) => {
    if (expectedPassphrase !== undefined && networkPassphrase !== expectedPassphrase) {
      throw new Error(`refusing to sign for network "${networkPassphrase}" (expected "${expectedPassphrase}")`);
    }
    const tx = TransactionBuilder.fromXDR(xdr, networkPassphrase);
    tx.sign(keypair);
    return tx.toXDR();
  };
}

const errorText = (error: unknown): string =>
  typeof error === 'string'
    ? error
    : typeof error === 'object' && error !== null && 'message' in error
      ? String(error.message)
      : JSON.stringify(error);

/** A Signer over a browser wallet; a declined or empty answer throws. */
export function browserWalletSigner(wallet: BrowserWallet): Signer {
  return async (xdr, networkPassphrase) => {
    const answer = await wallet.signTransaction(xdr, { networkPassphrase });
    if (typeof answer === 'string' && answer) return answer;
    if (typeof answer === 'object' && answer !== null) {
      if (answer.error !== undefined && answer.error !== null)
        throw new Error(`the wallet did not sign: ${errorText(answer.error)}`);
      if (typeof answer.signedTxXdr === 'string' && answer.signedTxXdr) return answer.signedTxXdr;
    }
    throw new Error('the wallet answered without a signed transaction');
  };
}

/** The Signer a Wallet stands for: callbacks as they are, browser wallets and Keypairs wrapped. */
export function toSigner(wallet: Wallet): Signer {
  if (typeof wallet === 'function') return wallet;
  if ('signTransaction' in wallet && typeof wallet.signTransaction === 'function') return browserWalletSigner(wallet);
  return keypairSigner(wallet as Keypair);
}
