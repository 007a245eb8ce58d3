// Address-credential authorization signed by the SDK's own `authorizeEntry`: valid, wrong signer, tampered
// signature, reused nonce, expired, other network, invocation mismatch; and what simulation records.
import {
  Account,
  Address,
  Contract,
  Keypair,
  Operation,
  TransactionBuilder,
  authorizeEntry,
  rpc,
  xdr,
} from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { addressToScVal } from '../host.ts';
import type { SimNetwork } from './network.ts';
import { COUNTER_HASH, addressCreds, clock, contractFnOf, funded, testNetwork, type TestClock } from './testing.ts';
import { field, fromStruct, toU32, toVec } from '../../src/chain/codec.ts';

interface Ctx {
  net: SimNetwork;
  c: TestClock;
  owner: Keypair;
  payer: Keypair;
  counterId: string;
}

function setup(): Ctx {
  const c = clock();
  const net = testNetwork({ now: c.now });
  const owner = funded(net);
  const payer = funded(net);
  const counterId = net.deploy(COUNTER_HASH, Buffer.alloc(32, 3), [addressToScVal(owner.publicKey())]);
  return { net, c, owner, payer, counterId };
}

type Sim = {
  transactionData: string;
  results: { auth: string[]; xdr: string }[];
  minResourceFee: string;
  latestLedger: number;
};

/** payer submits counter.incr(by); the owner's auth entry comes from simulation and is signed by `sign`. */
async function prepare(ctx: Ctx, by: number) {
  const { net, payer, counterId } = ctx;
  const acc = new Account(payer.publicKey(), net.account(payer.publicKey())!.seqNum.toString());
  const raw = new TransactionBuilder(acc, { fee: '100', networkPassphrase: net.info.passphrase })
    .addOperation(new Contract(counterId).call('incr', xdr.ScVal.scvU32(by)))
    .setTimebounds(0, net.ledger.nowSec() + 300)
    .build();
  const sim = (await net.rpc('simulateTransaction', { transaction: raw.toXdr() })) as Sim;
  return { raw, sim, entries: sim.results[0]!.auth.map((a) => xdr.SorobanAuthorizationEntry.fromXdr(a, 'base64')) };
}

/** Submits with the simulated data. `rerun`: close a ledger first, so the host runs the call again in enforcing
 *  mode instead of applying the recorded simulation (both paths must refuse the same things). */
async function submit(
  ctx: Ctx,
  raw: ReturnType<TransactionBuilder['build']>,
  sim: Sim,
  auth: xdr.SorobanAuthorizationEntry[],
  rerun = false,
) {
  const { net, payer } = ctx;
  if (rerun) net.closeLedger();
  const b = rpc.assembleTransaction(raw, sim as never);
  const op = raw.operations[0] as Operation.InvokeHostFunction;
  b.clearOperations().addOperation(Operation.invokeHostFunction({ func: op.func, auth }));
  const tx = b.build();
  tx.sign(payer);
  const sent = (await net.rpc('sendTransaction', { transaction: tx.toXdr() })) as { status: string; hash: string };
  expect(sent.status).toBe('PENDING');
  const got = (await net.rpc('getTransaction', { hash: sent.hash })) as {
    status: string;
    diagnosticEventsXdr?: string[];
  };
  return { status: got.status, error: net.ledger.txs.get(sent.hash)?.error ?? '', got };
}

const latest = (net: SimNetwork) => net.ledger.tick().seq;

describe('address credentials', () => {
  it('simulation records the owner with address credentials and a fresh nonce', async () => {
    const ctx = setup();
    const { entries, sim } = await prepare(ctx, 1);
    expect(entries).toHaveLength(1);
    expect(entries[0]!.credentials.type).toBe('sorobanCredentialsAddress'); // Protocol 28 without useUpgradedAuth
    const creds = addressCreds(entries[0]!);
    expect(Address.fromScAddress(creds.address).toString()).toBe(ctx.owner.publicKey());
    expect(creds.signature.type).toBe('scvVoid');
    const fn = contractFnOf(entries[0]!.rootInvocation);
    expect(fn.functionName.toString()).toBe('incr');
    const footprint = xdr.SorobanTransactionData.fromXdr(sim.transactionData, 'base64').resources.footprint;
    const nonceKeys = footprint.readWrite.filter(
      (k) => k.type === 'contractData' && k.contractData.key.type === 'scvLedgerKeyNonce',
    );
    expect(nonceKeys).toHaveLength(1);
    const again = await prepare(ctx, 1);
    expect(addressCreds(again.entries[0]!).nonce).not.toBe(creds.nonce);
  });

  it('accepts the SDK-signed entry, then refuses the same nonce', async () => {
    const ctx = setup();
    const { raw, sim, entries } = await prepare(ctx, 2);
    const signed = await authorizeEntry(entries[0]!, ctx.owner, latest(ctx.net) + 10, ctx.net.info.passphrase);
    const ok = await submit(ctx, raw, sim, [signed]);
    expect(ok.status).toBe('SUCCESS');
    const read = ctx.net.read(ctx.counterId, 'get', []);
    expect(read.status === 'SUCCESS' && toU32(read.returnValue)).toBe(2);
    // replayed: simulation (enforcing the given entry) refuses it…
    const second = await prepare(ctx, 2);
    const withAuth = TransactionBuilder.cloneFrom(second.raw)
      .clearOperations()
      .addOperation(
        Operation.invokeHostFunction({
          func: (second.raw.operations[0] as Operation.InvokeHostFunction).func,
          auth: [signed],
        }),
      )
      .build();
    const resim = (await ctx.net.rpc('simulateTransaction', { transaction: withAuth.toXdr() })) as { error?: string };
    expect(resim.error).toMatch(/Error\(Auth, ExistingValue\)[\s\S]*nonce already exists/);
    // …and so does the ledger, given a footprint that covers the old nonce
    const replay = await submit(ctx, second.raw, sim, [signed]);
    expect(replay.status).toBe('FAILED');
    expect(replay.error).toMatch(/nonce already exists/);
  });

  describe.each([false, true])('(rerun: %s)', (rerun) => {
    it.each([
      [
        'a key that is not the account',
        /signer does not belong to account/,
        async (e: xdr.SorobanAuthorizationEntry, c: Ctx) =>
          authorizeEntry(e, Keypair.random(), latest(c.net) + 10, c.net.info.passphrase),
      ],
      [
        'another network passphrase',
        /failed ED25519 verification/,
        async (e: xdr.SorobanAuthorizationEntry, c: Ctx) =>
          authorizeEntry(e, c.owner, latest(c.net) + 10, 'Test SDF Network ; September 2015'),
      ],
      [
        'a tampered signature',
        /failed ED25519 verification/,
        async (e: xdr.SorobanAuthorizationEntry, c: Ctx) => {
          const s = await authorizeEntry(e, c.owner, latest(c.net) + 10, c.net.info.passphrase);
          // the signature's own bytes, flipped in place
          const sig = xdr.expectUnionVariant(
            field(fromStruct(toVec(addressCreds(s).signature)[0]!), 'signature'),
            'scvBytes',
          ).bytes.value;
          sig[0] = sig[0]! ^ 0xff;
          return s;
        },
      ],
      ['no signature', /signature is missing/, async (e: xdr.SorobanAuthorizationEntry) => e],
    ] as const)('fails with %s', async (_name, message, sign) => {
      const ctx = setup();
      const { raw, sim, entries } = await prepare(ctx, 1);
      const r = await submit(ctx, raw, sim, [await sign(entries[0]!, ctx)], rerun);
      expect(r.status).toBe('FAILED');
      expect(r.error).toMatch(message);
      expect(r.got.diagnosticEventsXdr?.length).toBeGreaterThan(0);
      const read = ctx.net.read(ctx.counterId, 'get', []);
      expect(read.status === 'SUCCESS' && toU32(read.returnValue)).toBe(0);
    });

    it('accepts a valid SDK-signed entry', async () => {
      const ctx = setup();
      const { raw, sim, entries } = await prepare(ctx, 3);
      const signed = await authorizeEntry(entries[0]!, ctx.owner, latest(ctx.net) + 10, ctx.net.info.passphrase);
      expect((await submit(ctx, raw, sim, [signed], rerun)).status).toBe('SUCCESS');
      const read = ctx.net.read(ctx.counterId, 'get', []);
      expect(read.status === 'SUCCESS' && toU32(read.returnValue)).toBe(3);
    });
  });

  it('honours the expiration ledger', async () => {
    const ctx = setup();
    const { raw, sim, entries } = await prepare(ctx, 1);
    const signed = await authorizeEntry(entries[0]!, ctx.owner, latest(ctx.net), ctx.net.info.passphrase);
    ctx.net.closeLedger();
    const r = await submit(ctx, raw, sim, [signed]);
    expect(r.status).toBe('FAILED');
    expect(r.error).toMatch(/Error\(Auth, InvalidInput\)[\s\S]*signature has expired/);
  });

  it('refuses an entry signed for other arguments', async () => {
    const ctx = setup();
    const one = await prepare(ctx, 1);
    const signed = await authorizeEntry(one.entries[0]!, ctx.owner, latest(ctx.net) + 10, ctx.net.info.passphrase);
    const five = await prepare(ctx, 5);
    const r = await submit(ctx, five.raw, five.sim, [signed]);
    expect(r.status).toBe('FAILED');
    expect(r.error).toMatch(/Error\(Auth, InvalidAction\)[\s\S]*Unauthorized function call for address/);
  });

  it('records sub-invocations: vault.issue → fee token transfer for a non-source issuer', async () => {
    const net = testNetwork();
    const owner = funded(net);
    const issuer = funded(net);
    const dep = net.invoke({
      source: owner,
      contractId: net.info.factoryId,
      fn: 'deploy',
      args: [
        addressToScVal(owner.publicKey()),
        xdr.ScVal.scvString('did:ledger:testnet:aaaaaaaaaaaaaaaaaaaaaaaaaa'),
        xdr.ScVal.scvBytes(Buffer.alloc(32)),
      ],
    });
    expect(dep.status).toBe('SUCCESS');
    const vault = dep.status === 'SUCCESS' ? Address.fromScVal(dep.returnValue).toString() : '';
    const args = [
      xdr.ScVal.scvString('vc-1'),
      xdr.ScVal.scvString('ciphertext'),
      addressToScVal(vault),
      addressToScVal(issuer.publicKey()),
      xdr.ScVal.scvString('did:ledger:testnet:bbbbbbbbbbbbbbbbbbbbbbbbbb'),
    ];
    const acc = new Account(owner.publicKey(), net.account(owner.publicKey())!.seqNum.toString());
    const raw = new TransactionBuilder(acc, { fee: '100', networkPassphrase: net.info.passphrase })
      .addOperation(new Contract(vault).call('issue', ...args))
      .setTimebounds(0, net.ledger.nowSec() + 60)
      .build();
    const sim = (await net.rpc('simulateTransaction', { transaction: raw.toXdr() })) as Sim;
    const [entry] = sim.results[0]!.auth.map((a) => xdr.SorobanAuthorizationEntry.fromXdr(a, 'base64'));
    expect(Address.fromScAddress(addressCreds(entry!).address).toString()).toBe(issuer.publicKey());
    const root = entry!.rootInvocation;
    expect(contractFnOf(root).functionName.toString()).toBe('issue');
    const sub = root.subInvocations;
    expect(sub).toHaveLength(1);
    expect(Address.fromScAddress(contractFnOf(sub[0]!).contractAddress).toString()).toBe(net.info.feeTokenId);
    expect(contractFnOf(sub[0]!).functionName.toString()).toBe('transfer');
    // and the issuer's signature makes it go through
    const r = net.invoke({ source: owner, signers: [issuer], contractId: vault, fn: 'issue', args });
    expect(r.status).toBe('SUCCESS');
  });
});
