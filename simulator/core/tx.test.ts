// Transaction-level checks (real TransactionResult codes in sendTransaction ERRORs), classic operations,
// the friendbot, and the fee tokens' SAC failures.
import { Asset, Keypair, Operation, xdr } from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { addressToScVal } from '../host.ts';
import {
  COUNTER_HASH,
  classicTx,
  clock,
  errorCode,
  funded,
  innerResult,
  opResultsOf,
  send,
  testNetwork,
} from './testing.ts';
import { toBigInt } from '../../src/chain/codec.ts';

const XLM = 10_000_000n;
const i128 = (n: bigint) =>
  xdr.ScVal.scvI128(new xdr.Int128Parts({ hi: xdr.Int64.fromString('0'), lo: xdr.Uint64.fromString(n.toString()) }));

async function txStatus(net: ReturnType<typeof testNetwork>, hash: string) {
  return (await net.rpc('getTransaction', { hash })) as { status: string; resultXdr?: string };
}

describe('transaction checks', () => {
  const payment = (to: string) => Operation.payment({ destination: to, asset: Asset.native(), amount: '1' });

  type Opts = { passphrase?: string; signers?: Keypair[] | 'source+random'; seqOffset?: bigint; fee?: string };
  it.each<[string, string, Opts]>([
    ['wrong passphrase', 'txBadAuth', { passphrase: 'Test SDF Network ; September 2015' }],
    ['wrong signer', 'txBadAuth', { signers: [Keypair.random()] }],
    ['extra signer', 'txBadAuthExtra', { signers: 'source+random' }],
    ['stale sequence', 'txBadSeq', { seqOffset: -1n }],
    ['future sequence', 'txBadSeq', { seqOffset: 1n }],
    ['fee below the base fee', 'txInsufficientFee', { fee: '50' }],
  ])('%s → %s', async (_name, code, opts) => {
    const net = testNetwork();
    const a = funded(net);
    const before = net.account(a.publicKey())!;
    const signers = opts.signers === 'source+random' ? [a, Keypair.random()] : opts.signers;
    const reply = await send(net, classicTx(net, a, [payment(net.info.admin.publicKey)], { ...opts, signers }));
    expect(reply.status).toBe('ERROR');
    expect(errorCode(reply)).toBe(code);
    expect(net.account(a.publicKey())).toBe(before); // nothing applied, no fee
    expect(((await net.rpc('getTransaction', { hash: reply.hash })) as { status: string }).status).toBe('NOT_FOUND');
  });

  it('txTooLate after the time bound, txTooEarly before it', async () => {
    const c = clock();
    const net = testNetwork({ now: c.now });
    const a = funded(net);
    const tx = classicTx(net, a, [payment(net.info.admin.publicKey)], { timeout: 30 });
    c.advance(31_000);
    expect(errorCode(await send(net, tx))).toBe('txTooLate');
    const early = classicTx(net, a, [payment(net.info.admin.publicKey)], { minTime: Math.floor(c.now() / 1000) + 100 });
    expect(errorCode(await send(net, early))).toBe('txTooEarly');
  });

  it('txNoAccount for an unknown source', async () => {
    const net = testNetwork();
    const ghost = Keypair.random();
    expect(errorCode(await send(net, classicTx(net, ghost, [payment(net.info.admin.publicKey)])))).toBe('txNoAccount');
  });

  // As stellar-core: the hash of an applied transaction is banned for 10 ledgers, then its used sequence number
  // is what refuses it. Never DUPLICATE: that means it still waits in a queue, and nothing waits here.
  it('sent again once applied: TRY_AGAIN_LATER for 10 ledgers, then txBadSeq; getTransaction has it', async () => {
    const c = clock();
    const net = testNetwork({ now: c.now });
    const a = funded(net);
    const tx = classicTx(net, a, [payment(net.info.admin.publicKey)]);
    c.advance(1_000); // a second after the genesis ledger's: the payment's ledger closes on the clock
    const first = await send(net, tx);
    expect(first.status).toBe('PENDING');
    const landed = (await net.rpc('getTransaction', { hash: first.hash })) as { status: string; ledger: number };
    expect(landed.status).toBe('SUCCESS');
    expect((await send(net, tx)).status).toBe('TRY_AGAIN_LATER');
    c.advance(9 * 5_000); // nine empty ledgers
    expect(net.ledger.tick().seq).toBe(landed.ledger + 9);
    expect((await send(net, tx)).status).toBe('TRY_AGAIN_LATER');
    c.advance(5_000);
    const late = await send(net, tx);
    expect([late.status, errorCode(late)]).toEqual(['ERROR', 'txBadSeq']);
    expect(((await net.rpc('getTransaction', { hash: first.hash })) as { status: string }).status).toBe('SUCCESS');
  });

  it('txInsufficientFee when the fee does not cover the declared resource fee', async () => {
    const net = testNetwork();
    const owner = funded(net);
    const counterId = net.deploy(COUNTER_HASH, Buffer.alloc(32, 1), [addressToScVal(owner.publicKey())]);
    const { TransactionBuilder, Contract, rpc } = await import('@stellar/stellar-sdk');
    const { Account } = await import('@stellar/stellar-sdk');
    const acc = new Account(owner.publicKey(), net.account(owner.publicKey())!.seqNum.toString());
    const raw = new TransactionBuilder(acc, { fee: '100', networkPassphrase: net.info.passphrase })
      .addOperation(new Contract(counterId).call('incr', xdr.ScVal.scvU32(1)))
      .setTimeout(60)
      .build();
    const sim = await net.rpc('simulateTransaction', { transaction: raw.toXdr() });
    const prepared = rpc.assembleTransaction(raw, sim as never).setNetworkPassphrase(net.info.passphrase);
    const good = prepared.build();
    const tx0 = xdr.expectUnionVariant(good.toEnvelope(), 'envelopeTypeTx').v1.tx;
    const lowFee = new xdr.Transaction({
      ...tx0,
      fee: Number(xdr.expectUnionVariant(tx0.ext, 'sorobanData').sorobanData.resourceFee) + 50,
    });
    const env = xdr.TransactionEnvelope.envelopeTypeTx(new xdr.TransactionV1Envelope({ tx: lowFee, signatures: [] }));
    const cheap = TransactionBuilder.fromXdr(env.toXdr('base64'), net.info.passphrase);
    cheap.sign(owner);
    expect(errorCode(await send(net, cheap as never))).toBe('txInsufficientFee');
    good.sign(owner);
    const ok = await send(net, good);
    expect((await txStatus(net, ok.hash)).status).toBe('SUCCESS');
  });
});

describe('classic operations and friendbot', () => {
  it('friendbot creates a funded account once', async () => {
    const net = testNetwork();
    const kp = Keypair.random();
    const r = net.friendbot(kp.publicKey());
    expect(r.successful).toBe(true);
    expect(net.account(kp.publicKey())!.balance).toBe(10_000n * XLM);
    expect(() => net.friendbot(kp.publicKey())).toThrow(/createAccountAlreadyExist/);
    expect((await txStatus(net, r.hash)).status).toBe('SUCCESS');
  });

  it('createAccount and native payment move stroops, minus fees', async () => {
    const net = testNetwork();
    const a = funded(net, 100n);
    const b = Keypair.random();
    const r1 = await send(
      net,
      classicTx(net, a, [Operation.createAccount({ destination: b.publicKey(), startingBalance: '10' })]),
    );
    expect((await txStatus(net, r1.hash)).status).toBe('SUCCESS');
    expect(net.account(b.publicKey())!.balance).toBe(10n * XLM);
    const r2 = await send(
      net,
      classicTx(net, a, [Operation.payment({ destination: b.publicKey(), asset: Asset.native(), amount: '2.5' })]),
    );
    expect((await txStatus(net, r2.hash)).status).toBe('SUCCESS');
    expect(net.account(b.publicKey())!.balance).toBe((125n * XLM) / 10n);
    expect(net.account(a.publicKey())!.balance).toBe(100n * XLM - 10n * XLM - (25n * XLM) / 10n - 200n);
    // a second createAccount fails on the ledger: fee and sequence consumed, nothing else
    const r3 = await send(
      net,
      classicTx(net, a, [Operation.createAccount({ destination: b.publicKey(), startingBalance: '10' })]),
    );
    const failed = await txStatus(net, r3.hash);
    expect(failed.status).toBe('FAILED');
    const res = xdr.TransactionResult.fromXdr(failed.resultXdr!, 'base64');
    expect(innerResult(opResultsOf(res)[0]!).value.type).toBe('createAccountAlreadyExist');
  });

  it('USDC: changeTrust, payment from the issuer, SAC trustline and balance failures', async () => {
    const net = testNetwork({ name: 'mainnet' });
    const issuer = Keypair.fromSecret(net.genesis.issuer.secret());
    const usdc = new Asset('USDC', issuer.publicKey());
    const holder = funded(net);
    const noTrust = funded(net);
    // payment to an account without a trustline fails with paymentNoTrust
    const r0 = await send(
      net,
      classicTx(net, issuer, [Operation.payment({ destination: holder.publicKey(), asset: usdc, amount: '5' })]),
    );
    const f0 = await txStatus(net, r0.hash);
    expect(innerResult(opResultsOf(xdr.TransactionResult.fromXdr(f0.resultXdr!, 'base64'))[0]!).value.type).toBe(
      'paymentNoTrust',
    );
    // trustline, then the issuer pays 5 USDC
    await send(net, classicTx(net, holder, [Operation.changeTrust({ asset: usdc })]));
    const r1 = await send(
      net,
      classicTx(net, issuer, [Operation.payment({ destination: holder.publicKey(), asset: usdc, amount: '5' })]),
    );
    expect((await txStatus(net, r1.hash)).status).toBe('SUCCESS');
    const token = net.info.feeTokenId;
    const bal = net.read(token, 'balance', [addressToScVal(holder.publicKey())]);
    expect(bal.status === 'SUCCESS' && toBigInt(bal.returnValue).toString()).toBe(String(5n * XLM));
    // SAC transfers: missing trustline (#13), insufficient balance (#10), success
    const to = addressToScVal(net.info.admin.publicKey);
    const missing = net.invoke({
      source: noTrust,
      contractId: token,
      fn: 'transfer',
      args: [addressToScVal(noTrust.publicKey()), to, i128(1n)],
    });
    expect(missing).toMatchObject({ status: 'FAILED', contractError: 13 });
    expect(missing.status === 'FAILED' && missing.error).toContain('trustline entry is missing for account');
    const poor = net.invoke({
      source: holder,
      contractId: token,
      fn: 'transfer',
      args: [addressToScVal(holder.publicKey()), to, i128(6n * XLM)],
    });
    expect(poor).toMatchObject({ status: 'FAILED', contractError: 10 });
    expect(poor.status === 'FAILED' && poor.error).toContain('balance is not sufficient');
    const ok = net.invoke({
      source: holder,
      contractId: token,
      fn: 'transfer',
      args: [addressToScVal(holder.publicKey()), to, i128(XLM)],
    });
    expect(ok.status === 'FAILED' ? ok.error : ok.status).toBe('SUCCESS');
    expect(ok.status === 'SUCCESS' && ok.events[0]!.topics.map((t) => t.type)).toEqual([
      'scvSymbol',
      'scvAddress',
      'scvAddress',
      'scvString',
    ]);
  });

  it('native SAC: balance is the account balance; spending below the reserve fails', () => {
    const net = testNetwork();
    const a = funded(net, 3n);
    const token = net.info.nativeTokenId;
    const bal = net.read(token, 'balance', [addressToScVal(a.publicKey())]);
    expect(bal.status === 'SUCCESS' && toBigInt(bal.returnValue).toString()).toBe(String(3n * XLM));
    const r = net.invoke({
      source: a,
      contractId: token,
      fn: 'transfer',
      args: [addressToScVal(a.publicKey()), addressToScVal(net.info.admin.publicKey), i128((25n * XLM) / 10n)],
    });
    expect(r).toMatchObject({ status: 'FAILED', contractError: 10 });
  });
});
