// Address codecs: the conversions answer exactly what the SDK does.
import { describe, expect, it } from 'vitest';
import { Address, Keypair, StrKey, xdr } from '@stellar/stellar-sdk';
import { CodecError, address, toAddress } from './codec.ts';

const account = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 1)).publicKey();
const contract = StrKey.encodeContract(Buffer.alloc(32, 2));

describe('address / toAddress', () => {
  it.each([
    { kind: 'account', a: account },
    { kind: 'contract', a: contract },
  ])('$kind: same XDR as the SDK, and back, every time', ({ a }) => {
    const want = new Address(a).toScVal().toXdr('base64');
    expect(address(a).toXdr('base64')).toBe(want);
    expect(address(a).toXdr('base64')).toBe(want);
    const fresh = xdr.ScVal.fromXdr(want, 'base64');
    expect([toAddress(fresh), toAddress(fresh), toAddress(address(a))]).toEqual([a, a, a]);
  });

  it('an invalid address throws every time', () => {
    for (let i = 0; i < 2; i++) {
      expect(() => address('GNOPE')).toThrow();
      expect(() => address(`${account.slice(0, -1)}A`)).toThrow();
    }
  });

  it('toAddress of a non-address is a CodecError', () => {
    expect(() => toAddress(xdr.ScVal.scvU32(1))).toThrow(CodecError);
  });

  it('other address kinds go through the SDK (a muxed account)', () => {
    const muxed = StrKey.encodeMed25519PublicKey(Buffer.concat([Buffer.alloc(32, 1), Buffer.alloc(8, 0)]));
    expect(toAddress(address(muxed))).toBe(Address.fromString(muxed).toString());
  });
});
