// Base64 through Node's Buffer, held to the SDK's own codec: encoding gives the SDK's text for every length (its
// btoa works in 65,535-byte chunks), and simulateTransaction accepts exactly the envelope texts the SDK's decoder
// accepts (Node's decoder alone also takes characters outside the alphabet and text after the padding).
import { Account, Contract, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { addressToScVal } from '../host.ts';
import { xdrBase64 } from './crypto.ts';
import { COUNTER_HASH, clock, funded, testNetwork } from './testing.ts';

describe('xdrBase64', () => {
  it.each([0, 1, 2, 3, 4, 65_534, 65_535, 65_536, 65_537, 131_071, 200_000])('%i bytes: the SDK’s text', (n) => {
    const v = xdr.ScVal.scvBytes(Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + n) & 0xff)));
    expect(xdrBase64(v)).toBe(v.toXdr('base64'));
  });
});

/** A simulable call (counter.get) as base64 text. */
function setup() {
  const net = testNetwork({ now: clock().now });
  const owner = funded(net);
  const payer = funded(net);
  const counterId = net.deploy(COUNTER_HASH, Buffer.alloc(32, 3), [addressToScVal(owner.publicKey())]);
  const acc = new Account(payer.publicKey(), net.account(payer.publicKey())!.seqNum.toString());
  const tx = new TransactionBuilder(acc, { fee: '100', networkPassphrase: net.info.passphrase })
    .addOperation(new Contract(counterId).call('get'))
    .setTimebounds(0, net.ledger.nowSec() + 300)
    .build();
  return { net, b64: tx.toXDR() };
}

describe('simulateTransaction: the envelope texts the SDK decodes', () => {
  it.each([
    { given: 'canonical text', mangle: (b: string) => b, decodes: true },
    { given: 'the URL-safe alphabet', mangle: (b: string) => b.replace(/\+/g, '-').replace(/\//g, '_'), decodes: true },
    { given: 'no padding', mangle: (b: string) => b.replace(/=+$/, ''), decodes: true },
    { given: 'a space inside', mangle: (b: string) => `${b.slice(0, 8)} ${b.slice(8)}`, decodes: true },
    { given: '!!! after the text', mangle: (b: string) => `${b}!!!`, decodes: false },
    { given: 'a . inside', mangle: (b: string) => `${b.slice(0, 8)}.${b.slice(8)}`, decodes: false },
    { given: '=AA after the text', mangle: (b: string) => `${b}=AA`, decodes: false },
  ])('$given', async ({ mangle, decodes }) => {
    const { net, b64 } = setup();
    const text = mangle(b64);
    const sdk = (() => {
      try {
        xdr.TransactionEnvelope.fromXdr(text, 'base64');
        return true;
      } catch {
        return false;
      }
    })();
    expect(sdk).toBe(decodes);
    const answer = (await net.rpc('simulateTransaction', { transaction: text })) as { error?: string };
    if (decodes) expect(answer.error).toBeUndefined();
    else expect(answer.error).toBe('Could not unmarshal transaction');
  });
});
