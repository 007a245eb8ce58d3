// CAP-71 authorization across protocols: the three address credential types verified with their own payloads
// (signed by the SDK's `authorizeEntry`), the cross-address replay the address-bound payload prevents, delegate
// validation, the Protocol 26 gate, what recording mode returns at 26..28, and the Protocol 28 XDR the simulator
// decodes but does not model.
import {
  Account,
  Address,
  Contract,
  Keypair,
  Operation,
  StrKey,
  TransactionBuilder,
  authorizeEntry,
  buildAuthorizationEntryPreimage,
  buildWithDelegatesEntry,
  hash,
  rpc,
  xdr,
} from '@stellar/stellar-sdk';
import { describe, expect, it } from 'vitest';
import { addressToScVal } from '../host.ts';
import { field, fromStruct, toU32, toVec } from '../../src/chain/codec.ts';
import { addressCredentialsOf } from './auth.ts';
import type { SimNetwork } from './network.ts';
import { COUNTER_HASH, addressCreds, clock, errorCode, funded, testNetwork } from './testing.ts';

type CredType = 'sorobanCredentialsAddress' | 'sorobanCredentialsAddressV2' | 'sorobanCredentialsAddressWithDelegates';
const TYPES: readonly CredType[] = [
  'sorobanCredentialsAddress',
  'sorobanCredentialsAddressV2',
  'sorobanCredentialsAddressWithDelegates',
];

interface Ctx {
  net: SimNetwork;
  owner: Keypair;
  payer: Keypair;
  counterId: string;
}

function setup(protocol?: number): Ctx {
  const net = testNetwork({ now: clock().now, protocol });
  const owner = funded(net);
  const payer = funded(net);
  const counterId = net.deploy(COUNTER_HASH, Buffer.alloc(32, 3), [addressToScVal(owner.publicKey())]);
  return { net, owner, payer, counterId };
}

type Sim = {
  transactionData: string;
  results: { auth: string[]; xdr: string }[];
  minResourceFee: string;
  latestLedger: number;
  error?: string;
};

/** payer's counter.incr(by) (the owner must authorize it: the invocation names no address), simulated. */
async function prepare(ctx: Ctx, by: number, params: Record<string, unknown> = {}) {
  const { net, payer, counterId } = ctx;
  const acc = new Account(payer.publicKey(), net.account(payer.publicKey())!.seqNum.toString());
  const raw = new TransactionBuilder(acc, { fee: '100', networkPassphrase: net.info.passphrase })
    .addOperation(new Contract(counterId).call('incr', xdr.ScVal.scvU32(by)))
    .setTimebounds(0, net.ledger.nowSec() + 300)
    .build();
  const sim = (await net.rpc('simulateTransaction', { transaction: raw.toXdr(), ...params })) as Sim;
  return { raw, sim, entries: sim.results[0]!.auth.map((a) => xdr.SorobanAuthorizationEntry.fromXdr(a, 'base64')) };
}

interface EntryFields {
  address: xdr.ScAddress;
  nonce: bigint;
  expiration: number;
  signature?: xdr.ScVal;
  delegates?: xdr.SorobanDelegateSignature[];
}

/** An auth entry of `type` for `invocation`. */
function entryOf(
  type: CredType,
  f: EntryFields,
  invocation: xdr.SorobanAuthorizedInvocation,
): xdr.SorobanAuthorizationEntry {
  const creds = new xdr.SorobanAddressCredentials({
    address: f.address,
    nonce: f.nonce,
    signatureExpirationLedger: f.expiration,
    signature: f.signature ?? xdr.ScVal.scvVoid(),
  });
  const credentials =
    type === 'sorobanCredentialsAddress'
      ? xdr.SorobanCredentials.sorobanCredentialsAddress(creds)
      : type === 'sorobanCredentialsAddressV2'
        ? xdr.SorobanCredentials.sorobanCredentialsAddressV2(creds)
        : xdr.SorobanCredentials.sorobanCredentialsAddressWithDelegates(
            new xdr.SorobanAddressCredentialsWithDelegates({ addressCredentials: creds, delegates: f.delegates ?? [] }),
          );
  return new xdr.SorobanAuthorizationEntry({ credentials, rootInvocation: invocation });
}

/** The recorded entry re-typed (same address, nonce and invocation), unsigned. */
const retype = (entry: xdr.SorobanAuthorizationEntry, type: CredType, delegates?: xdr.SorobanDelegateSignature[]) => {
  const c = addressCreds(entry);
  return entryOf(type, { address: c.address, nonce: c.nonce, expiration: 0, delegates }, entry.rootInvocation);
};

/** `entry` with `signature` in place of its own (type, address, nonce, expiration and delegates kept). */
function withSignature(entry: xdr.SorobanAuthorizationEntry, signature: xdr.ScVal): xdr.SorobanAuthorizationEntry {
  const any = addressCredentialsOf(entry.credentials)!;
  const c = any.creds;
  return entryOf(
    any.type,
    {
      address: c.address,
      nonce: c.nonce,
      expiration: c.signatureExpirationLedger,
      signature,
      delegates: [...any.delegates],
    },
    entry.rootInvocation,
  );
}

const latest = (net: SimNetwork) => net.ledger.tick().seq;

/** The transaction with `auth`, as sent; `rerun` closes a ledger first so the host runs the call again in enforcing
 *  mode instead of applying the recorded simulation. */
async function send(
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
  return {
    tx,
    sent: (await net.rpc('sendTransaction', { transaction: tx.toXdr() })) as {
      status: string;
      hash: string;
      errorResultXdr?: string;
    },
  };
}

async function submit(
  ctx: Ctx,
  raw: ReturnType<TransactionBuilder['build']>,
  sim: Sim,
  auth: xdr.SorobanAuthorizationEntry[],
  rerun = false,
) {
  const { sent } = await send(ctx, raw, sim, auth, rerun);
  expect(sent.status).toBe('PENDING');
  const got = (await ctx.net.rpc('getTransaction', { hash: sent.hash })) as { status: string };
  return { status: got.status, error: ctx.net.ledger.txs.get(sent.hash)?.error ?? '' };
}

/** Simulation in enforcing mode of the call with these (signed) entries. */
async function enforce(
  ctx: Ctx,
  raw: ReturnType<TransactionBuilder['build']>,
  auth: xdr.SorobanAuthorizationEntry[],
): Promise<Sim> {
  const op = raw.operations[0] as Operation.InvokeHostFunction;
  const tx = TransactionBuilder.cloneFrom(raw)
    .clearOperations()
    .addOperation(Operation.invokeHostFunction({ func: op.func, auth }))
    .build();
  return (await ctx.net.rpc('simulateTransaction', { transaction: tx.toXdr() })) as Sim;
}

/** The SDK's rpc.Server answered by the in-process network (no HTTP): what a wallet's SDK sends, it receives. */
function sdkOver(net: SimNetwork): rpc.Server {
  const server = new rpc.Server('http://simulator.invalid/rpc', { allowHttp: true });
  // configured through its public `adapter` option (the request the SDK built, answered in process), not replaced
  server.httpClient.defaults.adapter = async (config) => {
    const raw: unknown = config.data;
    const body = (typeof raw === 'string' ? JSON.parse(raw) : raw) as { id: unknown; method: string; params: unknown };
    const data = { jsonrpc: '2.0', id: body.id, result: await net.rpc(body.method, body.params) };
    return { data, status: 200, statusText: 'OK', headers: {}, config };
  };
  return server;
}

const count = (ctx: Ctx): number => {
  const r = ctx.net.read(ctx.counterId, 'get', []);
  return r.status === 'SUCCESS' ? toU32(r.returnValue) : -1;
};

describe('CAP-71 credentials at Protocol 28', () => {
  describe.each([false, true])('(rerun: %s)', (rerun) => {
    it.each(TYPES)('%s signed by the SDK authorizes the call', async (type) => {
      const ctx = setup();
      const { raw, sim, entries } = await prepare(ctx, 2);
      const signed = await authorizeEntry(
        retype(entries[0]!, type),
        ctx.owner,
        latest(ctx.net) + 10,
        ctx.net.info.passphrase,
      );
      expect((await enforce(ctx, raw, [signed])).error).toBeUndefined();
      const r = await submit(ctx, raw, sim, [signed], rerun);
      expect(r).toEqual({ status: 'SUCCESS', error: '' });
      expect(count(ctx)).toBe(2);
    });

    it.each([
      ['a legacy signature in an ADDRESS_V2 entry', 'sorobanCredentialsAddress', 'sorobanCredentialsAddressV2'],
      [
        'a legacy signature in an ADDRESS_WITH_DELEGATES entry',
        'sorobanCredentialsAddress',
        'sorobanCredentialsAddressWithDelegates',
      ],
      [
        'an address-bound signature in a legacy ADDRESS entry',
        'sorobanCredentialsAddressV2',
        'sorobanCredentialsAddress',
      ],
    ] as const)('refuses %s', async (_name, signedAs, sentAs) => {
      const ctx = setup();
      const { raw, sim, entries } = await prepare(ctx, 1);
      const exp = latest(ctx.net) + 10;
      const signed = await authorizeEntry(retype(entries[0]!, signedAs), ctx.owner, exp, ctx.net.info.passphrase);
      const moved = await authorizeEntry(retype(entries[0]!, sentAs), ctx.owner, exp, ctx.net.info.passphrase);
      const forged = withSignature(moved, addressCreds(signed).signature);
      expect((await enforce(ctx, raw, [forged])).error).toMatch(/failed ED25519 verification/);
      const r = await submit(ctx, raw, sim, [forged], rerun);
      expect(r.status).toBe('FAILED');
      expect(r.error).toMatch(/failed ED25519 verification/);
      expect(count(ctx)).toBe(0);
    });
  });

  it('ADDRESS_V2 and ADDRESS_WITH_DELEGATES sign the same address-bound payload', async () => {
    const ctx = setup();
    const { raw, sim, entries } = await prepare(ctx, 4);
    const v2 = await authorizeEntry(
      retype(entries[0]!, 'sorobanCredentialsAddressV2'),
      ctx.owner,
      latest(ctx.net) + 10,
      ctx.net.info.passphrase,
    );
    const c = addressCreds(v2);
    const moved = entryOf(
      'sorobanCredentialsAddressWithDelegates',
      { address: c.address, nonce: c.nonce, expiration: c.signatureExpirationLedger, signature: c.signature },
      v2.rootInvocation,
    );
    expect((await submit(ctx, raw, sim, [moved])).status).toBe('SUCCESS');
    expect(count(ctx)).toBe(4);
  });

  it('a signature made for one address cannot authorize another address sharing the key (the replay CAP-71 closes)', async () => {
    // The owner's key also signs, as a delegate, for another address A (a custom account C… whose check delegates
    // to the owner, per CAP-71-01). Its signature covers A's address-bound payload. The attacker copies it into an
    // ADDRESS_V2 entry of the owner itself, with the same nonce, expiration and invocation (incr(1) names no
    // address, so nothing else binds the signer): the payload now names the owner, and the signature fails.
    const ctx = setup();
    const { raw, sim, entries } = await prepare(ctx, 1);
    const exp = latest(ctx.net) + 10;
    const ownerEntry = addressCreds(entries[0]!);
    const a = StrKey.encodeContract(Buffer.alloc(32, 0xa1));
    const forA = buildWithDelegatesEntry({
      entry: new xdr.SorobanAuthorizationEntry({
        credentials: xdr.SorobanCredentials.sorobanCredentialsAddressV2(
          new xdr.SorobanAddressCredentials({
            address: new Address(a).toScAddress(),
            nonce: ownerEntry.nonce,
            signatureExpirationLedger: 0,
            signature: xdr.ScVal.scvVoid(),
          }),
        ),
        rootInvocation: entries[0]!.rootInvocation,
      }),
      validUntilLedgerSeq: exp,
      delegates: [{ address: ctx.owner.publicKey() }],
    });
    const signedForA = await authorizeEntry(forA, ctx.owner, exp, ctx.net.info.passphrase, ctx.owner.publicKey());
    const delegateSig = xdr.expectUnionVariant(signedForA.credentials, 'sorobanCredentialsAddressWithDelegates')
      .addressWithDelegates.delegates[0]!.signature;
    // a genuine signature of A's payload by the owner's key…
    const sigBytes = xdr.expectUnionVariant(field(fromStruct(toVec(delegateSig)[0]!), 'signature'), 'scvBytes').bytes
      .value;
    expect(
      ctx.owner.verify(hash(buildAuthorizationEntryPreimage(forA, exp, ctx.net.info.passphrase).toXdr()), sigBytes),
    ).toBe(true);

    // …refused as the owner's own
    const replayed = withSignature(
      await authorizeEntry(retype(entries[0]!, 'sorobanCredentialsAddressV2'), ctx.owner, exp, ctx.net.info.passphrase),
      delegateSig,
    );
    expect((await enforce(ctx, raw, [replayed])).error).toMatch(/failed ED25519 verification/);
    const r = await submit(ctx, raw, sim, [replayed]);
    expect(r.status).toBe('FAILED');
    expect(r.error).toMatch(/failed ED25519 verification/);
    expect(count(ctx)).toBe(0);

    // The legacy payload names no address: a legacy signature made for A verifies for the owner as well. That is
    // the gap; legacy entries keep working (CAP-71-02 does not deprecate them), so the service must bind addresses.
    const legacyForA = await authorizeEntry(
      entryOf(
        'sorobanCredentialsAddress',
        { address: new Address(a).toScAddress(), nonce: ownerEntry.nonce, expiration: 0 },
        entries[0]!.rootInvocation,
      ),
      ctx.owner,
      exp,
      ctx.net.info.passphrase,
    );
    const legacyReplay = entryOf(
      'sorobanCredentialsAddress',
      {
        address: ownerEntry.address,
        nonce: ownerEntry.nonce,
        expiration: exp,
        signature: addressCreds(legacyForA).signature,
      },
      entries[0]!.rootInvocation,
    );
    expect((await enforce(ctx, raw, [legacyReplay])).error).toBeUndefined();
  });
});

describe('delegates (CAP-71-01)', () => {
  const delegate = (address: string, nested: xdr.SorobanDelegateSignature[] = []) =>
    new xdr.SorobanDelegateSignature({
      address: new Address(address).toScAddress(),
      signature: xdr.ScVal.scvVoid(),
      nestedDelegates: nested,
    });
  const sortedAddresses = (n: number) =>
    Array.from({ length: n }, () => Keypair.random().publicKey()).sort((x, y) =>
      Buffer.compare(new Address(x).toScAddress().toXdr(), new Address(y).toScAddress().toXdr()),
    );

  it.each([
    ['unsorted', (a: string[]) => [delegate(a[1]!), delegate(a[0]!)]],
    ['duplicate', (a: string[]) => [delegate(a[0]!), delegate(a[0]!)]],
    ['unsorted nested', (a: string[]) => [delegate(a[0]!, [delegate(a[2]!), delegate(a[1]!)])]],
  ] as const)('%s delegate signatures fail before the contract runs', async (_name, make) => {
    const ctx = setup();
    const { raw, sim, entries } = await prepare(ctx, 1);
    const signed = await authorizeEntry(
      retype(entries[0]!, 'sorobanCredentialsAddressWithDelegates', make(sortedAddresses(3))),
      ctx.owner,
      latest(ctx.net) + 10,
      ctx.net.info.passphrase,
    );
    expect((await enforce(ctx, raw, [signed])).error).toMatch(
      /Error\(Auth, InvalidInput\)[\s\S]*sorted by address without duplicates/,
    );
    const r = await submit(ctx, raw, sim, [signed], true);
    expect(r.status).toBe('FAILED');
    expect(r.error).toMatch(/sorted by address without duplicates/);
  });

  it.each([false, true])(
    'refuses delegates on a Stellar account, whose built-in check never delegates (rerun: %s)',
    async (rerun) => {
      const ctx = setup();
      const { raw, sim, entries } = await prepare(ctx, 1);
      const d = Keypair.random();
      const exp = latest(ctx.net) + 10;
      const entry = retype(entries[0]!, 'sorobanCredentialsAddressWithDelegates', [delegate(d.publicKey())]);
      const signed = await authorizeEntry(
        await authorizeEntry(entry, ctx.owner, exp, ctx.net.info.passphrase, ctx.owner.publicKey()),
        d,
        exp,
        ctx.net.info.passphrase,
        d.publicKey(),
      );
      expect((await enforce(ctx, raw, [signed])).error).toMatch(/account G[A-Z2-7]{55} cannot use delegated signers/);
      const r = await submit(ctx, raw, sim, [signed], rerun);
      expect(r.status).toBe('FAILED');
      expect(r.error).toMatch(/account G[A-Z2-7]{55} cannot use delegated signers: its check never delegates/);
      expect(count(ctx)).toBe(0);
    },
  );
});

describe('Protocol 26: before CAP-71', () => {
  it('legacy entries land', async () => {
    const ctx = setup(26);
    const { raw, sim, entries } = await prepare(ctx, 3);
    expect(entries[0]!.credentials.type).toBe('sorobanCredentialsAddress');
    const signed = await authorizeEntry(entries[0]!, ctx.owner, latest(ctx.net) + 10, ctx.net.info.passphrase);
    expect((await submit(ctx, raw, sim, [signed])).status).toBe('SUCCESS');
    expect(count(ctx)).toBe(3);
  });

  it.each(['sorobanCredentialsAddressV2', 'sorobanCredentialsAddressWithDelegates'] as const)(
    '%s invalidates the transaction (txMALFORMED) and fails simulation',
    async (type) => {
      const ctx = setup(26);
      const { raw, sim, entries } = await prepare(ctx, 1);
      const signed = await authorizeEntry(
        retype(entries[0]!, type),
        ctx.owner,
        latest(ctx.net) + 10,
        ctx.net.info.passphrase,
      );
      expect((await enforce(ctx, raw, [signed])).error).toMatch(
        /credentials are not valid before Protocol 27 \(this network runs Protocol 26\)/,
      );
      const seq = ctx.net.account(ctx.payer.publicKey())!.seqNum;
      const { sent } = await send(ctx, raw, sim, [signed]);
      expect(sent.status).toBe('ERROR');
      expect(errorCode(sent)).toBe('txMalformed');
      expect(ctx.net.account(ctx.payer.publicKey())!.seqNum).toBe(seq); // not applied: no fee, no sequence number
      expect(count(ctx)).toBe(0);
    },
  );

  it('the same V2 entry lands at Protocol 27', async () => {
    const ctx = setup(27);
    const { raw, sim, entries } = await prepare(ctx, 1);
    const signed = await authorizeEntry(
      retype(entries[0]!, 'sorobanCredentialsAddressV2'),
      ctx.owner,
      latest(ctx.net) + 10,
      ctx.net.info.passphrase,
    );
    expect((await submit(ctx, raw, sim, [signed])).status).toBe('SUCCESS');
  });
});

// stellar-rpc records ADDRESS_V2 only when the request sets useUpgradedAuth, at 27 and 28 alike (docs/chain-abi.md
// "Protocol line"); before 27 the flag is ignored.
describe('recording mode returns V2 entries only when the request asks for them', () => {
  it.each([
    [26, undefined, 'sorobanCredentialsAddress'],
    [26, false, 'sorobanCredentialsAddress'],
    [26, true, 'sorobanCredentialsAddress'],
    [27, undefined, 'sorobanCredentialsAddress'],
    [27, false, 'sorobanCredentialsAddress'],
    [27, true, 'sorobanCredentialsAddressV2'],
    [28, undefined, 'sorobanCredentialsAddress'],
    [28, false, 'sorobanCredentialsAddress'],
    [28, true, 'sorobanCredentialsAddressV2'],
  ] as const)('Protocol %i, useUpgradedAuth %s → %s', async (protocol, upgraded, want) => {
    const ctx = setup(protocol);
    const { raw, sim, entries } = await prepare(ctx, 1, upgraded === undefined ? {} : { useUpgradedAuth: upgraded });
    expect(entries.map((e) => e.credentials.type)).toEqual([want]);
    // and what it returns signs and lands as it is
    const signed = await authorizeEntry(entries[0]!, ctx.owner, latest(ctx.net) + 10, ctx.net.info.passphrase);
    expect((await submit(ctx, raw, sim, [signed])).status).toBe('SUCCESS');
  });

  it.each([27, 28])('SDK 17 simulation (useUpgradedAuth by default) gets V2 at %i, it lands', async (protocol) => {
    const ctx = setup(protocol);
    const server = sdkOver(ctx.net);
    const acc = new Account(ctx.payer.publicKey(), ctx.net.account(ctx.payer.publicKey())!.seqNum.toString());
    const raw = new TransactionBuilder(acc, { fee: '100', networkPassphrase: ctx.net.info.passphrase })
      .addOperation(new Contract(ctx.counterId).call('incr', xdr.ScVal.scvU32(5)))
      .setTimebounds(0, ctx.net.ledger.nowSec() + 300)
      .build();
    const typesOf = (sim: rpc.Api.SimulateTransactionResponse) =>
      rpc.Api.isSimulationSuccess(sim) ? sim.result!.auth.map((e) => e.credentials.type) : sim;
    // with the flag turned off, as a client of another SDK may send it: legacy entries
    const withoutFlag = await server.simulateTransaction(raw, undefined, undefined, false);
    expect(typesOf(withoutFlag)).toEqual(['sorobanCredentialsAddress']);
    const sim = await server.simulateTransaction(raw);
    expect(typesOf(sim)).toEqual(['sorobanCredentialsAddressV2']);
    if (!rpc.Api.isSimulationSuccess(sim)) throw new Error('simulation failed');
    const signed = await authorizeEntry(sim.result!.auth[0]!, ctx.owner, latest(ctx.net) + 10, ctx.net.info.passphrase);
    const b = rpc.assembleTransaction(raw, sim);
    const op = raw.operations[0] as Operation.InvokeHostFunction;
    const tx = b.clearOperations().addOperation(Operation.invokeHostFunction({ func: op.func, auth: [signed] }));
    const built = tx.build();
    built.sign(ctx.payer);
    const sent = await server.sendTransaction(built);
    expect([sent.status, sent.errorResult?.result.type]).toEqual(['PENDING', undefined]);
    expect((await server.getTransaction(sent.hash)).status).toBe('SUCCESS');
    expect(count(ctx)).toBe(5);
  });

  it('refuses a useUpgradedAuth that is not a boolean', async () => {
    const ctx = setup();
    await expect(prepare(ctx, 1, { useUpgradedAuth: 'yes' })).rejects.toThrow('useUpgradedAuth must be a boolean');
  });
});

describe('Protocol 28 XDR in requests: decoded, and refused where the simulator does not model it', () => {
  const rpcError = async (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: unknown) => e as { code: number; message: string },
    );

  it('CAP-85: a CreateContractV2 with an external executable reference gets a simulation error', async () => {
    const ctx = setup();
    const func = xdr.HostFunction.hostFunctionTypeCreateContractV2(
      new xdr.CreateContractArgsV2({
        contractIdPreimage: xdr.ContractIdPreimage.contractIdPreimageFromAddress(
          new xdr.ContractIdPreimageFromAddress({
            address: new Address(ctx.payer.publicKey()).toScAddress(),
            salt: Buffer.alloc(32, 1),
          }),
        ),
        executable: xdr.ContractExecutable.contractExecutableExternalRef(
          new xdr.ContractExecutableExternalRef({
            executableOwner: new Address(ctx.counterId).toScAddress(),
            tag: 'v1',
          }),
        ),
        constructorArgs: [],
      }),
    );
    const acc = new Account(ctx.payer.publicKey(), ctx.net.account(ctx.payer.publicKey())!.seqNum.toString());
    const tx = new TransactionBuilder(acc, { fee: '100', networkPassphrase: ctx.net.info.passphrase })
      .addOperation(Operation.invokeHostFunction({ func, auth: [] }))
      .setTimeout(60)
      .build();
    const sim = (await ctx.net.rpc('simulateTransaction', { transaction: tx.toXdr() })) as Sim;
    expect(sim.error).toBe('CONTRACT_EXECUTABLE_EXTERNAL_REF (CAP-85) executables are not supported by the simulator');
    // sent anyway (with resources): it decodes, and the operation fails as malformed
    const data = new xdr.SorobanTransactionData({
      ext: xdr.SorobanTransactionDataExt.v0(),
      resources: new xdr.SorobanResources({
        footprint: new xdr.LedgerFootprint({ readOnly: [], readWrite: [] }),
        instructions: 1_000_000,
        diskReadBytes: 0,
        writeBytes: 0,
      }),
      resourceFee: 1_000_000n,
    });
    const withData = TransactionBuilder.cloneFrom(tx, {
      fee: '1000100',
      sorobanData: data,
      networkPassphrase: ctx.net.info.passphrase,
    }).build();
    withData.sign(ctx.payer);
    const sent = (await ctx.net.rpc('sendTransaction', { transaction: withData.toXdr() })) as {
      status: string;
      hash: string;
    };
    expect(sent.status).toBe('PENDING');
    const got = (await ctx.net.rpc('getTransaction', { hash: sent.hash })) as { status: string; resultXdr: string };
    expect(got.status).toBe('FAILED');
    const op = xdr.TransactionResult.fromXdr(got.resultXdr, 'base64').result;
    expect(op.type).toBe('txFailed');
  });

  it('CAP-85: an SCV_EXECUTABLE_TAG in a ledger key or an event topic filter decodes and matches nothing', async () => {
    const ctx = setup();
    const tag = xdr.ScVal.scvExecutableTag('wasm');
    const key = xdr.LedgerKey.contractData(
      new xdr.LedgerKeyContractData({
        contract: new Address(ctx.counterId).toScAddress(),
        key: tag,
        durability: xdr.ContractDataDurability.persistent,
      }),
    );
    expect(await ctx.net.rpc('getLedgerEntries', { keys: [key.toXdr('base64')] })).toMatchObject({ entries: [] });
    const events = (await ctx.net.rpc('getEvents', {
      startLedger: ctx.net.ledger.oldestLedger,
      filters: [{ type: 'contract', topics: [[tag.toXdr('base64')]] }],
    })) as { events: unknown[] };
    expect(events.events).toEqual([]);
  });

  it('CAP-85: an SCV_EXECUTABLE_TAG argument decodes and fails the call, not the server', async () => {
    const ctx = setup();
    const acc = new Account(ctx.payer.publicKey(), ctx.net.account(ctx.payer.publicKey())!.seqNum.toString());
    const tx = new TransactionBuilder(acc, { fee: '100', networkPassphrase: ctx.net.info.passphrase })
      .addOperation(new Contract(ctx.counterId).call('incr', xdr.ScVal.scvExecutableTag('wasm')))
      .setTimeout(60)
      .build();
    const sim = (await ctx.net.rpc('simulateTransaction', { transaction: tx.toXdr() })) as Sim;
    expect(sim.error).toMatch(/^HostError: Error\(/);
  });

  it('CAP-84: a muxed contract address is refused with -32602 naming it (SDK 17 cannot decode it)', async () => {
    const ctx = setup();
    const target = StrKey.encodeContract(Buffer.alloc(32, 0xc5));
    const acc = new Account(ctx.payer.publicKey(), ctx.net.account(ctx.payer.publicKey())!.seqNum.toString());
    const tx = new TransactionBuilder(acc, { fee: '100', networkPassphrase: ctx.net.info.passphrase })
      .addOperation(new Contract(ctx.counterId).call('guarded', addressToScVal(target)))
      .setTimeout(60)
      .build();
    // SC_ADDRESS_TYPE_CONTRACT (1) + id  →  SC_ADDRESS_TYPE_MUXED_CONTRACT (5) + MuxedContract{uint64 id, ContractID}
    const bytes = Buffer.from(tx.toXdr(), 'base64');
    const plain = Buffer.concat([Buffer.from([0, 0, 0, 1]), Buffer.alloc(32, 0xc5)]);
    const at = bytes.indexOf(plain);
    expect(at).toBeGreaterThan(0);
    const muxed = Buffer.concat([
      bytes.subarray(0, at),
      Buffer.from([0, 0, 0, 5]),
      Buffer.alloc(8, 7),
      Buffer.alloc(32, 0xc5),
      bytes.subarray(at + plain.length),
    ]);
    const err = await rpcError(ctx.net.rpc('sendTransaction', { transaction: muxed.toString('base64') }));
    expect(err).toMatchObject({
      code: -32602,
      message: 'invalid_xdr: SC_ADDRESS_TYPE_MUXED_CONTRACT (CAP-84) addresses are not supported by the simulator',
    });
    // simulateTransaction answers a transaction it cannot decode in result.error, as stellar-rpc does
    expect(await ctx.net.rpc('simulateTransaction', { transaction: muxed.toString('base64') })).toMatchObject({
      error:
        'Could not unmarshal transaction (SC_ADDRESS_TYPE_MUXED_CONTRACT (CAP-84) addresses are not supported by the simulator)',
    });
  });

  it('a call to an address that is not a contract gets a simulation error', async () => {
    const ctx = setup();
    const acc = new Account(ctx.payer.publicKey(), ctx.net.account(ctx.payer.publicKey())!.seqNum.toString());
    const func = xdr.HostFunction.hostFunctionTypeInvokeContract(
      new xdr.InvokeContractArgs({
        contractAddress: new Address(ctx.owner.publicKey()).toScAddress(),
        functionName: 'get',
        args: [],
      }),
    );
    const tx = new TransactionBuilder(acc, { fee: '100', networkPassphrase: ctx.net.info.passphrase })
      .addOperation(Operation.invokeHostFunction({ func, auth: [] }))
      .setTimeout(60)
      .build();
    const sim = (await ctx.net.rpc('simulateTransaction', { transaction: tx.toXdr() })) as Sim;
    expect(sim.error).toBe('cannot invoke a scAddressTypeAccount address: only contract addresses can be invoked');
  });

  it('a contract data key under a liquidity pool address names nothing', async () => {
    const ctx = setup();
    const key = xdr.LedgerKey.contractData(
      new xdr.LedgerKeyContractData({
        contract: xdr.ScAddress.fromXdr(Buffer.concat([Buffer.from([0, 0, 0, 4]), Buffer.alloc(32, 9)])),
        key: xdr.ScVal.scvLedgerKeyContractInstance(),
        durability: xdr.ContractDataDurability.persistent,
      }),
    );
    const got = (await ctx.net.rpc('getLedgerEntries', { keys: [key.toXdr('base64')] })) as { entries: unknown[] };
    expect(got.entries).toEqual([]);
  });
});
