// How the simulated host names the contracts it deploys, from the XDR alone: the id of a contract created from an
// address and a salt (CAP-46's HashIdPreimage::ContractId), and the vault factory's salt of docs/chain-abi.md
// ("Vault address derivation"). Written for the simulator, apart from the service's own derivation (src/chain).
import { keccak_256 } from '@noble/hashes/sha3.js';
import { StrKey, xdr } from '@stellar/stellar-sdk';
import { sha256 } from './crypto.ts';
import { scAddressOf } from './scval.ts';

/** The factory's deploy salt: keccak256(user_salt ‖ XDR(owner)), owner an Address ScVal, user_salt 32 bytes. */
export function deploySalt(owner: xdr.ScVal, userSalt: Uint8Array): Buffer {
  if (owner.type !== 'scvAddress') throw new TypeError(`the owner must be an Address, got ${owner.type}`);
  if (userSalt.length !== 32) throw new RangeError('user_salt must be 32 bytes');
  return Buffer.from(keccak_256(Buffer.concat([userSalt, owner.toXDR()])));
}

/** C… id of the contract `deployer` (a G… or C… address) creates with `salt` on the network of `passphrase`. */
export function contractIdFromAddress(passphrase: string, deployer: string, salt: Uint8Array): string {
  const fromAddress = new xdr.ContractIdPreimageFromAddress({
    address: scAddressOf(deployer),
    salt: Buffer.from(salt),
  });
  const preimage = xdr.HashIdPreimage.envelopeTypeContractId(
    new xdr.HashIdPreimageContractId({
      networkId: sha256(Buffer.from(passphrase, 'utf8')),
      contractIdPreimage: xdr.ContractIdPreimage.contractIdPreimageFromAddress(fromAddress),
    }),
  );
  return StrKey.encodeContract(sha256(preimage.toXDR()));
}
