// Every setting of the services: its environment variable, its flag, its documented default and what it means (the
// one table docs/operations.md and `credential-vault help` print). Reading them is settings.ts's, checking them
// index.ts's. Each network's own settings are in network-settings.ts.
import { NETWORKS } from '../domain.ts';
import { LOG_LEVELS } from '../observability/logging.ts';
import { networkSettings } from './network-settings.ts';

type Kind = 'string' | 'int' | 'bool' | 'url' | 'list';
/** One setting: where it is read from and what it means. */
export interface Setting {
  key: string; // property name in the flat settings object
  env: string;
  flag: string;
  kind: Kind;
  default?: string;
  doc: string;
}

export const SETTINGS: readonly Setting[] = [
  {
    key: 'network',
    env: 'CV_NETWORK',
    flag: '--network',
    kind: 'string',
    default: 'testnet',
    doc: 'network served by `credential-vault serve` (testnet | mainnet)',
  },
  {
    key: 'host',
    env: 'CV_HOST',
    flag: '--host',
    kind: 'string',
    default: '127.0.0.1',
    doc: 'interface the HTTP servers bind',
  },
  {
    key: 'port',
    env: 'CV_PORT',
    flag: '--port',
    kind: 'int',
    default: '3000',
    doc: 'port of `credential-vault serve`',
  },
  {
    key: 'testnetPort',
    env: 'CV_TESTNET_PORT',
    flag: '--testnet-port',
    kind: 'int',
    default: '3000',
    doc: 'vault API (testnet) port under `start`',
  },
  {
    key: 'mainnetPort',
    env: 'CV_MAINNET_PORT',
    flag: '--mainnet-port',
    kind: 'int',
    default: '3002',
    doc: 'vault API (mainnet) port under `start`',
  },
  {
    key: 'resolverPort',
    env: 'CV_RESOLVER_PORT',
    flag: '--resolver-port',
    kind: 'int',
    default: '3001',
    doc: 'DID resolver port',
  },
  {
    key: 'resolverNetworks',
    env: 'CV_RESOLVER_NETWORKS',
    flag: '--resolver-networks',
    kind: 'list',
    default: 'testnet,mainnet',
    doc: "networks `credential-vault resolver` serves (comma list): with one, only that network's settings are needed, and a DID of the other is `did_invalid`",
  },
  {
    key: 'simulatorPort',
    env: 'CV_SIMULATOR_PORT',
    flag: '--simulator-port',
    kind: 'int',
    default: '8000',
    doc: 'embedded chain simulator port',
  },
  {
    key: 'simulatorProtocol',
    env: 'CV_SIMULATOR_PROTOCOL',
    flag: '--protocol',
    kind: 'int',
    default: '28',
    doc:
      'protocol version the embedded simulator emulates (26 to 28, the networks run 28; 26 predates CAP-71 ' +
      'address-bound auth; at 27 and 28 simulation returns ADDRESS_V2 entries when the request sets useUpgradedAuth, ' +
      'legacy ADDRESS otherwise); also `credential-vault simulator --protocol`',
  },
  {
    key: 'ledgerCloseMs',
    env: 'CV_SIMULATOR_LEDGER_CLOSE_MS',
    flag: '--ledger-close-ms',
    kind: 'int',
    default: '0',
    doc:
      'embedded simulator: 0 applies every transaction at once; N (1000 to 600000: close times are whole ' +
      'seconds, each later than the last) queues them (sendTransaction answers PENDING, getTransaction NOT_FOUND) ' +
      'and closes a ledger every N ms with everything queued, as a real network does about every 5000 ms; also ' +
      '`credential-vault simulator --ledger-close-ms`',
  },
  {
    key: 'simulator',
    env: 'CV_SIMULATOR',
    flag: '--simulator',
    kind: 'bool',
    default: 'true',
    doc: 'run the embedded simulator (false: use the configured network RPCs); while it runs, the network profile settings below are refused, since it replaces them',
  },
  {
    key: 'dataDir',
    env: 'CV_DATA_DIR',
    flag: '--data-dir',
    kind: 'string',
    default: './data',
    doc: 'data directory of the embedded stores, the encryption key file and the simulator state',
  },
  {
    key: 'jsonLdContextsDir',
    env: 'CV_JSONLD_CONTEXTS_DIR',
    flag: '--jsonld-contexts-dir',
    kind: 'string',
    doc:
      'folder of JSON-LD contexts the verifier reads beside its bundled ones (VC 1.1 and 2.0, Data Integrity, ' +
      'Multikey, Ed25519 2020, DID v1, Bitstring Status List, ledger-vault): its index.json maps each context URL ' +
      'to a file of the folder; read at start. A context found in neither is a problem of the credential, never fetched',
  },
  {
    key: 'webFetch',
    env: 'CV_WEB_FETCH',
    flag: '--web-fetch',
    kind: 'bool',
    default: 'false',
    doc:
      'the verifier reads the web: did:web issuers and holders, and Bitstring Status List credentials. HTTPS ' +
      'only, never a loopback, private, link-local or shared address, no redirect, at most 256 KiB in 3 s, each ' +
      'answer kept as long as a resolution (CV_RESOLVER_CACHE_TTL_MS); off: did:web is methodNotSupported and ' +
      'a BitstringStatusListEntry fails status_list_unavailable',
  },
  {
    key: 'webFetchTestHosts',
    env: 'CV_WEB_FETCH_TEST_HOSTS',
    flag: '--web-fetch-test-hosts',
    kind: 'list',
    doc: 'for tests only: comma list of host:port that CV_WEB_FETCH may reach over plain HTTP, on any address',
  },
  {
    key: 'stateFile',
    env: 'CV_SIMULATOR_STATE_FILE',
    flag: '--state-file',
    kind: 'string',
    doc: 'simulator state file (default: <data-dir>/simulator-state.json under `start`)',
  },
  {
    key: 'databaseUrl',
    env: 'DATABASE_URL',
    flag: '--database-url',
    kind: 'string',
    doc: 'PostgreSQL for API keys and idempotency records (shared backend), with a user: postgres://USER:PASSWORD@HOST:5432/DATABASE',
  },
  {
    key: 'databaseUrlFile',
    env: 'DATABASE_URL_FILE',
    flag: '--database-url-file',
    kind: 'string',
    doc: 'file whose content (trimmed) is DATABASE_URL: keeps the password out of `ps` and the environment; not with DATABASE_URL',
  },
  {
    key: 'redisUrl',
    env: 'REDIS_URL',
    flag: '--redis-url',
    kind: 'string',
    doc: 'Redis for rate-limit windows, the resolution cache and presentation challenges (shared backend)',
  },
  {
    key: 'redisUrlFile',
    env: 'REDIS_URL_FILE',
    flag: '--redis-url-file',
    kind: 'string',
    doc:
      'file whose content (trimmed) is REDIS_URL: keeps its password out of `ps` and the environment; ' +
      'not with REDIS_URL',
  },
  {
    key: 'databaseSchema',
    env: 'CV_DATABASE_SCHEMA',
    flag: '--database-schema',
    kind: 'string',
    doc: "PostgreSQL schema of the tables (default: the connection's search_path), e.g. one per deployment",
  },
  {
    key: 'redisKeyPrefix',
    env: 'CV_REDIS_KEY_PREFIX',
    flag: '--redis-key-prefix',
    kind: 'string',
    default: 'credential-vault:',
    doc: 'prefix of every Redis key, e.g. one per deployment sharing a Redis',
  },
  {
    key: 'encryptionKeys',
    env: 'CV_ENCRYPTION_KEYS',
    flag: '--encryption-keys',
    kind: 'string',
    doc: 'credential encryption keys `kid:base64key,…` (first is active); default: created once in the data directory',
  },
  {
    key: 'encryptionKeysFile',
    env: 'CV_ENCRYPTION_KEYS_FILE',
    flag: '--encryption-keys-file',
    kind: 'string',
    doc: 'file whose content (trimmed) is CV_ENCRYPTION_KEYS: keeps the keys out of `ps` and the environment; not with CV_ENCRYPTION_KEYS',
  },
  {
    key: 'authOrigins',
    env: 'CV_AUTH_ALLOWED_ORIGINS',
    flag: '--auth-allowed-origins',
    kind: 'list',
    default: '*',
    doc: 'origins allowed to use the wallet-proof key routes (comma list; * = any, no Origin header is always allowed)',
  },
  {
    key: 'legacyBasePaths',
    env: 'CV_LEGACY_BASE_PATHS',
    flag: '--legacy-base-paths',
    kind: 'list',
    default: '/api,/api/v1',
    doc: 'legacy path-prefixed base URLs of the vault API (comma list; empty = none): the prefix is removed before routing (`/api/config` is `/config`) and every answer under it carries `Deprecation: @1795305600` (RFC 9745), plus `Link: <canonical path>; rel="successor-version"` when the canonical path is an API path',
  },
  {
    key: 'trustProxy',
    env: 'CV_TRUST_PROXY',
    flag: '--trust-proxy',
    kind: 'string',
    default: 'false',
    doc: "whose X-Forwarded-For names the client of the per-IP limits (vault API /auth/*, resolver): false = nobody, the TCP peer is the client; a hop count (1 = one load balancer in front); or a comma list of the proxies' addresses/CIDRs (or loopback, linklocal, uniquelocal). `true` is refused: any client could pick its bucket",
  },
  {
    key: 'ipv6ClientPrefix',
    env: 'CV_IPV6_CLIENT_PREFIX',
    flag: '--ipv6-client-prefix',
    kind: 'int',
    default: '64',
    doc: 'prefix length (1 to 128) of the IPv6 network that counts as one client in the per-client limits (vault API keyless verification, challenges and /auth/*, resolver): a host gets a /64, so one budget per address would give it 2^64; an IPv4-mapped address (::ffff:10.0.0.1) counts as its IPv4 address',
  },
  {
    key: 'keyTtlDays',
    env: 'CV_KEY_TTL_DAYS',
    flag: '--key-ttl-days',
    kind: 'int',
    default: '180',
    doc: 'lifetime of keys obtained by wallet proof',
  },
  {
    key: 'challengesPerClient',
    env: 'CV_CHALLENGES_PER_CLIENT',
    flag: '--challenges-per-client',
    kind: 'int',
    default: '100',
    doc:
      'live presentation challenges (POST /challenges) one client may hold, an API key or a keyless client IP; ' +
      'past it, 429 until some are answered or expire (5 minutes); nothing is evicted to make room',
  },
  {
    key: 'challengeStoreEntries',
    env: 'CV_CHALLENGE_STORE_ENTRIES',
    flag: '--challenge-store-entries',
    kind: 'int',
    default: '100000',
    doc:
      'live challenges the in-memory store keeps, all clients together (a bound on its memory; full: 429 until ' +
      "some expire); with REDIS_URL, Redis's own memory bounds the shared store",
  },
  {
    key: 'keyCacheSize',
    env: 'CV_KEY_CACHE_SIZE',
    flag: '--key-cache-size',
    kind: 'int',
    default: '10000',
    doc:
      'API keys each process keeps verified in memory (least recently used go first); a key revoked, replaced or ' +
      'changed through any instance or the keys CLI is refused by every instance within 1 s; 0 = off, every ' +
      'request reads the key store',
  },
  {
    key: 'rate.standard.read',
    env: 'CV_RATE_STANDARD_READ',
    flag: '--rate-standard-read',
    kind: 'int',
    default: '60',
    doc: 'reads per minute, standard keys',
  },
  {
    key: 'rate.standard.write',
    env: 'CV_RATE_STANDARD_WRITE',
    flag: '--rate-standard-write',
    kind: 'int',
    default: '20',
    doc: 'writes per minute, standard keys',
  },
  {
    key: 'rate.early.read',
    env: 'CV_RATE_EARLY_READ',
    flag: '--rate-early-read',
    kind: 'int',
    default: '300',
    doc: 'reads per minute, early keys',
  },
  {
    key: 'rate.early.write',
    env: 'CV_RATE_EARLY_WRITE',
    flag: '--rate-early-write',
    kind: 'int',
    default: '100',
    doc: 'writes per minute, early keys',
  },
  {
    key: 'rate.admin.read',
    env: 'CV_RATE_ADMIN_READ',
    flag: '--rate-admin-read',
    kind: 'int',
    default: '200',
    doc: 'reads per minute, admin keys',
  },
  {
    key: 'rate.admin.write',
    env: 'CV_RATE_ADMIN_WRITE',
    flag: '--rate-admin-write',
    kind: 'int',
    default: '50',
    doc: 'writes per minute, admin keys',
  },
  {
    key: 'keylessRateLimit',
    env: 'CV_KEYLESS_RATE_LIMIT',
    flag: '--keyless-rate-limit',
    kind: 'int',
    default: '30',
    doc: 'verifications per window per client IP without an API key (POST /credentials/verify, /presentations/verify)',
  },
  {
    key: 'rateWindowMs',
    env: 'CV_RATE_WINDOW_MS',
    flag: '--rate-window-ms',
    kind: 'int',
    default: '60000',
    doc: 'sliding rate-limit window',
  },
  {
    key: 'resolverRateLimit',
    env: 'CV_RESOLVER_RATE_LIMIT',
    flag: '--resolver-rate-limit',
    kind: 'int',
    default: '120',
    doc: 'resolver requests per IP per window',
  },
  {
    key: 'resolverRateWindowMs',
    env: 'CV_RESOLVER_RATE_WINDOW_MS',
    flag: '--resolver-rate-window-ms',
    kind: 'int',
    default: '60000',
    doc: 'resolver per-IP window',
  },
  {
    key: 'resolverCacheTtlMs',
    env: 'CV_RESOLVER_CACHE_TTL_MS',
    flag: '--resolver-cache-ttl-ms',
    kind: 'int',
    default: '30000',
    doc: 'resolution cache TTL',
  },
  {
    key: 'rpcTimeoutMs',
    env: 'CV_RPC_TIMEOUT_MS',
    flag: '--rpc-timeout-ms',
    kind: 'int',
    default: '10000',
    doc: 'timeout of one RPC call',
  },
  {
    key: 'submitTimeoutMs',
    env: 'CV_SUBMIT_TIMEOUT_MS',
    flag: '--submit-timeout-ms',
    kind: 'int',
    default: '30000',
    doc: 'how long submit waits for a final transaction state',
  },
  {
    key: 'pollIntervalMs',
    env: 'CV_POLL_INTERVAL_MS',
    flag: '--poll-interval-ms',
    kind: 'int',
    default: '250',
    doc: 'getTransaction polling interval (the first polls come sooner: at once, then after 50, 100 and 200 ms)',
  },
  {
    key: 'readCacheMs',
    env: 'CV_READ_CACHE_MS',
    flag: '--read-cache-ms',
    kind: 'int',
    default: '1000',
    doc: 'how long a chain read (verify-vc, vc-count, list-vc-ids, …) may be answered from memory; dropped sooner when a newer ledger is seen, and at once by a transaction this instance submits; 0 = off',
  },
  {
    key: 'chainCacheEntries',
    env: 'CV_CHAIN_CACHE_ENTRIES',
    flag: '--chain-cache-entries',
    kind: 'int',
    default: '10000',
    doc:
      "entries each network keeps in each of its caches of decoded keys (source accounts, signers' public keys, " +
      'DID record keys, vault addresses: what the SDK would decode and check again on every request) and in its ' +
      'cache of chain reads (CV_READ_CACHE_MS); least recently used go first',
  },
  {
    key: 'fastAssemble',
    env: 'CV_FAST_ASSEMBLE',
    flag: '--fast-assemble',
    kind: 'bool',
    default: 'true',
    doc:
      "prepare writes its transaction's XDR itself, byte for byte what the Stellar SDK's TransactionBuilder and " +
      'assembleTransaction produce, without their repeated XDR round trips (a workaround, src/chain/fast-assemble.ts; ' +
      'docs/benchmarks.md shows what it saves); false = the SDK builds every transaction',
  },
  {
    key: 'rpcTransport',
    env: 'CV_RPC_TRANSPORT',
    flag: '--rpc-transport',
    kind: 'string',
    doc:
      "node | sdk: the HTTP client under the Stellar SDK's RPC client. node (the default) posts JSON-RPC over " +
      "node:http itself, sparing the CPU the SDK's fetch-based client spends on every call (a workaround, " +
      "src/chain/transport.ts; docs/benchmarks.md shows what it saves); sdk = the SDK's own client, which also " +
      'follows redirects (the default when HTTP(S)_PROXY / ALL_PROXY is set; on Node 24 its fetch reads those only ' +
      'with NODE_USE_ENV_PROXY=1)',
  },
  {
    key: 'logLevel',
    env: 'CV_LOG_LEVEL',
    flag: '--log-level',
    kind: 'string',
    default: 'info',
    doc: `JSON log lines on stdout at this level and above: ${LOG_LEVELS.join(' | ')}`,
  },
  {
    key: 'shutdownTimeoutMs',
    env: 'CV_SHUTDOWN_TIMEOUT_MS',
    flag: '--shutdown-timeout-ms',
    kind: 'int',
    default: '10000',
    doc: 'on SIGTERM/SIGINT, how long requests under way get to finish before their connections are closed',
  },
  ...NETWORKS.flatMap(networkSettings),
];
