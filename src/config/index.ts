// The settings of the services, parsed and checked (src/config is the only code that reads process.env). Every
// setting (settings.ts) has an environment variable, a flag and a documented default; `loadConfig` validates
// everything at once and reports one line per problem.
import { readFileSync } from 'node:fs';
import { LOG_LEVELS, type LogLevel } from '../observability/logging.ts';
import {
  ACCOUNT,
  bool,
  CONTRACT,
  commaList,
  databaseUrl,
  int,
  ledgerCloseMs,
  legacyBasePaths,
  networkList,
  oneOf,
  optional,
  port,
  publicRpcUrl,
  redisUrl,
  rpcTransport,
  settingReader,
  simulatorProtocol,
  trustProxy,
  url,
  type SettingReader,
} from './readers.ts';
import { SETTINGS } from './setting-table.ts';
import { ConfigError, readSettings, type RawSettings } from './settings.ts';
import { type KeyRole, type Network, NETWORKS } from '../domain.ts';

export { requireProfiles } from './profiles.ts';
export { SIMULATOR_LEDGER_CLOSE_MS, SIMULATOR_PROTOCOLS } from './readers.ts';
export { SETTINGS } from './setting-table.ts';
export { CHAIN_TIMEOUT_DEFAULTS, ConfigError, readSettings, settingsTable, type RawSettings } from './settings.ts';

export interface NetworkProfile {
  network: Network;
  rpcUrl?: string;
  /** What GET /config publishes instead of rpcUrl. */
  publicRpcUrl?: string;
  passphrase?: string;
  factoryId?: string;
  vaultWasmHash?: string;
  registryId?: string;
  feeTokenId?: string;
  simulationAccount?: string;
}

export interface Config {
  network: Network;
  host: string;
  port: number;
  testnetPort: number;
  mainnetPort: number;
  resolverPort: number;
  /** Networks of `credential-vault resolver` (under `start` the resolver serves both). */
  resolverNetworks: Network[];
  simulatorPort: number;
  /** Protocol version the embedded simulator emulates. */
  simulatorProtocol: number;
  /** The embedded simulator's ledger close interval: 0 applies each transaction at once. */
  ledgerCloseMs: number;
  simulator: boolean;
  dataDir: string;
  stateFile?: string;
  /** CV_JSONLD_CONTEXTS_DIR: the operator's JSON-LD contexts (src/did/json-ld-folder.ts). */
  jsonLdContextsDir?: string;
  /** CV_WEB_FETCH: did:web and Bitstring Status List credentials (src/vault-api/web-fetch.ts); off by default. */
  webFetch: boolean;
  /** CV_WEB_FETCH_TEST_HOSTS: host:port reachable over HTTP on any address (tests). */
  webFetchTestHosts: string[];
  databaseUrl?: string;
  databaseSchema?: string;
  redisUrl?: string;
  redisKeyPrefix: string;
  encryptionKeys?: string;
  authOrigins: string[];
  /** Vault API: path prefixes removed before routing (`/api`, `/api/v1`); empty = none. */
  legacyBasePaths: string[];
  /** Express `trust proxy`: false, a hop count, or the proxies' addresses/CIDRs/names. */
  trustProxy: false | number | string[];
  /** Prefix length of the IPv6 network one per-client limit counts (src/platform/client-key.ts). */
  ipv6ClientPrefix: number;
  keyTtlDays: number;
  /** Verified API keys kept in memory per process (0: none). */
  keyCacheSize: number;
  rateLimits: Record<KeyRole, { read: number; write: number }>;
  rateWindowMs: number;
  resolverRateLimit: number;
  resolverRateWindowMs: number;
  resolverCacheTtlMs: number;
  rpcTimeoutMs: number;
  submitTimeoutMs: number;
  pollIntervalMs: number;
  readCacheMs: number;
  /** Prepare assembles in XDR itself (src/chain/fast-assemble.ts); false keeps the SDK's builder. */
  fastAssemble: boolean;
  /** Entries of each chain cache per network (src/chain/caches.ts). */
  chainCacheEntries: number;
  logLevel: LogLevel;
  shutdownTimeoutMs: number;
  /**
   * The HTTP client of the RPC calls (CV_RPC_TRANSPORT, src/chain/transport.ts): as set; unset, `sdk` (the SDK's own
   * client) when the environment sets a proxy variable, else the lighter `node`.
   */
  rpcTransport: 'node' | 'sdk';
  networks: Record<Network, NetworkProfile>;
  /** Settings whose value was read from a file: setting key → the key of its file setting (messages name that). */
  fromFile?: Readonly<Record<string, string>>;
}

/** Settings that may be read from a file instead: [setting, its file setting]. */
const SECRET_FILES: readonly [string, string][] = [
  ['databaseUrl', 'databaseUrlFile'],
  ['encryptionKeys', 'encryptionKeysFile'],
  ['redisUrl', 'redisUrlFile'],
  ...NETWORKS.map((n): [string, string] => [`${n}.rpcUrl`, `${n}.rpcUrlFile`]),
];

/** `CV_X (--x)`: how messages name a setting. */
function settingLabel(key: string): string {
  const s = SETTINGS.find((x) => x.key === key)!;
  return `${s.env} (${s.flag})`;
}

/**
 * Secrets may come from a file, so they never appear on a command line (`ps`) or in the environment: `given` with
 * each file setting's content in place of its setting, and which settings were read so.
 */
function readSecretFiles(given: RawSettings, problems: string[]): { raw: RawSettings; fromFile: Map<string, string> } {
  const raw: RawSettings = { ...given };
  const fromFile = new Map<string, string>();
  for (const [key, fileKey] of SECRET_FILES) {
    const file = raw[fileKey];
    if (file === undefined || file === '') continue;
    if (raw[key] !== undefined && raw[key] !== '') {
      problems.push(`${settingLabel(fileKey)}: set either it or ${settingLabel(key)}, not both`);
      continue;
    }
    try {
      const text = readFileSync(file, 'utf8').trim();
      if (text === '') problems.push(`${settingLabel(fileKey)}: the file ${file} is empty`);
      else {
        raw[key] = text;
        fromFile.set(key, fileKey);
      }
    } catch (e) {
      problems.push(
        `${settingLabel(fileKey)}: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      );
    }
  }
  return { raw, fromFile };
}

/** The per-network settings (`testnet.rpcUrl`, …) of every network. */
function networkProfiles(r: SettingReader): Record<Network, NetworkProfile> {
  const contract = 'a contract id C… with a valid checksum';
  return Object.fromEntries(
    NETWORKS.map((n) => [
      n,
      {
        network: n,
        rpcUrl: url(r, `${n}.rpcUrl`),
        publicRpcUrl: publicRpcUrl(r, `${n}.publicRpcUrl`),
        passphrase: optional(r, `${n}.passphrase`),
        factoryId: optional(r, `${n}.factoryId`, CONTRACT, contract),
        vaultWasmHash: optional(r, `${n}.vaultWasmHash`, /^[0-9a-f]{64}$/, '64 lowercase hex'),
        registryId: optional(r, `${n}.registryId`, CONTRACT, contract),
        feeTokenId: optional(r, `${n}.feeTokenId`, CONTRACT, contract),
        simulationAccount: optional(r, `${n}.simulationAccount`, ACCOUNT, 'an account G… with a valid checksum'),
      } satisfies NetworkProfile,
    ]),
  ) as Record<Network, NetworkProfile>;
}

/** Per-role request limits per window. */
function rateLimits(r: SettingReader): Config['rateLimits'] {
  const limits = (role: KeyRole) => ({ read: int(r, `rate.${role}.read`, 1), write: int(r, `rate.${role}.write`, 1) });
  return { standard: limits('standard'), early: limits('early'), admin: limits('admin') };
}

/** Parse and validate; throws ConfigError listing every problem, one line each. */
export function parseConfig(given: RawSettings, earlier: string[] = [], env: NodeJS.ProcessEnv = process.env): Config {
  const problems = [...earlier];
  const { raw, fromFile } = readSecretFiles(given, problems);
  const r = settingReader(raw, problems, settingLabel, fromFile);
  const config: Config = {
    network: oneOf(r, 'network', NETWORKS),
    host: r.get('host') ?? '127.0.0.1',
    port: port(r, 'port'),
    testnetPort: port(r, 'testnetPort'),
    mainnetPort: port(r, 'mainnetPort'),
    resolverPort: port(r, 'resolverPort'),
    resolverNetworks: networkList(r, 'resolverNetworks'),
    simulatorPort: port(r, 'simulatorPort'),
    // The range the simulator emulates (simulator/core/ledger.ts MIN_PROTOCOL..MAX_PROTOCOL; a test keeps them equal).
    simulatorProtocol: simulatorProtocol(r, 'simulatorProtocol'),
    ledgerCloseMs: ledgerCloseMs(r, 'ledgerCloseMs'),
    simulator: bool(r, 'simulator'),
    dataDir: r.get('dataDir') ?? './data',
    stateFile: optional(r, 'stateFile'),
    jsonLdContextsDir: optional(r, 'jsonLdContextsDir'),
    webFetch: bool(r, 'webFetch'),
    webFetchTestHosts: commaList(r, 'webFetchTestHosts', ''),
    databaseUrl: databaseUrl(r, 'databaseUrl'),
    redisUrl: redisUrl(r, 'redisUrl'),
    databaseSchema: optional(r, 'databaseSchema', /^[a-z_][a-z0-9_]{0,62}$/, 'a lowercase SQL identifier'),
    redisKeyPrefix: r.get('redisKeyPrefix') ?? 'credential-vault:',
    encryptionKeys: optional(r, 'encryptionKeys'),
    authOrigins: commaList(r, 'authOrigins', '*'),
    legacyBasePaths: legacyBasePaths(r, 'legacyBasePaths'),
    trustProxy: trustProxy(r, 'trustProxy'),
    ipv6ClientPrefix: int(r, 'ipv6ClientPrefix', 1, 128),
    keyTtlDays: int(r, 'keyTtlDays', 1, 3650),
    keyCacheSize: int(r, 'keyCacheSize', 0, 1_000_000),
    rateLimits: rateLimits(r),
    rateWindowMs: int(r, 'rateWindowMs', 1000),
    resolverRateLimit: int(r, 'resolverRateLimit', 1),
    resolverRateWindowMs: int(r, 'resolverRateWindowMs', 1000),
    resolverCacheTtlMs: int(r, 'resolverCacheTtlMs', 0),
    rpcTimeoutMs: int(r, 'rpcTimeoutMs', 100),
    submitTimeoutMs: int(r, 'submitTimeoutMs', 100),
    pollIntervalMs: int(r, 'pollIntervalMs', 10),
    readCacheMs: int(r, 'readCacheMs', 0, 60_000),
    fastAssemble: bool(r, 'fastAssemble'),
    chainCacheEntries: int(r, 'chainCacheEntries', 1, 1_000_000),
    logLevel: oneOf(r, 'logLevel', LOG_LEVELS),
    shutdownTimeoutMs: int(r, 'shutdownTimeoutMs', 0, 600_000),
    rpcTransport: rpcTransport(r, 'rpcTransport', env),
    networks: networkProfiles(r),
    ...(fromFile.size ? { fromFile: Object.fromEntries(fromFile) } : {}),
  };
  if (problems.length) throw new ConfigError(problems);
  return config;
}

/**
 * What the wallet-side commands (`tx sign`, `did multikey`) take from the environment and never from a flag:
 * a secret on the command line ends up in shell history and in every `ps` listing.
 */
export interface WalletEnv {
  /** `CV_SECRET_KEY`: the signing secret (S…), when no --secret-file is given. */
  secretKey?: string;
  /** `CV_API_KEY`: sent as X-SVC-Key by `tx sign --submit`. */
  apiKey?: string;
}

export function walletEnv(env: NodeJS.ProcessEnv = process.env): WalletEnv {
  const secretKey = env['CV_SECRET_KEY']?.trim();
  const apiKey = env['CV_API_KEY']?.trim();
  return { ...(secretKey ? { secretKey } : {}), ...(apiKey ? { apiKey } : {}) };
}

/**
 * Whether this process runs under a parent that may die without passing a signal on: npm's script shell
 * (`npm start`, `npm run …`, `npx …` set `npm_command`) or bin/credential-vault.js's re-exec wrapper. A process
 * started otherwise (a service manager, `nohup … &`) keeps running when its parent goes.
 */
export function parentMayVanish(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env['npm_command'] || env['CREDENTIAL_VAULT_PINNED_NODE']);
}

export function loadConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): { config: Config; rest: string[] } {
  const { raw, problems, rest } = readSettings(argv, env);
  return { config: parseConfig(raw, problems, env), rest };
}
