import { describe, expect, it } from 'vitest';
import { Keypair, StrKey } from '@stellar/stellar-sdk';
import { address, bool, i128, struct, unit } from './codec.ts';
import { decodeFeeQuote } from './factory.ts';

const G = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 1)).publicKey();
const C = StrKey.encodeContract(Buffer.alloc(32, 2));

describe('decodeFeeQuote', () => {
  it.each([
    {
      name: 'disabled',
      given: struct({ enabled: bool(false), amount: i128(0), token: unit(), dest: unit() }),
      want: { enabled: false, amount: 0n },
    },
    {
      name: 'enabled',
      given: struct({ enabled: bool(true), amount: i128(50_000_000n), token: address(C), dest: address(G) }),
      want: { enabled: true, amount: 50_000_000n, token: C, dest: G },
    },
  ])('$name', ({ given, want }) => expect(decodeFeeQuote(given)).toEqual(want));
});
