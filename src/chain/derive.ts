// Vault address derivation of docs/chain-abi.md ("Vault address derivation"). One implementation, used by
// the service (to find an owner's vault without storing it) and by the simulator (for every deployment).
import { Address, StrKey, hash, xdr } from '@stellar/stellar-sdk';
import { keccak_256 } from '@noble/hashes/sha3.js';

/** The default `user_salt`: 32 zero bytes, one canonical vault per owner. */
export const DEFAULT_USER_SALT: Buffer = Buffer.alloc(32);

/** Options of {@link deriveVaultAddress}. */
export interface DeriveVaultAddressOptions {
  networkPassphrase: string;
  /** C… id of the network's factory. */
  factoryId: string;
  /** G… (or C…) address of the vault owner. */
  owner: string;
  /** 32 bytes, as 64 hex characters or a Buffer; default 32 zero bytes. */
  userSalt?: string | Uint8Array;
}

/** `userSalt` in either accepted form → 32 bytes; throws on anything else. */
export function parseUserSalt(userSalt: string | Uint8Array | undefined): Buffer {
  if (userSalt === undefined) return DEFAULT_USER_SALT;
  if (typeof userSalt === 'string') {
    if (!/^[0-9a-fA-F]{64}$/.test(userSalt)) throw new TypeError('userSalt must be 64 hex characters');
    return Buffer.from(userSalt, 'hex');
  }
  if (userSalt.length !== 32) throw new TypeError('userSalt must be 32 bytes');
  return Buffer.from(userSalt);
}

/** Step 1: `keccak256(user_salt || XDR(ScVal::Address(owner)))`, the salt the factory deploys the vault with. */
export function deploySalt(owner: string, userSalt?: string | Uint8Array): Buffer {
  const ownerXdr = new Address(owner).toScVal().toXdr();
  return Buffer.from(keccak_256(Buffer.concat([parseUserSalt(userSalt), ownerXdr])));
}

/** Step 2, general: id of the contract `deployer` creates with `salt` (HashIdPreimage::ContractId, FromAddress). */
export function contractIdFromAddress(networkPassphrase: string, deployer: string, salt: Buffer): string {
  const preimage = xdr.HashIdPreimage.envelopeTypeContractId(
    new xdr.HashIdPreimageContractId({
      networkId: hash(Buffer.from(networkPassphrase)),
      contractIdPreimage: xdr.ContractIdPreimage.contractIdPreimageFromAddress(
        new xdr.ContractIdPreimageFromAddress({ address: new Address(deployer).toScAddress(), salt }),
      ),
    }),
  );
  return StrKey.encodeContract(hash(preimage.toXdr()));
}

/** The C… address of the vault `factoryId` deploys for (owner, userSalt). */
export function deriveVaultAddress(opts: DeriveVaultAddressOptions): string {
  return contractIdFromAddress(opts.networkPassphrase, opts.factoryId, deploySalt(opts.owner, opts.userSalt));
}
