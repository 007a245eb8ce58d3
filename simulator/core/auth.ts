// Soroban authorization, as the host does it.
// - enforce: every `require_auth(address)` must match a node of one of the transaction's SorobanAuthorizationEntry
//   trees (the root first, then children of matched nodes). Source-account credentials count for the operation's
//   source (the envelope signature covers them); address credentials carry an Ed25519 signature, a single-use nonce
//   (a temporary entry under the address) and an expiration ledger. What is signed depends on the credential type:
//   legacy ADDRESS signs sha256(HashIdPreimage::SorobanAuthorization{networkId, nonce, signatureExpirationLedger,
//   invocation}); ADDRESS_V2 and ADDRESS_WITH_DELEGATES (CAP-71, Protocol 27) sign the address-bound
//   sha256(HashIdPreimage::SorobanAuthorizationWithAddress{networkId, nonce, signatureExpirationLedger, address,
//   invocation}), so a signature made for one address never authorizes another address sharing the key.
// - record / record_allow_nonroot (simulation): every require_auth is recorded into per-address trees following
//   the call stack; the result is the auth entries a client signs (ADDRESS_V2 from Protocol 28, or at 27 when the
//   request asks for upgraded auth; legacy ADDRESS otherwise).
// A contract that directly calls another is implicitly authorized for `require_auth(itself)` in the callee.
import { xdr } from '@stellar/stellar-sdk';
import { HostError } from '../host.ts';
import { randomNonce, sha256 } from './crypto.ts';
import { ADDRESS_BOUND_AUTH_PROTOCOL } from './ledger.ts';
import { DetailedHostError } from './diagnostics.ts';
import { accountKeyId, type SimCodec } from './entries.ts';
import type { AuthFrame, AuthInvocation } from './auth-host.ts';

export type AuthMode = 'enforce' | 'record' | 'record_allow_nonroot' | 'genesis';

/** The address credential types: legacy ADDRESS, and CAP-71's ADDRESS_V2 and ADDRESS_WITH_DELEGATES. */
export type AddressCredentialType =
  | 'sorobanCredentialsAddress'
  | 'sorobanCredentialsAddressV2'
  | 'sorobanCredentialsAddressWithDelegates';

/** The address credentials of any address credential type, with its delegates (empty unless WITH_DELEGATES). */
export interface AnyAddressCredentials {
  readonly type: AddressCredentialType;
  readonly creds: xdr.SorobanAddressCredentials;
  readonly delegates: readonly xdr.SorobanDelegateSignature[];
}

/** The address credentials of `c`; undefined for source-account credentials. */
export function addressCredentialsOf(c: xdr.SorobanCredentials): AnyAddressCredentials | undefined {
  switch (c.type) {
    case 'sorobanCredentialsAddress':
      return { type: c.type, creds: c.address, delegates: [] };
    case 'sorobanCredentialsAddressV2':
      return { type: c.type, creds: c.addressV2, delegates: [] };
    case 'sorobanCredentialsAddressWithDelegates':
      return {
        type: c.type,
        creds: c.addressWithDelegates.addressCredentials,
        delegates: c.addressWithDelegates.delegates,
      };
    default:
      return undefined;
  }
}

/** The HashIdPreimage an address credential's signature covers (CAP-46-11 for ADDRESS, CAP-71 for the others). */
export function authPreimage(
  type: AddressCredentialType,
  networkId: Uint8Array,
  creds: { nonce: bigint; signatureExpirationLedger: number; address: xdr.ScAddress },
  invocation: xdr.SorobanAuthorizedInvocation,
): xdr.HashIdPreimage {
  const { nonce, signatureExpirationLedger, address } = creds;
  return type === 'sorobanCredentialsAddress'
    ? xdr.HashIdPreimage.envelopeTypeSorobanAuthorization(
        new xdr.HashIdPreimageSorobanAuthorization({ networkId, nonce, signatureExpirationLedger, invocation }),
      )
    : xdr.HashIdPreimage.envelopeTypeSorobanAuthorizationWithAddress(
        new xdr.HashIdPreimageSorobanAuthorizationWithAddress({
          networkId,
          nonce,
          signatureExpirationLedger,
          address,
          invocation,
        }),
      );
}

/** Why `entries` make a transaction invalid at `protocol`: CAP-71 credentials before Protocol 27. */
export function credentialsInvalidAt(
  entries: readonly xdr.SorobanAuthorizationEntry[],
  protocol: number,
): string | undefined {
  if (protocol >= ADDRESS_BOUND_AUTH_PROTOCOL) return undefined;
  const bad = entries.find(
    (e) =>
      e.credentials.type === 'sorobanCredentialsAddressV2' ||
      e.credentials.type === 'sorobanCredentialsAddressWithDelegates',
  );
  return bad
    ? `${bad.credentials.type === 'sorobanCredentialsAddressV2' ? 'SOROBAN_CREDENTIALS_ADDRESS_V2' : 'SOROBAN_CREDENTIALS_ADDRESS_WITH_DELEGATES'} credentials are not valid before Protocol ${ADDRESS_BOUND_AUTH_PROTOCOL} (this network runs Protocol ${protocol})`
    : undefined;
}

/** The credential type recording-mode simulation returns, as stellar-rpc does at Protocols 27 and 28: ADDRESS_V2 only
 *  when the request asks for upgraded auth (`useUpgradedAuth`, which SDK 17 sends by default), legacy ADDRESS
 *  otherwise; before Protocol 27 the flag is ignored (docs/chain-abi.md "Protocol line"). */
export function recordedCredentialType(
  protocol: number,
  upgradedAuth = false,
): 'sorobanCredentialsAddress' | 'sorobanCredentialsAddressV2' {
  if (protocol >= ADDRESS_BOUND_AUTH_PROTOCOL && upgradedAuth) return 'sorobanCredentialsAddressV2';
  return 'sorobanCredentialsAddress';
}

interface RecNode {
  readonly contractId: string;
  readonly fn: string;
  readonly args: readonly xdr.ScVal[];
  readonly children: RecNode[];
}
interface RecEntry {
  readonly address: string;
  readonly source: boolean;
  readonly nonce: bigint;
  readonly root: RecNode;
}

interface EnfNode {
  readonly contractId: string | undefined; // undefined: not a contract-function node (never matches)
  readonly fn: string;
  readonly argsXdr: Buffer;
  readonly parent: EnfNode | undefined;
  readonly children: EnfNode[];
  readonly entry: EnfEntry;
  matched: boolean;
}
interface EnfEntry {
  readonly address: string;
  readonly raw: xdr.SorobanAuthorizationEntry;
  readonly creds?: AnyAddressCredentials; // absent: source-account credentials
  nodes: EnfNode[];
}

const nonceKey = (nonce: bigint): xdr.ScVal => xdr.ScVal.scvLedgerKeyNonce(new xdr.ScNonceKey({ nonce }));

const authError = (msg: string, code = 'InvalidAction'): HostError =>
  new HostError(`Error(Auth, ${code}): ${msg}`, 'Auth');

export class AuthTracker {
  private readonly recorded: RecEntry[] = [];
  /** Recorded nodes per frame and address (made on the first recording: most read calls record nothing). */
  private recordedAt: WeakMap<AuthFrame, Map<string, RecNode>> | undefined;
  private readonly entries: EnfEntry[] = [];
  /** Why the entries are malformed (unsorted or duplicate delegates): the host fails before entering the contract. */
  private entriesError: HostError | undefined;

  private readonly inv: AuthInvocation;
  readonly mode: AuthMode;
  private readonly source: string | undefined;
  constructor(
    inv: AuthInvocation,
    mode: AuthMode,
    source: string | undefined,
    authEntries: readonly xdr.SorobanAuthorizationEntry[] = [],
  ) {
    this.inv = inv;
    this.mode = mode;
    this.source = source;
    if (mode === 'enforce') {
      for (const raw of authEntries) this.entries.push(this.load(raw));
      this.entriesError = entriesProblem(authEntries, inv.ledger.protocol);
    }
  }

  /** Fails when the auth entries are not acceptable at all: run before the host enters the contract. */
  checkEntries(): void {
    if (this.entriesError) throw this.entriesError;
  }

  require(frame: AuthFrame, address: string): void {
    if (frame.parent && frame.parent.contractId === address) return; // the invoking contract
    switch (this.mode) {
      case 'genesis':
        return;
      case 'enforce':
        return this.enforce(frame, address);
      default:
        return this.record(frame, address);
    }
  }

  // ---- recording ----------------------------------------------------------------------------------------------

  private record(frame: AuthFrame, address: string): void {
    const recordedAt = (this.recordedAt ??= new WeakMap());
    const here = recordedAt.get(frame);
    if (here?.has(address)) return;
    const node: RecNode = { contractId: frame.contractId, fn: frame.fn, args: frame.args, children: [] };
    let parentNode: RecNode | undefined;
    for (let f = frame.parent; f && !parentNode; f = f.parent) parentNode = recordedAt.get(f)?.get(address);
    if (parentNode) parentNode.children.push(node);
    else {
      if (frame.parent && this.mode === 'record') {
        throw authError(
          '[recording authorization only] encountered authorization not tied to the root contract invocation for an address. Use `require_auth()` in the top invocation or enable non-root authorization.',
        );
      }
      const source = address === this.source;
      const entry: RecEntry = { address, source, nonce: source ? 0n : randomNonce(), root: node };
      this.recorded.push(entry);
      if (!source) {
        if (address.startsWith('G')) this.inv.get(accountKeyId(address));
        this.inv.touchWrite(this.inv.dataKey(address, 'temporary', nonceKey(entry.nonce)));
      }
    }
    const map = here ?? new Map<string, RecNode>();
    map.set(address, node);
    if (!here) recordedAt.set(frame, map);
  }

  /** The recorded entries as a client receives them from simulation (address credentials unsigned, of `type`). */
  recordedEntries(
    type: 'sorobanCredentialsAddress' | 'sorobanCredentialsAddressV2' = 'sorobanCredentialsAddress',
  ): xdr.SorobanAuthorizationEntry[] {
    const addressCreds =
      type === 'sorobanCredentialsAddressV2'
        ? xdr.SorobanCredentials.sorobanCredentialsAddressV2
        : xdr.SorobanCredentials.sorobanCredentialsAddress;
    const toInvocation = (n: RecNode): xdr.SorobanAuthorizedInvocation =>
      new xdr.SorobanAuthorizedInvocation({
        function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(
          new xdr.InvokeContractArgs({
            contractAddress: this.inv.ledger.codec.toScAddress(n.contractId),
            functionName: n.fn,
            args: [...n.args],
          }),
        ),
        subInvocations: n.children.map(toInvocation),
      });
    return this.recorded.map(
      (e) =>
        new xdr.SorobanAuthorizationEntry({
          credentials: e.source
            ? xdr.SorobanCredentials.sorobanCredentialsSourceAccount()
            : addressCreds(
                new xdr.SorobanAddressCredentials({
                  address: this.inv.ledger.codec.toScAddress(e.address),
                  nonce: e.nonce,
                  signatureExpirationLedger: 0,
                  signature: xdr.ScVal.scvVoid(),
                }),
              ),
          rootInvocation: toInvocation(e.root),
        }),
    );
  }

  /** Checks and consumes the address credentials of `entries` (signature, nonce, expiration) without matching
   *  them to calls: for an invocation already run in recording mode whose recorded trees these entries carry. */
  consumeCredentials(entries: readonly xdr.SorobanAuthorizationEntry[]): void {
    const problem = entriesProblem(entries, this.inv.ledger.protocol);
    if (problem) throw problem;
    for (const raw of entries) {
      const creds = addressCredentialsOf(raw.credentials);
      if (!creds) continue;
      const address = addressOf(this.inv.ledger.codec, creds.creds.address);
      if (!address)
        throw authError(`${creds.creds.address.type} credentials cannot authorize anything`, 'InvalidInput');
      this.checkAddressCredentials({ address, raw, creds, nodes: [] }, creds);
    }
  }

  // ---- enforcing ----------------------------------------------------------------------------------------------

  private load(raw: xdr.SorobanAuthorizationEntry): EnfEntry {
    const c = raw.credentials;
    const creds = addressCredentialsOf(c);
    const address = creds
      ? addressOf(this.inv.ledger.codec, creds.creds.address)
      : c.type === 'sorobanCredentialsSourceAccount'
        ? (this.source ?? '')
        : '';
    const entry: EnfEntry = { address, raw, creds, nodes: [] };
    const walk = (inv: xdr.SorobanAuthorizedInvocation, parent: EnfNode | undefined): void => {
      const f = inv.function;
      const a = f.type === 'sorobanAuthorizedFunctionTypeContractFn' ? f.contractFn : undefined;
      const node: EnfNode = {
        contractId: a ? addressOf(this.inv.ledger.codec, a.contractAddress) || undefined : undefined,
        fn: a ? a.functionName.toString() : '',
        argsXdr: a ? Buffer.from(xdr.ScVal.scvVec(a.args).toXdr()) : Buffer.alloc(0),
        parent,
        children: [],
        entry,
        matched: false,
      };
      parent?.children.push(node);
      entry.nodes.push(node);
      for (const sub of inv.subInvocations) walk(sub, node);
    };
    walk(raw.rootInvocation, undefined);
    return entry;
  }

  private enforce(frame: AuthFrame, address: string): void {
    let argsXdr: Buffer | undefined;
    for (const entry of this.entries) {
      if (entry.address !== address) continue;
      for (const node of entry.nodes) {
        if (node.matched || node.contractId !== frame.contractId || node.fn !== frame.fn) continue;
        if (node.parent && !node.parent.matched) continue;
        argsXdr ??= frame.argsXdr();
        if (!node.argsXdr.equals(argsXdr)) continue;
        if (!node.parent && entry.creds) this.checkAddressCredentials(entry, entry.creds);
        node.matched = true;
        return;
      }
    }
    throw new DetailedHostError(
      `Error(Auth, InvalidAction): Unauthorized function call for address ${address}`,
      'Auth',
      xdr.ScVal.scvVec([
        xdr.ScVal.scvString('Unauthorized function call for address'),
        xdr.ScVal.scvAddress(this.inv.ledger.codec.toScAddress(address)),
      ]),
    );
  }

  private checkAddressCredentials(entry: EnfEntry, any: AnyAddressCredentials): void {
    const creds = any.creds;
    const seq = this.inv.seq;
    // CAP-71-01: delegates are consulted only when the address's check calls delegate_account_auth. A Stellar
    // account's built-in check verifies its own signers and never delegates (contract signers for G-accounts are
    // CAP-72, which the simulator's accounts do not have), so a delegate here could never be used: refused.
    if (any.delegates.length > 0) {
      throw authError(`account ${entry.address} cannot use delegated signers: its check never delegates`);
    }
    if (this.inv.verifySignatures && creds.signature.type === 'scvVoid') {
      throw authError(`signature is missing for address ${entry.address}`);
    }
    const expiration = creds.signatureExpirationLedger;
    if (expiration < seq)
      throw authError(`signature has expired: expiration ledger ${expiration} < current ledger ${seq}`, 'InvalidInput');
    const nonce = creds.nonce;
    const key = this.inv.dataKey(entry.address, 'temporary', nonceKey(nonce));
    if (this.inv.get(key)) throw authError(`nonce already exists for address ${entry.address}`, 'ExistingValue');
    if (!entry.address.startsWith('G')) {
      throw authError('custom account (__check_auth) authorization is not supported by the simulator');
    }
    if (!this.inv.get(accountKeyId(entry.address)))
      throw new HostError('Error(Storage, MissingValue): account entry is missing', 'Storage');
    if (this.inv.verifySignatures) {
      const preimage = authPreimage(any.type, this.inv.ledger.networkId, creds, entry.raw.rootInvocation);
      verifyAccountSignatures(this.inv.ledger.codec, entry.address, sha256(preimage.toXdr()), creds.signature);
    }
    this.inv.put(key, {
      t: 'data',
      contract: entry.address,
      durability: 'temporary',
      key: nonceKey(nonce),
      val: xdr.ScVal.scvVoid(),
      lm: seq,
      liveUntil: expiration,
    });
  }
}

/** An address as the auth tracker keys it: G… or C…; any other address type (muxed, claimable balance, pool, or
 *  a newer one) can never be `require_auth`ed, so its entry never matches. */
function addressOf(codec: SimCodec, a: xdr.ScAddress): string {
  return a.type === 'scAddressTypeAccount' || a.type === 'scAddressTypeContract' ? codec.fromScAddress(a) : '';
}

/** CAP-71-01 validation of the delegate trees (every array sorted by address, no duplicates), and the protocol
 *  gate; the host fails on either before entering the contract. */
function entriesProblem(entries: readonly xdr.SorobanAuthorizationEntry[], protocol: number): HostError | undefined {
  const invalid = credentialsInvalidAt(entries, protocol);
  if (invalid) return authError(invalid, 'InvalidInput');
  const sorted = (list: readonly xdr.SorobanDelegateSignature[]): boolean => {
    for (let i = 1; i < list.length; i++)
      if (Buffer.compare(list[i - 1]!.address.toXdr(), list[i]!.address.toXdr()) >= 0) return false;
    return list.every((d) => sorted(d.nestedDelegates));
  };
  for (const e of entries) {
    const c = e.credentials;
    if (c.type === 'sorobanCredentialsAddressWithDelegates' && !sorted(c.addressWithDelegates.delegates)) {
      return authError('delegate signatures must be sorted by address without duplicates', 'InvalidInput');
    }
  }
  return undefined;
}

/** The SDK's signature format: Vec<Map{public_key: Bytes(32), signature: Bytes(64)}>, by the account's master key. */
function verifyAccountSignatures(codec: SimCodec, address: string, payload: Buffer, sig: xdr.ScVal): void {
  const bad = (msg: string): never => {
    throw new HostError(`Error(Auth, InvalidAction): ${msg}`, 'Auth');
  };
  if (sig.type !== 'scvVec') return bad('signature is missing or malformed');
  const items = sig.vec ?? [];
  if (items.length === 0) bad('signature is missing');
  const master = codec.accountKey(address);
  let weight = 0;
  let prev: Buffer | undefined;
  for (const item of items) {
    if (item.type !== 'scvMap') return bad('malformed signature entry');
    let pk: Buffer | undefined;
    let s: Buffer | undefined;
    for (const e of item.map ?? []) {
      const k = e.key.type === 'scvSymbol' ? e.key.sym.toString() : '';
      if (k === 'public_key' && e.val.type === 'scvBytes') pk = Buffer.from(e.val.bytes.value);
      if (k === 'signature' && e.val.type === 'scvBytes') s = Buffer.from(e.val.bytes.value);
    }
    if (!pk || !s) return bad('malformed signature entry');
    if (prev && Buffer.compare(prev, pk) >= 0) bad('signatures must be sorted by public key without duplicates');
    prev = pk;
    if (!pk.equals(master)) bad('signer does not belong to account');
    if (!codec.verifyEd25519(pk, payload, s))
      throw new HostError('Error(Crypto, InvalidInput): failed ED25519 verification', 'Auth');
    weight += 1;
  }
  if (weight < 1) bad('signature weight is lower than threshold');
}
