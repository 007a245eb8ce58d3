// One simulated network (testnet or mainnet profile): its ledger and host, the JSON-RPC methods, the friendbot,
// the developer cheats and a fast in-process path for contract calls (`invoke` builds, simulates, signs and
// submits a real transaction; `read` runs a read-only call).
import { Keypair, StrKey, xdr } from '@stellar/stellar-sdk';
import { submitEnvelope, txHash } from './apply.ts';
import { bootstrap, genesisIds, type Genesis, type Profile, type Templates } from './bootstrap.ts';
import { addressCredentialsOf, authPreimage } from './auth.ts';
import { publicKeyOf, sha256, signEd25519 } from './crypto.ts';
import { accountKeyId, fromScAddress, toScAddress, trustlineKeyId, TRUSTLINE_AUTHORIZED, type AccountEntry, type TrustlineEntry } from './entries.ts';
import { Invocation, type ContractRegistry } from './invocation.ts';
import { BASE_FEE, Ledger } from './ledger.ts';
import { txXdrFields } from './meta.ts';
import type { NetworkInfo, NetworkName } from './network-types.ts';
import type { ContractEventRec } from './records.ts';
import { createRpcHandler } from './rpc.ts';
import { readCall, simulateInvoke, type Core } from './simulate.ts';

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

export type ReadResult = { status: 'SUCCESS'; returnValue: xdr.ScVal } | { status: 'FAILED'; error: string; contractError?: number };

export class FriendbotError extends Error {
  readonly status: number;
  readonly body: Record<string, unknown>;
  constructor(
    status: number,
    body: Record<string, unknown>,
  ) {
    super(String(body.detail ?? body.title));
    this.status = status;
    this.body = body;
  }
}

export interface NetworkOptions {
  name: NetworkName;
  profile: Profile;
  contracts: ContractRegistry;
  vaultWasmHash: Buffer;
  now: () => number;
  historyLimit?: number;
  /** Protocol version to emulate (26..29, default 29). */
  protocol?: number;
}

const FRIENDBOT_AMOUNT = 100_000_000_000n;
const INT64_MAX = (1n << 63n) - 1n;

export class SimNetwork implements Core {
  readonly name: NetworkName;
  readonly profile: Profile;
  readonly contracts: ContractRegistry;
  readonly ledger: Ledger;
  readonly genesis: Genesis;
  readonly info: NetworkInfo;
  /** The JSON-RPC methods (what the HTTP server serves), in-process. */
  readonly rpc: (method: string, params?: unknown) => Promise<unknown>;
  private readonly snapshots = new Map<number, ReturnType<Ledger['snapshot']>>();
  private nextSnapshot = 1;

  constructor(opts: NetworkOptions) {
    this.name = opts.name;
    this.profile = opts.profile;
    this.contracts = opts.contracts;
    this.ledger = new Ledger({ passphrase: opts.profile.passphrase, now: opts.now, historyLimit: opts.historyLimit, protocol: opts.protocol });
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
    const g = bootstrap(this.ledger, this.contracts, templates, this.profile);
    if (g.factoryId !== this.genesis.factoryId || g.registryId !== this.genesis.registryId) throw new Error('genesis ids disagree');
  }

  /** Deploys an installed template directly (genesis-style, no transaction, no auth): tests and tooling. */
  deploy(templateHash: Buffer, salt: Buffer, constructorArgs: xdr.ScVal[] = [], deployer = this.genesis.operator.publicKey()): string {
    const l = this.ledger.tick();
    const inv = new Invocation({ ledger: this.ledger, contracts: this.contracts, seq: l.seq, closeTime: l.closeTime, mode: 'genesis' });
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
    return r.ok ? { status: 'SUCCESS', returnValue: r.retval } : { status: 'FAILED', error: r.error, contractError: r.failure.contractCode };
  }

  /** Builds, simulates, signs (envelope and auth entries) and submits a contract call, as a wallet would. */
  invoke(opts: InvokeOptions): InvokeResult {
    const source = publicKeyOf(opts.source);
    const sim = simulateInvoke(this, { source, contractId: opts.contractId, fn: opts.fn, args: opts.args });
    if (!sim.ok) return { status: 'FAILED', stage: 'simulate', error: sim.error, contractError: sim.failure.contractCode };
    const expiration = this.ledger.tick().seq + (opts.authValidFor ?? 100);
    const auth: xdr.SorobanAuthorizationEntry[] = [];
    for (const entry of sim.auth) {
      const c = addressCredentialsOf(entry.credentials);
      if (!c) {
        auth.push(entry);
        continue;
      }
      const who = fromScAddress(c.creds.address);
      const kp = [opts.source, ...(opts.signers ?? [])].find((k) => publicKeyOf(k) === who);
      if (!kp) return { status: 'FAILED', stage: 'sign', error: `no signer for the auth entry of ${who}` };
      auth.push(signAuthEntry(entry, kp, this.ledger.networkId, expiration));
    }
    const acc = this.account(source);
    const tx = new xdr.Transaction({
      sourceAccount: xdr.MuxedAccount.keyTypeEd25519(opts.source.rawPublicKey()),
      fee: Number(sim.minResourceFee) + BASE_FEE,
      seqNum: (acc?.seqNum ?? 0n) + 1n,
      cond: xdr.Preconditions.precondTime(new xdr.TimeBounds({ minTime: 0n, maxTime: BigInt(this.ledger.nowSec() + 300) })),
      memo: xdr.Memo.memoNone(),
      operations: [
        new xdr.Operation({
          sourceAccount: null,
          body: xdr.OperationBody.invokeHostFunction(
            new xdr.InvokeHostFunctionOp({
              hostFunction: xdr.HostFunction.hostFunctionTypeInvokeContract(
                new xdr.InvokeContractArgs({ contractAddress: toScAddress(opts.contractId), functionName: opts.fn, args: opts.args }),
              ),
              auth,
            }),
          ),
        }),
      ],
      ext: xdr.TransactionExt.sorobanData(sim.transactionData),
    });
    const env = signEnvelope(tx, opts.source, this.ledger.networkId);
    const out = submitEnvelope(this, env, { inv: sim.inv, retval: sim.retval, auth: sim.auth, version: sim.version });
    if (out.status === 'ERROR') {
      return { status: 'FAILED', stage: 'submit', error: out.code, resultCode: out.code, hash: out.hash };
    }
    if (out.status === 'DUPLICATE') return { status: 'FAILED', stage: 'submit', error: 'duplicate transaction', hash: out.hash };
    const rec = out.record;
    if (rec.status === 'FAILED') {
      return { status: 'FAILED', stage: 'apply', error: rec.error ?? 'txFailed', contractError: rec.failure?.contractCode, resultCode: 'txFailed', hash: rec.hash };
    }
    return { status: 'SUCCESS', hash: rec.hash, ledger: rec.ledger, returnValue: rec.returnValue!, events: rec.events, feeCharged: rec.feeCharged };
  }

  // ---- friendbot ---------------------------------------------------------------------------------------------------

  /** Funds a new account with 10,000 XLM by a createAccount transaction from the friendbot account. */
  friendbot(address: string): { hash: string; ledger: number; successful: true; envelope_xdr: string; result_xdr: string; result_meta_xdr: string } {
    if (!StrKey.isValidEd25519PublicKey(address)) {
      throw new FriendbotError(400, { title: 'Bad Request', status: 400, detail: 'addr is not a valid account address (G…)' });
    }
    const fb = this.genesis.friendbot;
    const acc = this.account(fb.publicKey())!;
    const tx = new xdr.Transaction({
      sourceAccount: xdr.MuxedAccount.keyTypeEd25519(fb.rawPublicKey()),
      fee: BASE_FEE,
      seqNum: acc.seqNum + 1n,
      cond: xdr.Preconditions.precondNone(),
      memo: xdr.Memo.memoNone(),
      operations: [
        new xdr.Operation({
          sourceAccount: null,
          body: xdr.OperationBody.createAccount(
            new xdr.CreateAccountOp({
              destination: xdr.PublicKey.publicKeyTypeEd25519(StrKey.decodeEd25519PublicKey(address)),
              startingBalance: FRIENDBOT_AMOUNT,
            }),
          ),
        }),
      ],
      ext: xdr.TransactionExt.v0(),
    });
    const out = submitEnvelope(this, signEnvelope(tx, fb, this.ledger.networkId));
    if (out.status !== 'PENDING') throw new FriendbotError(500, { title: 'Internal Server Error', status: 500, detail: out.status });
    const rec = out.record;
    const x = txXdrFields(rec);
    if (rec.status !== 'SUCCESS') {
      throw new FriendbotError(400, {
        type: 'transaction_failed',
        title: 'Transaction Failed',
        status: 400,
        detail: 'createAccountAlreadyExist: the account is already funded',
        extras: { envelope_xdr: x.envelopeXdr, result_xdr: x.resultXdr, result_codes: { transaction: 'tx_failed', operations: ['op_already_exists'] } },
      });
    }
    return { hash: rec.hash, ledger: rec.ledger, successful: true, envelope_xdr: x.envelopeXdr, result_xdr: x.resultXdr, result_meta_xdr: x.resultMetaXdr };
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
      line = { t: 'trustline', account: address, code: sc.code, issuer: sc.issuer, balance: 0n, limit: INT64_MAX, flags: TRUSTLINE_AUTHORIZED, lm: seq };
      this.ledger.put(key, { ...acc, numSubEntries: acc.numSubEntries + 1, lm: seq });
    }
    if (line.balance + value > line.limit) throw new RangeError('balance would exceed the trustline limit');
    const next = { ...line, balance: line.balance + value, lm: seq };
    this.ledger.put(tkey, next);
    return next.balance;
  }

  setTime(unixSeconds: number): { sequence: number; closeTime: number } {
    const h = this.ledger.setTime(unixSeconds);
    return { sequence: h.seq, closeTime: h.closeTime };
  }

  closeLedger(): { sequence: number; closeTime: number } {
    const h = this.ledger.closeLedger();
    return { sequence: h.seq, closeTime: h.closeTime };
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
    this.ledger.restore(s);
    for (const k of [...this.snapshots.keys()]) if (k > n) this.snapshots.delete(k);
    return true;
  }
}

/** Signs a transaction envelope with node's crypto (the same bytes as Keypair.sign). */
export function signEnvelope(tx: xdr.Transaction, kp: Keypair, networkId: Buffer): xdr.TransactionEnvelope {
  const hash = txHash(tx, networkId);
  return xdr.TransactionEnvelope.envelopeTypeTx(
    new xdr.TransactionV1Envelope({ tx, signatures: [new xdr.DecoratedSignature({ hint: kp.rawPublicKey().subarray(28), signature: signEd25519(kp, hash) })] }),
  );
}

/** The address-credential auth entry signed by `kp` (the SDK's `authorizeEntry` format: the payload of the entry's
 *  credential type, legacy or address-bound); the root invocation object is shared with `entry`. Delegates are
 *  kept as they are. */
export function signAuthEntry(entry: xdr.SorobanAuthorizationEntry, kp: Keypair, networkId: Buffer, expiration: number): xdr.SorobanAuthorizationEntry {
  const c = addressCredentialsOf(entry.credentials);
  if (!c) throw new Error(`cannot sign ${entry.credentials.type} credentials`);
  const creds = c.creds;
  const preimage = authPreimage(c.type, networkId, { nonce: creds.nonce, signatureExpirationLedger: expiration, address: creds.address }, entry.rootInvocation);
  const signature = signEd25519(kp, sha256(preimage.toXdr()));
  const signed = new xdr.SorobanAddressCredentials({
    address: creds.address,
    nonce: creds.nonce,
    signatureExpirationLedger: expiration,
    signature: xdr.ScVal.scvVec([
      xdr.ScVal.scvMap([
        new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol('public_key'), val: xdr.ScVal.scvBytes(kp.rawPublicKey()) }),
        new xdr.ScMapEntry({ key: xdr.ScVal.scvSymbol('signature'), val: xdr.ScVal.scvBytes(signature) }),
      ]),
    ]),
  });
  const credentials =
    c.type === 'sorobanCredentialsAddress'
      ? xdr.SorobanCredentials.sorobanCredentialsAddress(signed)
      : c.type === 'sorobanCredentialsAddressV2'
        ? xdr.SorobanCredentials.sorobanCredentialsAddressV2(signed)
        : xdr.SorobanCredentials.sorobanCredentialsAddressWithDelegates(
            new xdr.SorobanAddressCredentialsWithDelegates({ addressCredentials: signed, delegates: [...c.delegates] }),
          );
  return new xdr.SorobanAuthorizationEntry({ credentials, rootInvocation: entry.rootInvocation });
}
