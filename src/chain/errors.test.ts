import { describe, expect, it } from 'vitest';
import { ChainError, contractErrorNumber, mapChainFailure, type ContractKind } from './errors.ts';

const sim = (n: number) =>
  `HostError: Error(Contract, #${n})\n\nEvent log (newest first):\n   0: [Diagnostic Event] ...`;

describe.each<{ contract: ContractKind; n: number; code: string; status: number }>([
  { contract: 'vault', n: 4, code: 'vault_revoked', status: 409 },
  { contract: 'vault', n: 6, code: 'vc_not_found', status: 404 },
  { contract: 'vault', n: 7, code: 'vc_already_revoked', status: 409 },
  { contract: 'vault', n: 10, code: 'tx_operation_mismatch', status: 400 },
  { contract: 'vault', n: 12, code: 'vc_already_exists', status: 409 },
  { contract: 'vault', n: 16, code: 'limit_too_large', status: 400 },
  { contract: 'vault', n: 17, code: 'batch_too_large', status: 400 },
  { contract: 'vault', n: 18, code: 'batch_too_large', status: 400 },
  { contract: 'vault', n: 19, code: 'input_too_long', status: 400 },
  { contract: 'vault', n: 20, code: 'issuer_list_too_long', status: 400 },
  { contract: 'vault', n: 24, code: 'source_not_a_vault', status: 400 },
  { contract: 'vault', n: 25, code: 'issuer_denied', status: 403 },
  { contract: 'vault', n: 26, code: 'push_owner_mismatch', status: 400 },
  { contract: 'vault', n: 8, code: 'tx_failed', status: 400 },
  { contract: 'vault', n: 15, code: 'tx_failed', status: 400 },
  { contract: 'registry', n: 1, code: 'did_already_exists', status: 409 },
  { contract: 'registry', n: 2, code: 'did_not_found', status: 404 },
  { contract: 'registry', n: 3, code: 'version_mismatch', status: 409 },
  { contract: 'registry', n: 4, code: 'did_deactivated', status: 409 },
  { contract: 'registry', n: 5, code: 'key_count_invalid', status: 400 },
  { contract: 'registry', n: 8, code: 'key_count_invalid', status: 400 },
  { contract: 'registry', n: 9, code: 'duplicate_key', status: 400 },
  { contract: 'registry', n: 10, code: 'key_invalid', status: 400 },
  { contract: 'registry', n: 11, code: 'key_invalid', status: 400 },
  { contract: 'registry', n: 12, code: 'service_invalid', status: 400 },
  { contract: 'registry', n: 15, code: 'service_invalid', status: 400 },
  { contract: 'registry', n: 16, code: 'url_not_https', status: 400 },
  { contract: 'registry', n: 18, code: 'service_invalid', status: 400 },
  { contract: 'registry', n: 20, code: 'metadata_inconsistent', status: 400 },
  { contract: 'registry', n: 21, code: 'service_invalid', status: 400 },
  { contract: 'registry', n: 17, code: 'tx_submission_failed', status: 400 },
  { contract: 'registry', n: 19, code: 'tx_submission_failed', status: 400 },
  { contract: 'factory', n: 2, code: 'fee_invalid', status: 400 },
  { contract: 'factory', n: 4, code: 'fee_invalid', status: 400 },
  { contract: 'factory', n: 6, code: 'expiresAt_in_past', status: 400 },
  { contract: 'factory', n: 1, code: 'tx_failed', status: 400 },
])('$contract error #$n', ({ contract, n, code, status }) => {
  it(`→ ${code} ${status}, chain's words kept`, () => {
    const e = mapChainFailure({ contract, text: sim(n) });
    expect(e).toBeInstanceOf(ChainError);
    expect([e.code, e.status]).toEqual([code, status]);
    expect(e.message).toContain(`Error(Contract, #${n})`);
    expect(e.chainMessage).toContain('Event log');
  });
  it('uses a structured code when the text has none', () => {
    const e = mapChainFailure({
      contract,
      text: 'transaction failed: txFailed/invokeHostFunctionTrapped',
      contractCode: n,
    });
    expect(e.code).toBe(code);
  });
});

describe.each<{ given: string; contract: ContractKind; code: string; status: number; words: string }>([
  {
    given: 'HostError: Error(Storage, ExistingValue)\n contract already exists',
    contract: 'factory',
    code: 'vault_already_deployed',
    status: 409,
    words: 'contract already exists',
  },
  {
    given: 'vault already deployed at CABC',
    contract: 'factory',
    code: 'vault_already_deployed',
    status: 409,
    words: 'already deployed',
  },
  // A fee-token failure carries the token's number (#13), which must not read as a vault error.
  {
    given: 'HostError: Error(Contract, #13)\n"trustline entry is missing for account" GABC',
    contract: 'vault',
    code: 'trustline_missing',
    status: 400,
    words: 'trustline entry is missing for account',
  },
  {
    given: 'HostError: Error(Contract, #10)\nbalance is not sufficient to spend: 0 < 10000000',
    contract: 'vault',
    code: 'insufficient_balance',
    status: 400,
    words: 'balance is not sufficient',
  },
  {
    given:
      'HostError: Error(Contract, #13)\n\nEvent log (newest first):\n   0: [Diagnostic Event] contract:CABC, topics:[error, Error(Contract, #13)], data:["trustline entry is missing for account", GDEF]',
    contract: 'vault',
    code: 'trustline_missing',
    status: 400,
    words: 'trustline entry is missing for account GDEF',
  },
  {
    given: 'HostError: Error(Auth, InvalidAction)',
    contract: 'vault',
    code: 'tx_failed',
    status: 400,
    words: 'Error(Auth, InvalidAction)',
  },
  {
    given: 'HostError: Error(Auth, InvalidAction)',
    contract: 'registry',
    code: 'tx_submission_failed',
    status: 400,
    words: 'Error(Auth',
  },
  { given: 'transaction rejected: txBadSeq', contract: 'vault', code: 'tx_failed', status: 400, words: 'txBadSeq' },
])('host failure $code ($contract)', ({ given, contract, code, status, words }) => {
  it('maps by the chain words', () => {
    const e = mapChainFailure({ contract, text: given, txId: 'ab'.repeat(32) });
    expect([e.code, e.status]).toEqual([code, status]);
    expect(e.message).toContain(words);
    expect(e.txId).toBe('ab'.repeat(32));
  });
});

describe('contractErrorNumber', () => {
  it.each([
    { given: 'HostError: Error(Contract, #25)', want: 25 },
    { given: 'Error(Contract, #6) then Error(Contract, #4)', want: 6 },
    { given: 'Error(Auth, InvalidAction)', want: undefined },
  ])('$given → $want', ({ given, want }) => expect(contractErrorNumber(given)).toBe(want));
});

describe('an expired transaction', () => {
  it.each<ContractKind>(['vault', 'registry', 'factory'])(
    'txTooLate from %s → 400 tx_expired, saying to prepare again',
    (contract) => {
      const e = mapChainFailure({ contract, text: 'transaction rejected: txTooLate', txId: 'ab'.repeat(32) });
      expect([e.code, e.status]).toEqual(['tx_expired', 400]);
      expect(e.message).toBe(
        'the prepared transaction expired (it is valid for 5 minutes after prepare); prepare again, sign and submit (txTooLate)',
      );
    },
  );
});
