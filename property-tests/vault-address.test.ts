// Property 7 — vault address derivation (docs/chain-abi.md "Vault address derivation", src/chain/derive.ts):
// distinct (owner, user_salt) → distinct addresses, even one bit apart; the same inputs → the same address in
// either salt form; the network and the factory are part of the address; and the factory's actual deployment
// (own or sponsored) lands exactly at the derived address.
import { Keypair, StrKey } from '@stellar/stellar-sdk';
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { address, bytes, str, toAddress } from '../src/chain/codec.ts';
import { deriveVaultAddress } from '../src/chain/derive.ts';
import { actor, expectEqual, freshChain, runParams, type Actor } from './harness.ts';
import { isVault } from './vault-io.ts';

const PASSPHRASE = 'Test SDF Network ; September 2015';
const FACTORY = StrKey.encodeContract(Buffer.alloc(32, 2));

const key32 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b));
/** Owners are accounts (G…) and, less often, contracts (C…). */
const owner = fc.oneof(
  { weight: 3, arbitrary: key32.map((k) => StrKey.encodeEd25519PublicKey(k)) },
  { weight: 1, arbitrary: key32.map((k) => StrKey.encodeContract(k)) },
);
const derive = (o: string, salt: Buffer | string, factoryId = FACTORY, networkPassphrase = PASSPHRASE): string =>
  deriveVaultAddress({ networkPassphrase, factoryId, owner: o, userSalt: salt });

function flipBit(b: Buffer, bit: number): Buffer {
  const out = Buffer.from(b);
  out[bit >> 3]! ^= 1 << (bit & 7);
  return out;
}

describe('vault address derivation', () => {
  it('distinct (owner, salt) pairs give distinct addresses', () => {
    const pairs = fc.uniqueArray(fc.record({ owner, salt: key32 }), {
      minLength: 2,
      maxLength: 30,
      selector: (p) => `${p.owner}/${p.salt.toString('hex')}`,
    });
    fc.assert(
      fc.property(pairs, (ps) => {
        const addrs = ps.map((p) => derive(p.owner, p.salt));
        expectEqual('distinct addresses', new Set(addrs).size, ps.length);
        for (const a of addrs) expectEqual(`${a} is a contract address`, StrKey.isValidContract(a), true);
      }),
      runParams('derivation: distinct inputs → distinct addresses'),
    );
  });

  it('one bit of salt or owner key apart → another address; same inputs → same address in either salt form', () => {
    fc.assert(
      fc.property(key32, key32, fc.nat({ max: 255 }), fc.boolean(), (ownerKey, salt, bit, flipOwner) => {
        const o = StrKey.encodeEd25519PublicKey(ownerKey);
        const a = derive(o, salt);
        expectEqual('deterministic', derive(o, salt), a);
        expectEqual('hex salt = bytes salt', derive(o, salt.toString('hex')), a);
        const b = flipOwner
          ? derive(StrKey.encodeEd25519PublicKey(flipBit(ownerKey, bit)), salt)
          : derive(o, flipBit(salt, bit));
        expectEqual(`bit ${bit} of the ${flipOwner ? 'owner key' : 'salt'} flipped`, b === a, false);
      }),
      runParams('derivation: one bit apart'),
    );
  });

  it('the network passphrase and the factory are part of the address; the default salt is 32 zero bytes', () => {
    fc.assert(
      fc.property(owner, key32, key32, (o, salt, otherFactory) => {
        const a = derive(o, salt);
        const f = StrKey.encodeContract(otherFactory);
        expectEqual('other factory', derive(o, salt, f) === a, f === FACTORY);
        expectEqual(
          'other network',
          derive(o, salt, FACTORY, 'Public Global Stellar Network ; September 2015') === a,
          false,
        );
        expectEqual(
          'default salt',
          deriveVaultAddress({ networkPassphrase: PASSPHRASE, factoryId: FACTORY, owner: o }),
          derive(o, Buffer.alloc(32)),
        );
      }),
      runParams('derivation: network and factory'),
    );
  });

  it('the factory deploys (own or sponsored) at exactly the derived address', () => {
    const sponsor = actor('address/sponsor');
    const chain = freshChain('testnet', [sponsor]);
    const genesis = chain.net.snapshot();
    const info = chain.info;
    fc.assert(
      fc.property(key32, fc.oneof(fc.constant(Buffer.alloc(32)), key32), fc.boolean(), (seed, salt, sponsored) => {
        chain.reset(genesis);
        const kp = Keypair.fromRawEd25519Seed(seed);
        const who: Actor = { name: 'owner', kp, id: kp.publicKey() };
        chain.net.fund(who.id);
        const want = deriveVaultAddress({
          networkPassphrase: info.passphrase,
          factoryId: info.factoryId,
          owner: who.id,
          userSalt: salt,
        });
        expectEqual('no vault there yet', isVault(chain, want), false);
        const out = sponsored
          ? chain.call(sponsor, info.factoryId, 'deploy_sponsored', [
              address(sponsor.id),
              address(who.id),
              str('did:ledger:testnet:x'),
              bytes(salt),
            ])
          : chain.call(who, info.factoryId, 'deploy', [address(who.id), str('did:ledger:testnet:x'), bytes(salt)]);
        if (!out.ok) throw new Error(`deploy failed: ${out.error.split('\n')[0]}`);
        expectEqual('deployed address', toAddress(out.value), want);
        expectEqual('is_vault(derived)', isVault(chain, want), true);
      }),
      runParams('derivation: factory deployment', 50),
    );
  });
});
