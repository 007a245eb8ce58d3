// The Soroban RPC client of the service: prepare (build → simulate → assemble), read (simulate as the
// simulation account), submit (decode → check → send → poll). Every failure becomes a ChainError.
import {
  Account,
  Address,
  Contract,
  FeeBumpTransaction,
  Keypair,
  StrKey,
  Transaction,
  TransactionBuilder,
  rpc,
  xdr,
} from '@stellar/stellar-sdk';
import { CHAIN_TIMEOUT_DEFAULTS } from '../config/index.ts';
import { createChainCaches, type ChainCaches } from './caches.ts';
import { assembleCall, buildCall, sdkTransaction } from './fast-assemble.ts';
import {
  ChainError,
  chainUnavailable,
  errorText,
  mapChainFailure,
  PREPARED_TX_VALIDITY_S,
  type ContractKind,
} from './errors.ts';
import { checkAuthSignatures, inspectParsed, inspectTransaction, noValidSignature, parseEnvelope } from './inspect.ts';
import { ReadCache, readKey } from './read-cache.ts';
import { createJsonPostClient } from './transport.ts';
import type {
  ChainClient,
  ChainClientOptions,
  ChainHealth,
  ChainTimeouts,
  ContractCall,
  ExpectInvocation,
  Invocation,
  NetworkCheck,
  PreparedTransaction,
  PrepareRequest,
  ReadRequest,
  SubmitResult,
} from './types.ts';

/** The settings' defaults (src/config), so that a client built without timeouts behaves as a configured one. */
export const DEFAULT_TIMEOUTS: ChainTimeouts = { ...CHAIN_TIMEOUT_DEFAULTS };
/** The first waits between getTransaction polls (then `pollIntervalMs`), each capped by `pollIntervalMs`. */
export const POLL_BACKOFF_MS: readonly number[] = [50, 100, 200];
const DEFAULT_BASE_FEE = '100';

/** G… address → the LedgerKey of its account (undefined for anything else); the StrKey checked once per cache. */
function accountLedgerKey(caches: ChainCaches, source: string): xdr.LedgerKey | undefined {
  const hit = caches.accountKeys.get(source);
  if (hit) return hit;
  if (!StrKey.isValidEd25519PublicKey(source)) return undefined;
  const key = xdr.LedgerKey.account(
    new xdr.LedgerKeyAccount({ accountId: Keypair.fromPublicKey(source).xdrPublicKey() }),
  );
  caches.accountKeys.set(source, key);
  return key;
}

/** Base64 of a LedgerKey, memoized per object (the registry's keys are cached objects, see recordLedgerKey). */
const keyTexts = new WeakMap<xdr.LedgerKey, string>();
function keyText(k: xdr.LedgerKey): string {
  let t = keyTexts.get(k);
  if (t === undefined) {
    t = k.toXdr('base64');
    keyTexts.set(k, t);
  }
  return t;
}

/**
 * The SDK's rpc.Server with the service's transport and one RPC timeout: the one place an RPC connection is made
 * (the chain client's, and the `tx sign` command's read of the latest ledger).
 */
export function createRpcServer(o: {
  rpcUrl: string;
  allowHttp: boolean;
  timeoutMs: number;
  transport: 'node' | 'sdk';
}): rpc.Server {
  const server = new rpc.Server(o.rpcUrl, { allowHttp: o.allowHttp });
  if (o.transport === 'node') {
    // The SDK's client, configured with its public `adapter` option: rpc.Server only posts JSON and reads `data`,
    // which transport.ts does over node:http(s).
    const transport = createJsonPostClient({ timeoutMs: o.timeoutMs });
    server.httpClient.defaults.adapter = async (config) => {
      const res = await transport.post(String(config.url), config.data);
      return { data: res.data, status: res.status, statusText: '', headers: {}, config };
    };
  } else {
    // rpc.Server accepts a `timeout` option but does not apply it: set it on its HTTP client.
    server.httpClient.defaults.timeout = o.timeoutMs;
  }
  return server;
}

export function createChainClient(opts: ChainClientOptions): ChainClient {
  const timeouts: ChainTimeouts = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
  const passphrase = opts.networkPassphrase;
  const caches = opts.caches ?? createChainCaches();
  const baseFee = opts.baseFee ?? DEFAULT_BASE_FEE;
  const fastAssemble = opts.fastAssemble ?? true;
  const now = opts.now ?? Date.now;
  const sleep = opts.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const server = createRpcServer({
    rpcUrl: opts.rpcUrl,
    allowHttp: opts.allowHttp ?? false,
    timeoutMs: timeouts.rpcMs,
    transport: opts.rpcTransport ?? 'node',
  });
  const tokenIds = new Set(opts.contracts?.tokenIds ?? []);
  const reads = new ReadCache({
    ttlMs: opts.readCacheMs ?? 0,
    now,
    ...(opts.readCacheEntries ? { maxEntries: opts.readCacheEntries } : {}),
  });

  /** The error table of a contract id: the configured factory/registry/tokens, otherwise a vault. */
  function kindOf(contractId: string, explicit?: ContractKind): ContractKind {
    if (explicit) return explicit;
    if (contractId === opts.contracts?.factoryId) return 'factory';
    if (contractId === opts.contracts?.registryId) return 'registry';
    if (tokenIds.has(contractId)) return 'token';
    return 'vault';
  }

  /** Runs an RPC request; transport failures, HTTP errors and JSON-RPC errors → chain_unavailable. */
  async function rpcCall<T>(f: () => Promise<T>): Promise<T> {
    try {
      return await f();
    } catch (e) {
      if (e instanceof ChainError) throw e;
      throw chainUnavailable(e, opts.network);
    }
  }

  /** The current sequence number of `source` (a G… account that exists). */
  async function loadSequence(source: string): Promise<string> {
    const key = typeof source === 'string' ? accountLedgerKey(caches, source) : undefined;
    if (!key)
      throw new ChainError(
        'source_account_not_found',
        400,
        `source account ${String(source)} is not an account address`,
      );
    const res = await rpcCall(() => server.getLedgerEntries(key));
    reads.observeLedger(res.latestLedger);
    const entry = res.entries[0];
    if (!entry)
      throw new ChainError(
        'source_account_not_found',
        400,
        `source account ${source} does not exist on ${opts.network}`,
      );
    const val = entry.val;
    if (val.type !== 'account')
      throw new ChainError(
        'source_account_not_found',
        400,
        `source account ${source} does not exist on ${opts.network}`,
      );
    return val.account.seqNum.toString();
  }

  function build(account: Account, { contractId, fn, args }: ContractCall, maxTime: number): Transaction {
    return new TransactionBuilder(account, { fee: baseFee, networkPassphrase: passphrase })
      .addOperation(new Contract(contractId).call(fn, ...args))
      .setTimebounds(0, maxTime)
      .build();
  }

  async function simulate(tx: Transaction, kind: ContractKind): Promise<rpc.Api.SimulateTransactionSuccessResponse> {
    // Recording mode asks for ADDRESS_V2 entries (useUpgradedAuth, at Protocols 27 and 28 a request flag): their
    // signature names the address, so it cannot be moved to another one (docs/protocol.md).
    const sim = await rpcCall(() => server.simulateTransaction(tx, undefined, undefined, true));
    reads.observeLedger(sim.latestLedger);
    if (rpc.Api.isSimulationError(sim)) {
      const { contractCode, lines } = readEvents(sim.events ?? []);
      // soroban-rpc's error text already carries the event log; a bare one gets the decoded events appended
      const text = /Event log/.test(sim.error) ? sim.error : [sim.error, ...lines].join('\n');
      throw mapChainFailure({ contract: kind, text, ...opt('contractCode', contractCode) });
    }
    if (!rpc.Api.isSimulationSuccess(sim)) {
      throw chainUnavailable('simulation returned neither result nor error', opts.network);
    }
    return sim;
  }

  async function prepare(req: PrepareRequest): Promise<PreparedTransaction> {
    const kind = kindOf(req.contractId, req.contract);
    const sequence = await (req.sequence ?? loadSequence(req.source));
    const maxTime = Math.floor(now() / 1000) + (opts.txValiditySeconds ?? PREPARED_TX_VALIDITY_S);
    // The same bytes as the SDK's builder and assembleTransaction, written once (fast-assemble.ts, a workaround
    // switched off by CV_FAST_ASSEMBLE=false); the SDK's own path for anything it does not cover.
    const call = fastAssemble ? buildCall({ ...req, sequence, baseFee, maxTime }) : undefined;
    const tx = call ? sdkTransaction(call, passphrase) : build(new Account(req.source, sequence), req, maxTime);
    const sim = await simulate(tx, kind);
    if (rpc.Api.isSimulationRestore(sim)) {
      throw mapChainFailure({ contract: kind, text: 'contract state is archived and must be restored first' });
    }
    const assembled = call && assembleCall(call, sim);
    if (assembled) return { xdr: assembled, network: passphrase };
    return { xdr: rpc.assembleTransaction(tx, sim).build().toXdr(), network: passphrase };
  }

  async function read(req: ReadRequest): Promise<xdr.ScVal> {
    const kind = kindOf(req.contractId, req.contract);
    const source = req.source ?? opts.simulationAccount;
    const load = async () => {
      const tx = build(new Account(source, '0'), req, 0);
      const sim = await simulate(tx, kind);
      if (!sim.result) throw chainUnavailable(`simulation of ${req.fn} returned no value`, opts.network);
      return { value: sim.result.retval, ledger: sim.latestLedger };
    };
    if (!reads.enabled) return (await load()).value;
    return reads.read(readKey(req.contractId, req.fn, source, req.args), load);
  }

  const inspect = (signedXdr: string): Invocation => inspectTransaction(signedXdr, passphrase, caches.signers);

  async function submit(
    signedXdr: string,
    expect?: ExpectInvocation,
    o?: { contract?: ContractKind },
  ): Promise<SubmitResult> {
    const parsed = parseEnvelope(signedXdr, passphrase);
    const inv = inspectParsed(parsed, caches.signers);
    const inner = parsed instanceof FeeBumpTransaction ? parsed.innerTransaction : parsed;
    if (inner.signatures.length === 0) throw new ChainError('tx_invalid', 400, 'transaction is not signed');
    if (inv.signedBy.length === 0) throw noValidSignature(inv, passphrase);
    checkAuthSignatures(parsed, passphrase, caches.signers);
    if (expect) await expect(inv);
    const kind = kindOf(inv.contractId, o?.contract);
    // Read-your-writes: nothing read before this transaction is served once it may have landed, and
    // again once it is final (reads sent meanwhile may predate it).
    reads.clear();
    try {
      return await send(parsed, inv, kind);
    } finally {
      reads.clear();
    }
  }

  async function send(
    parsed: Transaction | FeeBumpTransaction,
    inv: Invocation,
    kind: ContractKind,
  ): Promise<SubmitResult> {
    const deadline = now() + timeouts.submitMs;
    for (let attempt = 0; ; attempt++) {
      const sent = await rpcCall(() => server.sendTransaction(parsed));
      reads.observeLedger(sent.latestLedger);
      const hash = sent.hash || inv.hash;
      // PENDING, or DUPLICATE (it waits in the network's queue already): its outcome is what getTransaction says.
      if (sent.status === 'PENDING' || sent.status === 'DUPLICATE') return poll(hash, kind, deadline);
      // Sent again once it is in a ledger (a client retrying a submit that landed), a transaction is refused:
      // TRY_AGAIN_LATER while the network bans its hash (about 10 ledgers), then ERROR for its used sequence number
      // or its passed time bounds. What landed is the answer (docs/chain-abi.md "Soroban RPC").
      const rejected = sent.status === 'ERROR' ? rejection(sent, kind, hash) : undefined;
      if (!rejected || LANDED_REJECTIONS.has(rejected.code)) {
        const outcome = await landed(hash, kind);
        if (outcome) return outcome;
      }
      if (rejected) throw rejected.error;
      // TRY_AGAIN_LATER and not in a ledger: the network did not take it this time (another transaction of the same
      // source waits for a ledger, or its queue is full). The same signed transaction is sent again.
      const left = deadline - now();
      if (left <= 0) {
        const text =
          `the RPC answered TRY_AGAIN_LATER until the submit timeout (${timeouts.submitMs} ms); ` +
          `transaction ${hash} was not taken`;
        throw new ChainError('chain_unavailable', 502, text, undefined, hash, opts.network);
      }
      await sleep(Math.min(timeouts.pollIntervalMs, POLL_BACKOFF_MS[attempt] ?? Infinity, left));
    }
  }

  /** What getTransaction says of a transaction in a ledger: its result, or its failure thrown; undefined when it is
   *  not found, or the RPC cannot say. */
  async function landed(hash: string, kind: ContractKind): Promise<SubmitResult | undefined> {
    let r: rpc.Api.GetTransactionResponse;
    try {
      r = await server.getTransaction(hash);
    } catch {
      return undefined;
    }
    reads.observeLedger(r.latestLedger);
    return final(r, kind, hash);
  }

  async function poll(hash: string, kind: ContractKind, deadline: number): Promise<SubmitResult> {
    let lastError: unknown;
    // Ask at once (a fast network, or the simulator, has applied it already), then back off to pollIntervalMs.
    // NOT_FOUND means not in a ledger yet: it may land any time until the deadline.
    for (let attempt = 0; ; attempt++) {
      try {
        const r = await server.getTransaction(hash);
        reads.observeLedger(r.latestLedger);
        lastError = undefined;
        const outcome = final(r, kind, hash);
        if (outcome) return outcome;
      } catch (e) {
        if (e instanceof ChainError) throw e;
        lastError = e; // the transaction may still land: keep polling until the deadline
      }
      const left = deadline - now();
      if (left <= 0) {
        if (lastError !== undefined) {
          const text = `chain RPC unavailable while waiting for ${hash}: ${errorText(lastError)}`;
          throw new ChainError('chain_unavailable', 502, text, undefined, hash, opts.network);
        }
        const text = `transaction ${hash} was not final after ${timeouts.submitMs} ms`;
        throw new ChainError('tx_timeout', 504, text, undefined, hash, opts.network);
      }
      await sleep(Math.min(timeouts.pollIntervalMs, POLL_BACKOFF_MS[attempt] ?? Infinity, left));
    }
  }

  /** What getNetwork last said: a network upgrades while the service runs, and health probes see it. */
  let protocolVersion: number | undefined;
  const getNetwork = async () => {
    const n = await rpcCall(() => server.getNetwork());
    // JSON-RPC answers a number; the SDK's type says string
    protocolVersion = Number(n.protocolVersion);
    return { passphrase: n.passphrase, protocolVersion };
  };

  return {
    network: opts.network,
    networkPassphrase: passphrase,
    get protocolVersion() {
      return protocolVersion;
    },
    rpcUrl: opts.rpcUrl,
    prepare,
    sequence: loadSequence,
    read,
    submit,
    inspect,
    getLedgerEntries: async (keys, o) => {
      const load = async () => {
        const res = await rpcCall(() => server.getLedgerEntries(...keys));
        reads.observeLedger(res.latestLedger);
        return { value: res, ledger: res.latestLedger };
      };
      if (!o?.cached || !reads.enabled) return (await load()).value;
      return reads.read(`entries ${keys.map(keyText).join(' ')}`, load);
    },
    async getEvents(request) {
      const res = await rpcCall(() => server.getEvents(request));
      reads.observeLedger(res.latestLedger);
      return res;
    },
    async health(): Promise<ChainHealth> {
      const h = await rpcCall(() => server.getHealth());
      const n = await getNetwork();
      return {
        status: h.status,
        latestLedger: h.latestLedger,
        passphrase: n.passphrase,
        protocolVersion: String(n.protocolVersion),
      };
    },
    async verifyNetwork(): Promise<NetworkCheck> {
      const n = await getNetwork();
      return {
        ok: n.passphrase === passphrase,
        expected: passphrase,
        actual: n.passphrase,
        protocolVersion: n.protocolVersion,
      };
    },
  };
}

/** Rejections a transaction already in a ledger gets when it is sent again: its sequence number is used, its time
 *  bounds may have passed. */
const LANDED_REJECTIONS: ReadonlySet<string> = new Set(['txBadSeq', 'txTooLate', 'txFeeBumpInnerFailed']);

/** A final getTransaction answer → the submit's result (SUCCESS) or its ChainError thrown (FAILED); else undefined. */
function final(r: rpc.Api.GetTransactionResponse, kind: ContractKind, hash: string): SubmitResult | undefined {
  if (r.status === rpc.Api.GetTransactionStatus.SUCCESS) {
    return { txId: hash, ledger: r.ledger, ...opt('returnValue', r.returnValue) };
  }
  if (r.status === rpc.Api.GetTransactionStatus.FAILED) throw failed(r, kind, hash);
  return undefined;
}

/** An ERROR of sendTransaction → its result code and the ChainError that says it. */
function rejection(
  sent: rpc.Api.SendTransactionResponse,
  kind: ContractKind,
  hash: string,
): { code: string; error: ChainError } {
  const codes = sent.errorResult ? resultCodes(sent.errorResult) : 'unknown result';
  const { contractCode, lines } = readEvents(sent.diagnosticEvents ?? []);
  const error = mapChainFailure({
    contract: kind,
    text: [`transaction rejected: ${codes}`, ...lines].join('\n'),
    txId: hash,
    ...opt('contractCode', contractCode),
  });
  return { code: codes.split('/')[0]!, error };
}

/** A FAILED transaction → ChainError from its diagnostic events and result codes, chain's words kept. */
function failed(r: rpc.Api.GetFailedTransactionResponse, kind: ContractKind, hash: string): ChainError {
  const events = [...(r.diagnosticEventsXdr ?? []), ...metaDiagnostics(r.resultMetaXdr)];
  const { contractCode, lines } = readEvents(events);
  const code = safe(() => resultCodes(r.resultXdr)) ?? 'txFailed';
  const text = [...lines, `transaction failed: ${code}`].join('\n');
  return mapChainFailure({ contract: kind, text, txId: hash, ...opt('contractCode', contractCode) });
}

function metaDiagnostics(meta: xdr.TransactionMeta | undefined): xdr.DiagnosticEvent[] {
  if (!meta) return [];
  switch (meta.type) {
    case 'v4':
      return meta.v4.diagnosticEvents;
    case 'v3':
      return meta.v3.sorobanMeta?.diagnosticEvents ?? [];
    default:
      return [];
  }
}

/** `txFailed/invokeHostFunctionTrapped`-style result codes. */
function resultCodes(res: xdr.TransactionResult): string {
  const r = res.result;
  const codes: string[] = [r.type];
  const opResults = r.type === 'txSuccess' || r.type === 'txFailed' ? r.results : [];
  for (const op of opResults) codes.push(op.type === 'opInner' ? op.tr.value.type : op.type);
  return codes.join('/');
}

/**
 * Error lines of diagnostic events (`Error(Contract, #6): message …`) and the contract error number of the
 * last error event, which is the outermost failing frame.
 */
export function readEvents(events: xdr.DiagnosticEvent[]): { contractCode?: number; lines: string[] } {
  let contractCode: number | undefined;
  const lines: string[] = [];
  for (const ev of events) {
    const body = ev.event.body.v0;
    const topics = body.topics;
    const isError = topics.some(
      (t) => t.type === 'scvError' || (t.type === 'scvSymbol' && t.sym.toString() === 'error'),
    );
    if (!isError) continue;
    const errs = topics.flatMap((t) => (t.type === 'scvError' ? [t.error] : []));
    for (const e of errs) if (e.type === 'sceContract') contractCode = e.contractCode;
    const head = errs.map(renderError).join(' ');
    const data = renderData(body.data);
    lines.push([head, data].filter((s) => s.length > 0).join(': '));
  }
  return { ...opt('contractCode', contractCode), lines };
}

function renderError(e: xdr.ScError): string {
  if (e.type === 'sceContract') return `Error(Contract, #${e.contractCode})`;
  return `Error(${e.type.replace(/^sce/, '')}, ${e.code.name.replace(/^scec/, '')})`;
}

function renderData(v: xdr.ScVal): string {
  switch (v.type) {
    case 'scvString':
      return v.str.toString();
    case 'scvSymbol':
      return v.sym.toString();
    case 'scvVec':
      return (v.vec ?? [])
        .map(renderData)
        .filter((s) => s.length > 0)
        .join(' ');
    case 'scvAddress':
      return Address.fromScVal(v).toString();
    case 'scvU32':
      return String(v.u32);
    case 'scvI32':
      return String(v.i32);
    case 'scvError':
      return renderError(v.error);
    default:
      return '';
  }
}

function safe<T>(f: () => T): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

/** `{key: value}` when value is defined, `{}` otherwise (exactOptionalPropertyTypes-friendly spreading). */
function opt<K extends string, V>(key: K, value: V | undefined): { [P in K]?: V } {
  return value === undefined ? {} : ({ [key]: value } as { [P in K]?: V });
}
