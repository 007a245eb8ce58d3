// Base64 through Node's Buffer, held to the SDK's own codec: encoding gives the SDK's text for every length (its
// btoa works in 65,535-byte chunks), and simulateTransaction and sendTransaction accept exactly the envelope texts
// the SDK's decoder accepts (Node's decoder alone also takes characters outside the alphabet and text after the
// padding), and what the simulator answers back is the envelope's own base64, never the text as sent.
import { Account, Asset, Contract, Operation, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
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

describe('sendTransaction: the envelope texts the SDK decodes', () => {
  /** A signed payment to self, as base64 text. */
  function payment() {
    const net = testNetwork({ now: clock().now });
    const a = funded(net);
    const acc = new Account(a.publicKey(), net.account(a.publicKey())!.seqNum.toString());
    const tx = new TransactionBuilder(acc, { fee: '100', networkPassphrase: net.info.passphrase })
      .addOperation(Operation.payment({ destination: a.publicKey(), asset: Asset.native(), amount: '1' }))
      .setTimebounds(0, net.ledger.nowSec() + 300)
      .build();
    tx.sign(a);
    return { net, b64: tx.toXDR() };
  }

  it.each([
    { given: '!!! after the text', mangle: (b: string) => `${b}!!!` },
    { given: '=AA after the text', mangle: (b: string) => `${b}=AA` },
  ])('$given: -32602 invalid_xdr, as the SDK refuses it', async ({ mangle }) => {
    const { net, b64 } = payment();
    await expect(net.rpc('sendTransaction', { transaction: mangle(b64) })).rejects.toMatchObject({
      code: -32602,
      message: 'invalid_xdr',
    });
  });

  it('a space inside: applied, and answered back as the envelope’s own base64', async () => {
    const { net, b64 } = payment();
    const sent = (await net.rpc('sendTransaction', { transaction: `${b64.slice(0, 8)} ${b64.slice(8)}` })) as {
      hash: string;
      latestLedger: number;
    };
    const got = (await net.rpc('getTransaction', { hash: sent.hash })) as { status: string; envelopeXdr: string };
    expect([got.status, got.envelopeXdr]).toEqual(['SUCCESS', b64]);
    const ledgers = (await net.rpc('getLedgers', { startLedger: sent.latestLedger - 1, pagination: { limit: 2 } })) as {
      ledgers: unknown[];
    };
    expect(ledgers.ledgers.length).toBeGreaterThan(0);
  });
});
