// Soroban authorization, as the host does it.
// - enforce: every `require_auth(address)` must match a node of one of the transaction's SorobanAuthorizationEntry
//   trees (the root first, then children of matched nodes). Source-account credentials count for the operation's
//   source (the envelope signature covers them); address credentials carry an Ed25519 signature over
//   sha256(HashIdPreimage::SorobanAuthorization{networkId, nonce, signatureExpirationLedger, invocation}), a
//   single-use nonce (a temporary entry under the address) and an expiration ledger.
// - record / record_allow_nonroot (simulation): every require_auth is recorded into per-address trees following
//   the call stack; the result is the auth entries a client signs.
// A contract that directly calls another is implicitly authorized for `require_auth(itself)` in the callee.
import { xdr } from '@stellar/stellar-sdk';
import { HostError } from '../host.ts';
import { accountKey, randomNonce, sha256, verifyEd25519 } from './crypto.ts';
import { DetailedHostError } from './diagnostics.ts';
import { accountKeyId, fromScAddress, toScAddress } from './entries.ts';
import type { Frame, Invocation } from './invocation.ts';

export type AuthMode = 'enforce' | 'record' | 'record_allow_nonroot' | 'genesis';

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
  readonly creds?: xdr.SorobanAddressCredentials; // absent: source-account credentials
  nodes: EnfNode[];
}

const nonceKey = (nonce: bigint): xdr.ScVal =>
  xdr.ScVal.scvLedgerKeyNonce(new xdr.ScNonceKey({ nonce }));

const authError = (msg: string, code = 'InvalidAction'): HostError => new HostError(`Error(Auth, ${code}): ${msg}`, 'Auth');

export class AuthTracker {
  private readonly recorded: RecEntry[] = [];
  private readonly recordedAt = new WeakMap<Frame, Map<string, RecNode>>();
  private readonly entries: EnfEntry[] = [];

  private readonly inv: Invocation;
  readonly mode: AuthMode;
  private readonly source: string | undefined;
  constructor(
    inv: Invocation,
    mode: AuthMode,
    source: string | undefined,
    authEntries: readonly xdr.SorobanAuthorizationEntry[] = [],
  ) {
    this.inv = inv;
    this.mode = mode;
    this.source = source;
    if (mode === 'enforce') for (const raw of authEntries) this.entries.push(this.load(raw));
  }

  require(frame: Frame, address: string): void {
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

  private record(frame: Frame, address: string): void {
    const here = this.recordedAt.get(frame);
    if (here?.has(address)) return;
    const node: RecNode = { contractId: frame.contractId, fn: frame.fn, args: frame.args, children: [] };
    let parentNode: RecNode | undefined;
    for (let f = frame.parent; f && !parentNode; f = f.parent) parentNode = this.recordedAt.get(f)?.get(address);
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
    if (!here) this.recordedAt.set(frame, map);
  }

  /** The recorded entries as a client receives them from simulation (address credentials unsigned). */
  recordedEntries(): xdr.SorobanAuthorizationEntry[] {
    const toInvocation = (n: RecNode): xdr.SorobanAuthorizedInvocation =>
      new xdr.SorobanAuthorizedInvocation({
        function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(
          new xdr.InvokeContractArgs({ contractAddress: toScAddress(n.contractId), functionName: n.fn, args: [...n.args] }),
        ),
        subInvocations: n.children.map(toInvocation),
      });
    return this.recorded.map(
      (e) =>
        new xdr.SorobanAuthorizationEntry({
          credentials: e.source
            ? xdr.SorobanCredentials.sorobanCredentialsSourceAccount()
            : xdr.SorobanCredentials.sorobanCredentialsAddress(
                new xdr.SorobanAddressCredentials({
                  address: toScAddress(e.address),
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
    for (const raw of entries) {
      const c = raw.credentials;
      if (c.type !== 'sorobanCredentialsAddress') continue;
      const creds = c.address;
      this.checkAddressCredentials({ address: fromScAddress(creds.address), raw, creds, nodes: [] }, creds);
    }
  }

  // ---- enforcing ----------------------------------------------------------------------------------------------

  private load(raw: xdr.SorobanAuthorizationEntry): EnfEntry {
    const c = raw.credentials;
    const creds = c.type === 'sorobanCredentialsAddress' ? c.address : undefined;
    // The simulator speaks Protocol 23 auth: only source-account and legacy address credentials authorize anything.
    // A newer credential type (V2, with delegates) gets an address no call can have, so it never matches.
    const address = creds ? fromScAddress(creds.address) : c.type === 'sorobanCredentialsSourceAccount' ? (this.source ?? '') : '';
    const entry: EnfEntry = { address, raw, creds, nodes: [] };
    const walk = (inv: xdr.SorobanAuthorizedInvocation, parent: EnfNode | undefined): void => {
      const f = inv.function;
      const a = f.type === 'sorobanAuthorizedFunctionTypeContractFn' ? f.contractFn : undefined;
      const node: EnfNode = {
        contractId: a ? fromScAddress(a.contractAddress) : undefined,
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

  private enforce(frame: Frame, address: string): void {
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
      xdr.ScVal.scvVec([xdr.ScVal.scvString('Unauthorized function call for address'), xdr.ScVal.scvAddress(toScAddress(address))]),
    );
  }

  private checkAddressCredentials(entry: EnfEntry, creds: xdr.SorobanAddressCredentials): void {
    const seq = this.inv.seq;
    if (this.inv.verifySignatures && creds.signature.type === 'scvVoid') {
      throw authError(`signature is missing for address ${entry.address}`);
    }
    const expiration = creds.signatureExpirationLedger;
    if (expiration < seq) throw authError(`signature has expired: expiration ledger ${expiration} < current ledger ${seq}`, 'InvalidInput');
    const nonce = creds.nonce;
    const key = this.inv.dataKey(entry.address, 'temporary', nonceKey(nonce));
    if (this.inv.get(key)) throw authError(`nonce already exists for address ${entry.address}`, 'ExistingValue');
    if (!entry.address.startsWith('G')) {
      throw authError('custom account (__check_auth) authorization is not supported by the simulator');
    }
    if (!this.inv.get(accountKeyId(entry.address))) throw new HostError('Error(Storage, MissingValue): account entry is missing', 'Storage');
    if (this.inv.verifySignatures) {
      const preimage = xdr.HashIdPreimage.envelopeTypeSorobanAuthorization(
        new xdr.HashIdPreimageSorobanAuthorization({
          networkId: this.inv.ledger.networkId,
          nonce,
          signatureExpirationLedger: expiration,
          invocation: entry.raw.rootInvocation,
        }),
      );
      verifyAccountSignatures(entry.address, sha256(preimage.toXdr()), creds.signature);
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

/** The SDK's signature format: Vec<Map{public_key: Bytes(32), signature: Bytes(64)}>, by the account's master key. */
function verifyAccountSignatures(address: string, payload: Buffer, sig: xdr.ScVal): void {
  const bad = (msg: string): never => {
    throw new HostError(`Error(Auth, InvalidAction): ${msg}`, 'Auth');
  };
  if (sig.type !== 'scvVec') return bad('signature is missing or malformed');
  const items = sig.vec ?? [];
  if (items.length === 0) bad('signature is missing');
  const master = accountKey(address);
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
    if (!verifyEd25519(pk, payload, s)) throw new HostError('Error(Crypto, InvalidInput): failed ED25519 verification', 'Auth');
    weight += 1;
  }
  if (weight < 1) bad('signature weight is lower than threshold');
}
