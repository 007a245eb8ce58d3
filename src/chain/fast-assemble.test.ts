// fast-assemble.ts against the SDK's own path (TransactionBuilder + Contract.call, then
// rpc.assembleTransaction): the same bytes for every call src/chain makes, undefined where the SDK is kept.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  Account,
  Address,
  Contract,
  Keypair,
  Networks,
  SorobanDataBuilder,
  StrKey,
  TransactionBuilder,
  rpc,
  xdr,
} from '@stellar/stellar-sdk';
import { type CallToAssemble, fastAssembler, sdkAssembler } from './assembly.ts';
import { assembleCall, buildCall, sdkTransaction } from './fast-assemble.ts';

const PASS = Networks.TESTNET;

function sdkBuild(o: CallToAssemble) {
  return new TransactionBuilder(new Account(o.source, o.sequence), { fee: o.baseFee, networkPassphrase: PASS })
    .addOperation(new Contract(o.contractId).call(o.fn, ...o.args))
    .setTimebounds(0, o.maxTime)
    .build();
}

function simulation(o: {
  resourceFee: bigint;
  auth: xdr.SorobanAuthorizationEntry[];
  readOnly: xdr.LedgerKey[];
  instructions: number;
}) {
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

/** What simulation may return: legacy ADDRESS, CAP-71's ADDRESS_V2 (recorded at Protocols 27 and 28 when the request
 *  sets useUpgradedAuth) and ADDRESS_WITH_DELEGATES (nested delegates, signed), and source-account credentials. */
const CREDENTIALS = ['address', 'addressV2', 'addressWithDelegates', 'sourceAccount'] as const;
const authEntry = (
  kp: Keypair,
  contractId: string,
  fn: string,
  args: xdr.ScVal[],
  nonce: bigint,
  kind: (typeof CREDENTIALS)[number] = 'address',
) => {
  const creds = new xdr.SorobanAddressCredentials({
    address: new Address(kp.publicKey()).toScAddress(),
    nonce: xdr.Int64.fromString(nonce.toString()),
    signatureExpirationLedger: 0,
    signature: xdr.ScVal.scvVoid(),
  });
  const sig = (b: number) =>
    xdr.ScVal.scvVec([
      xdr.ScVal.scvMap([
        new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol('public_key'), val: xdr.ScVal.scvBytes(kp.rawPublicKey()) }),
        new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol('signature'), val: xdr.ScVal.scvBytes(Buffer.alloc(64, b)) }),
      ]),
    ]);
  const credentials =
    kind === 'address'
      ? xdr.SorobanCredentials.sorobanCredentialsAddress(creds)
      : kind === 'addressV2'
        ? xdr.SorobanCredentials.sorobanCredentialsAddressV2(creds)
        : kind === 'sourceAccount'
          ? xdr.SorobanCredentials.sorobanCredentialsSourceAccount()
          : xdr.SorobanCredentials.sorobanCredentialsAddressWithDelegates(
              new xdr.SorobanAddressCredentialsWithDelegates({
                addressCredentials: creds,
                delegates: [
                  new xdr.SorobanDelegateSignature({
                    address: new Address(contractId).toScAddress(),
                    signature: sig(1),
                    nestedDelegates: [
                      new xdr.SorobanDelegateSignature({
                        address: new Address(kp.publicKey()).toScAddress(),
                        signature: sig(2),
                        nestedDelegates: [],
                      }),
                    ],
                  }),
                ],
              }),
            );
  return new xdr.SorobanAuthorizationEntry({
    credentials,
    rootInvocation: new xdr.SorobanAuthorizedInvocation({
      function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(
        new xdr.InvokeContractArgs({ contractAddress: new Address(contractId).toScAddress(), functionName: fn, args }),
      ),
      subInvocations: [],
    }),
  });
};

const keypair = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Keypair.fromRawEd25519Seed(Buffer.from(b)));
const contractId = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => StrKey.encodeContract(Buffer.from(b)));
const scVal: fc.Arbitrary<xdr.ScVal> = fc.oneof(
  fc.string({ maxLength: 400 }).map((s) => xdr.ScVal.scvString(s)),
  fc.integer({ min: 0, max: 0xffffffff }).map((n) => xdr.ScVal.scvU32(n)),
  fc.uint8Array({ maxLength: 40 }).map((b) => xdr.ScVal.scvBytes(Buffer.from(b))),
  keypair.map((k) => new Address(k.publicKey()).toScVal()),
  contractId.map((c) => new Address(c).toScVal()),
  fc
    .array(fc.string({ maxLength: 20 }), { maxLength: 4 })
    .map((a) => xdr.ScVal.scvVec(a.map((s) => xdr.ScVal.scvSymbol(s.replace(/[^A-Za-z0-9_]/g, '_'))))),
);
const call = fc.record({
  kp: keypair,
  sequence: fc.bigInt({ min: 0n, max: 1n << 62n }).map(String),
  baseFee: fc.constantFrom('100', '1000', '1', '250000'),
  maxTime: fc.integer({ min: 0, max: 2 ** 40 }),
  contractId,
  fn: fc.constantFrom('issue', 'batch_issue', 'revoke', 'register', 'transfer_controller', 'deny_issuer', 'x'),
  args: fc.array(scVal, { maxLength: 6 }),
});

describe('buildCall / assembleCall = TransactionBuilder / assembleTransaction, byte for byte', () => {
  it('the simulated transaction and the assembled one', () => {
    fc.assert(
      fc.property(
        call,
        fc.bigInt({ min: 0n, max: 4_000_000_000n }),
        fc.array(fc.constantFrom(...CREDENTIALS), { maxLength: 4 }),
        fc.integer({ min: 0, max: 100_000_000 }),
        (c, resourceFee, kinds, instructions) => {
          const o = { ...c, source: c.kp.publicKey() };
          const sdk = sdkBuild(o);
          const mine = buildCall(o)!;
          expect(mine).toBeDefined();
          expect(sdkTransaction(mine, PASS).toXdr()).toBe(sdk.toXdr());
          const auth = kinds.map((kind, i) => authEntry(c.kp, c.contractId, c.fn, c.args, BigInt(i) * 7919n, kind));
          const sim = simulation({
            resourceFee,
            auth,
            readOnly: [new Contract(c.contractId).getFootprint()],
            instructions,
          });
          const expected = rpc.assembleTransaction(sdk, sim).build().toXdr();
          expect(assembleCall(mine, sim)).toBe(expected);
        },
      ),
      { numRuns: 300 },
    );
  });

  it.each(CREDENTIALS)('passes %s entries through untouched, as assembleTransaction does', (kind) => {
    const kp = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 4));
    const o = {
      source: kp.publicKey(),
      sequence: '41',
      baseFee: '100',
      maxTime: 1_000,
      contractId: StrKey.encodeContract(Buffer.alloc(32, 3)),
      fn: 'deny_issuer',
      args: [new Address(kp.publicKey()).toScVal()],
    };
    const auth = [
      authEntry(kp, o.contractId, o.fn, o.args, 5n, kind),
      authEntry(kp, o.contractId, o.fn, o.args, 6n, kind),
    ];
    const sim = simulation({
      resourceFee: 12_345n,
      auth,
      readOnly: [new Contract(o.contractId).getFootprint()],
      instructions: 1_000,
    });
    const mine = assembleCall(buildCall(o)!, sim)!;
    expect(mine).toBe(rpc.assembleTransaction(sdkBuild(o), sim).build().toXdr());
    const env = xdr.TransactionEnvelope.fromXdr(mine, 'base64');
    if (env.type !== 'envelopeTypeTx') throw new Error('not a v1 envelope');
    const body = env.v1.tx.operations[0]!.body;
    if (body.type !== 'invokeHostFunction') throw new Error('not an invocation');
    expect(body.invokeHostFunctionOp.auth.map((a: xdr.SorobanAuthorizationEntry) => a.toXdr('base64'))).toEqual(
      auth.map((a) => a.toXdr('base64')),
    );
  });

  it('keeps the SDK path where it cannot promise the same', () => {
    const kp = Keypair.random();
    const base = {
      source: kp.publicKey(),
      sequence: '5',
      baseFee: '100',
      maxTime: 1_000,
      contractId: StrKey.encodeContract(Buffer.alloc(32, 3)),
      fn: 'f',
      args: [],
    };
    expect(buildCall(base)).toBeDefined();
    expect(buildCall({ ...base, baseFee: '100.5' })).toBeUndefined();
    expect(buildCall({ ...base, baseFee: '' })).toBeUndefined();
    expect(buildCall({ ...base, source: 'GNOPE' })).toBeUndefined();
    expect(buildCall({ ...base, maxTime: -1 })).toBeUndefined();
    // fees beyond uint32: the SDK's builder throws its own error, which the SDK path keeps
    expect(buildCall({ ...base, baseFee: '4294967296' })).toBeUndefined();
    expect(() => sdkBuild({ ...base, baseFee: '4294967296' })).toThrow(/exceeds the maximum uint32/);
    const costly = simulation({ resourceFee: 4_294_967_295n, auth: [], readOnly: [], instructions: 1 });
    expect(assembleCall(buildCall(base)!, costly)).toBeUndefined();
    expect(() => rpc.assembleTransaction(sdkBuild(base), costly).build()).toThrow(/exceeds the maximum uint32/);
    const pool = xdr.ScVal.scvAddress(xdr.ScAddress.scAddressTypeLiquidityPool(Buffer.alloc(32, 1) as never));
    expect(buildCall({ ...base, args: [pool] })).toBeUndefined();
    // a simulation without a result: assembleTransaction throws, the caller lets it
    const sim = { ...simulation({ resourceFee: 1n, auth: [], readOnly: [], instructions: 1 }), result: undefined };
    expect(assembleCall(buildCall(base)!, sim)).toBeUndefined();
  });

  it('an invalid contract id throws what new Contract throws', () => {
    const o = {
      source: Keypair.random().publicKey(),
      sequence: '5',
      baseFee: '100',
      maxTime: 1_000,
      contractId: 'CNOPE',
      fn: 'f',
      args: [],
    };
    expect(() => buildCall(o)).toThrow(/^Invalid contract ID: CNOPE$/);
    expect(() => new Contract('CNOPE')).toThrow(/^Invalid contract ID: CNOPE$/);
  });
});

describe('the Assembler interface: fastAssembler = sdkAssembler, byte for byte', () => {
  it('builds the same transaction and assembles the same envelope, whatever the call and the simulation', () => {
    fc.assert(
      fc.property(
        call,
        fc.constantFrom('100', '1', '100.5', '4294967296'),
        fc.bigInt({ min: 0n, max: 4_294_967_295n }),
        fc.array(fc.constantFrom(...CREDENTIALS), { maxLength: 3 }),
        (c, baseFee, resourceFee, kinds) => {
          const o = { ...c, source: c.kp.publicKey(), baseFee };
          const auth = kinds.map((kind, i) => authEntry(c.kp, c.contractId, c.fn, c.args, BigInt(i), kind));
          const sim = simulation({
            resourceFee,
            auth,
            readOnly: [new Contract(c.contractId).getFootprint()],
            instructions: 1,
          });
          const failure = (e: unknown) => `throws ${(e as Error).message}`;
          /** What an assembler makes of the call: both envelopes, or the failure, in words. */
          const run = (assembler: typeof sdkAssembler) => {
            let a: ReturnType<typeof sdkAssembler>;
            let tx: string;
            try {
              a = assembler(o, PASS);
              tx = a.transaction.toXDR();
            } catch (e) {
              return failure(e);
            }
            try {
              return { tx, assembled: a.assemble(sim) };
            } catch (e) {
              return { tx, assembled: failure(e) };
            }
          };
          expect(run(fastAssembler)).toEqual(run(sdkAssembler));
        },
      ),
      { numRuns: 200 },
    );
  });
});
