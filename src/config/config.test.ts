import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CHAIN_TIMEOUT_DEFAULTS,
  ConfigError,
  loadConfig,
  readSettings,
  requireProfiles,
  settingsTable,
  SETTINGS,
  walletEnv,
} from './index.ts';
import { DEFAULT_TIMEOUTS } from '../chain/rpc.ts';
import { DEFAULT_CHALLENGE_ENTRIES } from '../stores/challenges.ts';
import { KEYLESS_IP_LIMIT } from '../vault-api/middleware/rate-limit.ts';
import { CHALLENGES_PER_CLIENT } from '../vault-api/verification-presentation.ts';

describe('config defaults are the documented values', () => {
  const { config } = loadConfig([], {});
  it.each([
    ['testnetPort', 3000],
    ['mainnetPort', 3002],
    ['resolverPort', 3001],
    ['simulatorPort', 8000],
    ['simulatorProtocol', 28],
    ['ledgerCloseMs', 0],
    ['rpcTimeoutMs', 10_000],
    ['submitTimeoutMs', 30_000],
    ['pollIntervalMs', 250],
    ['resolverRateLimit', 120],
    ['resolverRateWindowMs', 60_000],
    ['resolverCacheTtlMs', 30_000],
    ['rateWindowMs', 60_000],
    ['keyTtlDays', 180],
    ['challengesPerClient', CHALLENGES_PER_CLIENT],
    ['challengeStoreEntries', DEFAULT_CHALLENGE_ENTRIES],
    ['keylessRateLimit', KEYLESS_IP_LIMIT],
  ] as const)('%s = %s', (key, want) => {
    expect(config[key]).toBe(want);
  });
  it("the chain client's own defaults are these settings' defaults (one set of timeouts)", () => {
    const { rpcTimeoutMs: rpcMs, submitTimeoutMs: submitMs, pollIntervalMs } = config;
    expect(CHAIN_TIMEOUT_DEFAULTS).toEqual({ rpcMs, submitMs, pollIntervalMs });
    expect(DEFAULT_TIMEOUTS).toEqual(CHAIN_TIMEOUT_DEFAULTS);
  });
  it('per-role limits are 60/20, 300/100, 200/50', () => {
    expect(config.rateLimits).toEqual({
      standard: { read: 60, write: 20 },
      early: { read: 300, write: 100 },
      admin: { read: 200, write: 50 },
    });
  });
});

describe('flags win over environment, environment over defaults', () => {
  it.each([
    { given: { argv: [], env: { CV_RATE_STANDARD_READ: '7' } }, want: 7 },
    { given: { argv: ['--rate-standard-read', '9'], env: { CV_RATE_STANDARD_READ: '7' } }, want: 9 },
    { given: { argv: ['--rate-standard-read=11'], env: {} }, want: 11 },
  ])('$given.argv $given.env → $want', ({ given, want }) => {
    expect(loadConfig(given.argv, given.env).config.rateLimits.standard.read).toBe(want);
  });
  it('the challenge quotas are settings (CV_CHALLENGES_PER_CLIENT, --challenge-store-entries)', () => {
    const { config } = loadConfig(['--challenge-store-entries', '500'], { CV_CHALLENGES_PER_CLIENT: '3' });
    expect([config.challengesPerClient, config.challengeStoreEntries]).toEqual([3, 500]);
    expect(loadConfig(['--keyless-rate-limit', '1000'], {}).config.keylessRateLimit).toBe(1000);
    expect(() => loadConfig([], { CV_CHALLENGES_PER_CLIENT: '0' })).toThrow(/CV_CHALLENGES_PER_CLIENT/);
  });
});

describe('fast assembly of prepare (CV_FAST_ASSEMBLE / --fast-assemble)', () => {
  it('is on by default; false or 0 switches it off, the flag over the environment', () => {
    expect(loadConfig([], {}).config.fastAssemble).toBe(true);
    expect(loadConfig([], { CV_FAST_ASSEMBLE: 'false' }).config.fastAssemble).toBe(false);
    expect(loadConfig([], { CV_FAST_ASSEMBLE: '0' }).config.fastAssemble).toBe(false);
    expect(loadConfig(['--fast-assemble=true'], { CV_FAST_ASSEMBLE: 'false' }).config.fastAssemble).toBe(true);
  });
  it('refuses anything else', () => {
    expect(() => loadConfig([], { CV_FAST_ASSEMBLE: 'yes' })).toThrow(ConfigError);
  });
});

describe('simulator protocol (CV_SIMULATOR_PROTOCOL / --protocol)', () => {
  it('takes 26 to 28, the flag over the environment', () => {
    expect(loadConfig([], { CV_SIMULATOR_PROTOCOL: '26' }).config.simulatorProtocol).toBe(26);
    expect(loadConfig(['--protocol', '27'], { CV_SIMULATOR_PROTOCOL: '26' }).config.simulatorProtocol).toBe(27);
    expect(loadConfig(['--protocol=28'], {}).config.simulatorProtocol).toBe(28);
  });
  it.each(['25', 'latest', '28.0'])('refuses %j with one line', (given) => {
    expect(() => loadConfig([], { CV_SIMULATOR_PROTOCOL: given })).toThrow(
      new ConfigError([
        `CV_SIMULATOR_PROTOCOL (--protocol): expected an integer from 26 to 28, got ${JSON.stringify(given)}`,
      ]),
    );
  });
  it.each([
    { argv: ['--protocol', '29'], env: {} },
    { argv: ['--protocol=29'], env: {} },
    { argv: [], env: { CV_SIMULATOR_PROTOCOL: '29' } },
  ])('$argv $env stops the start with one line: there is no Protocol 29', ({ argv, env }) => {
    const want =
      'invalid configuration: CV_SIMULATOR_PROTOCOL (--protocol): there is no Protocol 29: the newest released ' +
      'protocol is 28, which the networks run (the simulator emulates 26 to 28)';
    expect(() => loadConfig(argv, env)).toThrow(want);
    try {
      loadConfig(argv, env);
    } catch (e) {
      expect((e as Error).message).toBe(want);
    }
  });
});

describe('ledger timing of the embedded simulator (CV_SIMULATOR_LEDGER_CLOSE_MS / --ledger-close-ms)', () => {
  it.each([
    { argv: [], env: {}, want: 0 },
    { argv: ['--ledger-close-ms', '1000'], env: {}, want: 1000 },
    { argv: ['--ledger-close-ms=2500'], env: { CV_SIMULATOR_LEDGER_CLOSE_MS: '5000' }, want: 2500 },
    { argv: [], env: { CV_SIMULATOR_LEDGER_CLOSE_MS: '5000' }, want: 5000 },
    { argv: ['--ledger-close-ms', '600000'], env: {}, want: 600_000 },
  ])('$argv $env → $want', ({ argv, env, want }) => {
    expect(loadConfig(argv, env).config.ledgerCloseMs).toBe(want);
  });
  it.each(['-1', '1.5', 'fast', '600001', ''])('refuses %j', (given) => {
    expect(() => loadConfig(['--ledger-close-ms', given], {})).toThrow(
      new ConfigError([
        'CV_SIMULATOR_LEDGER_CLOSE_MS (--ledger-close-ms): expected 0 (every transaction at once) or milliseconds ' +
          `from 1000 to 600000, got ${JSON.stringify(given)}`,
      ]),
    );
  });
  // Close times are whole seconds, each later than the last: a shorter interval cannot be honoured.
  it.each(['1', '250', '999'])('refuses %j: below one ledger a second', (given) => {
    expect(() => loadConfig([], { CV_SIMULATOR_LEDGER_CLOSE_MS: given })).toThrow(
      `CV_SIMULATOR_LEDGER_CLOSE_MS (--ledger-close-ms): ${given} ms is below one ledger a second: close times are ` +
        'whole seconds and each must be later than the last, so the interval is 0 (every transaction at once) or ' +
        '1000 to 600000',
    );
  });
});

describe('the public RPC URL GET /config publishes (CV_TESTNET_PUBLIC_RPC_URL, CV_MAINNET_PUBLIC_RPC_URL)', () => {
  const off = ['--simulator', 'false'];
  it('is taken as it is, per network', () => {
    const { config } = loadConfig([...off, '--testnet-public-rpc-url=https://rpc.example/public'], {
      CV_MAINNET_PUBLIC_RPC_URL: 'https://mainnet.example/',
    });
    expect(config.networks.testnet.publicRpcUrl).toBe('https://rpc.example/public');
    expect(config.networks.mainnet.publicRpcUrl).toBe('https://mainnet.example/');
    expect(loadConfig(off, {}).config.networks.testnet.publicRpcUrl).toBeUndefined();
  });
  it.each(['https://user:SECRET@rpc.example/', 'https://rpc.example/?apikey=KEY', 'https://rpc.example/#KEY'])(
    'refuses %s: published as it is, it takes no userinfo, query or fragment, and is never echoed',
    (given) => {
      const attempt = () => loadConfig([...off, '--testnet-public-rpc-url', given], {});
      expect(attempt).toThrow(
        new ConfigError([
          'CV_TESTNET_PUBLIC_RPC_URL (--testnet-public-rpc-url): GET /config publishes it as it is, so it takes no ' +
            'userinfo, query or fragment',
        ]),
      );
    },
  );
  it('refuses a URL that is not http(s)', () => {
    expect(() => loadConfig([...off, '--mainnet-public-rpc-url', 'ftp://rpc.example/'], {})).toThrow(
      /CV_MAINNET_PUBLIC_RPC_URL \(--mainnet-public-rpc-url\): expected an http:\/\/ or https:\/\/ URL/,
    );
  });
  it('is refused while the embedded simulator replaces the profile', () => {
    const { config } = loadConfig(['--testnet-public-rpc-url', 'https://rpc.example/'], {});
    expect(() => requireProfiles(config, ['testnet'])).toThrow(
      /CV_TESTNET_PUBLIC_RPC_URL \(--testnet-public-rpc-url\): the embedded simulator replaces the testnet network/,
    );
  });
});

// A value keeps everything after the first `=`: URLs carry `?a=b&c=d`, base64 keys end in `=`.
const b64 = (byte: number) => Buffer.alloc(32, byte).toString('base64');
describe('every setting keeps its value, in the --flag=value and the --flag value forms', () => {
  const value = (env: string) => `${env.toLowerCase()}://u:p=w@h:1/x?a=b&c=d=&e=:f@g==`;
  it.each(SETTINGS.map((s) => [s.flag, s.env] as const))('%s (%s)', (flag, env) => {
    const key = SETTINGS.find((s) => s.flag === flag)!.key;
    const given = value(env);
    expect(readSettings([`${flag}=${given}`], {}).raw[key]).toBe(given);
    expect(readSettings([flag, given], {}).raw[key]).toBe(given);
    expect(readSettings([], { [env]: given }).raw[key]).toBe(given);
    expect(readSettings([`${flag}=`], {}).raw[key]).toBe('');
  });
  it.each([
    {
      flag: '--database-url',
      key: 'databaseUrl',
      want: 'postgres://vault:p=w@db:5432/vault?sslmode=require&application_name=cv',
    },
    { flag: '--redis-url', key: 'redisUrl', want: 'redis://:p=w@cache:6379/0' },
    { flag: '--encryption-keys', key: 'encryptionKeys', want: `k2:${b64(2)},k1:${b64(1)}` },
    {
      flag: '--testnet-rpc-url',
      key: 'networks.testnet.rpcUrl',
      want: 'https://user:SECRET@rpc.example/soroban?apikey=KEY=&x=1',
    },
  ])('$key keeps $want', ({ flag, key, want }) => {
    const { config } = loadConfig(['--simulator=false', `${flag}=${want}`], {});
    const got = key.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], config);
    expect(got).toBe(want);
  });
});

describe('trust proxy (CV_TRUST_PROXY / --trust-proxy)', () => {
  it.each([
    { given: undefined, want: false },
    { given: 'false', want: false },
    { given: '0', want: false },
    { given: '1', want: 1 },
    { given: '2', want: 2 },
    { given: 'loopback', want: ['loopback'] },
    { given: '10.0.0.0/8, 192.168.1.7,fd00::/8', want: ['10.0.0.0/8', '192.168.1.7', 'fd00::/8'] },
  ])('$given → $want', ({ given, want }) => {
    expect(loadConfig(given === undefined ? [] : ['--trust-proxy', given], {}).config.trustProxy).toEqual(want);
  });
  it.each(['true', '10.0.0.0/33', 'lb.internal', '1.2.3', '::1/129', '-1', ','])('refuses %j', (given) => {
    expect(() => loadConfig([], { CV_TRUST_PROXY: given })).toThrow(
      /CV_TRUST_PROXY \(--trust-proxy\): expected false, a hop count/,
    );
  });
});

describe('legacy base paths of the vault API (CV_LEGACY_BASE_PATHS / --legacy-base-paths)', () => {
  it.each([
    { argv: [], env: {}, want: ['/api', '/api/v1'] },
    { argv: [], env: { CV_LEGACY_BASE_PATHS: '' }, want: [] },
    { argv: ['--legacy-base-paths='], env: {}, want: [] },
    {
      argv: ['--legacy-base-paths', '/v0, /service/api'],
      env: { CV_LEGACY_BASE_PATHS: '/x' },
      want: ['/v0', '/service/api'],
    },
  ])('$argv $env → $want', ({ argv, env, want }) => {
    expect(loadConfig(argv, env).config.legacyBasePaths).toEqual(want);
  });
  it.each(['api', '/api/', '/', '/a b', '/api?x'])('refuses %j', (given) => {
    expect(() => loadConfig([], { CV_LEGACY_BASE_PATHS: given })).toThrow(
      /CV_LEGACY_BASE_PATHS \(--legacy-base-paths\): expected a comma list of path prefixes/,
    );
  });
});

describe('validation reports one line per problem', () => {
  it('collects every problem', () => {
    try {
      loadConfig(['--network', 'devnet', '--port', 'x', '--testnet-factory-id', 'nope'], { REDIS_URL: 'http://x' });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      const problems = (e as ConfigError).problems;
      expect(problems).toHaveLength(4);
      expect(problems.some((p) => p.startsWith('CV_NETWORK (--network)'))).toBe(true);
      expect(problems.some((p) => p.startsWith('CV_PORT (--port)'))).toBe(true);
      expect(problems.some((p) => p.startsWith('CV_TESTNET_FACTORY_ID'))).toBe(true);
      expect(problems.some((p) => p.startsWith('REDIS_URL'))).toBe(true);
    }
  });
  it('requires the network profile when the simulator is off', () => {
    const { config } = loadConfig(['--simulator', 'false'], {});
    expect(() => requireProfiles(config, ['mainnet'])).toThrow(/CV_MAINNET_RPC_URL/);
    expect(() => requireProfiles(config, ['mainnet'])).not.toThrow(/CV_TESTNET/);
  });
  // Configuration that cannot work stops the start.
  it('refuses a network profile setting while the embedded simulator replaces it, one line each', () => {
    const { config } = loadConfig([], { CV_TESTNET_RPC_URL: 'https://rpc.example/', CV_MAINNET_PASSPHRASE: 'X' });
    try {
      requireProfiles(config, ['testnet', 'mainnet']);
      expect.unreachable();
    } catch (e) {
      expect((e as ConfigError).problems).toEqual([
        expect.stringMatching(
          /^CV_TESTNET_RPC_URL \(--testnet-rpc-url\): the embedded simulator replaces the testnet network profile, so /,
        ),
        expect.stringMatching(/^CV_MAINNET_PASSPHRASE \(--mainnet-passphrase\): the embedded simulator replaces/),
      ]);
    }
    expect(() => requireProfiles(loadConfig([], {}).config, ['testnet'])).not.toThrow();
  });
  // README: `--resolver-networks testnet` needs only that network's settings, and only the resolver's.
  describe('without the simulator, what each served process needs of a network', () => {
    const resolverOnly = {
      CV_TESTNET_RPC_URL: 'https://rpc.example/',
      CV_TESTNET_PASSPHRASE: 'Test SDF Network ; September 2015',
      CV_TESTNET_REGISTRY_ID: 'CD4FWXJVWXKDA6QU36W7SMC7PVVM2F43RTJIXY7G4PSF3A2YH52YRHWZ',
      CV_TESTNET_SIMULATION_ACCOUNT: 'GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7',
    };
    const problems = (env: Record<string, string>, vaultApi: boolean): string[] => {
      try {
        requireProfiles(loadConfig(['--simulator', 'false'], env).config, ['testnet'], { vaultApi });
        return [];
      } catch (e) {
        return (e as ConfigError).problems.map((p) => p.split(' ')[0]!);
      }
    };
    const without = (key: string) => Object.fromEntries(Object.entries(resolverOnly).filter(([k]) => k !== key));
    it.each([
      { process: 'resolver', env: resolverOnly, vaultApi: false, want: [] },
      {
        process: 'vault API',
        env: resolverOnly,
        vaultApi: true,
        want: ['CV_TESTNET_FACTORY_ID', 'CV_TESTNET_VAULT_WASM_HASH'],
      },
      {
        process: 'resolver',
        env: without('CV_TESTNET_REGISTRY_ID'),
        vaultApi: false,
        want: ['CV_TESTNET_REGISTRY_ID'],
      },
      {
        process: 'resolver',
        env: without('CV_TESTNET_SIMULATION_ACCOUNT'),
        vaultApi: false,
        want: ['CV_TESTNET_SIMULATION_ACCOUNT'],
      },
      { process: 'resolver', env: without('CV_TESTNET_RPC_URL'), vaultApi: false, want: ['CV_TESTNET_RPC_URL'] },
    ])('$process with $want missing', ({ env, vaultApi, want }) => {
      expect(problems(env, vaultApi)).toEqual(want);
    });
  });
  it('refuses ledger timing without the embedded simulator', () => {
    const { config } = loadConfig(['--simulator', 'false', '--ledger-close-ms', '1000'], {});
    expect(() => requireProfiles(config, [])).toThrow(
      /CV_SIMULATOR_LEDGER_CLOSE_MS \(--ledger-close-ms\): only the embedded simulator closes ledgers/,
    );
  });
  it('refuses a state file without the embedded simulator', () => {
    const { config } = loadConfig(['--simulator', 'false', '--state-file', 'x.json'], {});
    expect(() => requireProfiles(config, [])).toThrow(
      /CV_SIMULATOR_STATE_FILE \(--state-file\): only the embedded simulator has a state file/,
    );
  });
  it.each([
    { given: 'postgres://db.internal:5432/vault', want: /DATABASE_URL \(--database-url\): names no user/ },
    { given: 'postgres:///vault', want: /names no user/ },
    { given: 'mysql://u:p@db/vault', want: /expected a postgres:\/\/ URL/ },
    { given: 'not a url', want: /not a URL/ },
  ])('refuses DATABASE_URL $given', ({ given, want }) => {
    expect(() => loadConfig([], { DATABASE_URL: given })).toThrow(want);
  });
  it('a refused DATABASE_URL is never echoed (it holds the password)', () => {
    expect(() => loadConfig([], { DATABASE_URL: 'postgres://:s3cret@db/vault' })).toThrow(/^(?![\s\S]*s3cret)/);
  });
  it.each(['postgres://vault:pw@db:5432/vault', 'postgresql://vault@db/vault', 'postgres://db/vault?user=vault'])(
    'accepts DATABASE_URL %s',
    (given) => {
      expect(loadConfig([], { DATABASE_URL: given }).config.databaseUrl).toBe(given);
    },
  );
  it('every setting is in the help table', () => {
    const table = settingsTable();
    for (const s of SETTINGS) expect(table).toContain(s.env);
  });
});

describe('contract ids and accounts of a network profile are whole StrKeys (checksum included)', () => {
  it.each([
    [
      '--testnet-factory-id',
      `C${'A'.repeat(55)}`,
      /CV_TESTNET_FACTORY_ID \(--testnet-factory-id\): expected a contract id C… with a valid checksum/,
    ],
    [
      '--mainnet-registry-id',
      'CD4FWXJVWXKDA6QU36W7SMC7PVVM2F43RTJIXY7G4PSF3A2YH52YRHWA',
      /CV_MAINNET_REGISTRY_ID .*valid checksum/,
    ],
    [
      '--testnet-simulation-account',
      `G${'A'.repeat(55)}`,
      /CV_TESTNET_SIMULATION_ACCOUNT .*an account G… with a valid checksum/,
    ],
  ])('%s %s is refused', (flag, value, want) => {
    expect(() => loadConfig([flag, value], {})).toThrow(want);
  });
  it('valid ones are taken', () => {
    const { config } = loadConfig(
      ['--testnet-factory-id', 'CD4FWXJVWXKDA6QU36W7SMC7PVVM2F43RTJIXY7G4PSF3A2YH52YRHWZ'],
      {},
    );
    expect(config.networks.testnet.factoryId).toBe('CD4FWXJVWXKDA6QU36W7SMC7PVVM2F43RTJIXY7G4PSF3A2YH52YRHWZ');
  });
});

describe('RPC transport: the SDK client (which honours them) when the environment configures a proxy', () => {
  it.each([
    { env: {}, want: 'node' },
    { env: { HTTPS_PROXY: 'http://proxy:3128' }, want: 'sdk' },
    { env: { http_proxy: 'http://proxy:3128' }, want: 'sdk' },
    { env: { ALL_PROXY: 'socks5://proxy:1080' }, want: 'sdk' },
    { env: { ALL_PROXY: '' }, want: 'node' },
  ])('$env → $want', ({ env, want }) => {
    expect(loadConfig([], env).config.rpcTransport).toBe(want);
  });

  it('CV_RPC_TRANSPORT / --rpc-transport choose it, over the proxy rule; anything else is refused', () => {
    expect(loadConfig([], { CV_RPC_TRANSPORT: 'sdk' }).config.rpcTransport).toBe('sdk');
    expect(loadConfig([], { CV_RPC_TRANSPORT: 'node', HTTPS_PROXY: 'http://proxy:3128' }).config.rpcTransport).toBe(
      'node',
    );
    expect(loadConfig(['--rpc-transport', 'node'], { CV_RPC_TRANSPORT: 'sdk' }).config.rpcTransport).toBe('node');
    expect(loadConfig(['--rpc-transport=sdk'], {}).config.rpcTransport).toBe('sdk');
    expect(() => loadConfig([], { CV_RPC_TRANSPORT: 'axios' })).toThrow(/CV_RPC_TRANSPORT.*node, sdk.*"axios"/);
  });
});

describe('resolver networks (CV_RESOLVER_NETWORKS / --resolver-networks)', () => {
  it.each([
    { given: undefined, want: ['testnet', 'mainnet'] },
    { given: 'testnet', want: ['testnet'] },
    { given: ' mainnet ', want: ['mainnet'] },
    { given: 'mainnet,testnet', want: ['mainnet', 'testnet'] },
  ])('$given → $want', ({ given, want }) => {
    expect(loadConfig([], given === undefined ? {} : { CV_RESOLVER_NETWORKS: given }).config.resolverNetworks).toEqual(
      want,
    );
  });

  it.each(['', 'public', 'testnet,testnet', 'testnet,public'])('%j is refused', (given) => {
    expect(() => loadConfig(['--resolver-networks', given], {})).toThrow(
      /CV_RESOLVER_NETWORKS \(--resolver-networks\): expected a comma list of testnet, mainnet/,
    );
  });
});

describe('walletEnv: the secret and the API key come from the environment only', () => {
  it.each([
    { given: {}, want: {} },
    { given: { CV_SECRET_KEY: ' S123 \n', CV_API_KEY: 'k' }, want: { secretKey: 'S123', apiKey: 'k' } },
    { given: { CV_SECRET_KEY: '' }, want: {} },
  ])('$given → $want', ({ given, want }) => {
    expect(walletEnv(given)).toEqual(want);
  });

  it('neither is a setting with a flag', () => {
    expect(SETTINGS.filter((s) => ['CV_SECRET_KEY', 'CV_API_KEY'].includes(s.env))).toEqual([]);
  });
});

// Secrets on the command line are visible in `ps`; files keep them out.
describe('secrets from files (database URL, encryption keys, Redis URL, RPC URLs)', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cv-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const f = path.join(dir, name);
    writeFileSync(f, text, { mode: 0o600 });
    return f;
  };

  it('reads each value from its file (flag or env), trimmed', () => {
    const db = file('db', 'postgres://vault:s3cret@db:5432/vault\n');
    const keys = file('keys', `  k1:${Buffer.alloc(32, 1).toString('base64')}\n`);
    expect(loadConfig(['--database-url-file', db, '--encryption-keys-file', keys], {}).config).toMatchObject({
      databaseUrl: 'postgres://vault:s3cret@db:5432/vault',
      encryptionKeys: `k1:${Buffer.alloc(32, 1).toString('base64')}`,
    });
    expect(loadConfig([], { DATABASE_URL_FILE: db, CV_ENCRYPTION_KEYS_FILE: keys }).config.databaseUrl).toBe(
      'postgres://vault:s3cret@db:5432/vault',
    );
  });

  it('reads the Redis URL and the RPC URLs from files, with the same rules', () => {
    const redis = file('redis', 'redis://:p=w@cache:6379/0\n');
    const testnet = file('testnet-rpc', 'https://user:SECRET@rpc.example/soroban?apikey=KEY\n');
    const mainnet = file('mainnet-rpc', ' https://rpc.example/mainnet?key=K \n');
    const argv = ['--simulator', 'false', '--redis-url-file', redis, '--testnet-rpc-url-file', testnet];
    const { config } = loadConfig(argv, { CV_MAINNET_RPC_URL_FILE: mainnet });
    expect(config.redisUrl).toBe('redis://:p=w@cache:6379/0');
    expect(config.networks.testnet.rpcUrl).toBe('https://user:SECRET@rpc.example/soroban?apikey=KEY');
    expect(config.networks.mainnet.rpcUrl).toBe('https://rpc.example/mainnet?key=K');
    const both = () => loadConfig(['--redis-url', 'redis://x', '--redis-url-file', redis], {});
    expect(both).toThrow(/REDIS_URL_FILE \(--redis-url-file\): set either it or REDIS_URL \(--redis-url\), not both/);
    expect(() => loadConfig(['--testnet-rpc-url-file', '/nonexistent/rpc'], {})).toThrow(
      /CV_TESTNET_RPC_URL_FILE \(--testnet-rpc-url-file\): cannot read \/nonexistent\/rpc \(ENOENT\)/,
    );
    // with the embedded simulator on, an RPC URL from a file is refused like one given directly, naming the setting
    // the user set
    const simulatorOn = loadConfig(['--testnet-rpc-url-file', testnet], { CV_MAINNET_RPC_URL: 'https://rpc.example/' });
    try {
      requireProfiles(simulatorOn.config, ['testnet']);
      expect.unreachable();
    } catch (e) {
      const why =
        'network profile, so this setting would be ignored; set CV_SIMULATOR=false (--simulator false) ' +
        'to use a real RPC, or remove it';
      expect((e as ConfigError).problems).toEqual([
        `CV_TESTNET_RPC_URL_FILE (--testnet-rpc-url-file) (the file's content): the embedded simulator replaces the ` +
          `testnet ${why}`,
        `CV_MAINNET_RPC_URL (--mainnet-rpc-url): the embedded simulator replaces the mainnet ${why}`,
      ]);
    }
  });

  it('a refused URL from a file or a setting is never echoed (it may hold a password or a key)', () => {
    const bad = file('bad-rpc', 'ftp://user:SECRET@rpc.example/?apikey=KEY');
    for (const attempt of [
      () => loadConfig(['--testnet-rpc-url-file', bad], {}),
      () => loadConfig(['--testnet-rpc-url', 'ftp://user:SECRET@rpc.example/?apikey=KEY'], {}),
      () => loadConfig(['--mainnet-rpc-url', 'not a url SECRET KEY'], {}),
      () => loadConfig(['--redis-url', 'http://:SECRET@cache/?KEY'], {}),
    ]) {
      expect(attempt).toThrow(ConfigError);
      expect(attempt).toThrow(/^(?![\s\S]*(SECRET|KEY))/);
    }
  });

  it.each([
    {
      name: 'a missing file',
      env: { DATABASE_URL_FILE: '/nonexistent/db' },
      want: /^DATABASE_URL_FILE \(--database-url-file\): cannot read \/nonexistent\/db \(ENOENT\)$/,
    },
    {
      name: 'an empty file',
      env: { CV_ENCRYPTION_KEYS_FILE: 'EMPTY' },
      want: /^CV_ENCRYPTION_KEYS_FILE \(--encryption-keys-file\): the file .* is empty$/,
    },
    {
      name: 'both the value and its file',
      env: { DATABASE_URL: 'postgres://a@b/c', DATABASE_URL_FILE: 'DB' },
      want: /set either it or DATABASE_URL \(--database-url\), not both/,
    },
    {
      name: 'a file URL without a user',
      env: { DATABASE_URL_FILE: 'NOUSER' },
      want: /^DATABASE_URL_FILE \(--database-url-file\) \(the file's content\): names no user/,
    },
  ])('refuses $name', ({ env, want }) => {
    const paths: Record<string, string> = {
      EMPTY: file('empty', '\n'),
      DB: file('db2', 'postgres://a@b/c'),
      NOUSER: file('nouser', 'postgres://db/vault'),
    };
    const resolved = Object.fromEntries(Object.entries(env).map(([k, v]) => [k, paths[v] ?? v]));
    try {
      loadConfig([], resolved);
      expect.unreachable();
    } catch (e) {
      expect((e as ConfigError).problems).toEqual([expect.stringMatching(want)]);
    }
  });
});
