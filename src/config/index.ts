// The settings of the services, parsed and checked (src/config is the only code that reads process.env). Every
// setting (settings.ts) has an environment variable, a flag and a documented default; `loadConfig` validates
// everything at once and reports one line per problem.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { LOG_LEVELS, type LogLevel } from '../observability/logging.ts';
import { isAccountAddress, isContractId } from '../openapi/formats.ts';
import { ConfigError, SETTINGS, readSettings, type RawSettings } from './settings.ts';
import { type KeyRole, type Network, NETWORKS } from '../domain.ts';

export { requireProfiles } from './profiles.ts';
export {
  CHAIN_TIMEOUT_DEFAULTS,
  ConfigError,
  SETTINGS,
  readSettings,
  settingsTable,
  type RawSettings,
} from './settings.ts';

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

/** Protocol versions the embedded simulator emulates (the newest released is the maximum). */
export const SIMULATOR_PROTOCOLS = { min: 26, max: 28 } as const;
/** Its ledger close intervals besides 0: at most one ledger a second, close times being whole seconds and strictly
 *  increasing (simulator/core/ledger.ts MIN_LEDGER_CLOSE_MS..MAX_LEDGER_CLOSE_MS; a test keeps them equal). */
export const SIMULATOR_LEDGER_CLOSE_MS = { min: 1000, max: 600_000 } as const;

// Whole StrKeys, checksum included: a pattern would let an id through that the SDK throws on at the first request.
const CONTRACT = { test: isContractId };
/** The names Express (proxy-addr) accepts for address ranges. */
const PROXY_NAMES: readonly string[] = ['loopback', 'linklocal', 'uniquelocal'];

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

/** The HTTP clients the chain client can run on (src/chain/transport.ts, or the SDK's own). */
const RPC_TRANSPORTS = ['node', 'sdk'] as const;

/** The proxy variables (not settings of ours: the convention HTTP clients share; src/chain/transport.ts on who reads them). */
const PROXY_VARIABLES: readonly string[] = [
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'http_proxy',
  'https_proxy',
  'all_proxy',
];

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
      problems.push(
        `${settingLabel(fileKey)}: cannot read ${file} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`,
      );
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
    if (!allowed.includes(v))
      problems.push(`${label(key)}: expected one of ${allowed.join(', ')}, got ${JSON.stringify(v)}`);
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
      try {
        u = new URL(v);
      } catch {
        problems.push(`${label(key)}: not a URL`);
      }
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
    if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:')
      problems.push(`${label(key)}: expected a postgres:// URL, got a ${u.protocol}// URL`);
    // Without a user the driver falls back to the OS user of this process: every query would fail to log in.
    else if (!u.username && !u.searchParams.get('user'))
      problems.push(`${label(key)}: names no user (expected postgres://USER:PASSWORD@HOST:5432/DATABASE)`);
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
  // 0 or a whole second and up: a shorter interval would run the ledger's clock away from the wall clock.
  const ledgerCloseMs = (key: string): number => {
    const v = get(key) ?? '';
    const { min, max } = SIMULATOR_LEDGER_CLOSE_MS;
    const n = /^\d+$/.test(v) ? Number(v) : NaN;
    if (n === 0 || (n >= min && n <= max)) return n;
    problems.push(
      n > 0 && n < min
        ? `${label(key)}: ${n} ms is below one ledger a second: close times are whole seconds and each must be later ` +
            `than the last, so the interval is 0 (every transaction at once) or ${min} to ${max}`
        : `${label(key)}: expected 0 (every transaction at once) or milliseconds from ${min} to ${max}, ` +
            `got ${JSON.stringify(v)}`,
    );
    return 0;
  };
  // Chosen when given; otherwise node, unless the environment configures a proxy: node never reads one, the SDK's
  // client does through Node's fetch when NODE_USE_ENV_PROXY=1 (src/chain/transport.ts, docs/operations.md).
  const rpcTransport = (key: string, e: NodeJS.ProcessEnv): 'node' | 'sdk' => {
    const v = get(key);
    if (v === undefined || v === '') return PROXY_VARIABLES.some((p) => (e[p] ?? '') !== '') ? 'sdk' : 'node';
    return oneOf(key, RPC_TRANSPORTS);
  };
  // Published as it is: a URL that carries userinfo, a query or a fragment is refused rather than trimmed.
  const publicRpcUrl = (key: string): string | undefined => {
    const v = url(key);
    if (v === undefined) return undefined;
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      return v; // url() said so
    }
    if (u.username || u.password || u.search || u.hash) {
      problems.push(`${label(key)}: GET /config publishes it as it is, so it takes no userinfo, query or fragment`);
    }
    return v;
  };
  // Never echoes the value: it may hold the Redis password.
  const redisUrl = (key: string): string | undefined => {
    const v = get(key);
    if (v === undefined || v === '') return undefined;
    if (!/^rediss?:\/\//.test(v)) problems.push(`${label(key)}: expected a redis:// or rediss:// URL`);
    return v;
  };
  const bool = (key: string): boolean =>
    oneOf(key, ['true', 'false', '1', '0'] as const) === 'true' || get(key) === '1';
  const port = (key: string) => int(key, 0, 65535);
  // `true` would trust whatever X-Forwarded-For any client sends: refused, so a hop count or the proxies
  // are named instead.
  const trustProxy = (key: string): false | number | string[] => {
    const v = (get(key) ?? 'false').trim();
    if (v === 'false' || v === '' || v === '0') return false;
    if (/^\d+$/.test(v) && Number(v) <= 100) return Number(v);
    const list = v
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
    const bad = list.filter((x) => !isProxyAddress(x));
    if (bad.length === 0 && list.length > 0) return list;
    problems.push(
      `${label(key)}: expected false, a hop count (0 to 100) or a comma list of proxy addresses/CIDRs (loopback, linklocal, uniquelocal too), got ${JSON.stringify(v)}`,
    );
    return false;
  };

  // `/api` or `/api/v1`: segments of unreserved characters, no trailing slash; `/` would strip nothing.
  const legacyBasePaths = (key: string): string[] => {
    const list = (get(key) ?? '')
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
    const bad = list.filter((x) => !/^(\/[A-Za-z0-9._~-]+)+$/.test(x));
    if (bad.length)
      problems.push(
        `${label(key)}: expected a comma list of path prefixes like /api,/api/v1 (no trailing slash), got ${JSON.stringify(bad.join(','))}`,
      );
    return list;
  };

  const networkList = (key: string): Network[] => {
    const list = (get(key) ?? '')
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean);
    const bad = list.filter((x) => !NETWORKS.includes(x as Network));
    if (list.length === 0 || bad.length || new Set(list).size !== list.length) {
      problems.push(
        `${label(key)}: expected a comma list of ${NETWORKS.join(', ')} (each once, at least one), got ${JSON.stringify(get(key))}`,
      );
    }
    return list as Network[];
  };

  const networks = Object.fromEntries(
    NETWORKS.map((n) => [
      n,
      {
        network: n,
        rpcUrl: url(`${n}.rpcUrl`),
        publicRpcUrl: publicRpcUrl(`${n}.publicRpcUrl`),
        passphrase: optional(`${n}.passphrase`),
        factoryId: optional(`${n}.factoryId`, CONTRACT, 'a contract id C… with a valid checksum'),
        vaultWasmHash: optional(`${n}.vaultWasmHash`, /^[0-9a-f]{64}$/, '64 lowercase hex'),
        registryId: optional(`${n}.registryId`, CONTRACT, 'a contract id C… with a valid checksum'),
        feeTokenId: optional(`${n}.feeTokenId`, CONTRACT, 'a contract id C… with a valid checksum'),
        simulationAccount: optional(`${n}.simulationAccount`, ACCOUNT, 'an account G… with a valid checksum'),
      } satisfies NetworkProfile,
    ]),
  ) as Record<Network, NetworkProfile>;

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
    ledgerCloseMs: ledgerCloseMs('ledgerCloseMs'),
    simulator: bool('simulator'),
    dataDir: get('dataDir') ?? './data',
    stateFile: optional('stateFile'),
    databaseUrl: databaseUrl('databaseUrl'),
    redisUrl: redisUrl('redisUrl'),
    databaseSchema: optional('databaseSchema', /^[a-z_][a-z0-9_]{0,62}$/, 'a lowercase SQL identifier'),
    redisKeyPrefix: get('redisKeyPrefix') ?? 'credential-vault:',
    encryptionKeys: optional('encryptionKeys'),
    authOrigins: (get('authOrigins') ?? '*')
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    legacyBasePaths: legacyBasePaths('legacyBasePaths'),
    trustProxy: trustProxy('trustProxy'),
    ipv6ClientPrefix: int('ipv6ClientPrefix', 1, 128),
    keyTtlDays: int('keyTtlDays', 1, 3650),
    keyCacheSize: int('keyCacheSize', 0, 1_000_000),
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
    fastAssemble: bool('fastAssemble'),
    chainCacheEntries: int('chainCacheEntries', 1, 1_000_000),
    logLevel: oneOf('logLevel', LOG_LEVELS),
    shutdownTimeoutMs: int('shutdownTimeoutMs', 0, 600_000),
    rpcTransport: rpcTransport('rpcTransport', env),
    networks,
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
