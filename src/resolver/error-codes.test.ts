// fromChainError: the registry's coded failures keep their code and status (spec ErrorCode / x-error-codes).
import { describe, expect, it } from 'vitest';
import { ChainError, mapChainFailure } from '../chain/index.ts';
import { chainUnavailable } from '../chain/errors.ts';
import { errorHandler } from './error-codes.ts';
import { fromChainError } from './routes/shared.ts';

describe('fromChainError', () => {
  it('a stale footprint is 409 tx_stale, not tx_submission_failed', () => {
    const chain = mapChainFailure({
      contract: 'registry',
      text: 'HostError: trying to access contract data outside of the footprint',
      txId: 'ab',
    });
    expect(chain.code).toBe('tx_stale');
    const e = fromChainError(chain, 'testnet');
    expect({ status: e.status, code: e.code, details: e.details }).toEqual({
      status: 409,
      code: 'tx_stale',
      details: { txId: 'ab' },
    });
  });

  it('a registry contract error keeps its code with the contract number', () => {
    const e = fromChainError(
      mapChainFailure({ contract: 'registry', text: 'HostError: Error(Contract, #3)' }),
      'testnet',
    );
    expect({ status: e.status, code: e.code, details: e.details }).toEqual({
      status: 409,
      code: 'version_mismatch',
      details: { contractError: 3 },
    });
  });

  it('an unmapped failure is tx_submission_failed with the chain text', () => {
    const e = fromChainError(
      new ChainError('tx_submission_failed', 400, 'transaction failed: txFAILED', 'transaction failed: txFAILED'),
      'testnet',
    );
    expect(e.code).toBe('tx_submission_failed');
    expect(e.details).toMatchObject({ status: 'FAILED', resultCode: 'txFAILED' });
  });
});

describe('an RPC failure that reaches the error handler unmapped', () => {
  it('names the network whose RPC failed (the chain client puts it on the error)', () => {
    let sent: { status?: number; body?: { code: string; message: string } } = {};
    const res = {
      headersSent: false,
      locals: {},
      set: () => res,
      setHeader: () => res,
      getHeader: () => undefined,
      status(code: number) {
        sent.status = code;
        return res;
      },
      json(body: { code: string; message: string }) {
        sent.body = body;
        return res;
      },
      type: () => res,
      send: (body: string) => void (sent.body = JSON.parse(body)),
      end: () => res,
    };
    const handle = errorHandler({});
    const req = { path: '/v1/x', method: 'GET', headers: {} } as never;
    const refused = chainUnavailable(new Error('connect ECONNREFUSED 127.0.0.1:9'), 'mainnet');
    handle(refused, req, res as never, () => undefined);
    expect(sent.status).toBe(502);
    const message = 'mainnet RPC unreachable: connect ECONNREFUSED 127.0.0.1:9';
    expect(sent.body).toMatchObject({ code: 'ledger_unavailable', message });
    sent = {};
    handle(chainUnavailable(new Error('boom')), req, res as never, () => undefined);
    expect(sent.body?.message).toBe('the ledger RPC unreachable: boom');
    sent = {};
    const where = 'http://rpc.example/testnet (setting CV_TESTNET_RPC_URL / --testnet-rpc-url)';
    handle(
      chainUnavailable(new Error('Request failed with status code 404'), 'testnet', where),
      req,
      res as never,
      () => undefined,
    );
    expect(sent.body?.message).toBe(`testnet RPC unreachable at ${where}: HTTP 404`);
  });
});
