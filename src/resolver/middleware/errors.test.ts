// fromChainError: the registry's coded failures keep their code and status (spec ErrorCode / x-error-codes).
import { describe, expect, it } from 'vitest';
import { ChainError, mapChainFailure } from '../../chain/index.ts';
import { fromChainError } from './errors.ts';

describe('fromChainError', () => {
  it('a stale footprint is 409 tx_stale, not tx_submission_failed', () => {
    const chain = mapChainFailure({ contract: 'registry', text: 'HostError: trying to access contract data outside of the footprint', txId: 'ab' });
    expect(chain.code).toBe('tx_stale');
    const e = fromChainError(chain, 'testnet');
    expect({ status: e.status, code: e.code, details: e.details }).toEqual({ status: 409, code: 'tx_stale', details: { txId: 'ab' } });
  });

  it('a registry contract error keeps its code with the contract number', () => {
    const e = fromChainError(mapChainFailure({ contract: 'registry', text: 'HostError: Error(Contract, #3)' }), 'testnet');
    expect({ status: e.status, code: e.code, details: e.details }).toEqual({ status: 409, code: 'version_mismatch', details: { contractError: 3 } });
  });

  it('an unmapped failure is tx_submission_failed with the chain text', () => {
    const e = fromChainError(new ChainError('tx_submission_failed', 400, 'transaction failed: txFAILED', 'transaction failed: txFAILED'), 'testnet');
    expect(e.code).toBe('tx_submission_failed');
    expect(e.details).toMatchObject({ status: 'FAILED', resultCode: 'txFAILED' });
  });
});
