// The service's codec (src/chain) and the simulator's own (simulator/core/scval.ts, derive.ts) are written apart:
// the simulator imports nothing from src/ (contract-tests/layout.test.ts). Here the two are held to the same bytes
// for the same values, so that a disagreement shows up as a failing property rather than as a chain that agrees
// with whatever the service encodes.
import { Keypair, StrKey } from '@stellar/stellar-sdk';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import * as sim from '../simulator/core/scval.ts';
import { contractIdFromAddress as simContractId, deploySalt as simDeploySalt } from '../simulator/core/derive.ts';
import * as svc from '../src/chain/codec.ts';
import { contractIdFromAddress, deploySalt } from '../src/chain/derive.ts';

const hex = (v: { toXDR(f: 'hex'): string }): string => v.toXDR('hex');
const account = fc
  .uint8Array({ minLength: 32, maxLength: 32 })
  .map((b) => StrKey.encodeEd25519PublicKey(Buffer.from(b)));
const contract = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => StrKey.encodeContract(Buffer.from(b)));
const address = fc.oneof(account, contract);

describe("the simulator's codec and the service's encode the same bytes", () => {
  it('i128 and u64 over their whole ranges', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -(1n << 127n), max: (1n << 127n) - 1n }), (n) => {
        expect(hex(sim.i128(n))).toBe(hex(svc.i128(n)));
      }),
    );
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), (n) => {
        expect(hex(sim.u64(n))).toBe(hex(svc.u64(n)));
      }),
    );
  });

  it('addresses, both ways', () => {
    fc.assert(
      fc.property(address, (a) => {
        expect(hex(sim.address(a))).toBe(hex(svc.address(a)));
        expect(sim.addressOfScVal(svc.address(a))).toBe(a);
      }),
    );
  });

  it('structs (keys sorted), enum variants, options and strings', () => {
    const name = fc.stringMatching(/^[a-z_]{1,12}$/);
    fc.assert(
      fc.property(fc.dictionary(name, fc.integer({ min: 0, max: 2 ** 32 - 1 })), fc.string(), (fields, s) => {
        const enc = (c: typeof sim | typeof svc) =>
          c.struct(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, c.u32(v)])));
        expect(hex(enc(sim))).toBe(hex(enc(svc)));
        expect(hex(sim.enumVariant('V', sim.str(s)))).toBe(hex(svc.enumVariant('V', svc.str(s))));
        expect(hex(sim.option(s || undefined, sim.str))).toBe(hex(svc.option(s || undefined, svc.str)));
      }),
    );
  });

  it("the factory's deploy salt and the deployed contract's id", () => {
    fc.assert(
      fc.property(address, fc.uint8Array({ minLength: 32, maxLength: 32 }), contract, (owner, salt, factory) => {
        const expected = deploySalt(owner, salt);
        expect(simDeploySalt(sim.address(owner), salt).equals(expected)).toBe(true);
        expect(simContractId('p', factory, expected)).toBe(contractIdFromAddress('p', factory, expected));
      }),
      { numRuns: 50 },
    );
    const g = Keypair.random().publicKey();
    expect(simContractId('p', g, Buffer.alloc(32))).toBe(contractIdFromAddress('p', g, Buffer.alloc(32)));
  });
});
