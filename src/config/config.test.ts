import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, requireProfiles, settingsTable, SETTINGS } from './index.ts';

describe('config defaults are the documented values', () => {
  const { config } = loadConfig([], {});
  it.each([
    ['testnetPort', 3000],
    ['mainnetPort', 3002],
    ['resolverPort', 3001],
    ['simulatorPort', 8000],
    ['simulatorProtocol', 29],
    ['resolverRateLimit', 120],
    ['resolverRateWindowMs', 60_000],
    ['resolverCacheTtlMs', 30_000],
    ['rateWindowMs', 60_000],
    ['keyTtlDays', 180],
  ] as const)('%s = %s', (key, want) => {
    expect(config[key]).toBe(want);
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
});

describe('simulator protocol (CV_SIMULATOR_PROTOCOL / --protocol)', () => {
  it('takes 26 to 29, the flag over the environment', () => {
    expect(loadConfig([], { CV_SIMULATOR_PROTOCOL: '26' }).config.simulatorProtocol).toBe(26);
    expect(loadConfig(['--protocol', '27'], { CV_SIMULATOR_PROTOCOL: '26' }).config.simulatorProtocol).toBe(27);
  });
  it.each(['25', '30', 'latest', '28.0'])('refuses %j with one line', (given) => {
    expect(() => loadConfig([], { CV_SIMULATOR_PROTOCOL: given })).toThrow(
      `invalid configuration:\n  - CV_SIMULATOR_PROTOCOL (--protocol): expected an integer from 26 to 29, got ${JSON.stringify(given)}`,
    );
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
    expect(() => loadConfig([], { CV_TRUST_PROXY: given })).toThrow(/CV_TRUST_PROXY \(--trust-proxy\): expected false, a hop count/);
  });
});

describe('legacy base paths of the vault API (CV_LEGACY_BASE_PATHS / --legacy-base-paths)', () => {
  it.each([
    { argv: [], env: {}, want: ['/api', '/api/v1'] },
    { argv: [], env: { CV_LEGACY_BASE_PATHS: '' }, want: [] },
    { argv: ['--legacy-base-paths='], env: {}, want: [] },
    { argv: ['--legacy-base-paths', '/v0, /service/api'], env: { CV_LEGACY_BASE_PATHS: '/x' }, want: ['/v0', '/service/api'] },
  ])('$argv $env → $want', ({ argv, env, want }) => {
    expect(loadConfig(argv, env).config.legacyBasePaths).toEqual(want);
  });
  it.each(['api', '/api/', '/', '/a b', '/api?x'])('refuses %j', (given) => {
    expect(() => loadConfig([], { CV_LEGACY_BASE_PATHS: given })).toThrow(/CV_LEGACY_BASE_PATHS \(--legacy-base-paths\): expected a comma list of path prefixes/);
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
  it('every setting is in the help table', () => {
    const table = settingsTable();
    for (const s of SETTINGS) expect(table).toContain(s.env);
  });
});
