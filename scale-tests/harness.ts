// Harness of the scale tests: the real PostgreSQL and Redis on 127.0.0.1 (never skipped), the RPC simulator
// in the test process (its JSON-RPC methods can be counted and slowed), vault API processes started with
// `credential-vault serve` exactly as an operator would, the `keys` CLI, and wallet-proof keys over HTTP.
//
// Isolation: the configuration has no setting for a PostgreSQL schema or a Redis key prefix, so each test
// file gets them through the URLs: `?options=-c search_path=<schema>` (libpq options, honoured by pg) and
// `?keyPrefix=<prefix>` (ioredis reads options from the URL query, and URL options win).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { Keypair, TransactionBuilder } from '@stellar/stellar-sdk';
import { startSimulator, type RunningSimulator } from '../simulator/index.ts';
import { dropRedisPrefix, dropSchema, pgUrl, redisUrl, uniqueName } from '../test-support/stores/backends.ts';
import { vi } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const BIN = path.join(ROOT, 'bin', 'credential-vault.js');

// ---- shared backends -------------------------------------------------------------------------------------------

export interface SharedBackends {
  schema: string;
  redisPrefix: string;
  /** postgres://… selecting the schema through search_path; `port` for a proxy in front. */
  databaseUrl(port?: number): string;
  /** redis://… with this file's key prefix; `port` for a proxy in front. */
  redisUrl(port?: number): string;
  /** Rows of a query in the schema. */
  query<T extends pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Drops the schema and every Redis key under the prefix. */
  drop(): Promise<void>;
}

/** A fresh PostgreSQL schema (created now, migrated by the services) and a fresh Redis key prefix. */
export async function sharedBackends(tag: string): Promise<SharedBackends> {
  const schema = uniqueName(`cv_scale_${tag}`);
  const redisPrefix = `${uniqueName(`cvscale${tag}`)}:`;
  const admin = new pg.Client({ connectionString: pgUrl() });
  await admin.connect();
  try {
    await admin.query(`CREATE SCHEMA ${schema}`);
  } finally {
    await admin.end();
  }
  return {
    schema,
    redisPrefix,
    databaseUrl: (port) => `${pgUrl(port)}?options=${encodeURIComponent(`-c search_path=${schema}`)}`,
    redisUrl: (port) => `${redisUrl(port)}?keyPrefix=${encodeURIComponent(redisPrefix)}`,
    async query(sql, params = []) {
      const client = new pg.Client({ connectionString: pgUrl(), options: `-c search_path=${schema}` });
      await client.connect();
      try {
        return (await client.query(sql, params)).rows;
      } finally {
        await client.end();
      }
    },
    async drop() {
      await dropSchema(schema);
      await dropRedisPrefix(redisPrefix);
    },
  };
}

export async function tempDataDir(): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'cv-scale-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** `kid:base64key`, as CV_ENCRYPTION_KEYS takes it; instances behind one balancer share it. */
export function encryptionKeys(): string {
  return `scale:${randomBytes(32).toString('base64')}`;
}

// ---- the simulator ---------------------------------------------------------------------------------------------

export interface TestChain {
  running: RunningSimulator;
  url: string;
  passphrase: string;
  /** The flags that point `serve` at this simulator's testnet. */
  flags(rpcUrl?: string): string[];
  /** Calls of a JSON-RPC method so far (testnet). */
  calls(method: string): number;
  /** Hashes of the transactions sendTransaction received (testnet). */
  sent: string[];
  /** Delays a method by `ms` before it runs (0 removes the delay). */
  slow(method: string, ms: number): void;
  fund(kp?: Keypair): Keypair;
  /** The account's sequence number on the ledger. */
  sequence(account: string): bigint | undefined;
  sign(envelope: string, kp: Keypair): string;
  close(): Promise<void>;
}

export async function startTestChain(): Promise<TestChain> {
  const running = await startSimulator({ port: 0 });
  const net = running.sim.network('testnet');
  const info = running.networks.testnet;
  const counts = new Map<string, number>();
  const delays = new Map<string, number>();
  const sent: string[] = [];
  const rpc = net.rpc;
  // The HTTP server calls net.rpc for every JSON-RPC request: wrapping it counts what reached the chain.
  (net as unknown as { rpc: typeof rpc }).rpc = async (method, params) => {
    counts.set(method, (counts.get(method) ?? 0) + 1);
    if (method === 'sendTransaction') {
      const envelope = (params as { transaction?: string } | undefined)?.transaction;
      if (envelope)
        sent.push(Buffer.from(TransactionBuilder.fromXdr(envelope, info.passphrase).hash()).toString('hex'));
    }
    const ms = delays.get(method);
    if (ms) await new Promise((r) => setTimeout(r, ms));
    return rpc(method, params);
  };
  return {
    running,
    url: running.url,
    passphrase: info.passphrase,
    flags: (rpcUrl = info.rpcUrl!) => [
      '--simulator',
      'false',
      '--testnet-rpc-url',
      rpcUrl,
      '--testnet-passphrase',
      info.passphrase,
      '--testnet-factory-id',
      info.factoryId,
      '--testnet-registry-id',
      info.registryId,
      '--testnet-vault-wasm-hash',
      info.vaultWasmHash,
      '--testnet-fee-token-id',
      info.feeTokenId,
      '--testnet-simulation-account',
      info.admin.publicKey,
    ],
    calls: (method) => counts.get(method) ?? 0,
    sent,
    slow: (method, ms) => void delays.set(method, ms),
    fund(kp = Keypair.random()) {
      net.friendbot(kp.publicKey());
      return kp;
    },
    sequence: (account) => net.account(account)?.seqNum,
    sign(envelope, kp) {
      const tx = TransactionBuilder.fromXdr(envelope, info.passphrase);
      tx.sign(kp);
      return tx.toXdr();
    },
    close: () => running.close(),
  };
}

// ---- processes -------------------------------------------------------------------------------------------------

/** The parent's environment without any credential-vault setting, so only the flags configure a child. */
function childEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const k of Object.keys(env)) {
    if (k.startsWith('CV_') || k === 'DATABASE_URL' || k === 'REDIS_URL') delete env[k];
  }
  return env;
}

export interface ApiProcess {
  url: string;
  child: ChildProcess;
  /** Everything the process wrote, for failure messages. */
  output(): string;
  /** SIGTERM (graceful close), SIGKILL after 5 s. */
  stop(): Promise<void>;
}

const live = new Set<ChildProcess>();
// A worker that dies mid-test must not leave servers behind.
process.once('exit', () => {
  for (const c of live) c.kill('SIGKILL');
});

/**
 * `credential-vault serve --network testnet --port 0 …flags`; resolves once it printed its URL and answers
 * GET /health.
 */
export async function startApi(flags: string[], timeoutMs = 30_000): Promise<ApiProcess> {
  const child = spawn(
    process.execPath,
    [BIN, 'serve', '--network', 'testnet', '--host', '127.0.0.1', '--port', '0', ...flags],
    {
      cwd: ROOT,
      env: childEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  live.add(child);
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) =>
    child.once('exit', () => {
      live.delete(child);
      resolve();
    }),
  );
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`serve did not start within ${timeoutMs} ms:\n${out}`)),
        timeoutMs,
      );
      const look = () => {
        const m = /vault API testnet\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      };
      child.stdout!.on('data', look);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`serve exited with ${code}:\n${out}`));
      });
    });
    const health = await request(url, '/health');
    if (health.status !== 200) throw new Error(`GET /health answered ${health.status}: ${health.text}`);
    return { url, child, output: () => out, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** `credential-vault <args>` to completion; stdout, stderr and the exit code. */
export function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: ROOT,
      env: childEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `keys create` through the operator CLI; `store` is `--database-url …` or `--data-dir …`. */
export async function cliKey(
  store: string[],
  wallet: string,
  role: 'standard' | 'early' | 'admin' = 'standard',
): Promise<string> {
  const r = await runCli(['keys', 'create', '--network', 'testnet', '--wallet', wallet, '--role', role, ...store]);
  if (r.code !== 0) throw new Error(`keys create exited with ${r.code}: ${r.stderr}`);
  const created = JSON.parse(r.stdout) as { key: string };
  return created.key;
}

// ---- HTTP ------------------------------------------------------------------------------------------------------

export interface Answer {
  status: number;
  headers: Headers;
  /** The body exactly as sent. */
  text: string;
  body: any;
}

export interface RequestOptions {
  key?: string;
  body?: unknown;
  method?: string;
  idempotencyKey?: string;
}

export async function request(base: string, p: string, o: RequestOptions = {}): Promise<Answer> {
  const headers: Record<string, string> = {};
  if (o.key) headers['x-svc-key'] = o.key;
  if (o.idempotencyKey) headers['idempotency-key'] = o.idempotencyKey;
  let body: string | undefined;
  if (o.body !== undefined) {
    body = JSON.stringify(o.body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(base + p, {
    method: o.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    ...(body !== undefined ? { body } : {}),
  });
  const text = await res.text();
  let parsed: unknown = text;
  if ((res.headers.get('content-type') ?? '').includes('json') && text) parsed = JSON.parse(text);
  return { status: res.status, headers: res.headers, text, body: parsed };
}

/** A short description of an answer for assertion messages. */
export const show = (a: Answer) => `${a.status} ${a.text.slice(0, 300)}`;

/** GET /auth/challenge on one instance, signed by the wallet (the SDK's transaction signing). */
export async function signedChallenge(base: string, wallet: Keypair): Promise<string> {
  const c = await request(base, `/auth/challenge?account=${wallet.publicKey()}`);
  if (c.status !== 200) throw new Error(`GET /auth/challenge: ${show(c)}`);
  const tx = TransactionBuilder.fromXdr(c.body.transaction as string, c.body.network_passphrase as string);
  tx.sign(wallet);
  return tx.toXdr();
}

/** POST /auth/keys with a signed challenge. */
export const redeemChallenge = (base: string, transaction: string) =>
  request(base, '/auth/keys', { body: { transaction } });

/** Retries `op` until `ok` holds: recovery is the service's own doing, the test only waits. */
export async function eventually(
  op: () => Promise<Answer>,
  ok: (a: Answer) => boolean,
  timeoutMs = 15_000,
): Promise<Answer> {
  // The last answer, when none was ok in time: the caller's assertion then says what it was.
  let last: Answer | undefined;
  try {
    return await vi.waitFor(
      async () => {
        last = await op();
        if (!ok(last)) throw new Error('not yet');
        return last;
      },
      { timeout: timeoutMs, interval: 200 },
    );
  } catch (err) {
    if (last === undefined) throw err;
    return last;
  }
}
