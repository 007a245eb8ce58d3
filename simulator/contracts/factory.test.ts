import { beforeEach, describe, expect, it } from 'vitest';
import { scValToNative, xdr } from '@stellar/stellar-sdk';
import { address, bool, bytes, field, fromStruct, i128, str, u64, unit } from '../../src/chain/codec.ts';
import { deriveVaultAddress } from '../../src/chain/derive.ts';
import { FactoryError } from './errors.ts';
import { factory } from './factory.ts';
import { VAULT_WASM_HASH } from './index.ts';
import { TestHost, account, errorOf, eventsNamed, testContractId, testToken } from './test-host.ts';

const admin = account(1);
const owner = account(2);
const sponsor = account(3);
const dest = account(4);
const issuer = account(5);
const other = account(6);
const SALT0 = Buffer.alloc(32);
const SALT_AB = Buffer.alloc(32, 0xab);
const E18 = 10n ** 18n;

const token = testContractId();
let host: TestHost;
let f: string;
const call = (fn: string, args: xdr.ScVal[], auth: string[] = [admin]) => host.invoke(f, fn, args, auth);
const native = (fn: string, args: xdr.ScVal[], auth?: string[]) => scValToNative(call(fn, args, auth));
const quote = (who = issuer) => native('quote_fee', [address(who)], []);
const configure = (standard = 50_000_000n) => call('set_fee_config', [address(token), address(dest), i128(standard)]);

beforeEach(() => {
  host = new TestHost();
  host.register(testToken, null, token);
  f = host.register(factory, [address(admin), bytes(VAULT_WASM_HASH)]);
});

describe('deploy', () => {
  describe.each([
    {
      name: 'deploy',
      fn: 'deploy',
      signer: owner,
      args: (salt: Buffer) => [address(owner), str('did:ledger:testnet:x'), bytes(salt)],
    },
    {
      name: 'deploy_sponsored',
      fn: 'deploy_sponsored',
      signer: sponsor,
      args: (salt: Buffer) => [address(sponsor), address(owner), str('did:ledger:testnet:x'), bytes(salt)],
    },
  ])('$name', ({ fn, signer, args }) => {
    it.each([{ salt: SALT0 }, { salt: SALT_AB }])('lands at the derived address (salt $salt.0)', ({ salt }) => {
      const vault = native(fn, args(salt), [signer]);
      expect(vault).toBe(
        deriveVaultAddress({ networkPassphrase: host.networkPassphrase, factoryId: f, owner, userSalt: salt }),
      );
      expect(native('is_vault', [address(vault as string)], [])).toBe(true);
      // The vault is constructed with owner as vault_owner (and vault_admin), the did_uri and this factory.
      expect(scValToNative(host.invoke(vault as string, 'vault_owner', []))).toBe(owner);
      expect(scValToNative(host.invoke(vault as string, 'vault_did', []))).toBe('did:ledger:testnet:x');
    });
    it('needs the signer', () => {
      expect(errorOf(() => call(fn, args(SALT0), []))).toMatchObject({ kind: 'Auth' });
      expect(errorOf(() => call(fn, args(SALT0), [fn === 'deploy' ? sponsor : owner]))).toMatchObject({ kind: 'Auth' });
    });
    it('fails in the host at a used (owner, user_salt), whoever deployed first', () => {
      call('deploy', [address(owner), str('d'), bytes(SALT0)], [owner]);
      expect(errorOf(() => call(fn, args(SALT0), [signer]))).toMatchObject({
        kind: 'Storage',
        message: 'contract already exists',
      });
    });
    it('rejects a user_salt that is not BytesN<32>', () => {
      expect(errorOf(() => call(fn, args(Buffer.alloc(31)), [signer]))).toMatchObject({ kind: 'Value' });
    });
    it("fails with the vault constructor's #19 for a did_uri over 256 bytes", () => {
      const a = args(SALT0);
      a[a.length - 2] = str('d'.repeat(257));
      expect(errorOf(() => call(fn, a, [signer]))).toMatchObject({ code: 19 });
    });
  });

  it.each([
    {
      fn: 'deploy',
      args: [address(owner), str('d'), bytes(SALT0)],
      signer: owner,
      want: { owner, vault_address: 'V' },
    },
    {
      fn: 'deploy_sponsored',
      args: [address(sponsor), address(owner), str('d'), bytes(SALT0)],
      signer: sponsor,
      want: { deployer: sponsor, owner, vault_address: 'V' },
    },
  ])('$fn emits its chain-abi event', ({ fn, args, signer, want }) => {
    const vault = native(fn, args, [signer]) as string;
    const name = fn === 'deploy' ? 'vault_deployed' : 'sponsored_vault_deployed';
    expect(eventsNamed(host, name)).toEqual([{ contractId: f, data: { ...want, vault_address: vault } }]);
  });

  it('is_vault is false for anything it did not deploy', () => {
    expect(native('is_vault', [address(owner)], [])).toBe(false);
    expect(native('is_vault', [address(token)], [])).toBe(false);
  });
});

describe('quote_fee', () => {
  const disabled = { enabled: false, amount: 0n, token: null, dest: null };
  const fee = (amount: bigint) => ({ enabled: true, amount, token, dest });
  it.each([
    { name: 'fees never configured', setup: () => {}, want: () => disabled },
    { name: 'standard fee', setup: () => configure(), want: () => fee(50_000_000n) },
    { name: 'zero standard fee', setup: () => configure(0n), want: () => fee(0n) },
    {
      name: 'disabled after config',
      setup: () => (configure(), call('set_fee_enabled', [bool(false)])),
      want: () => disabled,
    },
    {
      name: 're-enabled',
      setup: () => (configure(), call('set_fee_enabled', [bool(false)]), call('set_fee_enabled', [bool(true)])),
      want: () => fee(50_000_000n),
    },
    { name: 'standard changed', setup: () => (configure(), call('set_fee_standard', [i128(7)])), want: () => fee(7n) },
    {
      name: 'custom, no expiry',
      setup: () => (configure(), call('set_fee_custom', [address(issuer), i128(3), unit()])),
      want: () => fee(3n),
    },
    {
      name: 'custom of another issuer',
      setup: () => (configure(), call('set_fee_custom', [address(other), i128(3), unit()])),
      want: () => fee(50_000_000n),
    },
    {
      name: 'custom, expiry ahead',
      setup: () => (configure(), call('set_fee_custom', [address(issuer), i128(3), u64(host.ledgerTimestamp + 10n)])),
      want: () => fee(3n),
    },
    {
      name: 'custom, now == expires_at',
      setup: () => (configure(), call('set_fee_custom', [address(issuer), i128(3), u64(host.ledgerTimestamp)])),
      want: () => fee(3n),
    },
    {
      name: 'custom, expired',
      setup: () => (
        configure(),
        call('set_fee_custom', [address(issuer), i128(3), u64(host.ledgerTimestamp)]),
        (host.ledgerTimestamp += 1n)
      ),
      want: () => fee(50_000_000n),
    },
    {
      name: 'custom removed',
      setup: () => (
        configure(),
        call('set_fee_custom', [address(issuer), i128(3), unit()]),
        call('remove_fee_custom', [address(issuer)])
      ),
      want: () => fee(50_000_000n),
    },
    {
      name: 'custom while disabled',
      setup: () => (
        configure(), call('set_fee_custom', [address(issuer), i128(3), unit()]), call('set_fee_enabled', [bool(false)])
      ),
      want: () => disabled,
    },
  ])('$name', ({ setup, want }) => {
    setup();
    expect(quote()).toEqual(want());
  });

  it('encodes FeeQuote as a sorted ScMap with Option fields', () => {
    const v = call('quote_fee', [address(issuer)], []);
    expect(Object.keys(fromStruct(v))).toEqual(['amount', 'dest', 'enabled', 'token']);
    expect(field(fromStruct(v), 'dest').type).toBe('scvVoid');
  });
});

describe('admin fee setters', () => {
  const setters = [
    { fn: 'set_fee_config', args: (n: bigint) => [address(token), address(dest), i128(n)] },
    { fn: 'set_fee_standard', args: (n: bigint) => [i128(n)] },
    { fn: 'set_fee_custom', args: (n: bigint) => [address(issuer), i128(n), unit()] },
  ];
  describe.each(setters)('$fn amount rules', ({ fn, args }) => {
    beforeEach(() => {
      if (fn !== 'set_fee_config') configure();
    });
    it.each([
      { amount: -1n, want: { code: FactoryError.InvalidFeeAmount } },
      { amount: E18 + 1n, want: { code: FactoryError.FeeOutOfBounds } },
      { amount: E18, want: undefined },
      { amount: 0n, want: undefined },
    ])('$amount', ({ amount, want }) => {
      expect(errorOf(() => call(fn, args(amount)))).toEqual(want && expect.objectContaining(want));
    });
    it('below the minimum fee → #4, at the minimum is fine', () => {
      call('set_min_fee', [i128(10)]);
      expect(errorOf(() => call(fn, args(9n)))).toMatchObject({ code: FactoryError.FeeBelowMin });
      expect(errorOf(() => call(fn, args(10n)))).toBeUndefined();
    });
  });

  it.each([
    { amount: -1n, want: { code: FactoryError.InvalidFeeAmount } },
    { amount: E18 + 1n, want: { code: FactoryError.FeeOutOfBounds } },
    { amount: E18, want: undefined },
  ])('set_min_fee $amount', ({ amount, want }) => {
    expect(errorOf(() => call('set_min_fee', [i128(amount)]))).toEqual(want && expect.objectContaining(want));
  });

  it.each([
    { fn: 'set_fee_enabled', args: [bool(true)] },
    { fn: 'set_fee_standard', args: [i128(1)] },
    { fn: 'set_fee_custom', args: [address(issuer), i128(1), unit()] },
  ])('$fn before set_fee_config → #5 FeeNotConfigured', ({ fn, args }) => {
    expect(errorOf(() => call(fn, args))).toMatchObject({ code: FactoryError.FeeNotConfigured });
  });

  it('set_fee_enabled(false) needs no configuration', () => {
    expect(errorOf(() => call('set_fee_enabled', [bool(false)]))).toBeUndefined();
  });

  it.each([
    { expiry: -1n, want: { code: FactoryError.ExpiryInPast } },
    { expiry: 0n, want: undefined },
    { expiry: 1n, want: undefined },
  ])('set_fee_custom expiry now%+d', ({ expiry, want }) => {
    configure();
    const args = [address(issuer), i128(1), u64(host.ledgerTimestamp + expiry)];
    expect(errorOf(() => call('set_fee_custom', args))).toEqual(want && expect.objectContaining(want));
  });

  it('remove_fee_custom of an issuer without one is a no-op', () => {
    expect(errorOf(() => call('remove_fee_custom', [address(issuer)]))).toBeUndefined();
  });
});

describe('admin transfer', () => {
  it('nominate → accept (by the nominee) → get_admin', () => {
    call('nominate_admin', [address(other)]);
    expect(native('get_admin', [], [])).toBe(admin);
    call('accept_admin', [], [other]);
    expect(native('get_admin', [], [])).toBe(other);
    expect(errorOf(() => configure())).toMatchObject({ kind: 'Auth' }); // the old admin lost the role
    expect(errorOf(() => call('set_fee_config', [address(token), address(dest), i128(1)], [other]))).toBeUndefined();
    expect(errorOf(() => call('accept_admin', [], [other]))).toMatchObject({ code: FactoryError.NoPendingAdmin });
  });
  it('accept_admin without a nominee → #1', () => {
    expect(errorOf(() => call('accept_admin', [], [admin]))).toMatchObject({ code: FactoryError.NoPendingAdmin });
  });
  it('accept_admin needs the nominee, not the admin', () => {
    call('nominate_admin', [address(other)]);
    expect(errorOf(() => call('accept_admin', [], [admin]))).toMatchObject({ kind: 'Auth' });
  });
});

describe.each([
  { fn: 'set_fee_config', args: () => [address(token), address(dest), i128(1)] },
  { fn: 'set_fee_enabled', args: () => [bool(false)] },
  { fn: 'set_fee_standard', args: () => [i128(1)] },
  { fn: 'set_fee_custom', args: () => [address(issuer), i128(1), unit()] },
  { fn: 'remove_fee_custom', args: () => [address(issuer)] },
  { fn: 'set_min_fee', args: () => [i128(1)] },
  { fn: 'nominate_admin', args: () => [address(other)] },
])('$fn is admin-only', ({ fn, args }) => {
  beforeEach(() => configure());
  it.each([{ auth: [] }, { auth: [owner, issuer, other] }])('fails without the admin ($auth)', ({ auth }) => {
    expect(errorOf(() => call(fn, args(), auth))).toMatchObject({ kind: 'Auth' });
  });
  it('succeeds with the admin', () => {
    expect(errorOf(() => call(fn, args(), [admin]))).toBeUndefined();
  });
});

describe('not initialized → #7', () => {
  it.each([
    { fn: 'get_admin', args: [] as xdr.ScVal[] },
    { fn: 'quote_fee', args: [address(issuer)] },
    { fn: 'set_fee_config', args: [address(token), address(dest), i128(1)] },
    { fn: 'set_min_fee', args: [i128(1)] },
    { fn: 'nominate_admin', args: [address(other)] },
    { fn: 'accept_admin', args: [] as xdr.ScVal[] },
    { fn: 'deploy', args: [address(owner), str('d'), bytes(SALT0)] },
  ])('$fn', ({ fn, args }) => {
    const bare = host.register(factory, null);
    expect(errorOf(() => host.invoke(bare, fn, args, [admin, owner, other]))).toMatchObject({
      code: FactoryError.NotInitialized,
    });
  });
});

describe('host-level failures', () => {
  it.each([
    { name: 'version() does not exist', fn: 'version', args: [] as xdr.ScVal[], kind: 'Context' },
    { name: 'unknown function', fn: 'upgrade', args: [] as xdr.ScVal[], kind: 'Context' },
    { name: 'wrong arity', fn: 'is_vault', args: [] as xdr.ScVal[], kind: 'Value' },
    { name: 'String where Address expected', fn: 'is_vault', args: [str(owner)], kind: 'Value' },
    { name: 'u64 where i128 expected', fn: 'set_min_fee', args: [u64(1)], kind: 'Value' },
  ])('$name', ({ fn, args, kind }) => {
    expect(errorOf(() => call(fn, args))).toMatchObject({ kind });
  });
});
