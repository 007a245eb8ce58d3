import { describe, expect, it } from 'vitest';
import { StrKey } from '@stellar/stellar-sdk';
import { address, enumVariant, str, struct, sym, unit } from './codec.ts';
import { decodeStoredVc, decodeVcStatus } from './vault.ts';

const C = StrKey.encodeContract(Buffer.alloc(32, 2));

describe('decodeVcStatus', () => {
  it.each([
    { name: 'Valid', given: enumVariant('Valid'), want: { status: 'valid' } },
    { name: 'Invalid', given: enumVariant('Invalid'), want: { status: 'invalid' } },
    {
      name: 'Revoked(date)',
      given: enumVariant('Revoked', str('2026-01-02T03:04:05.000Z')),
      want: { status: 'revoked', since: '2026-01-02T03:04:05.000Z' },
    },
    {
      name: 'pre-0.4 Map{status, since}',
      given: struct({ status: sym('Revoked'), since: str('2025') }),
      want: { status: 'unknown' },
    },
    { name: 'Revoked without date', given: enumVariant('Revoked'), want: { status: 'unknown' } },
    { name: 'unknown variant', given: enumVariant('Suspended'), want: { status: 'unknown' } },
    { name: 'void', given: unit(), want: { status: 'unknown' } },
    { name: 'a string', given: str('valid'), want: { status: 'unknown' } },
  ])('$name', ({ given, want }) => expect(decodeVcStatus(given)).toEqual(want));
});

describe('decodeStoredVc', () => {
  it('None → undefined', () => expect(decodeStoredVc(unit())).toBeUndefined());
  it('Some(struct) → typed', () =>
    expect(
      decodeStoredVc(struct({ id: str('v'), data: str('c'), issuance_contract: address(C), issuer_did: str('did:x') })),
    ).toEqual({
      id: 'v',
      data: 'c',
      issuanceContract: C,
      issuerDid: 'did:x',
    }));
});
