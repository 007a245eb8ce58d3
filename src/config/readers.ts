// The readers of single settings: each takes the raw value of one key, checks it, and either returns the parsed
// value or records one problem naming the setting (and, for a URL or a secret, never echoing the value).
import { isIP } from 'node:net';
import { NETWORKS, type Network } from '../domain.ts';
import { isAccountAddress, isContractId } from '../openapi/formats.ts';
import type { RawSettings } from './settings.ts';

/** Protocol versions the embedded simulator emulates (the newest released is the maximum). */
export const SIMULATOR_PROTOCOLS = { min: 26, max: 28 } as const;
/** Its ledger close intervals besides 0: at most one ledger a second, close times being whole seconds and strictly
 *  increasing (simulator/core/ledger.ts MIN_LEDGER_CLOSE_MS..MAX_LEDGER_CLOSE_MS; a test keeps them equal). */
export const SIMULATOR_LEDGER_CLOSE_MS = { min: 1000, max: 600_000 } as const;

// Whole StrKeys, checksum included: a pattern would let an id through that the SDK throws on at the first request.
export const CONTRACT = { test: isContractId };
export const ACCOUNT = { test: isAccountAddress };
/** The names Express (proxy-addr) accepts for address ranges. */
const PROXY_NAMES: readonly string[] = ['loopback', 'linklocal', 'uniquelocal'];

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

/** The raw settings being parsed, how a setting is named in a message, and where problems go. */
export interface SettingReader {
  get(key: string): string | undefined;
  /** `CV_X (--x)`, or the file setting it was read from. */
  label(key: string): string;
  problems: string[];
}

/** A reader over `raw`; `fromFile` names the settings read from a file (setting key → its file setting's key). */
export function settingReader(
  raw: RawSettings,
  problems: string[],
  settingLabel: (key: string) => string,
  fromFile: ReadonlyMap<string, string>,
): SettingReader {
  return {
    get: (key) => raw[key],
    label: (key) => {
      const fileKey = fromFile.get(key);
      return fileKey ? `${settingLabel(fileKey)} (the file's content)` : settingLabel(key);
    },
    problems,
  };
}

export function int(r: SettingReader, key: string, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  const v = r.get(key);
  const n = Number(v);
  if (v === undefined || !/^\d+$/.test(v) || n < min || n > max) {
    r.problems.push(`${r.label(key)}: expected an integer from ${min} to ${max}, got ${JSON.stringify(v)}`);
    return 0;
  }
  return n;
}

export const port = (r: SettingReader, key: string): number => int(r, key, 0, 65535);

export function oneOf<T extends string>(r: SettingReader, key: string, allowed: readonly T[]): T {
  const v = r.get(key) as T;
  if (!allowed.includes(v))
    r.problems.push(`${r.label(key)}: expected one of ${allowed.join(', ')}, got ${JSON.stringify(v)}`);
  return v;
}

export const bool = (r: SettingReader, key: string): boolean =>
  oneOf(r, key, ['true', 'false', '1', '0'] as const) === 'true' || r.get(key) === '1';

export function optional(
  r: SettingReader,
  key: string,
  re?: { test(v: string): boolean },
  what?: string,
): string | undefined {
  const v = r.get(key);
  if (v === undefined || v === '') return undefined;
  if (re && !re.test(v)) r.problems.push(`${r.label(key)}: expected ${what}, got ${JSON.stringify(v)}`);
  return v;
}

export function url(r: SettingReader, key: string): string | undefined {
  const v = optional(r, key);
  if (v !== undefined) {
    // The value is not echoed: an RPC URL may carry a password or an API key.
    let u: URL | undefined;
    try {
      u = new URL(v);
    } catch {
      r.problems.push(`${r.label(key)}: not a URL`);
    }
    if (u && u.protocol !== 'http:' && u.protocol !== 'https:') {
      r.problems.push(`${r.label(key)}: expected an http:// or https:// URL, got a ${u.protocol}// URL`);
    }
  }
  return v;
}

/** Published as it is: a URL that carries userinfo, a query or a fragment is refused rather than trimmed. */
export function publicRpcUrl(r: SettingReader, key: string): string | undefined {
  const v = url(r, key);
  if (v === undefined) return undefined;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    return v; // url() said so
  }
  if (u.username || u.password || u.search || u.hash) {
    r.problems.push(`${r.label(key)}: GET /config publishes it as it is, so it takes no userinfo, query or fragment`);
  }
  return v;
}

/** Never echoes the value: it holds the database password. */
export function databaseUrl(r: SettingReader, key: string): string | undefined {
  const v = r.get(key);
  if (v === undefined || v === '') return undefined;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    r.problems.push(`${r.label(key)}: not a URL (expected postgres://USER:PASSWORD@HOST:5432/DATABASE)`);
    return v;
  }
  if (u.protocol !== 'postgres:' && u.protocol !== 'postgresql:')
    r.problems.push(`${r.label(key)}: expected a postgres:// URL, got a ${u.protocol}// URL`);
  // Without a user the driver falls back to the OS user of this process: every query would fail to log in.
  else if (!u.username && !u.searchParams.get('user'))
    r.problems.push(`${r.label(key)}: names no user (expected postgres://USER:PASSWORD@HOST:5432/DATABASE)`);
  return v;
}

/** Never echoes the value: it may hold the Redis password. */
export function redisUrl(r: SettingReader, key: string): string | undefined {
  const v = r.get(key);
  if (v === undefined || v === '') return undefined;
  if (!/^rediss?:\/\//.test(v)) r.problems.push(`${r.label(key)}: expected a redis:// or rediss:// URL`);
  return v;
}

/** A protocol newer than the newest released one is not a typo of a range: it does not exist. */
export function simulatorProtocol(r: SettingReader, key: string): number {
  const v = r.get(key) ?? '';
  if (/^\d+$/.test(v) && Number(v) > SIMULATOR_PROTOCOLS.max) {
    r.problems.push(
      `${r.label(key)}: there is no Protocol ${Number(v)}: the newest released protocol is ` +
        `${SIMULATOR_PROTOCOLS.max}, which the networks run ` +
        `(the simulator emulates ${SIMULATOR_PROTOCOLS.min} to ${SIMULATOR_PROTOCOLS.max})`,
    );
    return 0;
  }
  return int(r, key, SIMULATOR_PROTOCOLS.min, SIMULATOR_PROTOCOLS.max);
}

/** 0 or a whole second and up: a shorter interval would run the ledger's clock away from the wall clock. */
export function ledgerCloseMs(r: SettingReader, key: string): number {
  const v = r.get(key) ?? '';
  const { min, max } = SIMULATOR_LEDGER_CLOSE_MS;
  const n = /^\d+$/.test(v) ? Number(v) : NaN;
  if (n === 0 || (n >= min && n <= max)) return n;
  r.problems.push(
    n > 0 && n < min
      ? `${r.label(key)}: ${n} ms is below one ledger a second: close times are whole seconds and each must be later ` +
          `than the last, so the interval is 0 (every transaction at once) or ${min} to ${max}`
      : `${r.label(key)}: expected 0 (every transaction at once) or milliseconds from ${min} to ${max}, ` +
          `got ${JSON.stringify(v)}`,
  );
  return 0;
}

/**
 * Chosen when given; otherwise node, unless the environment configures a proxy: node never reads one, the SDK's
 * client does through Node's fetch when NODE_USE_ENV_PROXY=1 (src/chain/transport.ts, docs/operations.md).
 */
export function rpcTransport(r: SettingReader, key: string, env: NodeJS.ProcessEnv): 'node' | 'sdk' {
  const v = r.get(key);
  if (v === undefined || v === '') return PROXY_VARIABLES.some((p) => (env[p] ?? '') !== '') ? 'sdk' : 'node';
  return oneOf(r, key, RPC_TRANSPORTS);
}

/** An address, a CIDR or a range name as Express's `trust proxy` list accepts it. */
export function isProxyAddress(entry: string): boolean {
  if (PROXY_NAMES.includes(entry)) return true;
  const [addr, bits, extra] = entry.split('/');
  const family = isIP(addr ?? '');
  if (family === 0 || extra !== undefined) return false;
  if (bits === undefined) return true;
  return /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/** The comma-separated entries of a setting, trimmed, empty ones dropped. */
export function commaList(r: SettingReader, key: string, fallback = ''): string[] {
  return (r.get(key) ?? fallback)
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
}

/**
 * `true` would trust whatever X-Forwarded-For any client sends: refused, so a hop count or the proxies are named
 * instead.
 */
export function trustProxy(r: SettingReader, key: string): false | number | string[] {
  const v = (r.get(key) ?? 'false').trim();
  if (v === 'false' || v === '' || v === '0') return false;
  if (/^\d+$/.test(v) && Number(v) <= 100) return Number(v);
  const list = v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  const bad = list.filter((x) => !isProxyAddress(x));
  if (bad.length === 0 && list.length > 0) return list;
  r.problems.push(
    `${r.label(key)}: expected false, a hop count (0 to 100) or a comma list of proxy addresses/CIDRs (loopback, linklocal, uniquelocal too), got ${JSON.stringify(v)}`,
  );
  return false;
}

/** `/api` or `/api/v1`: segments of unreserved characters, no trailing slash; `/` would strip nothing. */
export function legacyBasePaths(r: SettingReader, key: string): string[] {
  const list = commaList(r, key);
  const bad = list.filter((x) => !/^(\/[A-Za-z0-9._~-]+)+$/.test(x));
  if (bad.length)
    r.problems.push(
      `${r.label(key)}: expected a comma list of path prefixes like /api,/api/v1 (no trailing slash), got ${JSON.stringify(bad.join(','))}`,
    );
  return list;
}

export function networkList(r: SettingReader, key: string): Network[] {
  const list = commaList(r, key);
  const bad = list.filter((x) => !NETWORKS.includes(x as Network));
  if (list.length === 0 || bad.length || new Set(list).size !== list.length) {
    r.problems.push(
      `${r.label(key)}: expected a comma list of ${NETWORKS.join(', ')} (each once, at least one), got ${JSON.stringify(r.get(key))}`,
    );
  }
  return list as Network[];
}
