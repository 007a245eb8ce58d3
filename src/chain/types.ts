// Types shared by the modules of src/chain. ScVals appear only in the low-level client surface;
// the contract modules (vault, factory, registry, token) take and return plain values.
import type { xdr, rpc } from '@stellar/stellar-sdk';
import type { ChainCaches } from './caches.ts';
import type { ContractKind } from './errors.ts';
import type { Clock, Network } from '../domain.ts';

/** A prepared, unsigned transaction (vault-api.yaml PrepareResponse). */
export interface PreparedTransaction {
  /** Base64 XDR of the unsigned transaction envelope. */
  xdr: string;
  /** The network passphrase to sign with. */
  network: string;
}

/** The network's state archival TTLs, in ledgers (docs/chain-abi.md "State archival"). */
export interface TtlSettings {
  minPersistentTTL: number;
  minTemporaryTTL: number;
  maxEntryTTL: number;
}

/** The two operations of state archival. */
export type TtlOperation = 'extendFootprintTtl' | 'restoreFootprint';

/** An ExtendFootprintTTL to prepare: `keys` live at least `extendTo` ledgers past the one it lands in. */
export interface TtlPrepareRequest {
  /** Transaction source (G…): sequence and fee payer. */
  source: string;
  keys: xdr.LedgerKey[];
  extendTo: number;
  sequence?: Promise<string>;
}

/** A prepared TTL transaction: the extension, or the RestoreFootprint of `restoring` (base64 keys) to send first. */
export interface PreparedTtl extends PreparedTransaction {
  operation: TtlOperation;
  restoring: string[];
  /** The transaction's fee in stroops (inclusion and resources, the rent included), a decimal string. */
  fee: string;
  /** The latest ledger the simulation saw. */
  latestLedger: number;
}

/** What a signed TTL transaction does, for the safe-submit checks. */
export interface TtlInvocation
  extends Pick<Invocation, 'hash' | 'source' | 'operationSource' | 'feeSource' | 'signedBy'> {
  operation: TtlOperation;
  extendTo?: number;
  readOnly: xdr.LedgerKey[];
  readWrite: xdr.LedgerKey[];
}

/** A SorobanCredentials type: legacy `address`, CAP-71's address-bound `addressV2` and `addressWithDelegates`. */
export type CredentialKind = 'sourceAccount' | 'address' | 'addressV2' | 'addressWithDelegates';

/** One authorization entry of a transaction, as the safe-submit checks see it. */
export interface AuthEntrySummary {
  credentials: CredentialKind;
  /** The address the entry authorizes for (source-account credentials: the operation source). */
  address: string;
  /** The delegate signers of an `addressWithDelegates` entry, nested ones included, depth first; else empty. */
  delegates: string[];
}

/** What a signed transaction does, decoded for the safe-submit checks. */
export interface Invocation {
  /** Transaction hash (hex) under the configured passphrase. */
  hash: string;
  /** Transaction source account (G…), the sequence and fee payer. */
  source: string;
  /** Source of the operation (the transaction source unless the operation sets its own). */
  operationSource: string;
  /** Fee-bump payer when the envelope is a fee bump. */
  feeSource?: string;
  /** Invoked contract (C…). */
  contractId: string;
  fn: string;
  args: xdr.ScVal[];
  /** Addresses whose authorization the transaction carries (source-account credentials resolve to the operation source). */
  authAddresses: string[];
  /** Each authorization entry: its credential type, the address it authorizes for and its delegates (CAP-71). */
  auth: AuthEntrySummary[];
  /** Accounts among source, operation source, fee source and G… auth addresses whose envelope signature verifies. */
  signedBy: string[];
}

/** Safe-submit check run before sending; throws the route's ChainError to refuse the transaction. */
export type ExpectInvocation = (inv: Invocation) => void | Promise<void>;

export interface SubmitResult {
  txId: string;
  ledger?: number;
  returnValue?: xdr.ScVal;
}

export interface ContractCall {
  contractId: string;
  fn: string;
  args: xdr.ScVal[];
  /** Error table for failures; inferred from the configured contract ids when absent. */
  contract?: ContractKind;
}

export interface PrepareRequest extends ContractCall {
  /** Transaction source (G…): sequence and fee payer. */
  source: string;
  /**
   * The source's sequence number, asked for already (ChainClient.sequence of this same source) while the caller
   * checked other things; prepare reads it itself when absent. Its failure is prepare's.
   */
  sequence?: Promise<string>;
}

export interface ReadRequest extends ContractCall {
  /** Account to simulate as; defaults to the configured simulation account. */
  source?: string;
  /** The answer must come from live state: a simulation that had to restore archived entries (its restore list,
   *  CAP-66) answers `state_archived` instead of the archived value. */
  refuseArchived?: boolean;
}

/** What a simulated read touches (ChainClient.readFootprint). */
export interface ReadFootprint {
  value: xdr.ScVal;
  /**
   * Every ledger key the simulation names, in its order: the footprint's read-only then read-write keys (archived
   * entries included: a simulation restores them through its restore list, CAP-66), then the read-write keys of a
   * `restorePreamble` when the RPC answers one instead. Duplicates are possible.
   */
  keys: xdr.LedgerKey[];
}

export interface ChainTimeouts {
  /** Per RPC request. */
  rpcMs: number;
  /** From sending until a final status. */
  submitMs: number;
  pollIntervalMs: number;
}

export interface ChainClientOptions {
  rpcUrl: string;
  /**
   * How an error names the RPC: the URL it may show (the configured public one, else rpcUrl without userinfo and
   * query) and the setting that sets it, e.g. `http://127.0.0.1:8000/testnet/rpc (setting CV_TESTNET_RPC_URL /
   * --testnet-rpc-url)`. Without it, errors name neither.
   */
  rpcWhere?: string;
  networkPassphrase: string;
  network: Network;
  /** An existing G… account used as source for read-only simulations. */
  simulationAccount: string;
  timeouts?: Partial<ChainTimeouts>;
  allowHttp?: boolean;
  /** Known contract ids, so failures of submitted transactions use the right error table. */
  contracts?: { factoryId?: string; registryId?: string; tokenIds?: string[] };
  /** Inclusion fee in stroops (the resource fee is added by simulation). Default 100. */
  baseFee?: string;
  /**
   * Prepare builds and assembles its transaction in XDR itself, byte for byte what the SDK's TransactionBuilder and
   * rpc.assembleTransaction produce, without their repeated XDR round trips (fast-assemble.ts, CV_FAST_ASSEMBLE).
   * Default true; false keeps the SDK's path for every call.
   */
  fastAssemble?: boolean;
  /** Validity window of prepared transactions. Default 300 s. */
  txValiditySeconds?: number;
  /**
   * How long the answer of a read-only call (`read`) may be reused, in ms; 0 (the default) reads the chain every
   * time. A reused answer is also dropped as soon as a newer ledger shows in any RPC answer, and every `submit`
   * of this client clears them all, so a write made elsewhere shows within this bound and one's own at once.
   */
  readCacheMs?: number;
  /**
   * The HTTP client under the SDK's rpc.Server: `node` (default) posts with node:http(s) (less CPU per call;
   * no redirects, no proxy), `sdk` keeps the SDK's own fetch-based client (CV_RPC_TRANSPORT; src/config picks it
   * when the environment sets a proxy variable and the setting is not given: Config.rpcTransport).
   */
  rpcTransport?: 'node' | 'sdk';
  /** The network's caches of decoded keys (src/chain/caches.ts); default: the client's own, of default size. */
  caches?: ChainCaches;
  /** Answers the read cache keeps at most (createChain passes CV_CHAIN_CACHE_ENTRIES; default 10,000). */
  readCacheEntries?: number;
  /** Clock in ms (timebounds, polling deadline, read cache). */
  now?: Clock;
  sleep?: (ms: number) => Promise<void>;
}

export interface ChainHealth {
  status: string;
  latestLedger: number;
  passphrase: string;
  protocolVersion: string;
}

export interface NetworkCheck {
  ok: boolean;
  expected: string;
  actual: string;
  /** The protocol version the RPC reports (getNetwork). */
  protocolVersion: number;
}

export interface ChainClient {
  readonly network: Network;
  readonly networkPassphrase: string;
  readonly rpcUrl: string;
  prepare(req: PrepareRequest): Promise<PreparedTransaction>;
  /** The current sequence number of a source account (one ledger-entry read), for PrepareRequest.sequence. */
  sequence(source: string): Promise<string>;
  read(req: ReadRequest): Promise<xdr.ScVal>;
  /** A read-only call simulated afresh (never the read cache): its value and the ledger keys it touches. */
  readFootprint(req: ContractCall): Promise<ReadFootprint>;
  submit(signedXdr: string, expect?: ExpectInvocation, opts?: { contract?: ContractKind }): Promise<SubmitResult>;
  /** An ExtendFootprintTTL, or the RestoreFootprint its keys need first (src/chain/ttl.ts). */
  prepareTtl(req: TtlPrepareRequest): Promise<PreparedTtl>;
  /** Checks (`expect`) and sends a signed ExtendFootprintTTL or RestoreFootprint. */
  submitTtl(signedXdr: string, expect: (inv: TtlInvocation) => void | Promise<void>): Promise<SubmitResult>;
  /** Decodes a signed transaction under this network's passphrase (tx_invalid when undecodable). */
  inspect(signedXdr: string): Invocation;
  /**
   * `cached`: the answer may come from the read cache (readCacheMs), like `read`'s; for entries that are
   * not sequence numbers or anything else a caller must see fresh. The answer is shared: do not change it.
   */
  getLedgerEntries(keys: xdr.LedgerKey[], options?: { cached?: boolean }): Promise<rpc.Api.GetLedgerEntriesResponse>;
  /** Contract events (ledger close times come from them: src/chain/ledger-time.ts). */
  getEvents(request: rpc.Api.GetEventsRequest): Promise<rpc.Api.GetEventsResponse>;
  health(): Promise<ChainHealth>;
  verifyNetwork(): Promise<NetworkCheck>;
  /** The protocol version the RPC last reported (verifyNetwork, health); undefined before either ran. */
  readonly protocolVersion: number | undefined;
}

/** verify_vc result (docs/chain-abi.md "Vault", verify_vc). */
export type VcStatus =
  | { status: 'valid' }
  | { status: 'revoked'; since: string }
  | { status: 'invalid' }
  | { status: 'unknown' };

/** get_vc result: `data` is the ciphertext the service wrote. */
export interface StoredVc {
  id: string;
  data: string;
  issuanceContract: string;
  issuerDid: string;
}

/** Factory quote_fee result. */
export interface FeeQuote {
  enabled: boolean;
  amount: bigint;
  token?: string;
  dest?: string;
}

/** 32 bytes, as 64 hex characters or raw bytes; absent = 32 zero bytes (the canonical vault). */
export type UserSalt = string | Uint8Array;
