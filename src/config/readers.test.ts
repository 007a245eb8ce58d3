// The setting readers alone: a table of {reader, given, want, problem} (loadConfig's tests cover them composed).
import { describe, expect, it } from 'vitest';
import {
  bool,
  commaList,
  databaseUrl,
  int,
  isProxyAddress,
  ledgerCloseMs,
  legacyBasePaths,
  networkList,
  publicRpcUrl,
  redisUrl,
  rpcTransport,
  settingReader,
  simulatorProtocol,
  trustProxy,
  url,
  type SettingReader,
} from './readers.ts';

function reader(value: string | undefined, fromFile = false): SettingReader {
  return settingReader(
    { k: value, f: '/run/secret' },
    [],
    (key) => `CV_${key.toUpperCase()} (--${key})`,
    new Map(fromFile ? [['k', 'f']] : []),
  );
}

type Read = (r: SettingReader, key: string) => unknown;
const cases: { name: string; read: Read; given: string | undefined; want: unknown; problem?: RegExp }[] = [
  { name: 'int in range', read: (r, k) => int(r, k, 1, 10), given: '7', want: 7 },
  {
    name: 'int above max',
    read: (r, k) => int(r, k, 1, 10),
    given: '11',
    want: 0,
    problem: /integer from 1 to 10, got "11"/,
  },
  { name: 'int not a number', read: int, given: '1e3', want: 0, problem: /got "1e3"/ },
  { name: 'bool 1', read: bool, given: '1', want: true },
  { name: 'bool yes', read: bool, given: 'yes', want: false, problem: /one of true, false, 1, 0/ },
  { name: 'url ftp', read: url, given: 'ftp://x', want: 'ftp://x', problem: /got a ftp:\/\/ URL/ },
  {
    name: 'url not echoed',
    read: url,
    given: 'no url secret',
    want: 'no url secret',
    problem: /^CV_K \(--k\): not a URL$/,
  },
  {
    name: 'public url with a query',
    read: publicRpcUrl,
    given: 'https://rpc/?key=1',
    want: 'https://rpc/?key=1',
    problem: /no userinfo, query or fragment/,
  },
  {
    name: 'database url without a user',
    read: databaseUrl,
    given: 'postgres://db/x',
    want: 'postgres://db/x',
    problem: /names no user/,
  },
  { name: 'database url', read: databaseUrl, given: 'postgres://u:p@db/x', want: 'postgres://u:p@db/x' },
  { name: 'redis url', read: redisUrl, given: 'http://r', want: 'http://r', problem: /redis:\/\/ or rediss:\/\// },
  {
    name: 'protocol from the future',
    read: simulatorProtocol,
    given: '99',
    want: 0,
    problem: /there is no Protocol 99/,
  },
  { name: 'protocol', read: simulatorProtocol, given: '27', want: 27 },
  { name: 'ledger close 0', read: ledgerCloseMs, given: '0', want: 0 },
  { name: 'ledger close 500', read: ledgerCloseMs, given: '500', want: 0, problem: /below one ledger a second/ },
  { name: 'trust proxy hops', read: trustProxy, given: '2', want: 2 },
  { name: 'trust proxy list', read: trustProxy, given: 'loopback, 10.0.0.0/8', want: ['loopback', '10.0.0.0/8'] },
  { name: 'trust proxy true', read: trustProxy, given: 'true', want: false, problem: /expected false, a hop count/ },
  { name: 'base paths', read: legacyBasePaths, given: '/api, /api/v1', want: ['/api', '/api/v1'] },
  {
    name: 'base path with a slash',
    read: legacyBasePaths,
    given: '/api/',
    want: ['/api/'],
    problem: /no trailing slash/,
  },
  { name: 'networks', read: networkList, given: 'testnet,mainnet', want: ['testnet', 'mainnet'] },
  {
    name: 'networks twice',
    read: networkList,
    given: 'testnet,testnet',
    want: ['testnet', 'testnet'],
    problem: /each once/,
  },
  { name: 'comma list', read: commaList, given: ' a, ,b ', want: ['a', 'b'] },
];

describe('setting readers', () => {
  it.each(cases)('$name', ({ read, given, want, problem }) => {
    const r = reader(given);
    expect(read(r, 'k')).toEqual(want);
    if (problem) {
      expect(r.problems).toHaveLength(1);
      expect(r.problems[0]).toMatch(problem);
    } else expect(r.problems).toEqual([]);
  });

  it("names the file setting when the value is a file's content", () => {
    const r = reader('x', true);
    int(r, 'k');
    expect(r.problems).toEqual([
      'CV_F (--f) (the file\'s content): expected an integer from 0 to 9007199254740991, got "x"',
    ]);
  });

  it.each([
    { env: {}, want: 'node' },
    { env: { HTTPS_PROXY: 'http://proxy:3128' }, want: 'sdk' },
    { env: { https_proxy: '' }, want: 'node' },
  ])('rpcTransport unset, env $env → $want', ({ env, want }) => {
    expect(rpcTransport(reader(undefined), 'k', env)).toBe(want);
  });

  it.each([
    ['loopback', true],
    ['10.1.2.3', true],
    ['10.0.0.0/33', false],
    ['::1/128', true],
    ['proxy.example', false],
    ['1.2.3.4/8/9', false],
  ] as const)('isProxyAddress(%s) = %s', (entry, want) => expect(isProxyAddress(entry)).toBe(want));
});
