import { describe, expect, it } from 'vitest';
import { issuerOf, sameCredential, validityProblem } from './verification.ts';

const NOW = new Date('2026-11-24T10:00:00Z');

describe('validityProblem', () => {
  it.each([
    { given: {}, want: undefined },
    { given: { validFrom: '2026-01-01T00:00:00Z', validUntil: '2027-01-01T00:00:00Z' }, want: undefined },
    { given: { validFrom: '2026-12-01T00:00:00Z' }, want: 'not_yet_valid' },
    { given: { validUntil: '2026-11-24T09:59:59Z' }, want: 'expired' },
    { given: { issuanceDate: '2027-01-01T00:00:00Z' }, want: 'not_yet_valid' },
    { given: { expirationDate: '2020-01-01T00:00:00Z' }, want: 'expired' },
    { given: { validFrom: 'yesterday' }, want: 'invalid_date' },
    { given: { validUntil: 42 }, want: 'invalid_date' },
  ])('$given → $want', ({ given, want }) => {
    expect(validityProblem(given, NOW)?.reason).toBe(want);
  });
});

describe('issuerOf and sameCredential', () => {
  it.each([
    { given: { issuer: 'did:ledger:testnet:x' }, want: 'did:ledger:testnet:x' },
    { given: { issuer: { id: 'did:ledger:testnet:y', name: 'Uni' } }, want: 'did:ledger:testnet:y' },
    { given: { issuer: { name: 'no id' } }, want: undefined },
    { given: {}, want: undefined },
  ])('issuerOf($given) → $want', ({ given, want }) => {
    expect(issuerOf(given)).toBe(want);
  });

  it('compares credentials by their canonical JSON, not key order', () => {
    expect(sameCredential({ a: 1, b: [1, 2] }, { b: [1, 2], a: 1 })).toBe(true);
    expect(sameCredential({ a: 1 }, { a: 2 })).toBe(false);
  });
});
