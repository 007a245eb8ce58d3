// buildCall / assembleCall against the SDK's own path (TransactionBuilder + Contract.call, then
// rpc.assembleTransaction): the same bytes for every call src/chain makes, undefined where the SDK is kept.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  Account, Address, Contract, Keypair, Networks, SorobanDataBuilder, StrKey, TransactionBuilder, rpc, xdr,
} from '@stellar/stellar-sdk';
import { assembleCall, buildCall, simulationInput } from './assemble.ts';

const PASS = Networks.TESTNET;

function sdkBuild(o: { source: string; sequence: string; baseFee: string; maxTime: number; contractId: string; fn: string; args: xdr.ScVal[] }) {
  return new TransactionBuilder(new Account(o.source, o.sequence), { fee: o.baseFee, networkPassphrase: PASS })
    .addOperation(new Contract(o.contractId).call(o.fn, ...o.args))
    .setTimebounds(0, o.maxTime)
    .build();
}

function simulation(o: { resourceFee: bigint; auth: xdr.SorobanAuthorizationEntry[]; readOnly: xdr.LedgerKey[]; instructions: number }) {
  const data = new SorobanDataBuilder()
    .setResourceFee(o.resourceFee.toString())
    .setResources(o.instructions, 1_000, 2_000)
    .setFootprint(o.readOnly, [])
    .build();
  return rpc.parseRawSimulation({
    transactionData: data.toXdr('base64'),
    minResourceFee: o.resourceFee.toString(),
    results: [{ auth: o.auth.map((a) => a.toXdr('base64')), xdr: xdr.ScVal.scvVoid().toXdr('base64') }],
    latestLedger: 10,
    events: [],
  } as unknown as rpc.Api.RawSimulateTransactionResponse) as rpc.Api.SimulateTransactionSuccessResponse;
}

const authEntry = (kp: Keypair, contractId: string, fn: string, args: xdr.ScVal[], nonce: bigint) =>
  new xdr.SorobanAuthorizationEntry({
    credentials: xdr.SorobanCredentials.sorobanCredentialsAddress(
      new xdr.SorobanAddressCredentials({
        address: new Address(kp.publicKey()).toScAddress(),
        nonce: xdr.Int64.fromString(nonce.toString()),
        signatureExpirationLedger: 0,
        signature: xdr.ScVal.scvVoid(),
      }),
    ),
    rootInvocation: new xdr.SorobanAuthorizedInvocation({
      function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(
        new xdr.InvokeContractArgs({ contractAddress: new Address(contractId).toScAddress(), functionName: fn, args }),
      ),
      subInvocations: [],
    }),
  });

const keypair = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Keypair.fromRawEd25519Seed(Buffer.from(b)));
const contractId = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => StrKey.encodeContract(Buffer.from(b)));
const scVal: fc.Arbitrary<xdr.ScVal> = fc.oneof(
  fc.string({ maxLength: 400 }).map((s) => xdr.ScVal.scvString(s)),
  fc.integer({ min: 0, max: 0xffffffff }).map((n) => xdr.ScVal.scvU32(n)),
  fc.uint8Array({ maxLength: 40 }).map((b) => xdr.ScVal.scvBytes(Buffer.from(b))),
  keypair.map((k) => new Address(k.publicKey()).toScVal()),
  contractId.map((c) => new Address(c).toScVal()),
  fc.array(fc.string({ maxLength: 20 }), { maxLength: 4 }).map((a) => xdr.ScVal.scvVec(a.map((s) => xdr.ScVal.scvSymbol(s.replace(/[^A-Za-z0-9_]/g, '_'))))),
);
const call = fc.record({
  kp: keypair,
  sequence: fc.bigInt({ min: 0n, max: (1n << 62n) }).map(String),
  baseFee: fc.constantFrom('100', '1000', '1', '250000'),
  maxTime: fc.integer({ min: 0, max: 2 ** 40 }),
  contractId,
  fn: fc.constantFrom('issue', 'batch_issue', 'revoke', 'register', 'transfer_controller', 'deny_issuer', 'x'),
  args: fc.array(scVal, { maxLength: 6 }),
});

describe('buildCall / assembleCall = TransactionBuilder / assembleTransaction, byte for byte', () => {
  it('the simulated transaction and the assembled one', () => {
    fc.assert(
      fc.property(call, fc.bigInt({ min: 0n, max: 4_000_000_000n }), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 100_000_000 }), (c, resourceFee, nAuth, instructions) => {
        const o = { ...c, source: c.kp.publicKey() };
        const sdk = sdkBuild(o);
        const mine = buildCall(o)!;
        expect(mine).toBeDefined();
        expect(simulationInput(mine).toXdr()).toBe(sdk.toXdr());
        const auth = Array.from({ length: nAuth }, (_, i) => authEntry(c.kp, c.contractId, c.fn, c.args, BigInt(i) * 7919n));
        const sim = simulation({ resourceFee, auth, readOnly: [new Contract(c.contractId).getFootprint()], instructions });
        const expected = rpc.assembleTransaction(sdk, sim).build().toXdr();
        expect(assembleCall(mine, sim)).toBe(expected);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps the SDK path where it cannot promise the same', () => {
    const kp = Keypair.random();
    const base = { source: kp.publicKey(), sequence: '5', baseFee: '100', maxTime: 1_000, contractId: StrKey.encodeContract(Buffer.alloc(32, 3)), fn: 'f', args: [] };
    expect(buildCall(base)).toBeDefined();
    expect(buildCall({ ...base, baseFee: '100.5' })).toBeUndefined();
    expect(buildCall({ ...base, baseFee: '' })).toBeUndefined();
    expect(buildCall({ ...base, source: 'GNOPE' })).toBeUndefined();
    expect(buildCall({ ...base, maxTime: -1 })).toBeUndefined();
    const pool = xdr.ScVal.scvAddress(xdr.ScAddress.scAddressTypeLiquidityPool(Buffer.alloc(32, 1) as never));
    expect(buildCall({ ...base, args: [pool] })).toBeUndefined();
    // a simulation without a result: assembleTransaction throws, the caller lets it
    const sim = { ...simulation({ resourceFee: 1n, auth: [], readOnly: [], instructions: 1 }), result: undefined };
    expect(assembleCall(buildCall(base)!, sim)).toBeUndefined();
  });

  it('an invalid contract id throws what new Contract throws', () => {
    const o = { source: Keypair.random().publicKey(), sequence: '5', baseFee: '100', maxTime: 1_000, contractId: 'CNOPE', fn: 'f', args: [] };
    expect(() => buildCall(o)).toThrow(/^Invalid contract ID: CNOPE$/);
    expect(() => new Contract('CNOPE')).toThrow(/^Invalid contract ID: CNOPE$/);
  });
});
