// txHash of an envelope received as XDR, taken from its bytes (hashFromEnvelopeXdr), is the hash of the decoded
// transaction encoded again, whatever the operations and signatures.
import { Account, Asset, Keypair, Memo, Networks, Operation, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { hashFromEnvelopeXdr, txHash } from './check.ts';
import { networkId } from './crypto.ts';
import { SimCodec } from './entries.ts';

describe('hashFromEnvelopeXdr', () => {
  it('equals txHash of the decoded transaction', () => {
    const id = networkId(Networks.TESTNET);
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }),
        fc.integer({ min: 0, max: 3 }),
        fc.string({ maxLength: 28 }),
        fc.bigInt({ min: 0n, max: 1n << 60n }),
        (ops, sigs, memo, seq) => {
          const src = Keypair.random();
          const b = new TransactionBuilder(new Account(src.publicKey(), seq.toString()), {
            fee: '100',
            networkPassphrase: Networks.TESTNET,
          }).setTimeout(60);
          for (let i = 0; i < ops; i++)
            b.addOperation(
              Operation.payment({
                destination: Keypair.random().publicKey(),
                asset: Asset.native(),
                amount: String(i + 1),
              }),
            );
          if (memo) b.addMemo(Memo.text(Buffer.from(memo).subarray(0, 28).toString('latin1')));
          const tx = b.build();
          for (let i = 0; i < sigs; i++) tx.sign(Keypair.random());
          const raw = tx.toEnvelope().toXdr();
          const env = xdr.TransactionEnvelope.fromXdr(raw);
          const codec = new SimCodec();
          const expected = txHash(
            new SimCodec(),
            xdr.expectUnionVariant(xdr.TransactionEnvelope.fromXdr(raw), 'envelopeTypeTx').v1.tx,
            id,
          );
          hashFromEnvelopeXdr(codec, env, Buffer.from(raw), id);
          expect(txHash(codec, xdr.expectUnionVariant(env, 'envelopeTypeTx').v1.tx, id).toString('hex')).toBe(
            expected.toString('hex'),
          );
          expect(expected.equals(tx.hash())).toBe(true);
        },
      ),
      { numRuns: 200 },
    );
  });
});
