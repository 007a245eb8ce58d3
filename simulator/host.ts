// The interface between the simulator's ledger/host (simulator/core) and its contracts (simulator/contracts).
// Contracts are TypeScript modules that behave like the deployed Soroban contracts of ../shared/chain-abi.md.
import { StrKey, xdr } from '@stellar/stellar-sdk';

export type Durability = 'persistent' | 'instance' | 'temporary';

/** A contract's own error: the host reports it as `Error(Contract, #code)`. */
export class ContractError extends Error {
  constructor(readonly code: number, readonly name_: string = '') {
    super(`Error(Contract, #${code})${name_ ? ` ${name_}` : ''}`);
  }
}

/** A host-level failure (auth, missing trustline, already-existing contract, budget…), with the host's words. */
export class HostError extends Error {
  constructor(message: string, readonly kind: 'Auth' | 'Storage' | 'Context' | 'Value' | 'Budget' | 'Contract' = 'Context') {
    super(message);
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

// ---- fast Address conversions ------------------------------------------------------------------------------------
// The SDK's `Address.fromScVal(v).toString()` and `new Address(a).toScVal()` re-encode and re-validate the StrKey
// (base32 + CRC, ~15 µs each). Contracts convert addresses on every call, so these cache by raw key / by string.
const MAX_CACHED_ADDRESSES = 100_000;
const strOfRaw = new Map<string, string>();
const valOfStr = new Map<string, xdr.ScVal>();

/** `Address.fromScVal(v).toString()` for account (G…) and contract (C…) addresses, cached. */
export function addressFromScVal(v: xdr.ScVal): string {
  const a = v.address();
  const isAccount = a.switch() === xdr.ScAddressType.scAddressTypeAccount();
  if (!isAccount && a.switch() !== xdr.ScAddressType.scAddressTypeContract()) throw new TypeError(`unsupported address type ${a.switch().name}`);
  const raw = isAccount ? a.accountId().ed25519() : (a.contractId() as unknown as Buffer);
  const k = (isAccount ? 'G' : 'C') + raw.toString('hex');
  let s = strOfRaw.get(k);
  if (s === undefined) {
    if (strOfRaw.size >= MAX_CACHED_ADDRESSES) strOfRaw.clear();
    s = isAccount ? StrKey.encodeEd25519PublicKey(raw) : StrKey.encodeContract(raw);
    strOfRaw.set(k, s);
  }
  return s;
}

/** `new Address(a).toScVal()`, cached (the returned ScVal is shared: do not mutate it). */
export function addressToScVal(a: string): xdr.ScVal {
  let v = valOfStr.get(a);
  if (v === undefined) {
    if (valOfStr.size >= MAX_CACHED_ADDRESSES) valOfStr.clear();
    const sc = a.startsWith('C')
      ? xdr.ScAddress.scAddressTypeContract(StrKey.decodeContract(a) as unknown as xdr.ContractId)
      : xdr.ScAddress.scAddressTypeAccount(xdr.PublicKey.publicKeyTypeEd25519(StrKey.decodeEd25519PublicKey(a)));
    v = xdr.ScVal.scvAddress(sc);
    valOfStr.set(a, v);
  }
  return v;
}
