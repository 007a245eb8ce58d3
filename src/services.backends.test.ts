// CV_DATABASE_SCHEMA and CV_REDIS_KEY_PREFIX reach the shared backends: deployments sharing one
// PostgreSQL or Redis stay apart, and the keys CLI writes where the server reads.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Keypair } from '@stellar/stellar-sdk';
import { Redis } from 'ioredis';
import { afterAll, expect, it } from 'vitest';
import { loadConfig } from './config/index.ts';
import { main } from './cli.ts';
import { startServices } from './services.ts';
import { dropRedisPrefix, dropSchema, pgQuery, pgUrl, redisUrl, uniqueName } from '../test-support/stores/backends.ts';

const schema = uniqueName('cv_cfg');
const prefix = `${uniqueName('cvcfg')}:`;
const dataDir = mkdtempSync(path.join(tmpdir(), 'cv-backends-'));

afterAll(async () => {
  await dropSchema(schema);
  await dropRedisPrefix(prefix);
  rmSync(dataDir, { recursive: true, force: true });
});

it('the schema and the key prefix settings place every record and window', async () => {
  const shared = [
    '--database-url',
    pgUrl(),
    '--database-schema',
    schema,
    '--data-dir',
    dataDir,
    '--log-level',
    'silent',
  ];
  const wallet = Keypair.random().publicKey();
  const printed: string[] = [];
  const said: string[] = [];
  const [log, error] = [console.log, console.error];
  console.log = (line: string) => printed.push(line);
  console.error = (line: string) => said.push(line);
  try {
    expect(await main(['keys', 'create', '--network', 'testnet', '--wallet', wallet, ...shared])).toBe(0);
  } finally {
    [console.log, console.error] = [log, error];
  }
  // The operator sees which store the key went to: the database and schema, not the data directory.
  expect(said).toEqual([
    expect.stringMatching(new RegExp(`^store: PostgreSQL postgres(ql)?://.* \\(schema ${schema}\\)$`)),
  ]);
  const { key } = JSON.parse(printed.join('\n')) as { key: string };
  expect(await pgQuery(schema, 'SELECT 1 FROM api_keys')).toHaveLength(1);

  const { config } = loadConfig(
    [
      '--network',
      'testnet',
      '--port',
      '0',
      '--simulator-port',
      '0',
      '--redis-url',
      redisUrl(),
      '--redis-key-prefix',
      prefix,
      ...shared,
    ],
    {},
  );
  const running = await startServices(config, { mode: 'serve' });
  try {
    const res = await fetch(`${running.vault.testnet!.url}/contracts/vault/vc-count?owner=${wallet}`, {
      headers: { 'X-SVC-Key': key },
    });
    expect(res.headers.get('x-ratelimit-limit')).toBe('60');
    const redis = new Redis(redisUrl(), { maxRetriesPerRequest: 1 });
    try {
      expect((await redis.keys(`${prefix}*`)).length).toBeGreaterThan(0);
    } finally {
      redis.disconnect();
    }
  } finally {
    await running.close();
  }
});
