// The three kinds of wallet the write helpers accept (Keypair, browser wallet, callback), on a real
// transaction: who signed it, for which network, and what a declined or empty wallet answer does.
import { Account, Keypair, Networks, Operation, TransactionBuilder, WebAuth } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { browserWalletSigner, keypairSigner, toSigner, type BrowserWallet } from './index.ts';

const PASSPHRASE = Networks.TESTNET;
const source = Keypair.random();

function unsignedXdr(passphrase = PASSPHRASE): string {
  return new TransactionBuilder(new Account(source.publicKey(), '1'), { fee: '100', networkPassphrase: passphrase })
    .addOperation(Operation.bumpSequence({ bumpTo: '2' }))
    .setTimeout(300)
    .build()
    .toXDR();
}

const signedBy = (xdr: string, account: string, passphrase = PASSPHRASE) =>
  WebAuth.verifyTxSignedBy(TransactionBuilder.fromXDR(xdr, passphrase), account);

/** A wallet in Freighter's shape holding `keypair`, answering as `answer` says. */
function browserWallet(
  keypair: Keypair,
  answer: 'string' | 'object' = 'object',
): BrowserWallet & { calls: { networkPassphrase: string }[] } {
  const calls: { networkPassphrase: string }[] = [];
  return {
    calls,
    async signTransaction(xdr, opts) {
      calls.push(opts);
      const tx = TransactionBuilder.fromXDR(xdr, opts.networkPassphrase);
      tx.sign(keypair);
      return answer === 'string' ? tx.toXDR() : { signedTxXdr: tx.toXDR() };
    },
  };
}

describe('toSigner', () => {
  it('signs with a Keypair for the passphrase it is given', async () => {
    const signed = await toSigner(source)(unsignedXdr(), PASSPHRASE);
    expect(signedBy(signed, source.publicKey())).toBe(true);
    // The signature is over the network's hash: under another passphrase it does not verify.
    expect(signedBy(signed, source.publicKey(), Networks.PUBLIC)).toBe(false);
  });

  it('hands the passphrase to a browser wallet and takes its {signedTxXdr} or its string', async () => {
    for (const answer of ['object', 'string'] as const) {
      const wallet = browserWallet(source, answer);
      const signed = await toSigner(wallet)(unsignedXdr(), PASSPHRASE);
      expect(wallet.calls).toEqual([{ networkPassphrase: PASSPHRASE }]);
      expect(signedBy(signed, source.publicKey())).toBe(true);
    }
  });

  it('passes a callback through unchanged', () => {
    const callback = (xdr: string, passphrase: string) => `${xdr}|${passphrase}`;
    expect(toSigner(callback)).toBe(callback);
  });

  it('throws when the browser wallet declines or answers nothing', async () => {
    const declined: BrowserWallet = {
      signTransaction: async () => ({ signedTxXdr: '', error: { message: 'User declined access' } }),
    };
    await expect(browserWalletSigner(declined)(unsignedXdr(), PASSPHRASE)).rejects.toThrow(
      /did not sign: User declined access/,
    );
    const empty: BrowserWallet = { signTransaction: async () => ({ signedTxXdr: '' }) };
    await expect(browserWalletSigner(empty)(unsignedXdr(), PASSPHRASE)).rejects.toThrow(/without a signed transaction/);
    const blank: BrowserWallet = { signTransaction: async () => '' };
    await expect(browserWalletSigner(blank)(unsignedXdr(), PASSPHRASE)).rejects.toThrow(/without a signed transaction/);
  });
});

describe('keypairSigner', () => {
  it('refuses to sign for a network other than the expected one', () => {
    const sign = keypairSigner(source, PASSPHRASE);
    expect(() => sign(unsignedXdr(Networks.PUBLIC), Networks.PUBLIC)).toThrow(/refusing to sign for network/);
    expect(signedBy(sign(unsignedXdr(), PASSPHRASE) as string, source.publicKey())).toBe(true);
  });
});
