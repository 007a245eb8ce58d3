// The interface between the simulator's ledger/host (simulator/core) and its contracts (simulator/contracts).
// Contracts are TypeScript modules that behave like the deployed Soroban contracts of docs/chain-abi.md.
import type { xdr } from '@stellar/stellar-sdk';

export type Durability = 'persistent' | 'instance' | 'temporary';

/** A contract's own error: the host reports it as `Error(Contract, #code)`. */
export class ContractError extends Error {
  readonly code: number;
  readonly name_: string;
  constructor(code: number, name_: string = '') {
    super(`Error(Contract, #${code})${name_ ? ` ${name_}` : ''}`);
    this.code = code;
    this.name_ = name_;
  }
}

/** A host-level failure (auth, missing trustline, already-existing contract, budget…), with the host's words. */
export class HostError extends Error {
  readonly kind: 'Auth' | 'Storage' | 'Context' | 'Value' | 'Budget' | 'Contract';
  constructor(message: string, kind: 'Auth' | 'Storage' | 'Context' | 'Value' | 'Budget' | 'Contract' = 'Context') {
    super(message);
    this.kind = kind;
  }
}

export interface ContractStorage {
  get(key: xdr.ScVal, durability?: Durability): xdr.ScVal | undefined; // default 'persistent'
  set(key: xdr.ScVal, value: xdr.ScVal, durability?: Durability): void;
  has(key: xdr.ScVal, durability?: Durability): boolean;
  remove(key: xdr.ScVal, durability?: Durability): void;
}

/** What the host hands a contract for one invocation frame. */
export interface ContractContext {
  readonly contractId: string; // C… of the running contract
  readonly ledgerSequence: number;
  readonly ledgerTimestamp: bigint; // close time, unix seconds (the wall clock, or a cheat-set time)
  readonly networkPassphrase: string;
  /** Soroban `address.require_auth()`; throws HostError('...', 'Auth') when not authorized. */
  requireAuth(address: string): void;
  readonly storage: ContractStorage;
  /** Contract event: topics and data as ScVals. */
  emit(topics: xdr.ScVal[], data: xdr.ScVal): void;
  /** Cross-contract call; the running contract is the invoker (its own require_auth is implicitly met). */
  call(contractId: string, fn: string, args: xdr.ScVal[]): xdr.ScVal;
  /** Deploy a contract from an installed template hash with this contract as deployer; runs its constructor.
   *  Throws HostError('contract already exists') on a used (deployer, salt). Returns the new C… id. */
  deployContract(wasmHash: Buffer, salt: Buffer, constructorArgs: xdr.ScVal[]): string;
}

/** A contract implementation, registered with the host under a template ("wasm") hash. */
export interface ContractImpl {
  /** Human name, e.g. 'vc-vault 0.4.0'. */
  readonly name: string;
  /** `__constructor`, run once at deployment. */
  construct?(ctx: ContractContext, args: xdr.ScVal[]): void;
  /** Invoke `fn`; unknown functions throw HostError. Return value as ScVal (ScVoid for `()`). */
  invoke(ctx: ContractContext, fn: string, args: xdr.ScVal[]): xdr.ScVal;
  /** The exported functions and their argument counts, when known (the chain-abi drift test reads them). */
  readonly functions?: ReadonlyMap<string, number>;
}

// ---- Address conversions --------------------------------------------------------------------------------------
// The simulator's own conversions (core/scval.ts), apart from the service's: a contract that stores or compares an
// address converts it with these.
export { address as addressToScVal, addressOfScVal as addressFromScVal } from './core/scval.ts';
