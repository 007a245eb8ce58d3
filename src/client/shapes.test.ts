import { describe, expect, it } from 'vitest';
import { preparedOf, signingPassphrase, transactionId } from './shapes.ts';

const PASS = 'Credential Vault Simulator Testnet ; 2026';

describe('signingPassphrase', () => {
  it.each([
    { given: { xdr: 'AAAA', network: PASS, networkPassphrase: PASS }, want: PASS, what: 'vault API with the alias' },
    { given: { xdr: 'AAAA', network: PASS }, want: PASS, what: 'vault API before the alias' },
    { given: { xdr: 'AAAA', network: 'testnet', networkPassphrase: PASS }, want: PASS, what: 'resolver' },
  ])('$what', ({ given, want }) => {
    expect(signingPassphrase(given)).toBe(want);
  });

  it.each([{ xdr: 'AAAA' }, { xdr: 'AAAA', network: 'testnet' }, { xdr: 'AAAA', network: '', networkPassphrase: '' }])(
    'refuses an answer without a passphrase: %j',
    (given) => {
      expect(() => signingPassphrase(given)).toThrow(/no network passphrase/);
    },
  );
});

describe('transactionId and preparedOf', () => {
  const hash = 'f'.repeat(64);
  it.each([
    { given: { txId: hash }, want: hash },
    { given: { tx_id: hash }, want: hash },
    { given: { tx_id: hash, txId: hash }, want: hash },
    { given: { xdr: 'AAAA' }, want: undefined },
    { given: null, want: undefined },
    { given: { txId: 7 }, want: undefined },
  ])('transactionId($given) is $want', ({ given, want }) => {
    expect(transactionId(given)).toBe(want);
  });

  it('recognises a prepare answer by its xdr', () => {
    expect(preparedOf({ xdr: 'AAAA', network: PASS })).toEqual({ xdr: 'AAAA', network: PASS });
    expect(preparedOf({ txId: 'x' })).toBeUndefined();
    expect(preparedOf([])).toBeUndefined();
  });
});
