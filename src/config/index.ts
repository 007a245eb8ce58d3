// The only module that reads process.env. Every setting has an environment variable, a flag and a
// documented default; `loadConfig` validates everything at once and reports one line per problem.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { LOG_LEVELS, type LogLevel } from '../observability/logging.ts';
import { isAccountAddress, isContractId } from '../openapi/formats.ts';
export type NetworkName = 'testnet' | 'mainnet';
export const NETWORKS: readonly NetworkName[] = ['testnet', 'mainnet'];
export type Role = 'standard' | 'early' | 'admin';

type Kind = 'string' | 'int' | 'bool' | 'url' | 'list';
interface Setting {
  key: string; // property name in the flat settings object
  env: string;
  flag: string;
  kind: Kind;
  default?: string;
  doc: string;
}

const perNetwork = (n: NetworkName): Setting[] => {
  const N = n.toUpperCase();
  return [
    {
      key: `${n}.rpcUrl`, env: `CV_${N}_RPC_URL`, flag: `--${n}-rpc-url`, kind: 'url',
      doc: `${n} Soroban RPC URL (default: the embedded simulator's /${n}/rpc); ` +
        'GET /config publishes it without userinfo and query',
    },
    {
      key: `${n}.rpcUrlFile`, env: `CV_${N}_RPC_URL_FILE`, flag: `--${n}-rpc-url-file`, kind: 'string',
      doc: `file whose content (trimmed) is CV_${N}_RPC_URL, for an RPC URL that carries a password or an API key; ` +
        `not with CV_${N}_RPC_URL`,
    },
    { key: `${n}.passphrase`, env: `CV_${N}_PASSPHRASE`, flag: `--${n}-passphrase`, kind: 'string', doc: `${n} network passphrase (checked against the RPC's getNetwork at start)` },
    { key: `${n}.factoryId`, env: `CV_${N}_FACTORY_ID`, flag: `--${n}-factory-id`, kind: 'string', doc: `${n} vc-vault-factory contract id (C…)` },
    { key: `${n}.vaultWasmHash`, env: `CV_${N}_VAULT_WASM_HASH`, flag: `--${n}-vault-wasm-hash`, kind: 'string', doc: `${n} vault template hash (64 hex)` },
    { key: `${n}.registryId`, env: `CV_${N}_REGISTRY_ID`, flag: `--${n}-registry-id`, kind: 'string', doc: `${n} DID registry contract id (C…)` },
    { key: `${n}.feeTokenId`, env: `CV_${N}_FEE_TOKEN_ID`, flag: `--${n}-fee-token-id`, kind: 'string', doc: `${n} fee token contract id (C…), informational` },
    { key: `${n}.simulationAccount`, env: `CV_${N}_SIMULATION_ACCOUNT`, flag: `--${n}-simulation-account`, kind: 'string', doc: `${n} existing account (G…) used as source of read-only simulations` },
  ];
};

export const SETTINGS: Setting[] = [
  { key: 'network', env: 'CV_NETWORK', flag: '--network', kind: 'string', default: 'testnet', doc: 'network served by `credential-vault serve` (testnet | mainnet)' },
  { key: 'host', env: 'CV_HOST', flag: '--host', kind: 'string', default: '127.0.0.1', doc: 'interface the HTTP servers bind' },
  { key: 'port', env: 'CV_PORT', flag: '--port', kind: 'int', default: '3000', doc: 'port of `credential-vault serve`' },
  { key: 'testnetPort', env: 'CV_TESTNET_PORT', flag: '--testnet-port', kind: 'int', default: '3000', doc: 'vault API (testnet) port under `start`' },
  { key: 'mainnetPort', env: 'CV_MAINNET_PORT', flag: '--mainnet-port', kind: 'int', default: '3002', doc: 'vault API (mainnet) port under `start`' },
  { key: 'resolverPort', env: 'CV_RESOLVER_PORT', flag: '--resolver-port', kind: 'int', default: '3001', doc: 'DID resolver port' },
  { key: 'resolverNetworks', env: 'CV_RESOLVER_NETWORKS', flag: '--resolver-networks', kind: 'list', default: 'testnet,mainnet', doc: 'networks `credential-vault resolver` serves (comma list): with one, only that network\'s settings are needed, and a DID of the other is `did_invalid`' },
  { key: 'simulatorPort', env: 'CV_SIMULATOR_PORT', flag: '--simulator-port', kind: 'int', default: '8000', doc: 'embedded chain simulator port' },
  {
    key: 'simulatorProtocol', env: 'CV_SIMULATOR_PROTOCOL', flag: '--protocol', kind: 'int', default: '28',
    doc: 'protocol version the embedded simulator emulates (26 to 28, the networks run 28; 26 predates CAP-71 ' +
      'address-bound auth; at 27 and 28 simulation returns ADDRESS_V2 entries when the request sets useUpgradedAuth, ' +
      'legacy ADDRESS otherwise); also `credential-vault simulator --protocol`',
  },
  {
    key: 'ledgerCloseMs', env: 'CV_SIMULATOR_LEDGER_CLOSE_MS', flag: '--ledger-close-ms', kind: 'int', default: '0',
    doc: 'embedded simulator: 0 applies every transaction at once; N > 0 queues them ' +
      '(sendTransaction answers PENDING, getTransaction NOT_FOUND) and closes a ledger every N ms with everything ' +
      'queued, as a real network does about every 5000 ms; also `credential-vault simulator --ledger-close-ms`',
  },
  { key: 'simulator', env: 'CV_SIMULATOR', flag: '--simulator', kind: 'bool', default: 'true', doc: 'run the embedded simulator (false: use the configured network RPCs); while it runs, the network profile settings below are refused, since it replaces them' },
  { key: 'dataDir', env: 'CV_DATA_DIR', flag: '--data-dir', kind: 'string', default: './data', doc: 'data directory of the embedded stores, the encryption key file and the simulator state' },
  { key: 'stateFile', env: 'CV_SIMULATOR_STATE_FILE', flag: '--state-file', kind: 'string', doc: 'simulator state file (default: <data-dir>/simulator-state.json under `start`)' },
  { key: 'databaseUrl', env: 'DATABASE_URL', flag: '--database-url', kind: 'string', doc: 'PostgreSQL for API keys and idempotency records (shared backend), with a user: postgres://USER:PASSWORD@HOST:5432/DATABASE' },
  { key: 'databaseUrlFile', env: 'DATABASE_URL_FILE', flag: '--database-url-file', kind: 'string', doc: 'file whose content (trimmed) is DATABASE_URL: keeps the password out of `ps` and the environment; not with DATABASE_URL' },
  { key: 'redisUrl', env: 'REDIS_URL', flag: '--redis-url', kind: 'string', doc: 'Redis for rate-limit windows, the resolution cache and presentation challenges (shared backend)' },
  {
    key: 'redisUrlFile', env: 'REDIS_URL_FILE', flag: '--redis-url-file', kind: 'string',
    doc: 'file whose content (trimmed) is REDIS_URL: keeps its password out of `ps` and the environment; ' +
      'not with REDIS_URL',
  },
  { key: 'databaseSchema', env: 'CV_DATABASE_SCHEMA', flag: '--database-schema', kind: 'string', doc: 'PostgreSQL schema of the tables (default: the connection\'s search_path), e.g. one per deployment' },
  { key: 'redisKeyPrefix', env: 'CV_REDIS_KEY_PREFIX', flag: '--redis-key-prefix', kind: 'string', default: 'credential-vault:', doc: 'prefix of every Redis key, e.g. one per deployment sharing a Redis' },
  { key: 'encryptionKeys', env: 'CV_ENCRYPTION_KEYS', flag: '--encryption-keys', kind: 'string', doc: 'credential encryption keys `kid:base64key,…` (first is active); default: created once in the data directory' },
  { key: 'encryptionKeysFile', env: 'CV_ENCRYPTION_KEYS_FILE', flag: '--encryption-keys-file', kind: 'string', doc: 'file whose content (trimmed) is CV_ENCRYPTION_KEYS: keeps the keys out of `ps` and the environment; not with CV_ENCRYPTION_KEYS' },
  { key: 'authOrigins', env: 'CV_AUTH_ALLOWED_ORIGINS', flag: '--auth-allowed-origins', kind: 'list', default: '*', doc: 'origins allowed to use the wallet-proof key routes (comma list; * = any, no Origin header is always allowed)' },
  { key: 'legacyBasePaths', env: 'CV_LEGACY_BASE_PATHS', flag: '--legacy-base-paths', kind: 'list', default: '/api,/api/v1', doc: 'legacy path-prefixed base URLs of the vault API (comma list; empty = none): the prefix is removed before routing (`/api/config` is `/config`) and every answer under it carries `Deprecation: @1795305600` (RFC 9745), plus `Link: <canonical path>; rel="successor-version"` when the canonical path is an API path' },
  { key: 'trustProxy', env: 'CV_TRUST_PROXY', flag: '--trust-proxy', kind: 'string', default: 'false', doc: 'whose X-Forwarded-For names the client of the per-IP limits (vault API /auth/*, resolver): false = nobody, the TCP peer is the client; a hop count (1 = one load balancer in front); or a comma list of the proxies\' addresses/CIDRs (or loopback, linklocal, uniquelocal). `true` is refused: any client could pick its bucket' },
  { key: 'keyTtlDays', env: 'CV_KEY_TTL_DAYS', flag: '--key-ttl-days', kind: 'int', default: '180', doc: 'lifetime of keys obtained by wallet proof' },
  { key: 'rate.standard.read', env: 'CV_RATE_STANDARD_READ', flag: '--rate-standard-read', kind: 'int', default: '60', doc: 'reads per minute, standard keys' },
  { key: 'rate.standard.write', env: 'CV_RATE_STANDARD_WRITE', flag: '--rate-standard-write', kind: 'int', default: '20', doc: 'writes per minute, standard keys' },
  { key: 'rate.early.read', env: 'CV_RATE_EARLY_READ', flag: '--rate-early-read', kind: 'int', default: '300', doc: 'reads per minute, early keys' },
  { key: 'rate.early.write', env: 'CV_RATE_EARLY_WRITE', flag: '--rate-early-write', kind: 'int', default: '100', doc: 'writes per minute, early keys' },
  { key: 'rate.admin.read', env: 'CV_RATE_ADMIN_READ', flag: '--rate-admin-read', kind: 'int', default: '200', doc: 'reads per minute, admin keys' },
  { key: 'rate.admin.write', env: 'CV_RATE_ADMIN_WRITE', flag: '--rate-admin-write', kind: 'int', default: '50', doc: 'writes per minute, admin keys' },
  { key: 'rateWindowMs', env: 'CV_RATE_WINDOW_MS', flag: '--rate-window-ms', kind: 'int', default: '60000', doc: 'sliding rate-limit window' },
  { key: 'resolverRateLimit', env: 'CV_RESOLVER_RATE_LIMIT', flag: '--resolver-rate-limit', kind: 'int', default: '120', doc: 'resolver requests per IP per window' },
  { key: 'resolverRateWindowMs', env: 'CV_RESOLVER_RATE_WINDOW_MS', flag: '--resolver-rate-window-ms', kind: 'int', default: '60000', doc: 'resolver per-IP window' },
  { key: 'resolverCacheTtlMs', env: 'CV_RESOLVER_CACHE_TTL_MS', flag: '--resolver-cache-ttl-ms', kind: 'int', default: '30000', doc: 'resolution cache TTL' },
  { key: 'rpcTimeoutMs', env: 'CV_RPC_TIMEOUT_MS', flag: '--rpc-timeout-ms', kind: 'int', default: '10000', doc: 'timeout of one RPC call' },
  { key: 'submitTimeoutMs', env: 'CV_SUBMIT_TIMEOUT_MS', flag: '--submit-timeout-ms', kind: 'int', default: '30000', doc: 'how long submit waits for a final transaction state' },
  { key: 'pollIntervalMs', env: 'CV_POLL_INTERVAL_MS', flag: '--poll-interval-ms', kind: 'int', default: '250', doc: 'getTransaction polling interval (the first polls come sooner: at once, then after 50, 100 and 200 ms)' },
  { key: 'readCacheMs', env: 'CV_READ_CACHE_MS', flag: '--read-cache-ms', kind: 'int', default: '1000', doc: 'how long a chain read (verify-vc, vc-count, list-vc-ids, …) may be answered from memory; dropped sooner when a newer ledger is seen, and at once by a transaction this instance submits; 0 = off' },
  { key: 'logLevel', env: 'CV_LOG_LEVEL', flag: '--log-level', kind: 'string', default: 'info', doc: `JSON log lines on stdout at this level and above: ${LOG_LEVELS.join(' | ')}` },
  { key: 'shutdownTimeoutMs', env: 'CV_SHUTDOWN_TIMEOUT_MS', flag: '--shutdown-timeout-ms', kind: 'int', default: '10000', doc: 'on SIGTERM/SIGINT, how long requests under way get to finish before their connections are closed' },
  ...NETWORKS.flatMap(perNetwork),
];

/** A setting's documented default as a number (the table above is the one place defaults live). */
function defaultNumber(key: string): number {
  return Number(SETTINGS.find((s) => s.key === key)!.default);
}

/** The chain client's timeouts when a caller gives none: the defaults of CV_RPC_TIMEOUT_MS and its siblings. */
export const CHAIN_TIMEOUT_DEFAULTS = {
  rpcMs: defaultNumber('rpcTimeoutMs'),
  submitMs: defaultNumber('submitTimeoutMs'),
  pollIntervalMs: defaultNumber('pollIntervalMs'),
} as const;

export type RawSettings = Record<string, string | undefined>;

/** Flags win over environment variables, which win over defaults. Unknown flags are problems. */
export function readSettings(argv: string[], env: NodeJS.ProcessEnv = process.env): { raw: RawSettings; problems: string[]; rest: string[] } {
  const raw: RawSettings = {};
  const problems: string[] = [];
  const rest: string[] = [];
  for (const s of SETTINGS) raw[s.key] = env[s.env] ?? s.default;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) { rest.push(arg); continue; }
    // Only the first `=` separates: a value keeps every later one (a URL's query, base64 padding).
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg : arg.slice(0, eq);
    const inline = eq < 0 ? undefined : arg.slice(eq + 1);
    const s = SETTINGS.find((x) => x.flag === name);
    if (!s) { rest.push(arg); continue; }
    const value = inline ?? (s.kind === 'bool' && (argv[i + 1] === undefined || argv[i + 1]!.startsWith('--')) ? 'true' : argv[++i]);
    if (value === undefined) problems.push(`${name}: needs a value`);
    else raw[s.key] = value;
  }
  return { raw, problems, rest };
}

export interface NetworkProfile {
  network: NetworkName;
  rpcUrl?: string;
  passphrase?: string;
  factoryId?: string;
  vaultWasmHash?: string;
  registryId?: string;
  feeTokenId?: string;
  simulationAccount?: string;
}

export interface Config {
  network: NetworkName;
  host: string;
  port: number;
  testnetPort: number;
  mainnetPort: number;
  resolverPort: number;
  /** Networks of `credential-vault resolver` (under `start` the resolver serves both). */
  resolverNetworks: NetworkName[];
  simulatorPort: number;
  /** Protocol version the embedded simulator emulates. */
  simulatorProtocol: number;
  /** The embedded simulator's ledger close interval: 0 applies each transaction at once. */
  ledgerCloseMs: number;
  simulator: boolean;
  dataDir: string;
  stateFile?: string;
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
  keyTtlDays: number;
  rateLimits: Record<Role, { read: number; write: number }>;
  rateWindowMs: number;
  resolverRateLimit: number;
  resolverRateWindowMs: number;
  resolverCacheTtlMs: number;
  rpcTimeoutMs: number;
  submitTimeoutMs: number;
  pollIntervalMs: number;
  readCacheMs: number;
  logLevel: LogLevel;
  shutdownTimeoutMs: number;
  /**
   * The HTTP client of the RPC calls (src/chain/transport.ts): `sdk` (axios) when the environment configures
   * a proxy, which axios honours by itself and node:http(s) does not; else the lighter `node`.
   */
  rpcTransport: 'node' | 'sdk';
  networks: Record<NetworkName, NetworkProfile>;
}

/** Protocol versions the embedded simulator emulates (the newest released is the maximum). */
export const SIMULATOR_PROTOCOLS = { min: 26, max: 28 } as const;

// Whole StrKeys, checksum included: a pattern would let an id through that the SDK throws on at the first request.
const CONTRACT = { test: isContractId };
/** The names Express (proxy-addr) accepts for address ranges. */
const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** An address, a CIDR or a range name as Express's `trust proxy` list accepts it. */
function isProxyAddress(entry: string): boolean {
  if (PROXY_NAMES.includes(entry)) return true;
  const [addr, bits, extra] = entry.split('/');
  const family = isIP(addr ?? '');
  if (family === 0 || extra !== undefined) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}
const ACCOUNT = { test: isAccountAddress };

/** Settings that may be read from a file instead: [setting, its file setting]. */
const SECRET_FILES: readonly [string, string][] = [
  ['databaseUrl', 'databaseUrlFile'],
  ['encryptionKeys', 'encryptionKeysFile'],
  ['redisUrl', 'redisUrlFile'],
  ...NETWORKS.map((n): [string, string] => [`${n}.rpcUrl`, `${n}.rpcUrlFile`]),
];

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    // One problem is one line; several are a list.
    const list = problems.map((p) => `  - ${p}`).join('\n');
    super(problems.length === 1 ? `invalid configuration: ${problems[0]}` : `invalid configuration:\n${list}`);
    this.problems = problems;
  }
}

/** The proxy variables axios reads itself (not settings of ours: the convention every HTTP client shares). */
const PROXY_VARIABLES = ['HTTP_PROXY', 'HTTPS_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'all_proxy'];

/** Parse and validate; throws ConfigError listing every problem, one line each. */
export function parseConfig(given: RawSettings, earlier: string[] = [], env: NodeJS.ProcessEnv = process.env): Config {
  const problems = [...earlier];
  const settingLabel = (key: string) => {
    const s = SETTINGS.find((x) => x.key === key)!;
    return `${s.env} (${s.flag})`;
  };
  // Secrets may come from a file, so they never appear on a command line (`ps`) or in the environment.
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
      problems.push(`${settingLabel(fileKey)}: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
  }
  const get = (key: string) => raw[key];
  const label = (key: string) => {
    const fileKey = fromFile.get(key);
    return fileKey ? `${settingLabel(fileKey)} (the file's content)` : settingLabel(key);
  };
  const int = (key: string, min = 0, max = Number.MAX_SAFE_INTEGER): number => {
    const v = get(key);
    const n = Number(v);
    if (v === undefined || !/^\d+$/.test(v) || n < min || n > max) {
      problems.push(`${label(key)}: expected an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
      return 0;
    }
    return n;
  };
  const oneOf = <T extends string>(key: string, allowed: readonly T[]): T => {
    const v = get(key) as T;
    if (!allowed.includes(v)) problems.push(`${label(key)}: expected one of ${allowed.join(', ')}, got ${JSON.stringify(v)}`);
    return v;
  };
  const optional = (key: string, re?: { test(v: string): boolean }, what?: string): string | undefined => {
    const v = get(key);
    if (v === undefined || v === '') return undefined;
    if (re && !re.test(v)) problems.push(`${label(key)}: expected ${what}, got ${JSON.stringify(v)}`);
    return v;
  };
  const url = (key: string): string | undefined => {
    const v = optional(key);
    if (v !== undefined) {
      // The value is not echoed: an RPC URL may carry a password or an API key.
      let u: URL | undefined;
      try { u = new URL(v); } catch { problems.push(`${label(key)}: not a URL`); }
      if (u && u.protocol !== 'http:' && u.protocol !== 'https:') {
        problems.push(`${label(key)}: expected an http:// or https:// URL, got a ${u.protocol}// URL`);
      }
    }
    return v;
  };
  // Never echoes the value: it holds the database password.
  const databaseUrl = (key: string): string | undefined => {
    const v = get(key);
    if (v === undefined || v === '') return undefined;
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      problems.push(`${label(key)}: not a URL (expected postgres://USER:PASSWORD@HOST:5432/DATABASE)`);
      return v;
    }
    if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:') problems.push(`${label(key)}: expected a postgres:// URL, got a ${u.protocol}// URL`);
    // Without a user the driver falls back to the OS user of this process: every query would fail to log in.
    else if (!u.username && !u.searchParams.get('user')) problems.push(`${label(key)}: names no user (expected postgres://USER:PASSWORD@HOST:5432/DATABASE)`);
    return v;
  };
  // A protocol newer than the newest released one is not a typo of a range: it does not exist.
  const protocol = (key: string): number => {
    const v = get(key) ?? '';
    if (/^\d+$/.test(v) && Number(v) > SIMULATOR_PROTOCOLS.max) {
      problems.push(
        `${label(key)}: there is no Protocol ${Number(v)}: the newest released protocol is ` +
          `${SIMULATOR_PROTOCOLS.max}, which the networks run ` +
          `(the simulator emulates ${SIMULATOR_PROTOCOLS.min} to ${SIMULATOR_PROTOCOLS.max})`,
      );
      return 0;
    }
    return int(key, SIMULATOR_PROTOCOLS.min, SIMULATOR_PROTOCOLS.max);
  };
  // Never echoes the value: it may hold the Redis password.
  const redisUrl = (key: string): string | undefined => {
    const v = get(key);
    if (v === undefined || v === '') return undefined;
    if (!/^rediss?:\/\//.test(v)) problems.push(`${label(key)}: expected a redis:// or rediss:// URL`);
    return v;
  };
  const bool = (key: string): boolean => oneOf(key, ['true', 'false', '1', '0'] as const) === 'true' || get(key) === '1';
  const port = (key: string) => int(key, 0, 65535);
  // `true` would trust whatever X-Forwarded-For any client sends: refused, so a hop count or the proxies
  // are named instead.
  const trustProxy = (key: string): false | number | string[] => {
    const v = (get(key) ?? 'false').trim();
    if (v === 'false' || v === '' || v === '0') return false;
    if (/^\d+$/.test(v) && Number(v) <= 100) return Number(v);
    const list = v.split(',').map((x) => x.trim()).filter(Boolean);
    const bad = list.filter((x) => !isProxyAddress(x));
    if (bad.length === 0 && list.length > 0) return list;
    problems.push(
      `${label(key)}: expected false, a hop count (0 to 100) or a comma list of proxy addresses/CIDRs (loopback, linklocal, uniquelocal too), got ${JSON.stringify(v)}`,
    );
    return false;
  };

  // `/api` or `/api/v1`: segments of unreserved characters, no trailing slash; `/` would strip nothing.
  const legacyBasePaths = (key: string): string[] => {
    const list = (get(key) ?? '').split(',').map((x) => x.trim()).filter(Boolean);
    const bad = list.filter((x) => !/^(\/[A-Za-z0-9._~-]+)+$/.test(x));
    if (bad.length) problems.push(`${label(key)}: expected a comma list of path prefixes like /api,/api/v1 (no trailing slash), got ${JSON.stringify(bad.join(','))}`);
    return list;
  };

  const networkList = (key: string): NetworkName[] => {
    const list = (get(key) ?? '').split(',').map((x) => x.trim()).filter(Boolean);
    const bad = list.filter((x) => !NETWORKS.includes(x as NetworkName));
    if (list.length === 0 || bad.length || new Set(list).size !== list.length) {
      problems.push(`${label(key)}: expected a comma list of ${NETWORKS.join(', ')} (each once, at least one), got ${JSON.stringify(get(key))}`);
    }
    return list as NetworkName[];
  };

  const networks = Object.fromEntries(
    NETWORKS.map((n) => [
      n,
      {
        network: n,
        rpcUrl: url(`${n}.rpcUrl`),
        passphrase: optional(`${n}.passphrase`),
        factoryId: optional(`${n}.factoryId`, CONTRACT, 'a contract id C… with a valid checksum'),
        vaultWasmHash: optional(`${n}.vaultWasmHash`, /^[0-9a-f]{64}$/, '64 lowercase hex'),
        registryId: optional(`${n}.registryId`, CONTRACT, 'a contract id C… with a valid checksum'),
        feeTokenId: optional(`${n}.feeTokenId`, CONTRACT, 'a contract id C… with a valid checksum'),
        simulationAccount: optional(`${n}.simulationAccount`, ACCOUNT, 'an account G… with a valid checksum'),
      } satisfies NetworkProfile,
    ]),
  ) as Record<NetworkName, NetworkProfile>;

  const config: Config = {
    network: oneOf('network', NETWORKS),
    host: get('host') ?? '127.0.0.1',
    port: port('port'),
    testnetPort: port('testnetPort'),
    mainnetPort: port('mainnetPort'),
    resolverPort: port('resolverPort'),
    resolverNetworks: networkList('resolverNetworks'),
    simulatorPort: port('simulatorPort'),
    // The range the simulator emulates (simulator/core/ledger.ts MIN_PROTOCOL..MAX_PROTOCOL; a test keeps them equal).
    simulatorProtocol: protocol('simulatorProtocol'),
    ledgerCloseMs: int('ledgerCloseMs', 0, 600_000),
    simulator: bool('simulator'),
    dataDir: get('dataDir') ?? './data',
    stateFile: optional('stateFile'),
    databaseUrl: databaseUrl('databaseUrl'),
    redisUrl: redisUrl('redisUrl'),
    databaseSchema: optional('databaseSchema', /^[a-z_][a-z0-9_]{0,62}$/, 'a lowercase SQL identifier'),
    redisKeyPrefix: get('redisKeyPrefix') ?? 'credential-vault:',
    encryptionKeys: optional('encryptionKeys'),
    authOrigins: (get('authOrigins') ?? '*').split(',').map((s) => s.trim()).filter(Boolean),
    legacyBasePaths: legacyBasePaths('legacyBasePaths'),
    trustProxy: trustProxy('trustProxy'),
    keyTtlDays: int('keyTtlDays', 1, 3650),
    rateLimits: {
      standard: { read: int('rate.standard.read', 1), write: int('rate.standard.write', 1) },
      early: { read: int('rate.early.read', 1), write: int('rate.early.write', 1) },
      admin: { read: int('rate.admin.read', 1), write: int('rate.admin.write', 1) },
    },
    rateWindowMs: int('rateWindowMs', 1000),
    resolverRateLimit: int('resolverRateLimit', 1),
    resolverRateWindowMs: int('resolverRateWindowMs', 1000),
    resolverCacheTtlMs: int('resolverCacheTtlMs', 0),
    rpcTimeoutMs: int('rpcTimeoutMs', 100),
    submitTimeoutMs: int('submitTimeoutMs', 100),
    pollIntervalMs: int('pollIntervalMs', 10),
    readCacheMs: int('readCacheMs', 0, 60_000),
    logLevel: oneOf('logLevel', LOG_LEVELS),
    shutdownTimeoutMs: int('shutdownTimeoutMs', 0, 600_000),
    rpcTransport: PROXY_VARIABLES.some((v) => (env[v] ?? '') !== '') ? 'sdk' : 'node',
    networks,
  };
  if (problems.length) throw new ConfigError(problems);
  return config;
}

const PROFILE_FIELDS = ['rpcUrl', 'passphrase', 'factoryId', 'vaultWasmHash', 'registryId', 'feeTokenId', 'simulationAccount'] as const;

/**
 * The network profiles against the simulator setting. Without the embedded simulator, the fields a served
 * network needs. With it, no profile field at all: the simulator's own networks replace every one of them,
 * so a set `CV_TESTNET_RPC_URL` would be silently ignored (issue 12 item 8); and no state file without it.
 */
export function requireProfiles(config: Config, networks: readonly NetworkName[], options: { vaultApi: boolean } = { vaultApi: true }): void {
  const problems: string[] = [];
  const setting = (key: string) => SETTINGS.find((x) => x.key === key)!;
  if (config.simulator) {
    for (const n of NETWORKS) {
      for (const k of PROFILE_FIELDS) {
        if (config.networks[n][k] === undefined) continue;
        const s = setting(`${n}.${k}`);
        problems.push(`${s.env} (${s.flag}): the embedded simulator replaces the ${n} network profile, so this setting would be ignored; set CV_SIMULATOR=false (--simulator false) to use a real RPC, or remove it`);
      }
    }
  } else {
    if (config.stateFile !== undefined) {
      const s = setting('stateFile');
      problems.push(`${s.env} (${s.flag}): only the embedded simulator has a state file, and CV_SIMULATOR (--simulator) is false; remove it`);
    }
    if (config.ledgerCloseMs > 0) {
      const s = setting('ledgerCloseMs');
      const why = 'only the embedded simulator closes ledgers on a clock, and CV_SIMULATOR (--simulator) is false';
      problems.push(`${s.env} (${s.flag}): ${why}; remove it`);
    }
    // The resolver reads and writes the DID registry only (simulated from the simulation account); the
    // factory and the template hash (reported in GET /config) are the vault API's. The fee token is optional.
    const fields = ['rpcUrl', 'passphrase', 'registryId', 'simulationAccount', ...(options.vaultApi ? (['factoryId', 'vaultWasmHash'] as const) : [])] as const;
    for (const n of networks) {
      for (const k of fields) {
        if (!config.networks[n][k]) {
          const s = setting(`${n}.${k}`);
          problems.push(`${s.env} (${s.flag}): required to serve ${n} when the embedded simulator is off`);
        }
      }
    }
  }
  if (problems.length) throw new ConfigError(problems);
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

export function loadConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): { config: Config; rest: string[] } {
  const { raw, problems, rest } = readSettings(argv, env);
  return { config: parseConfig(raw, problems, env), rest };
}

/** Markdown table of every setting, for docs/operations.md and `credential-vault help`. */
export function settingsTable(): string {
  const cell = (t: string) => t.replaceAll('|', '\\|');
  const rows = SETTINGS.map((s) => `| \`${s.env}\` | \`${s.flag}\` | ${cell(s.default ?? '—')} | ${cell(s.doc)} |`);
  return ['| variable | flag | default | meaning |', '|---|---|---|---|', ...rows].join('\n');
}
