// One simulated network (testnet or mainnet profile): its ledger and host, the JSON-RPC methods, the friendbot,
// the developer cheats and a fast in-process path for contract calls (`invoke` builds, simulates, signs and
// submits a real transaction; `read` runs a read-only call).
import { Keypair, StrKey, xdr } from '@stellar/stellar-sdk';
import type { Preexecuted } from './apply.ts';
import { bootstrap, genesisIds, type Genesis, type Profile, type Templates } from './bootstrap.ts';
import { addressCredentialsOf } from './auth.ts';
import { envelopeHash } from './check.ts';
import {
  accountKeyId,
  trustlineKeyId,
  TRUSTLINE_AUTHORIZED,
  type AccountEntry,
  type SimCodec,
  type TrustlineEntry,
} from './entries.ts';
import { Invocation, type ContractRegistry } from './invocation.ts';
import { BASE_FEE, Ledger, type TtlSettings } from './ledger.ts';
import {
  FRIENDBOT_AMOUNT,
  FriendbotError,
  friendbotEnvelope,
  friendbotOutcome,
  friendbotReply,
  type FriendbotReply,
} from './friendbot.ts';
import type { NetworkInfo } from './network-types.ts';
import { QUEUE_LIMIT, TxQueue, type QueueOutcome } from './queue.ts';
import type { ContractEventRec, TxRecord } from './records.ts';
import { createRpcHandler } from './rpc/index.ts';
import { closeQueued, sendAtOnce, sendQueued, type ClosedLedger, type SendOutcome } from './sending.ts';
import { signAuthEntry, signEnvelope } from './signing.ts';
import { readCall, simulateInvoke, type Core } from './simulate.ts';
import type { Clock, Network } from './network-names.ts';

export { FriendbotError, type FriendbotReply } from './friendbot.ts';

export interface InvokeOptions {
  /** Transaction source; signs the envelope (and its own source-account auth). */
  source: Keypair;
  contractId: string;
  fn: string;
  args: xdr.ScVal[];
  /** Keypairs that sign address-credential auth entries of other accounts. */
  signers?: Keypair[];
  /** Ledgers an auth signature stays valid (default 100). */
  authValidFor?: number;
  /** Simulate with `useUpgradedAuth` (ADDRESS_V2 entries from Protocol 27): default true, as SDK 17 sends it. */
  upgradedAuth?: boolean;
}

export type InvokeResult =
  | {
      status: 'SUCCESS';
      hash: string;
      ledger: number;
      returnValue: xdr.ScVal;
      events: readonly ContractEventRec[];
      feeCharged: bigint;
    }
  | {
      status: 'FAILED';
      /** Where it failed: simulation, signing auth entries, submission checks (resultCode), or on the ledger. */
      stage: 'simulate' | 'sign' | 'submit' | 'apply';
      error: string;
      /** N of `Error(Contract, #N)` when the failure is a contract error. */
      contractError?: number;
      /** Transaction result code of a rejected or failed transaction (txBadSeq, txFailed…). */
      resultCode?: string;
      hash?: string;
    };

export type ReadResult =
  | { status: 'SUCCESS'; returnValue: xdr.ScVal }
  | { status: 'FAILED'; error: string; contractError?: number };

export interface NetworkOptions {
  name: Network;
  profile: Profile;
  contracts: ContractRegistry;
  vaultWasmHash: Buffer;
  now: Clock;
  historyLimit?: number;
  /** Protocol version to emulate (26..28, default 28). */
  protocol?: number;
  /** 0 (default): every transaction is applied at once. N > 0: transactions queue until `closeLedger`, which the
   *  served simulator calls every N ms (startSimulator). */
  ledgerCloseMs?: number;
  /** Key conversions and their caches (createSimulator shares one between its networks; default: the network's own). */
  codec?: SimCodec;
  /** State archival settings (default TTL_SETTINGS, the public networks'). */
  ttl?: Partial<TtlSettings>;
}

const INT64_MAX = (1n << 63n) - 1n;

export class SimNetwork implements Core {
  readonly name: Network;
  readonly profile: Profile;
  readonly contracts: ContractRegistry;
  readonly ledger: Ledger;
  readonly genesis: Genesis;
  readonly info: NetworkInfo;
  /** The JSON-RPC methods (what the HTTP server serves), in-process. */
  readonly rpc: (method: string, params?: unknown) => Promise<unknown>;
  private readonly snapshots = new Map<number, ReturnType<Ledger['snapshot']>>();
  private nextSnapshot = 1;
  /** Transactions waiting for the next close (ledger timing on). */
  readonly queue = new TxQueue();

  constructor(opts: NetworkOptions) {
    this.name = opts.name;
    this.profile = opts.profile;
    this.contracts = opts.contracts;
    this.ledger = new Ledger({
      passphrase: opts.profile.passphrase,
      now: opts.now,
      historyLimit: opts.historyLimit,
      protocol: opts.protocol,
      ledgerCloseMs: opts.ledgerCloseMs,
      ...(opts.codec ? { codec: opts.codec } : {}),
      ...(opts.ttl ? { ttl: opts.ttl } : {}),
    });
    this.genesis = genesisIds(opts.profile);
    const g = this.genesis;
    this.info = {
      network: opts.name,
      passphrase: opts.profile.passphrase,
      factoryId: g.factoryId,
      registryId: g.registryId,
      vaultWasmHash: opts.vaultWasmHash.toString('hex'),
      feeTokenId: g.feeTokenId,
      feeAmount: opts.profile.feeAmount.toString(),
      ...(g.stablecoin ? { stablecoin: { code: 'USDC' as const, issuer: g.stablecoin.issuer } } : {}),
      admin: { publicKey: g.operator.publicKey(), secret: g.operator.secret() },
      nativeTokenId: g.nativeTokenId,
    };
    this.rpc = createRpcHandler(this);
  }

  /** Writes the genesis state of a fresh network. */
  bootstrap(templates: Templates): void {
    const g = bootstrap(this.ledger, this.contracts, templates, this.profile, this.genesis);
    if (g.factoryId !== this.genesis.factoryId || g.registryId !== this.genesis.registryId)
      throw new Error('genesis ids disagree');
  }

  /** Deploys an installed template directly (genesis-style, no transaction, no auth): tests and tooling. */
  deploy(
    templateHash: Buffer,
    salt: Buffer,
    constructorArgs: xdr.ScVal[] = [],
    deployer = this.genesis.operator.publicKey(),
  ): string {
    const l = this.ledger.tick();
    const inv = new Invocation({
      ledger: this.ledger,
      contracts: this.contracts,
      seq: l.seq,
      closeTime: l.closeTime,
      mode: 'genesis',
    });
    const id = inv.deploy(deployer, undefined, templateHash, salt, constructorArgs);
    inv.commit();
    return id;
  }

  /** Sets the public URLs (the HTTP server knows them once it listens). */
  setUrls(rpcUrl: string, friendbotUrl: string): void {
    this.info.rpcUrl = rpcUrl;
    this.info.friendbotUrl = friendbotUrl;
  }

  account(address: string): AccountEntry | undefined {
    return this.ledger.get(accountKeyId(address)) as AccountEntry | undefined;
  }

  // ---- fast in-process calls -------------------------------------------------------------------------------------

  /** A read-only contract call on the current state (no transaction). */
  read(contractId: string, fn: string, args: xdr.ScVal[]): ReadResult {
    const r = readCall(this, contractId, fn, args);
    return r.ok
      ? { status: 'SUCCESS', returnValue: r.retval }
      : { status: 'FAILED', error: r.error, contractError: r.failure.contractCode };
  }

  /** Builds, simulates, signs (envelope and auth entries) and submits a contract call, as a wallet would. */
  invoke(opts: InvokeOptions): InvokeResult {
    const source = this.ledger.codec.publicKeyOf(opts.source);
    const { contractId, fn, args } = opts;
    const sim = simulateInvoke(this, { source, contractId, fn, args, upgradedAuth: opts.upgradedAuth ?? true });
    if (!sim.ok)
      return { status: 'FAILED', stage: 'simulate', error: sim.error, contractError: sim.failure.contractCode };
    const expiration = this.ledger.tick().seq + (opts.authValidFor ?? 100);
    const auth: xdr.SorobanAuthorizationEntry[] = [];
    for (const entry of sim.auth) {
      const c = addressCredentialsOf(entry.credentials);
      if (!c) {
        auth.push(entry);
        continue;
      }
      const who = this.ledger.codec.fromScAddress(c.creds.address);
      const kp = [opts.source, ...(opts.signers ?? [])].find((k) => this.ledger.codec.publicKeyOf(k) === who);
      if (!kp) return { status: 'FAILED', stage: 'sign', error: `no signer for the auth entry of ${who}` };
      auth.push(signAuthEntry(this.ledger.codec, entry, kp, this.ledger.networkId, expiration));
    }
    const acc = this.account(source);
    const validFrom = Math.max(this.ledger.nowSec(), this.ledger.latest.closeTime);
    const tx = new xdr.Transaction({
      sourceAccount: xdr.MuxedAccount.keyTypeEd25519(opts.source.rawPublicKey()),
      fee: Number(sim.minResourceFee) + BASE_FEE,
      seqNum: (acc?.seqNum ?? 0n) + 1n,
      // valid 5 minutes from the later of now and the latest close (closes may run a few seconds ahead)
      cond: xdr.Preconditions.precondTime(new xdr.TimeBounds({ minTime: 0n, maxTime: BigInt(validFrom + 300) })),
      memo: xdr.Memo.memoNone(),
      operations: [
        new xdr.Operation({
          sourceAccount: null,
          body: xdr.OperationBody.invokeHostFunction(
            new xdr.InvokeHostFunctionOp({
              hostFunction: xdr.HostFunction.hostFunctionTypeInvokeContract(
                new xdr.InvokeContractArgs({
                  contractAddress: this.ledger.codec.toScAddress(opts.contractId),
                  functionName: opts.fn,
                  args: opts.args,
                }),
              ),
              auth,
            }),
          ),
        }),
      ],
      ext: xdr.TransactionExt.sorobanData(sim.transactionData),
    });
    const env = signEnvelope(this.ledger.codec, tx, opts.source, this.ledger.networkId);
    const out = this.sendAndClose(env, { inv: sim.inv, retval: sim.retval, auth: sim.auth, version: sim.version });
    if (out.status === 'ERROR') {
      return { status: 'FAILED', stage: 'submit', error: out.code, resultCode: out.code, hash: out.hash };
    }
    if (out.status !== 'PENDING') return { status: 'FAILED', stage: 'submit', error: out.status, hash: out.hash };
    const rec = out.record;
    if (rec.status === 'FAILED') {
      return {
        status: 'FAILED',
        stage: 'apply',
        error: rec.error ?? 'txFailed',
        contractError: rec.failure?.contractCode,
        resultCode: 'txFailed',
        hash: rec.hash,
      };
    }
    return {
      status: 'SUCCESS',
      hash: rec.hash,
      ledger: rec.ledger,
      returnValue: rec.returnValue!,
      events: rec.events,
      feeCharged: rec.feeCharged,
    };
  }

  // ---- friendbot ---------------------------------------------------------------------------------------------------

  /** Funds a new account with 10,000 XLM by a createAccount transaction from the friendbot account, applied at once
   *  (with ledger timing on, in a ledger closed for it). */
  friendbot(address: string): FriendbotReply {
    const env = friendbotEnvelope(this, address);
    if (!this.ledger.timed) {
      const out = sendAtOnce(this, env);
      if (out.status !== 'PENDING') {
        throw new FriendbotError(500, { title: 'Internal Server Error', status: 500, detail: out.status });
      }
      return friendbotReply(this.ledger.codec, out.record);
    }
    let outcome: QueueOutcome | undefined;
    this.queueFriendbot(env, (o) => void (outcome = o));
    this.closeLedger();
    return friendbotOutcome(this.ledger.codec, outcome);
  }

  /** The friendbot as the served simulator runs it: with ledger timing on, the answer waits for the next close, as a
   *  real network's friendbot waits for its transaction's ledger. */
  async requestFriendbot(address: string): Promise<FriendbotReply> {
    if (!this.ledger.timed) return this.friendbot(address);
    const env = friendbotEnvelope(this, address);
    if (this.queue.size >= QUEUE_LIMIT) {
      const detail = 'the transaction queue is full: try again after the next ledger';
      throw new FriendbotError(503, { title: 'Service Unavailable', status: 503, detail });
    }
    return friendbotOutcome(
      this.ledger.codec,
      await new Promise<QueueOutcome>((resolve) => this.queueFriendbot(env, resolve)),
    );
  }

  // Its own transactions queue past the one-per-source rule, each taking the next sequence number.
  private queueFriendbot(env: xdr.TransactionEnvelope, settled: (o: QueueOutcome) => void): void {
    const source = this.genesis.friendbot.publicKey();
    this.queue.push({ hash: envelopeHash(this, env), env, source, settle: settled });
  }

  // ---- sending and closing (sending.ts) -----------------------------------------------------------------------------

  /** sendTransaction: applied at once (ledger timing off) or queued for the next close (on). */
  send(
    env: xdr.TransactionEnvelope,
    o: { pre?: Preexecuted; b64?: string; settled?: (o: QueueOutcome) => void } = {},
  ): SendOutcome {
    if (!this.ledger.timed) return sendAtOnce(this, env, o.pre, o.b64);
    return sendQueued(this, this.queue, env, o);
  }

  /** `send`, then (ledger timing on) a close at once: the in-process `invoke`, which answers with the outcome. */
  private sendAndClose(
    env: xdr.TransactionEnvelope,
    pre?: Preexecuted,
  ): Exclude<SendOutcome, { status: 'PENDING' }> | { status: 'PENDING'; hash: string; record: TxRecord } {
    if (!this.ledger.timed) return sendAtOnce(this, env, pre);
    let outcome: QueueOutcome | undefined;
    const sent = this.send(env, { ...(pre ? { pre } : {}), settled: (o) => void (outcome = o) });
    if (sent.status !== 'PENDING') return sent;
    this.closeLedger();
    if (!outcome || 'dropped' in outcome) {
      const why = outcome && 'dropped' in outcome ? outcome.dropped : 'not queued';
      throw new Error(`transaction ${sent.hash} was dropped at the close (${why})`);
    }
    return { status: 'PENDING', hash: sent.hash, record: outcome.record };
  }

  // ---- cheats --------------------------------------------------------------------------------------------------------

  /** Mints `amount` stroops (default 10,000 units) of the native asset or USDC to `address`, creating the account
   *  (and for USDC the trustline) when missing. Returns the new balance. */
  fund(address: string, amount?: bigint, asset: 'native' | 'USDC' = 'native'): bigint {
    if (!StrKey.isValidEd25519PublicKey(address)) throw new RangeError('address must be an account (G…)');
    const value = amount ?? 100_000_000_000n;
    if (value <= 0n || value > INT64_MAX) throw new RangeError('amount must be a positive i64');
    const seq = this.ledger.tick().seq;
    const key = accountKeyId(address);
    let acc = this.account(address);
    if (asset === 'native' || !acc) {
      const add = asset === 'native' ? value : FRIENDBOT_AMOUNT;
      acc = acc
        ? { ...acc, balance: acc.balance + add, lm: seq }
        : { t: 'account', id: address, balance: add, seqNum: BigInt(seq) << 32n, numSubEntries: 0, lm: seq };
      if (acc.balance > INT64_MAX) throw new RangeError('balance would exceed i64');
      this.ledger.put(key, acc);
      if (asset === 'native') return acc.balance;
    }
    const sc = this.genesis.stablecoin;
    if (!sc) throw new RangeError(`${this.name} has no USDC`);
    if (address === sc.issuer) throw new RangeError('the issuer holds no USDC balance');
    const tkey = trustlineKeyId(address, sc.code, sc.issuer);
    let line = this.ledger.get(tkey) as TrustlineEntry | undefined;
    if (!line) {
      line = {
        t: 'trustline',
        account: address,
        code: sc.code,
        issuer: sc.issuer,
        balance: 0n,
        limit: INT64_MAX,
        flags: TRUSTLINE_AUTHORIZED,
        lm: seq,
      };
      this.ledger.put(key, { ...acc, numSubEntries: acc.numSubEntries + 1, lm: seq });
    }
    if (line.balance + value > line.limit) throw new RangeError('balance would exceed the trustline limit');
    const next = { ...line, balance: line.balance + value, lm: seq };
    this.ledger.put(tkey, next);
    return next.balance;
  }

  /** Moves ledger time forward and closes a ledger there (with ledger timing on, with what is queued). */
  setTime(unixSeconds: number): { sequence: number; closeTime: number } {
    if (this.ledger.timed) {
      this.ledger.shiftTime(unixSeconds);
      return this.closeLedger();
    }
    const h = this.ledger.setTime(unixSeconds);
    return { sequence: h.seq, closeTime: h.closeTime };
  }

  /** Closes a ledger now; with ledger timing on, with every queued transaction (sending.ts closeQueued). */
  closeLedger(): ClosedLedger {
    if (!this.ledger.timed) {
      const h = this.ledger.closeLedger();
      return { sequence: h.seq, closeTime: h.closeTime, applied: 0, dropped: 0 };
    }
    return closeQueued(this, this.queue);
  }

  /** Saves the whole network state; returns its id for `revert`. */
  snapshot(): string {
    const id = this.nextSnapshot++;
    this.snapshots.set(id, this.ledger.snapshot());
    return String(id);
  }

  /** Restores a snapshot (it stays usable; later snapshots are dropped). False for an unknown id. */
  revert(id: string): boolean {
    const n = Number(id);
    const s = this.snapshots.get(n);
    if (!s) return false;
    this.queue.drop('the ledger was reverted');
    this.ledger.restore(s);
    for (const k of [...this.snapshots.keys()]) if (k > n) this.snapshots.delete(k);
    return true;
  }
}
