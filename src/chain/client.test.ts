// The client against a hand-made JSON-RPC stub: every failure path that a healthy simulator rarely produces.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Account,
  Address,
  Contract,
  Keypair,
  Networks,
  SorobanDataBuilder,
  StrKey,
  TransactionBuilder,
  xdr,
} from '@stellar/stellar-sdk';
import { createChainClient } from './client.ts';
import { readEvents } from './diagnostics.ts';
import { ChainError } from './errors.ts';
import { buildCall } from './fast-assemble.ts';
import { address, str, sym, toStr, toU32, u32, unit, vec } from './codec.ts';
import type { ChainClient, ChainClientOptions } from './types.ts';

const PASS = Networks.TESTNET;
const kp = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 1));
const vaultId = StrKey.encodeContract(Buffer.alloc(32, 7));
const registryId = StrKey.encodeContract(Buffer.alloc(32, 9));

type Handler = (params: unknown) => unknown;
let handlers: Record<string, Handler> = {};
const calls: string[] = [];
let server: Server;
let url: string;
let closedUrl: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      const { id, method, params } = JSON.parse(body) as { id: number; method: string; params: unknown };
      calls.push(method);
      const h = handlers[method];
      const reply = h
        ? { jsonrpc: '2.0', id, result: h(params) }
        : { jsonrpc: '2.0', id, error: { code: -32601, message: `no ${method}` } };
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(reply));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
  await new Promise<void>((r) => closed.close(() => r()));
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

function client(o: Partial<ChainClientOptions> = {}): ChainClient {
  return createChainClient({
    rpcUrl: url,
    networkPassphrase: PASS,
    network: 'testnet',
    simulationAccount: kp.publicKey(),
    allowHttp: true,
    timeouts: { rpcMs: 2_000, submitMs: 300, pollIntervalMs: 20 },
    contracts: { registryId },
    ...o,
  });
}

const accountEntry = (seq: string) => {
  const entry = xdr.LedgerEntryData.account(
    new xdr.AccountEntry({
      accountId: kp.xdrPublicKey(),
      balance: xdr.Int64.fromString('100000000000'),
      seqNum: xdr.Int64.fromString(seq),
      numSubEntries: 0,
      inflationDest: null,
      flags: 0,
      homeDomain: '',
      thresholds: Buffer.from([1, 0, 0, 0]),
      signers: [],
      ext: xdr.AccountEntryExt.v0(),
    }),
  );
  const key = xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: kp.xdrPublicKey() }));
  return {
    entries: [{ key: key.toXdr('base64'), xdr: entry.toXdr('base64'), lastModifiedLedgerSeq: 5 }],
    latestLedger: 10,
  };
};

function signedCall(fn = 'revoke_vault', contractId = vaultId, passphrase = PASS, sign = true, signer = kp): string {
  const tx = new TransactionBuilder(new Account(kp.publicKey(), '1'), { fee: '100', networkPassphrase: passphrase })
    .addOperation(new Contract(contractId).call(fn))
    .setTimeout(300)
    .build();
  if (sign) tx.sign(signer);
  return tx.toXdr();
}

async function failure(p: Promise<unknown>): Promise<ChainError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ChainError) return e;
    throw e;
  }
  throw new Error('expected a ChainError');
}

const ledgerInfo = {
  latestLedger: 10,
  latestLedgerCloseTime: '1700000000',
  oldestLedger: 1,
  oldestLedgerCloseTime: '1600000000',
};
const metaV4 = (o: { returnValue?: xdr.ScVal; diagnostics?: xdr.DiagnosticEvent[] }) =>
  xdr.TransactionMeta.v4(
    new xdr.TransactionMetaV4({
      ext: xdr.ExtensionPoint.v0(),
      txChangesBefore: [],
      operations: [],
      txChangesAfter: [],
      sorobanMeta: new xdr.SorobanTransactionMetaV2({
        ext: xdr.SorobanTransactionMetaExt.v0(),
        returnValue: o.returnValue ?? null,
      }),
      events: [],
      diagnosticEvents: o.diagnostics ?? [],
    }),
  ).toXdr('base64');
const txResult = (r: xdr.TransactionResultResult) =>
  new xdr.TransactionResult({
    feeCharged: xdr.Int64.fromString('100'),
    result: r,
    ext: xdr.TransactionResultExt.v0(),
  }).toXdr('base64');
const trapped = () =>
  xdr.TransactionResultResult.txFailed([
    xdr.OperationResult.opInner(
      xdr.OperationResultTr.invokeHostFunction(xdr.InvokeHostFunctionResult.invokeHostFunctionTrapped()),
    ),
  ]);
const errorEvent = (n: number, words: string) =>
  new xdr.DiagnosticEvent({
    inSuccessfulContractCall: false,
    event: new xdr.ContractEvent({
      ext: xdr.ExtensionPoint.v0(),
      contractId: null,
      type: xdr.ContractEventType.diagnostic,
      body: xdr.ContractEventBody.v0(
        new xdr.ContractEventV0({
          topics: [sym('error'), xdr.ScVal.scvError(xdr.ScError.sceContract(n))],
          data: str(words),
        }),
      ),
    }),
  });
const final = (status: 'SUCCESS' | 'FAILED', resultXdr: string, resultMetaXdr: string) => ({
  status,
  ...ledgerInfo,
  txHash: '',
  applicationOrder: 1,
  feeBump: false,
  ledger: 9,
  createdAt: 1700000000,
  envelopeXdr: signedCall(),
  resultXdr,
  resultMetaXdr,
});

describe('RPC down', () => {
  const down = () => client({ rpcUrl: closedUrl });
  it.each([
    {
      name: 'prepare',
      run: (c: ChainClient) => c.prepare({ source: kp.publicKey(), contractId: vaultId, fn: 'version', args: [] }),
    },
    { name: 'read', run: (c: ChainClient) => c.read({ contractId: vaultId, fn: 'version', args: [] }) },
    { name: 'submit', run: (c: ChainClient) => c.submit(signedCall()) },
    { name: 'health', run: (c: ChainClient) => c.health() },
    { name: 'getLedgerEntries', run: (c: ChainClient) => c.getLedgerEntries([new Contract(vaultId).getFootprint()]) },
  ])('$name → chain_unavailable 502', async ({ run }) => {
    const e = await failure(run(down()));
    expect([e.code, e.status]).toEqual(['chain_unavailable', 502]);
  });
});

describe('an RPC URL that answers 404 (issue 26: errors name the URL and the setting)', () => {
  let notFound: Server;
  let base: string;
  beforeAll(async () => {
    notFound = createServer((_req, res) => res.writeHead(404, { 'content-type': 'text/plain' }).end('not found'));
    await new Promise<void>((r) => notFound.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(notFound.address() as AddressInfo).port}/wrong/path`;
  });
  afterAll(() => new Promise<void>((r) => notFound.close(() => r())));

  it.each(['node', 'sdk'] as const)(
    '%s transport: names the URL, its setting and the HTTP status',
    async (rpcTransport) => {
      const where = `${base} (setting CV_TESTNET_RPC_URL / --testnet-rpc-url)`;
      const e = await failure(client({ rpcUrl: base, rpcWhere: where, rpcTransport }).health());
      expect([e.code, e.message]).toEqual(['chain_unavailable', `chain RPC unavailable at ${where}: HTTP 404`]);
    },
  );

  it('without rpcWhere (a client made by hand), the status still in words', async () => {
    const e = await failure(client({ rpcUrl: base }).health());
    expect(e.message).toBe('chain RPC unavailable: HTTP 404');
  });
});

// Both causes and the account whose signature was expected, not the network alone (toMatch: a substring).
const noValidSignature = `no signature on the transaction verifies for its source account ${kp.publicKey()} under this network's passphrase ("${PASS}"): it was signed for another network, or by a key other than ${kp.publicKey()}'s`;

describe('submit refuses before sending', () => {
  it.each([
    { name: 'bad base64', given: () => '%%%', words: /base64/ },
    { name: 'bad XDR', given: () => Buffer.from('nope nope').toString('base64'), words: /not a transaction/ },
    {
      name: 'signed for another network',
      given: () => signedCall('revoke_vault', vaultId, Networks.PUBLIC),
      words: noValidSignature,
    },
    {
      name: 'signed by another key',
      given: () => signedCall('revoke_vault', vaultId, PASS, true, Keypair.fromRawEd25519Seed(Buffer.alloc(32, 2))),
      words: noValidSignature,
    },
    { name: 'unsigned', given: () => signedCall('revoke_vault', vaultId, PASS, false), words: /not signed/ },
  ])('$name → tx_invalid 400', async ({ given, words }) => {
    calls.length = 0;
    const e = await failure(client().submit(given()));
    expect([e.code, e.status]).toEqual(['tx_invalid', 400]);
    expect(e.message).toMatch(words);
    expect(calls).toEqual([]);
  });

  it('runs the safe-submit check and sends nothing when it throws', async () => {
    calls.length = 0;
    const e = await failure(
      client().submit(signedCall('revoke'), (inv) => {
        if (inv.fn !== 'issue') throw new ChainError('tx_operation_mismatch', 400, `expected issue, got ${inv.fn}`);
      }),
    );
    expect(e.code).toBe('tx_operation_mismatch');
    expect(calls).toEqual([]);
  });
});

describe('prepare', () => {
  it('missing source account → source_account_not_found 400', async () => {
    handlers = { getLedgerEntries: () => ({ entries: [], latestLedger: 10 }) };
    const e = await failure(
      client().prepare({ source: kp.publicKey(), contractId: vaultId, fn: 'revoke_vault', args: [] }),
    );
    expect([e.code, e.status]).toEqual(['source_account_not_found', 400]);
  });

  it('takes a sequence read beforehand (ChainClient.sequence) instead of reading the account again', async () => {
    let seq = 41;
    handlers = {
      getLedgerEntries: () => accountEntry(String(seq)),
      simulateTransaction: () => ({
        transactionData: new SorobanDataBuilder().setResourceFee(100).build().toXdr('base64'),
        minResourceFee: '100',
        results: [{ auth: [], xdr: xdr.ScVal.scvVoid().toXdr('base64') }],
        latestLedger: 10,
        events: [],
      }),
    };
    const now = () => 1_700_000_000_000;
    const c = client({ now });
    const req = { source: kp.publicKey(), contractId: vaultId, fn: 'revoke_vault', args: [] };
    calls.length = 0;
    const own = await c.prepare(req);
    expect(calls).toEqual(['getLedgerEntries', 'simulateTransaction']);
    calls.length = 0;
    const sequence = c.sequence(kp.publicKey());
    await sequence;
    seq = 99; // what the account says after the read is not what prepare uses
    const given = await c.prepare({ ...req, sequence });
    expect(calls).toEqual(['getLedgerEntries', 'simulateTransaction']);
    expect(given).toEqual(own);
    handlers.getLedgerEntries = () => ({ entries: [], latestLedger: 10 });
    const e = await failure(c.prepare({ ...req, sequence: c.sequence(kp.publicKey()) }));
    expect([e.code, e.status]).toEqual(['source_account_not_found', 400]);
  });

  it('an invalid source → source_account_not_found 400 without calling the RPC', async () => {
    const e = await failure(client().prepare({ source: 'GNOPE', contractId: vaultId, fn: 'revoke_vault', args: [] }));
    expect(e.code).toBe('source_account_not_found');
  });

  it('simulation failure → the contract error of the called contract', async () => {
    handlers = {
      getLedgerEntries: () => accountEntry('41'),
      simulateTransaction: () => ({
        error: 'HostError: Error(Contract, #3)\nversion mismatch',
        latestLedger: 10,
        events: [],
      }),
    };
    const asRegistry = await failure(
      client().prepare({ source: kp.publicKey(), contractId: registryId, fn: 'update', args: [] }),
    );
    expect([asRegistry.code, asRegistry.status]).toEqual(['version_mismatch', 409]);
    const asVault = await failure(
      client().prepare({ source: kp.publicKey(), contractId: vaultId, fn: 'issue', args: [] }),
    );
    expect(asVault.code).toBe('tx_failed');
    expect(asVault.message).toContain('Error(Contract, #3)');
  });

  it('assembles fee, footprint and sequence from the simulation', async () => {
    handlers = {
      getLedgerEntries: () => accountEntry('41'),
      simulateTransaction: () => ({
        transactionData: new SorobanDataBuilder().setResourceFee(5000).build().toXdr('base64'),
        minResourceFee: '5000',
        results: [{ auth: [], xdr: xdr.ScVal.scvVoid().toXdr('base64') }],
        latestLedger: 10,
        events: [],
      }),
    };
    const now = 1_700_000_000_000;
    const p = await client({ now: () => now }).prepare({
      source: kp.publicKey(),
      contractId: vaultId,
      fn: 'revoke_vault',
      args: [],
    });
    expect(p.network).toBe(PASS);
    const tx = TransactionBuilder.fromXdr(p.xdr, PASS) as import('@stellar/stellar-sdk').Transaction;
    expect(tx.sequence).toBe('42');
    expect(Number(tx.fee)).toBe(5100);
    expect(tx.timeBounds?.maxTime).toBe(String(now / 1000 + 300));
    expect(tx.signatures).toEqual([]);
  });
});

describe('prepare with and without fast assembly (fastAssemble, CV_FAST_ASSEMBLE)', () => {
  it('gives the same simulated transaction and the same answer on both paths', async () => {
    const auth = (nonce: number) =>
      new xdr.SorobanAuthorizationEntry({
        credentials: xdr.SorobanCredentials.sorobanCredentialsAddress(
          new xdr.SorobanAddressCredentials({
            address: new Address(kp.publicKey()).toScAddress(),
            nonce: xdr.Int64.fromString(String(nonce)),
            signatureExpirationLedger: 0,
            signature: xdr.ScVal.scvVoid(),
          }),
        ),
        rootInvocation: new xdr.SorobanAuthorizedInvocation({
          function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(
            new xdr.InvokeContractArgs({
              contractAddress: new Address(vaultId).toScAddress(),
              functionName: 'issue',
              args: [],
            }),
          ),
          subInvocations: [],
        }),
      });
    const simulated: string[] = [];
    handlers = {
      getLedgerEntries: () => accountEntry('41'),
      simulateTransaction: (params) => {
        simulated.push((params as { transaction: string }).transaction);
        return {
          transactionData: new SorobanDataBuilder()
            .setResourceFee(123_456)
            .setResources(9_000_000, 2_000, 500)
            .setFootprint([new Contract(vaultId).getFootprint()], [new Contract(registryId).getFootprint()])
            .build()
            .toXdr('base64'),
          minResourceFee: '123456',
          results: [
            { auth: [auth(1), auth(2)].map((a) => a.toXdr('base64')), xdr: xdr.ScVal.scvVoid().toXdr('base64') },
          ],
          latestLedger: 10,
          events: [],
        };
      },
    };
    const calls = [
      {
        fn: 'issue',
        args: [
          address(kp.publicKey()),
          str('vc-1'),
          str('x'.repeat(300)),
          vec([sym('a'), u32(7)]),
          address(registryId),
        ],
      },
      { fn: 'revoke_vault', args: [] },
      { fn: 'version', args: [unit()] },
    ];
    for (const { fn, args } of calls) {
      simulated.length = 0;
      const now = () => 1_700_000_000_000;
      const req = { source: kp.publicKey(), contractId: vaultId, fn, args };
      // the request is of the shape fast assembly covers, so the two answers come from the two paths
      expect(buildCall({ ...req, sequence: '41', baseFee: '100', maxTime: 1_700_000_300 })).toBeDefined();
      const fast = await client({ now, fastAssemble: true }).prepare(req);
      const sdk = await client({ now, fastAssemble: false }).prepare(req);
      expect(simulated).toHaveLength(2);
      expect(simulated[0]).toBe(simulated[1]);
      expect(fast).toEqual(sdk);
      const tx = TransactionBuilder.fromXdr(fast.xdr, PASS) as import('@stellar/stellar-sdk').Transaction;
      expect([tx.sequence, tx.fee]).toEqual(['42', String(100 + 123_456)]);
    }
  });

  it("an argument outside what fast assembly covers goes the SDK's way on both settings", async () => {
    handlers = { getLedgerEntries: () => accountEntry('41') };
    const pool = new Address(StrKey.encodeLiquidityPool(Buffer.alloc(32, 1))).toScVal();
    const req = { source: kp.publicKey(), contractId: vaultId, fn: 'issue', args: [pool] };
    for (const fastAssemble of [true, false]) {
      await expect(client({ fastAssemble }).prepare(req)).rejects.toThrow(/claimable balances and liquidity pools/);
    }
  });
});

describe('submit after sending', () => {
  it('sendTransaction ERROR → tx_failed with the result code', async () => {
    handlers = {
      sendTransaction: () => ({
        status: 'ERROR',
        hash: 'ab'.repeat(32),
        latestLedger: 10,
        latestLedgerCloseTime: '1700000000',
        errorResultXdr: txResult(xdr.TransactionResultResult.txBadSeq()),
      }),
    };
    const e = await failure(client().submit(signedCall()));
    expect([e.code, e.status, e.txId]).toEqual(['tx_failed', 400, 'ab'.repeat(32)]);
    expect(e.message).toContain('txBadSeq');
  });

  it('never final → tx_timeout 504 with the hash', async () => {
    handlers = {
      sendTransaction: () => ({
        status: 'PENDING',
        hash: 'cd'.repeat(32),
        latestLedger: 10,
        latestLedgerCloseTime: '1700000000',
      }),
      getTransaction: () => ({ status: 'NOT_FOUND', ...ledgerInfo }),
    };
    const e = await failure(client().submit(signedCall()));
    expect([e.code, e.status]).toEqual(['tx_timeout', 504]);
    expect(e.message).toContain('cd'.repeat(32));
  });

  it('FAILED → the contract error from the diagnostic events, chain words kept', async () => {
    handlers = {
      sendTransaction: () => ({
        status: 'PENDING',
        hash: 'ef'.repeat(32),
        latestLedger: 10,
        latestLedgerCloseTime: '1700000000',
      }),
      getTransaction: () =>
        final('FAILED', txResult(trapped()), metaV4({ diagnostics: [errorEvent(25, 'issuer is denied')] })),
    };
    const e = await failure(client().submit(signedCall()));
    expect([e.code, e.status, e.txId]).toEqual(['issuer_denied', 403, 'ef'.repeat(32)]);
    expect(e.message).toContain('issuer is denied');
    expect(e.chainMessage).toContain('invokeHostFunctionTrapped');
  });

  it('FAILED with a token failure → trustline_missing', async () => {
    handlers = {
      sendTransaction: () => ({
        status: 'PENDING',
        hash: 'ef'.repeat(32),
        latestLedger: 10,
        latestLedgerCloseTime: '1700000000',
      }),
      getTransaction: () =>
        final(
          'FAILED',
          txResult(trapped()),
          metaV4({ diagnostics: [errorEvent(13, 'trustline entry is missing for account')] }),
        ),
    };
    expect((await failure(client().submit(signedCall()))).code).toBe('trustline_missing');
  });

  it('SUCCESS → txId and return value', async () => {
    let polls = 0;
    handlers = {
      sendTransaction: () => ({
        status: 'PENDING',
        hash: '12'.repeat(32),
        latestLedger: 10,
        latestLedgerCloseTime: '1700000000',
      }),
      getTransaction: () =>
        ++polls < 3
          ? { status: 'NOT_FOUND', ...ledgerInfo }
          : final('SUCCESS', txResult(xdr.TransactionResultResult.txSuccess([])), metaV4({ returnValue: str('ok') })),
    };
    const r = await client({ timeouts: { rpcMs: 2000, submitMs: 5000, pollIntervalMs: 10 } }).submit(signedCall());
    expect(r.txId).toBe('12'.repeat(32));
    expect(r.returnValue && toStr(r.returnValue)).toBe('ok');
    expect(polls).toBe(3);
  });
});

describe('submit on a network whose ledgers take time to close', () => {
  /** A test clock: sleeping moves it, nothing waits on the machine. */
  const fakeTime = () => {
    let t = 1_700_000_000_000;
    const slept: number[] = [];
    return { now: () => t, sleep: async (ms: number) => void (slept.push(ms), (t += ms)), slept };
  };
  const sendReply = (status: string, hash: string, errorResultXdr?: string) => ({
    status,
    hash,
    latestLedger: 10,
    latestLedgerCloseTime: '1700000000',
    ...(errorResultXdr ? { errorResultXdr } : {}),
  });
  const success = () =>
    final('SUCCESS', txResult(xdr.TransactionResultResult.txSuccess([])), metaV4({ returnValue: str('ok') }));
  const notFound = () => ({ status: 'NOT_FOUND', ...ledgerInfo });
  const timed = (t: ReturnType<typeof fakeTime>, submitMs: number, pollIntervalMs: number) =>
    client({ now: t.now, sleep: t.sleep, timeouts: { rpcMs: 2000, submitMs, pollIntervalMs } });

  it('TRY_AGAIN_LATER: the same signed transaction is sent again until taken, then polled until final', async () => {
    let sends = 0;
    const sent: string[] = [];
    handlers = {
      sendTransaction: (p) => {
        sent.push((p as { transaction: string }).transaction);
        return sendReply(++sends < 3 ? 'TRY_AGAIN_LATER' : 'PENDING', '21'.repeat(32));
      },
      // each TRY_AGAIN_LATER is looked up first: not in a ledger until it was taken
      getTransaction: () => (sends < 3 ? notFound() : success()),
    };
    const t = fakeTime();
    const r = await timed(t, 30_000, 250).submit(signedCall());
    expect(r.txId).toBe('21'.repeat(32));
    expect(sends).toBe(3);
    expect(new Set(sent).size).toBe(1);
    expect(t.slept).toEqual([50, 100]);
  });

  it('TRY_AGAIN_LATER until the submit timeout → chain_unavailable 502 naming the network and the hash', async () => {
    handlers = { sendTransaction: () => sendReply('TRY_AGAIN_LATER', '22'.repeat(32)), getTransaction: notFound };
    const e = await failure(timed(fakeTime(), 5_000, 250).submit(signedCall()));
    expect([e.code, e.status, e.txId, e.network]).toEqual(['chain_unavailable', 502, '22'.repeat(32), 'testnet']);
    expect(e.message).toBe(
      'the RPC answered TRY_AGAIN_LATER until the submit timeout (5000 ms); ' +
        `transaction ${'22'.repeat(32)} was not taken`,
    );
  });

  it('DUPLICATE: the network holds it already; its outcome is what getTransaction says', async () => {
    handlers = { sendTransaction: () => sendReply('DUPLICATE', '23'.repeat(32)), getTransaction: success };
    expect((await client().submit(signedCall())).txId).toBe('23'.repeat(32));
  });

  // A client retrying a submit whose transaction landed meanwhile sends it again: a network bans its hash for about
  // 10 ledgers (TRY_AGAIN_LATER), then refuses its used sequence number (ERROR txBadSeq) or its passed time bounds.
  const badSeq = txResult(xdr.TransactionResultResult.txBadSeq());
  const tooLate = txResult(xdr.TransactionResultResult.txTooLate());
  const failedTx = () =>
    final('FAILED', txResult(trapped()), metaV4({ diagnostics: [errorEvent(25, 'issuer is denied')] }));
  it.each([
    { name: 'TRY_AGAIN_LATER', reply: () => sendReply('TRY_AGAIN_LATER', '25'.repeat(32)) },
    { name: 'ERROR txBadSeq', reply: () => sendReply('ERROR', '25'.repeat(32), badSeq) },
    { name: 'ERROR txTooLate', reply: () => sendReply('ERROR', '25'.repeat(32), tooLate) },
  ])('sent again once in a ledger ($name): the landed result, sent once, no wait', async ({ reply }) => {
    let sends = 0;
    handlers = { sendTransaction: () => (sends++, reply()), getTransaction: success };
    const t = fakeTime();
    const r = await timed(t, 30_000, 250).submit(signedCall());
    expect([r.txId, r.ledger]).toEqual(['25'.repeat(32), 9]);
    expect(r.returnValue && toStr(r.returnValue)).toBe('ok');
    expect([sends, t.slept]).toEqual([1, []]);
  });

  it.each([
    { name: 'TRY_AGAIN_LATER', reply: () => sendReply('TRY_AGAIN_LATER', '26'.repeat(32)) },
    { name: 'ERROR txBadSeq', reply: () => sendReply('ERROR', '26'.repeat(32), badSeq) },
  ])('sent again once in a ledger ($name), where it failed: that failure', async ({ reply }) => {
    handlers = { sendTransaction: reply, getTransaction: failedTx };
    const e = await failure(timed(fakeTime(), 30_000, 250).submit(signedCall()));
    expect([e.code, e.status, e.txId]).toEqual(['issuer_denied', 403, '26'.repeat(32)]);
  });

  it('ERROR txBadSeq for a transaction no ledger holds: the rejection, as before', async () => {
    handlers = { sendTransaction: () => sendReply('ERROR', '27'.repeat(32), badSeq), getTransaction: notFound };
    const e = await failure(client().submit(signedCall()));
    expect([e.code, e.status, e.txId]).toEqual(['tx_failed', 400, '27'.repeat(32)]);
    expect(e.message).toContain('transaction rejected: txBadSeq');
  });

  it('an RPC that cannot say whether it landed: the rejection', async () => {
    handlers = { sendTransaction: () => sendReply('ERROR', '28'.repeat(32), badSeq) }; // getTransaction errs
    expect((await failure(client().submit(signedCall()))).message).toContain('txBadSeq');
  });

  it('other rejections are final without a lookup', async () => {
    calls.length = 0;
    const badAuth = txResult(xdr.TransactionResultResult.txBadAuth());
    handlers = { sendTransaction: () => sendReply('ERROR', '29'.repeat(32), badAuth), getTransaction: success };
    const e = await failure(client().submit(signedCall()));
    expect(e.message).toContain('txBadAuth');
    expect(calls).toEqual(['sendTransaction']);
  });

  it('NOT_FOUND for seconds is waited out within the submit timeout (a 5-second ledger)', async () => {
    const t = fakeTime();
    const closesAt = t.now() + 5_000;
    handlers = {
      sendTransaction: () => sendReply('PENDING', '24'.repeat(32)),
      getTransaction: () => (t.now() < closesAt ? { status: 'NOT_FOUND', ...ledgerInfo } : success()),
    };
    const r = await timed(t, 30_000, 1_000).submit(signedCall());
    expect(r.txId).toBe('24'.repeat(32));
    expect(t.now()).toBeGreaterThanOrEqual(closesAt);
  });
});

describe('network checks', () => {
  it('health and verifyNetwork', async () => {
    handlers = {
      getHealth: () => ({ status: 'healthy', latestLedger: 10, oldestLedger: 1, ledgerRetentionWindow: 100 }),
      getNetwork: () => ({ passphrase: Networks.PUBLIC, protocolVersion: 23 }),
    };
    expect(await client().health()).toEqual({
      status: 'healthy',
      latestLedger: 10,
      passphrase: Networks.PUBLIC,
      protocolVersion: '23',
    });
    expect(await client().verifyNetwork()).toEqual({
      ok: false,
      expected: PASS,
      actual: Networks.PUBLIC,
      protocolVersion: 23,
    });
    const c = client();
    expect(c.protocolVersion).toBeUndefined(); // not asked yet
    await c.verifyNetwork();
    expect(c.protocolVersion).toBe(23);
    handlers.getNetwork = () => ({ passphrase: Networks.PUBLIC, protocolVersion: 28 }); // the network upgraded
    await c.health();
    expect(c.protocolVersion).toBe(28);
  });
});

describe('RPC timeout', () => {
  it('a silent RPC → chain_unavailable after rpcMs', async () => {
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    try {
      const c = client({
        rpcUrl: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
        timeouts: { rpcMs: 200, submitMs: 300, pollIntervalMs: 20 },
      });
      const e = await failure(c.read({ contractId: vaultId, fn: 'version', args: [] }));
      // the client's own timeout ended it (the server never answers): said so, whatever the machine's speed
      expect([e.code, e.status]).toEqual(['chain_unavailable', 502]);
      expect(e.message).toMatch(/timeout of 200ms exceeded/);
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((r) => silent.close(() => r()));
    }
  });
});

describe('readEvents', () => {
  const ev = (topics: xdr.ScVal[], data: xdr.ScVal) =>
    new xdr.DiagnosticEvent({
      inSuccessfulContractCall: false,
      event: new xdr.ContractEvent({
        ext: xdr.ExtensionPoint.v0(),
        contractId: null,
        type: xdr.ContractEventType.diagnostic,
        body: xdr.ContractEventBody.v0(new xdr.ContractEventV0({ topics, data })),
      }),
    });
  const err = (n: number) => xdr.ScVal.scvError(xdr.ScError.sceContract(n));
  it('takes the last contract error (outermost frame) and keeps the words', () => {
    const r = readEvents([
      ev([sym('fn_call')], unit()),
      ev([sym('error'), err(13)], vec([str('trustline entry is missing for account'), address(kp.publicKey())])),
      ev([sym('error'), err(13)], str('escalating error to VM trap')),
      ev([sym('error'), err(25)], str('issuer denied')),
    ]);
    expect(r.contractCode).toBe(25);
    expect(r.lines).toEqual([
      `Error(Contract, #13): trustline entry is missing for account ${kp.publicKey()}`,
      'Error(Contract, #13): escalating error to VM trap',
      'Error(Contract, #25): issuer denied',
    ]);
  });
  it('renders host errors', () => {
    const r = readEvents([
      ev(
        [sym('error'), xdr.ScVal.scvError(xdr.ScError.sceAuth(xdr.ScErrorCode.scecInvalidAction))],
        str('failed account authentication'),
      ),
    ]);
    expect(r.contractCode).toBeUndefined();
    expect(r.lines).toEqual(['Error(Auth, InvalidAction): failed account authentication']);
  });
  it('ignores non-error events', () => expect(readEvents([ev([sym('vc_issued')], u32(1))]).lines).toEqual([]));
});

describe('read cache', () => {
  let sims = 0;
  let ledger = 10;
  const simulated = () => {
    sims++;
    return {
      transactionData: new SorobanDataBuilder().setResourceFee(1).build().toXdr('base64'),
      minResourceFee: '1',
      results: [{ auth: [], xdr: u32(sims).toXdr('base64') }],
      latestLedger: ledger,
      events: [],
    };
  };
  const count = { contractId: vaultId, fn: 'vc_count', args: [] };
  const reset = () => {
    sims = 0;
    ledger = 10;
    handlers = { simulateTransaction: simulated };
  };

  it('off by default: every read simulates', async () => {
    reset();
    const c = client();
    expect(toU32(await c.read(count))).toBe(1);
    expect(toU32(await c.read(count))).toBe(2);
  });

  it('reuses an answer for readCacheMs, per contract, function, source and arguments', async () => {
    reset();
    let t = 1_000;
    const c = client({ readCacheMs: 1_000, now: () => t });
    expect(toU32(await c.read(count))).toBe(1);
    t += 999;
    expect(toU32(await c.read(count))).toBe(1);
    expect(toU32(await c.read({ ...count, args: [u32(1)] }))).toBe(2);
    expect(toU32(await c.read({ ...count, fn: 'version' }))).toBe(3);
    expect(toU32(await c.read({ ...count, source: Keypair.random().publicKey() }))).toBe(4);
    expect(toU32(await c.read({ ...count, contractId: registryId }))).toBe(5);
    t += 1; // readCacheMs after the first simulation was sent
    expect(toU32(await c.read(count))).toBe(6);
    expect(sims).toBe(6);
  });

  it('concurrent identical reads share one simulation', async () => {
    reset();
    const c = client({ readCacheMs: 1_000 });
    const got = await Promise.all([c.read(count), c.read(count), c.read(count)]);
    expect(got.map((v) => toU32(v))).toEqual([1, 1, 1]);
    expect(sims).toBe(1);
  });

  it('a newer ledger seen in any answer ends the reuse', async () => {
    reset();
    const c = client({ readCacheMs: 60_000 });
    expect(toU32(await c.read(count))).toBe(1);
    handlers = { ...handlers, getLedgerEntries: () => ({ entries: [], latestLedger: 11 }) };
    await c.getLedgerEntries([new Contract(vaultId).getFootprint()]);
    ledger = 11;
    expect(toU32(await c.read(count))).toBe(2);
    expect(toU32(await c.read(count))).toBe(2);
  });

  it('read-your-writes: a submit of this client drops every answer (even in the same ledger)', async () => {
    reset();
    const c = client({ readCacheMs: 60_000, timeouts: { rpcMs: 2_000, submitMs: 5_000, pollIntervalMs: 10 } });
    expect(toU32(await c.read(count))).toBe(1);
    expect(toU32(await c.read({ ...count, contractId: registryId }))).toBe(2);
    handlers = {
      ...handlers,
      sendTransaction: () => ({
        status: 'PENDING',
        hash: '34'.repeat(32),
        latestLedger: 10,
        latestLedgerCloseTime: '1700000000',
      }),
      getTransaction: () => final('SUCCESS', txResult(xdr.TransactionResultResult.txSuccess([])), metaV4({})),
    };
    await c.submit(signedCall());
    expect(toU32(await c.read(count))).toBe(3);
    expect(toU32(await c.read({ ...count, contractId: registryId }))).toBe(4);
  });

  it('an answer read between sending and the final status is not kept', async () => {
    reset();
    let release = () => {};
    const gate = new Promise<void>((r) => (release = r));
    let waiting = false;
    const c = client({
      readCacheMs: 60_000,
      timeouts: { rpcMs: 2_000, submitMs: 5_000, pollIntervalMs: 10 },
      sleep: async () => {
        waiting = true;
        return gate;
      },
    });
    handlers = {
      ...handlers,
      sendTransaction: () => ({
        status: 'PENDING',
        hash: '56'.repeat(32),
        latestLedger: 10,
        latestLedgerCloseTime: '1700000000',
      }),
      getTransaction: () =>
        sims < 1
          ? { status: 'NOT_FOUND', ...ledgerInfo }
          : final('SUCCESS', txResult(xdr.TransactionResultResult.txSuccess([])), metaV4({})),
    };
    const submitted = c.submit(signedCall()); // sent, then waits to poll again
    await vi.waitFor(() => expect(waiting).toBe(true), { timeout: 20_000 });
    expect(toU32(await c.read(count))).toBe(1); // read between send and final
    release();
    await submitted;
    expect(toU32(await c.read(count))).toBe(2);
  });

  it('ledger entries: reused only when asked for (never the account of a prepare)', async () => {
    reset();
    let entryReads = 0;
    handlers = {
      ...handlers,
      getLedgerEntries: () => {
        entryReads++;
        return accountEntry(String(40 + entryReads));
      },
    };
    const c = client({ readCacheMs: 60_000 });
    const key = new Contract(vaultId).getFootprint();
    await c.getLedgerEntries([key], { cached: true });
    await c.getLedgerEntries([key], { cached: true });
    expect(entryReads).toBe(1);
    await c.getLedgerEntries([key]);
    expect(entryReads).toBe(2);
    const seqs: string[] = [];
    for (let i = 0; i < 2; i++) {
      const p = await c.prepare({ source: kp.publicKey(), contractId: vaultId, fn: 'revoke_vault', args: [] });
      seqs.push((TransactionBuilder.fromXdr(p.xdr, PASS) as import('@stellar/stellar-sdk').Transaction).sequence);
    }
    expect(entryReads).toBe(4);
    expect(seqs).toEqual(['44', '45']);
  });

  it('failures are not kept', async () => {
    reset();
    let fail = true;
    handlers = {
      simulateTransaction: () =>
        fail ? { error: 'HostError: Error(Contract, #9)', latestLedger: 10, events: [] } : simulated(),
    };
    const c = client({ readCacheMs: 60_000 });
    expect((await failure(c.read(count))).code).toBeDefined();
    fail = false;
    expect(toU32(await c.read(count))).toBe(1);
  });
});

describe('submit polling', () => {
  it('asks at once, then after 50, 100, 200 ms, then every pollIntervalMs', async () => {
    let polls = 0;
    const waits: number[] = [];
    handlers = {
      sendTransaction: () => ({
        status: 'PENDING',
        hash: '78'.repeat(32),
        latestLedger: 10,
        latestLedgerCloseTime: '1700000000',
      }),
      getTransaction: () =>
        ++polls < 6
          ? { status: 'NOT_FOUND', ...ledgerInfo }
          : final('SUCCESS', txResult(xdr.TransactionResultResult.txSuccess([])), metaV4({})),
    };
    const c = client({
      timeouts: { rpcMs: 2_000, submitMs: 60_000, pollIntervalMs: 250 },
      sleep: async (ms) => void waits.push(ms),
    });
    await c.submit(signedCall());
    expect(waits).toEqual([50, 100, 200, 250, 250]);
  });

  it('never waits longer than pollIntervalMs', async () => {
    let polls = 0;
    const waits: number[] = [];
    handlers = {
      sendTransaction: () => ({
        status: 'PENDING',
        hash: '9a'.repeat(32),
        latestLedger: 10,
        latestLedgerCloseTime: '1700000000',
      }),
      getTransaction: () =>
        ++polls < 4
          ? { status: 'NOT_FOUND', ...ledgerInfo }
          : final('SUCCESS', txResult(xdr.TransactionResultResult.txSuccess([])), metaV4({})),
    };
    const c = client({
      timeouts: { rpcMs: 2_000, submitMs: 60_000, pollIntervalMs: 80 },
      sleep: async (ms) => void waits.push(ms),
    });
    await c.submit(signedCall());
    expect(waits).toEqual([50, 80, 80]);
  });
});

describe('readFootprint', () => {
  const key = (n: number) =>
    xdr.LedgerKey.contractData(
      new xdr.LedgerKeyContractData({
        contract: new Address(vaultId).toScAddress(),
        key: u32(n),
        durability: xdr.ContractDataDurability.persistent,
      }),
    );
  const data = (readOnly: xdr.LedgerKey[], readWrite: xdr.LedgerKey[]) =>
    new SorobanDataBuilder().setReadOnly(readOnly).setReadWrite(readWrite).setResourceFee(1).build().toXdr('base64');
  const get = { contractId: vaultId, fn: 'get_vc', args: [str('vc-1')] };
  const b64 = (ks: xdr.LedgerKey[]) => ks.map((k) => k.toXdr('base64'));

  it("answers the value and the footprint's read-only then read-write keys, never from the read cache", async () => {
    let sims = 0;
    handlers = {
      simulateTransaction: () => {
        sims++;
        return {
          transactionData: data([key(1), key(2)], [key(3)]),
          minResourceFee: '1',
          results: [{ auth: [], xdr: str('v').toXdr('base64') }],
          latestLedger: 10,
        };
      },
    };
    const c = client({ readCacheMs: 60_000 });
    const r = await c.readFootprint(get);
    expect(toStr(r.value)).toBe('v');
    expect(b64(r.keys)).toEqual(b64([key(1), key(2), key(3)]));
    await c.readFootprint(get);
    expect(sims).toBe(2);
  });

  it('adds the read-write keys of a restore preamble (an RPC that does not restore in simulation)', async () => {
    handlers = {
      simulateTransaction: () => ({
        transactionData: data([key(1)], []),
        minResourceFee: '1',
        results: [{ auth: [], xdr: str('v').toXdr('base64') }],
        restorePreamble: { transactionData: data([], [key(4), key(5)]), minResourceFee: '7' },
        latestLedger: 10,
      }),
    };
    const r = await client().readFootprint(get);
    expect(b64(r.keys)).toEqual(b64([key(1), key(4), key(5)]));
  });
});
