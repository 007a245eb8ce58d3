// One host invocation (a simulation, an applied InvokeHostFunction, a genesis step): the call stack of frames,
// storage through a write overlay with an undo log (a failed frame's writes and events are rolled back), the
// footprint it touches or must stay within, events, diagnostics and authorization.
import { xdr } from '@stellar/stellar-sdk';
import { HostError, type ContractContext, type ContractImpl, type ContractStorage, type Durability } from '../host.ts';
import { contractIdFromAddress } from './derive.ts';
import { AuthTracker, type AuthMode } from './auth.ts';
import { classify, diag } from './diagnostics.ts';
import type { Failure } from './failure.ts';
import { instanceKeyId, type DataEntry, type Entry, type Executable, type InstanceEntry } from './entries.ts';
import type { Ledger } from './ledger.ts';
import type { ContractEventRec, DiagnosticRec, EntryChange } from './records.ts';

/** The contract implementations a network runs: templates by hex hash, and the Stellar Asset Contract. */
export interface ContractRegistry {
  readonly wasm: ReadonlyMap<string, ContractImpl>;
  readonly sac: ContractImpl;
}

export interface InvocationOptions {
  readonly ledger: Ledger;
  readonly contracts: ContractRegistry;
  readonly seq: number;
  readonly closeTime: number;
  readonly mode: AuthMode;
  /** The operation's source account (source-account credentials). */
  readonly source?: string;
  readonly authEntries?: readonly xdr.SorobanAuthorizationEntry[];
  /** When given, every access must stay within it (an applied transaction's declared footprint). */
  readonly footprint?: { readonly readOnly: ReadonlySet<string>; readonly readWrite: ReadonlySet<string> };
  readonly verifySignatures?: boolean;
  /** Archived entries the transaction restores before it runs (its `archivedSorobanEntries`, CAP-66). */
  readonly restoring?: ReadonlySet<string>;
}

/** A persistent or instance entry whose TTL ran out before ledger `seq`: archived, until restored (CAP-66). */
export function isArchived(e: Entry | undefined, seq: number): boolean {
  return !!e && (e.t === 'instance' || (e.t === 'data' && e.durability === 'persistent')) && e.liveUntil < seq;
}

/** A temporary entry whose TTL ran out before ledger `seq`: gone, as if it never was. */
export function isExpiredTemporary(e: Entry | undefined, seq: number): boolean {
  return !!e && e.t === 'data' && e.durability === 'temporary' && e.liveUntil < seq;
}

const NONE = Symbol('none');

export class Invocation {
  readonly ledger: Ledger;
  readonly contracts: ContractRegistry;
  readonly seq: number;
  readonly closeTime: number;
  readonly timestamp: bigint;
  readonly auth: AuthTracker;
  readonly verifySignatures: boolean;
  private readonly footprint: InvocationOptions['footprint'];
  private readonly overlay = new Map<string, Entry | null>();
  /** Failures classified at the frame that raised them, per thrown object (made on the first failure). */
  private failures: WeakMap<object, Failure> | undefined;
  private readonly undo: Array<[string, Entry | null | typeof NONE]> = [];
  readonly reads = new Set<string>();
  readonly writes = new Set<string>();
  readonly events: ContractEventRec[] = [];
  /** ScVal of each contract data key touched (to build footprint LedgerKeys without decoding). */
  readonly keyVals = new Map<string, xdr.ScVal>();
  readonly log: DiagnosticRec[] = [];
  calls = 0;
  storageOps = 0;
  /** The operation's source account. */
  readonly source: string | undefined;
  /** Set when a contract read the source's native balance (its value depends on whether the fee was charged). */
  sourceBalanceObserved = false;
  /** Archived entries this invocation restored (simulation: every one it touched; applied: its restore list);
   *  made on the first restore, as most invocations restore nothing. */
  private restoredKeys: Set<string> | undefined;
  private readonly restoring: ReadonlySet<string> | undefined;

  constructor(opts: InvocationOptions) {
    this.ledger = opts.ledger;
    this.contracts = opts.contracts;
    this.seq = opts.seq;
    this.closeTime = opts.closeTime;
    this.timestamp = BigInt(opts.closeTime);
    this.footprint = opts.footprint;
    this.verifySignatures = opts.verifySignatures ?? true;
    this.source = opts.source;
    this.restoring = opts.restoring;
    this.auth = new AuthTracker(this, opts.mode, opts.source, opts.authEntries);
  }

  // ---- state ---------------------------------------------------------------------------------------------------

  private access(key: string, write: boolean): void {
    if (write) this.writes.add(key);
    else this.reads.add(key);
    const fp = this.footprint;
    if (fp && !(fp.readWrite.has(key) || (!write && fp.readOnly.has(key)))) {
      throw new HostError(
        `Error(Storage, ExceededLimit): trying to ${write ? 'write' : 'access'} a ledger entry outside of the footprint`,
        'Storage',
      );
    }
  }

  get(key: string): Entry | undefined {
    this.access(key, false);
    const o = this.overlay.get(key);
    if (o !== undefined) return o ?? undefined;
    const e = this.ledger.get(key);
    if (isExpiredTemporary(e, this.seq)) return undefined;
    if (e && isArchived(e, this.seq)) return this.restore(key, e as DataEntry | InstanceEntry);
    return e;
  }

  /**
   * An archived entry met on the way: simulation restores it (stellar-rpc's simulation puts it in the read-write
   * footprint and the restore list, soroban-simulation's auto-restoring snapshot); an applied transaction restores
   * the ones its restore list names before it runs (runInvoke), any other archived footprint entry fails it
   * before this point.
   */
  private restore(key: string, e: DataEntry | InstanceEntry): Entry {
    if (this.footprint && !this.restoring?.has(key)) {
      throw new HostError(
        'Error(Storage, InternalError): accessing an archived entry outside the restore list',
        'Storage',
      );
    }
    const restored = { ...e, liveUntil: this.ledger.minLiveUntil('persistent', this.seq) };
    (this.restoredKeys ??= new Set()).add(key);
    this.put(key, restored);
    return restored;
  }

  /** Restores an archived entry of the restore list before the host function runs (CAP-66). */
  restoreListed(key: string): void {
    const e = this.ledger.get(key);
    if (e && isArchived(e, this.seq)) this.restore(key, e as DataEntry | InstanceEntry);
  }

  /** Whether this invocation restored the archived entry `key`. */
  hasRestored(key: string): boolean {
    return this.restoredKeys?.has(key) ?? false;
  }

  /** How many archived entries this invocation restored. */
  get restoredCount(): number {
    return this.restoredKeys?.size ?? 0;
  }

  put(key: string, entry: Entry | undefined): void {
    this.access(key, true);
    this.undo.push([key, this.overlay.has(key) ? this.overlay.get(key)! : NONE]);
    this.overlay.set(key, entry ?? null);
  }

  /** The invocation's own write of `key`: an entry, null (removed) or undefined (not written). */
  overlayEntry(key: string): Entry | null | undefined {
    return this.overlay.get(key);
  }

  /** Replaces an already-written entry (no footprint check, no undo record). */
  patch(key: string, entry: Entry): void {
    this.overlay.set(key, entry);
  }

  /** Canonical key of contract data (remembering its ScVal, to build footprint LedgerKeys). */
  dataKey(contract: string, durability: 'persistent' | 'temporary', key: xdr.ScVal): string {
    const id = this.ledger.codec.dataKeyId(contract, durability, key);
    this.keyVals.set(id, key);
    return id;
  }

  /** Marks a key written without writing it (simulation: the nonce an auth entry will consume). */
  touchWrite(key: string): void {
    this.writes.add(key);
  }

  private rollback(mark: number, eventMark: number): void {
    while (this.undo.length > mark) {
      const [key, prev] = this.undo.pop()!;
      if (prev === NONE) this.overlay.delete(key);
      else this.overlay.set(key, prev);
    }
    this.events.length = eventMark;
  }

  /** Entry changes of the whole invocation (before = ledger state). */
  changes(): EntryChange[] {
    const out: EntryChange[] = [];
    for (const [key, after] of this.overlay) {
      const before = this.ledger.get(key);
      if (before === undefined && after === null) continue;
      out.push({ key, before, after: after ?? undefined });
    }
    return out;
  }

  commit(): void {
    for (const [key, e] of this.overlay) this.ledger.put(key, e ?? undefined);
  }

  instance(contractId: string): InstanceEntry {
    const e = this.get(instanceKeyId(contractId));
    if (!e || e.t !== 'instance') {
      throw new HostError(
        'Error(Storage, MissingValue): trying to get non-existing value for contract instance',
        'Storage',
      );
    }
    return e;
  }

  // ---- calls ---------------------------------------------------------------------------------------------------

  private resolve(exec: Executable): ContractImpl {
    if (exec.kind === 'sac') return this.contracts.sac;
    const impl = this.contracts.wasm.get(exec.hash);
    if (!impl) throw new HostError('Error(Storage, MissingValue): contract code (Wasm) does not exist', 'Storage');
    return impl;
  }

  /** The classified failure of an error thrown out of this invocation (classified at the frame that raised it). */
  failureOf(e: unknown): Failure {
    return (typeof e === 'object' && e !== null && this.failures?.get(e)) || classify(e);
  }

  /** Runs `fn` of `contractId`; `parent` is the calling frame (undefined for the transaction's own call). */
  invoke(contractId: string, fn: string, args: xdr.ScVal[], parent?: Frame): xdr.ScVal {
    if (!parent) {
      try {
        this.auth.checkEntries();
      } catch (e) {
        const f = this.failureOf(e);
        this.log.push(diag.error(undefined, f, f.detail));
        throw e;
      }
    }
    this.calls += 1;
    this.log.push(diag.fnCall(contractId, fn, args, parent?.contractId));
    const frame = new Frame(this, contractId, fn, args, parent);
    return this.run(frame, (impl) => impl.invoke(frame, fn, args));
  }

  private run(frame: Frame, body: (impl: ContractImpl) => xdr.ScVal): xdr.ScVal {
    const undoMark = this.undo.length;
    const eventMark = this.events.length;
    try {
      const impl = this.resolve(this.instance(frame.contractId).exec);
      const ret = body(impl);
      this.log.push(diag.fnReturn(frame.contractId, frame.fn, ret));
      return ret;
    } catch (e) {
      this.rollback(undoMark, eventMark);
      this.noteFailure(e, frame);
      throw e;
    }
  }

  private noteFailure(e: unknown, frame: Frame): void {
    const known = typeof e === 'object' && e !== null ? this.failures?.get(e) : undefined;
    if (!known) {
      const f = classify(e);
      if (typeof e === 'object' && e !== null) (this.failures ??= new WeakMap()).set(e, f);
      this.log.push(diag.error(frame.contractId, f, f.detail));
    }
    const f = known ?? this.failureOf(e);
    if (frame.parent) {
      this.log.push(
        diag.error(
          frame.parent.contractId,
          f,
          xdr.ScVal.scvVec([
            xdr.ScVal.scvString('contract call failed'),
            xdr.ScVal.scvSymbol(frame.fn),
            xdr.ScVal.scvVec(frame.args),
          ]),
        ),
      );
    }
  }

  /** Creates a contract from an installed template (deployer: a contract frame, or an account at genesis). */
  deploy(deployer: string, parent: Frame | undefined, wasmHash: Buffer, salt: Buffer, ctorArgs: xdr.ScVal[]): string {
    const id = contractIdFromAddress(this.ledger.passphrase, deployer, salt);
    const key = instanceKeyId(id);
    if (this.get(key)) throw new HostError('Error(Storage, ExistingValue): contract already exists', 'Storage');
    const hash = wasmHash.toString('hex');
    const impl = this.contracts.wasm.get(hash);
    if (!impl) throw new HostError('Error(Storage, MissingValue): Wasm does not exist', 'Storage');
    this.putInstance({
      t: 'instance',
      contract: id,
      exec: { kind: 'wasm', hash },
      storage: new Map(),
      lm: this.seq,
      liveUntil: this.ledger.minLiveUntil('persistent', this.seq),
    });
    if (impl.construct) {
      this.calls += 1;
      this.log.push(diag.fnCall(id, '__constructor', ctorArgs, parent?.contractId));
      const frame = new Frame(this, id, '__constructor', ctorArgs, parent);
      this.run(frame, (c) => {
        c.construct!(frame, ctorArgs);
        return xdr.ScVal.scvVoid();
      });
    } else if (ctorArgs.length > 0) {
      throw new HostError(
        'Error(Context, InvalidAction): constructor arguments given to a contract without a constructor',
        'Context',
      );
    }
    return id;
  }

  putInstance(e: InstanceEntry): void {
    this.put(instanceKeyId(e.contract), e);
  }
}

/** One call frame: what a contract sees as its ContractContext. */
export class Frame implements ContractContext {
  readonly storage: ContractStorage;
  private argsXdrCache?: Buffer;

  readonly inv: Invocation;
  readonly contractId: string;
  readonly fn: string;
  readonly args: xdr.ScVal[];
  readonly parent: Frame | undefined;
  constructor(inv: Invocation, contractId: string, fn: string, args: xdr.ScVal[], parent: Frame | undefined) {
    this.inv = inv;
    this.contractId = contractId;
    this.fn = fn;
    this.args = args;
    this.parent = parent;
    this.storage = new FrameStorage(inv, contractId);
  }

  get ledgerSequence(): number {
    return this.inv.seq;
  }
  get ledgerTimestamp(): bigint {
    return this.inv.timestamp;
  }
  get networkPassphrase(): string {
    return this.inv.ledger.passphrase;
  }

  requireAuth(address: string): void {
    this.inv.auth.require(this, address);
  }

  emit(topics: xdr.ScVal[], data: xdr.ScVal): void {
    this.inv.events.push({ contractId: this.contractId, topics, data });
  }

  call(contractId: string, fn: string, args: xdr.ScVal[]): xdr.ScVal {
    return this.inv.invoke(contractId, fn, args, this);
  }

  deployContract(wasmHash: Buffer, salt: Buffer, constructorArgs: xdr.ScVal[]): string {
    return this.inv.deploy(this.contractId, this, wasmHash, salt, constructorArgs);
  }

  /** XDR of ScVec(args), for matching auth entries. */
  argsXdr(): Buffer {
    return (this.argsXdrCache ??= Buffer.from(xdr.ScVal.scvVec(this.args).toXdr()));
  }
}

class FrameStorage implements ContractStorage {
  private readonly inv: Invocation;
  private readonly contractId: string;
  constructor(inv: Invocation, contractId: string) {
    this.inv = inv;
    this.contractId = contractId;
  }

  get(key: xdr.ScVal, durability: Durability = 'persistent'): xdr.ScVal | undefined {
    this.inv.storageOps += 1;
    if (durability === 'instance')
      return this.inv.instance(this.contractId).storage.get(this.inv.ledger.codec.scValKey(key))?.val;
    const e = this.inv.get(this.inv.dataKey(this.contractId, durability, key));
    return e && e.t === 'data' ? e.val : undefined;
  }

  has(key: xdr.ScVal, durability: Durability = 'persistent'): boolean {
    return this.get(key, durability) !== undefined;
  }

  set(key: xdr.ScVal, val: xdr.ScVal, durability: Durability = 'persistent'): void {
    const inv = this.inv;
    inv.storageOps += 1;
    if (durability === 'instance') {
      const inst = inv.instance(this.contractId);
      const storage = new Map(inst.storage);
      storage.set(this.inv.ledger.codec.scValKey(key), { key, val });
      inv.putInstance({ ...inst, storage, lm: inv.seq });
      return;
    }
    const id = inv.dataKey(this.contractId, durability, key);
    const prev = inv.get(id) as DataEntry | undefined;
    // a write keeps the entry's TTL; a new entry gets the network's minimum (contracts here never extend_ttl)
    const entry: DataEntry = {
      t: 'data',
      contract: this.contractId,
      durability,
      key,
      val,
      lm: inv.seq,
      liveUntil: prev?.liveUntil ?? inv.ledger.minLiveUntil(durability, inv.seq),
    };
    inv.put(id, entry);
  }

  remove(key: xdr.ScVal, durability: Durability = 'persistent'): void {
    const inv = this.inv;
    inv.storageOps += 1;
    if (durability === 'instance') {
      const inst = inv.instance(this.contractId);
      const k = this.inv.ledger.codec.scValKey(key);
      if (!inst.storage.has(k)) return;
      const storage = new Map(inst.storage);
      storage.delete(k);
      inv.putInstance({ ...inst, storage, lm: inv.seq });
      return;
    }
    const id = inv.dataKey(this.contractId, durability, key);
    if (inv.get(id)) inv.put(id, undefined);
  }
}
