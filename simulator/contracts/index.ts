// The simulator's contract templates, keyed by their "wasm" hash as the host installs them.
// The hashes are sha256 of fixed labels: stable across runs and state files, and unlike any real wasm hash.
import { createHash } from 'node:crypto';
import type { ContractImpl } from '../host.ts';
import { factory } from './factory.ts';
import { registry } from './registry.ts';
import { vault } from './vault.ts';

const templateHash = (label: string): Buffer =>
  createHash('sha256').update(`credential-vault simulator: ${label}`).digest();

export const FACTORY_WASM_HASH: Buffer = templateHash('vc-vault-factory 0.1.0');
export const VAULT_WASM_HASH: Buffer = templateHash('vc-vault template 0.4.0');
export const REGISTRY_WASM_HASH: Buffer = templateHash('did-registry 0.2.0');

/** hex template hash → implementation. Constructors: factory `(admin, vault_wasm_hash)`, vault
 *  `(vault_owner, contract_admin, did_uri, factory)` (deployed by the factory only), registry `(admin)`. */
export const contractImpls: Map<string, ContractImpl> = new Map([
  [FACTORY_WASM_HASH.toString('hex'), factory],
  [VAULT_WASM_HASH.toString('hex'), vault],
  [REGISTRY_WASM_HASH.toString('hex'), registry],
]);

export { factory, registry, vault };
export { FactoryError, RegistryError, VaultError } from './errors.ts';
