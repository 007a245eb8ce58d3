// What only the embedded SQLite store must prove: other processes (the keys CLI) writing while the server
// runs, durability when the writer is killed (SIGKILL), the write lock's timeout, the one-time import of the
// former files, and purging. The contract every store keeps is in records.test.ts.
import { spawn } from 'node:child_process';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintKey } from './records.ts';
import {
  DB_FILE,
  FORMER_IDEMPOTENCY_FILE,
  FORMER_JOURNAL_FILE,
  FORMER_KEYS_FILE,
  MIGRATED_SUFFIX,
  createSqliteStores,
} from './sqlite.ts';
import { manualClock, tempDir } from '../../test-support/stores/backends.ts';
import { IDEMPOTENCY_TTL_MS, StoreUnavailableError, type CreatedKey } from './types.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHILD = path.join(ROOT, 'test-support/stores/sqlite-child.ts');

interface Child {
  ready: Promise<void>;
  go(): void;
  output: Promise<string>;
  kill(): void;
  exited: Promise<NodeJS.Signals | number | null>;
  stdout(): string;
}

function runChild(args: string[]): Child {
  const child = spawn(process.execPath, [CHILD, ...args], { cwd: ROOT });
  let out = '';
  let err = '';
  let markReady = () => {};
  const ready = new Promise<void>((resolve) => (markReady = resolve));
  child.stdout.on('data', (d: Buffer) => {
    out += d.toString();
    if (out.startsWith('ready\n')) markReady();
  });
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<NodeJS.Signals | number | null>((resolve) =>
    child.on('exit', (code, signal) => resolve(signal ?? code)),
  );
  const output = exited.then((code) =>
    code === 0 ? out.replace(/^ready\n/, '') : Promise.reject(new Error(`child failed (${code}): ${err}`)),
  );
  output.catch(() => undefined);
  return {
    ready,
    go: () => child.stdin.end('go\n'),
    output,
    kill: () => child.kill('SIGKILL'),
    exited,
    stdout: () => out,
  };
}

const standard = (wallet: string) => ({
  walletAddress: wallet,
  network: 'testnet' as const,
  role: 'standard' as const,
  scopes: [],
  expiresAt: null,
});

let dir = '';
let remove = async () => {};
beforeAll(async () => {
  ({ dir, remove } = await tempDir());
});
afterAll(() => remove());

describe('sqlite store across processes', () => {
  it('a key created by another process (the CLI) works at once on a running store; its revocation too', async () => {
    const server = createSqliteStores({ dataDir: dir });
    const mine = await server.keys.create(standard('GPARENT'));
    expect(await server.keys.findByKey(mine.key)).toBeDefined();

    const created = JSON.parse(await runChild(['create-key', dir, 'GCHILD']).output) as CreatedKey;
    expect((await server.keys.findByKey(created.key))?.walletAddress).toBe('GCHILD');
    expect(await server.keys.findByKey(mine.key)).toBeDefined();

    expect(JSON.parse(await runChild(['revoke-key', dir, created.record.keyId]).output)).toBe(true);
    expect(await server.keys.findByKey(created.key)).toBeUndefined();
    await server.close();
  });

  it('20 concurrent begin() from three processes: exactly one starts', async () => {
    const children = [runChild(['begin', dir, 'race', 'xproc', '7']), runChild(['begin', dir, 'race', 'xproc', '7'])];
    await Promise.all(children.map((c) => c.ready));
    const store = createSqliteStores({ dataDir: dir });
    children.forEach((c) => c.go());
    const mine = await Promise.all(
      Array.from({ length: 6 }, () => store.idempotency.begin({ scope: 'race', key: 'xproc', requestHash: 'h' })),
    );
    const theirs = (await Promise.all(children.map((c) => c.output))).flatMap((o) => JSON.parse(o) as string[]);
    const states = [...mine.map((r) => r.state), ...theirs];
    expect(states).toHaveLength(20);
    expect(states.filter((s) => s === 'started')).toHaveLength(1);
    await store.close();
  });

  it('two processes creating keys at the same time both succeed, and every key is kept', async () => {
    const child = runChild(['create-keys', dir, 'GCLI', '25']);
    const server = createSqliteStores({ dataDir: dir });
    for (let i = 0; i < 25; i++) await server.keys.create(standard(`GSERVER${i}`));
    const theirs = (await child.output).trim().split('\n');
    expect(theirs).toHaveLength(25);
    const wallets = (await server.keys.list()).map((k) => k.walletAddress);
    for (let i = 0; i < 25; i++) expect(wallets).toEqual(expect.arrayContaining([`GSERVER${i}`, `GCLI${i}`]));
    await server.close();
  });

  it('a key and a completed idempotency record survive their writer being killed (SIGKILL) right after the writes returned', async () => {
    const { dir: own, remove: removeOwn } = await tempDir();
    const child = runChild(['write-and-hang', own, 's', 'killed']);
    const line = await new Promise<string>((resolve, reject) => {
      const poll = setInterval(() => {
        if (child.stdout().includes('\n')) {
          clearInterval(poll);
          child.kill();
          resolve(child.stdout());
        }
      }, 5);
      void child.exited.then((code) => {
        clearInterval(poll);
        if (!child.stdout().includes('\n')) reject(new Error(`child exited (${code}) before writing`));
      });
    });
    expect(await child.exited).toBe('SIGKILL');
    const created = JSON.parse(line) as CreatedKey;
    const store = createSqliteStores({ dataDir: own });
    expect((await store.keys.findByKey(created.key))?.keyId).toBe(created.record.keyId);
    expect(await store.idempotency.begin({ scope: 's', key: 'killed', requestHash: 'h' })).toEqual({
      state: 'replay',
      response: { status: 201, headers: { 'content-type': 'application/json' }, body: { survived: true } },
    });
    await store.close();
    await removeOwn();
  });
});

describe('sqlite store on disk', () => {
  it('one database in WAL mode, mode 0600, holding only key hashes', async () => {
    const { dir: own, remove: removeOwn } = await tempDir();
    const store = createSqliteStores({ dataDir: own });
    const { key } = await store.keys.create(standard('GDISK'));
    const file = path.join(own, DB_FILE);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await stat(`${file}-wal`)).mode & 0o777).toBe(0o600);
    const raw = new DatabaseSync(file, { readOnly: true });
    expect(raw.prepare('PRAGMA journal_mode').get()).toMatchObject({ journal_mode: 'wal' });
    expect(JSON.stringify(raw.prepare('SELECT * FROM api_keys').all())).not.toContain(key);
    raw.close();
    await store.close();
    await removeOwn();
  });

  it('a statement run again (prepared once) still answers rows for reads and changes for writes', async () => {
    // run1 remembers per SQL text whether it returns rows: a write must keep its rowCount, a read its rows.
    const { dir: own, remove: removeOwn } = await tempDir();
    const store = createSqliteStores({ dataDir: own });
    const a = await store.keys.create(standard('GREUSEA'));
    const b = await store.keys.create(standard('GREUSEB'));
    for (let i = 0; i < 3; i++) {
      expect((await store.keys.lookup(a.key))?.record.keyId).toBe(a.record.keyId);
      expect((await store.keys.lookup(b.key))?.record.keyId).toBe(b.record.keyId);
    }
    expect(await store.keys.revoke(a.record.keyId)).toBe(true);
    expect(await store.keys.revoke(a.record.keyId)).toBe(false);
    expect(await store.keys.revoke(b.record.keyId)).toBe(true);
    expect((await store.keys.lookup(a.key))?.state).toBe('revoked');
    expect((await store.keys.lookup(b.key))?.state).toBe('revoked');
    await store.close();
    await removeOwn();
  });

  it('a write waits for another process holding the write lock, then answers unavailable; reads go on', async () => {
    const { dir: own, remove: removeOwn } = await tempDir();
    const store = createSqliteStores({ dataDir: own, busyTimeoutMs: 200 });
    const { key } = await store.keys.create(standard('GBEFORE'));
    const other = new DatabaseSync(path.join(own, DB_FILE));
    other.exec('BEGIN IMMEDIATE');
    try {
      const started = Date.now();
      await expect(store.keys.create(standard('GBLOCKED'))).rejects.toMatchObject({
        name: 'StoreUnavailableError',
        store: 'keys',
      });
      expect(Date.now() - started).toBeGreaterThanOrEqual(150);
      expect(await store.keys.findByKey(key)).toBeDefined();
    } finally {
      other.exec('ROLLBACK');
      other.close();
    }
    expect((await store.keys.create(standard('GAFTER'))).record.walletAddress).toBe('GAFTER');
    await store.close();
    await removeOwn();
  });

  it('purges expired idempotency records on a later begin()', async () => {
    const clock = manualClock();
    const { dir: own, remove: removeOwn } = await tempDir();
    const store = createSqliteStores({ dataDir: own, now: clock.now });
    const first = await store.idempotency.begin({ scope: 's', key: 'purge-me', requestHash: 'h' });
    await store.idempotency.complete('s', 'purge-me', (first as { token: string }).token, {
      status: 200,
      headers: {},
      body: {},
    });
    clock.advance(IDEMPOTENCY_TTL_MS + 60_000);
    await store.idempotency.begin({ scope: 's', key: 'other', requestHash: 'h' });
    await store.close(); // waits for the purge
    const raw = new DatabaseSync(path.join(own, DB_FILE), { readOnly: true });
    expect(
      raw
        .prepare('SELECT key FROM idempotency_records')
        .all()
        .map((r) => r.key),
    ).toEqual(['other']);
    raw.close();
    await removeOwn();
  });

  it('a data directory that cannot be created makes the store unavailable, not empty', async () => {
    const { dir: own, remove: removeOwn } = await tempDir();
    await writeFile(path.join(own, 'a-file'), '');
    const store = createSqliteStores({ dataDir: path.join(own, 'a-file', 'data') });
    await expect(store.keys.findByKey('ab'.repeat(32))).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(await store.health()).toBe(false);
    await store.close();
    await removeOwn();
  });
});

describe('import of the former files at first start', () => {
  const T = Date.parse('2026-07-01T00:00:00Z');
  const record = (key: string, expiresAtMs: number, body: unknown) => ({
    scope: 's',
    key,
    requestHash: 'h',
    token: `t-${key}`,
    state: 'completed',
    response: JSON.stringify({ status: 200, headers: {}, body }),
    createdAtMs: T,
    expiresAtMs,
  });

  it('imports keys and live idempotency records once, then renames the files .migrated', async () => {
    const { dir: own, remove: removeOwn } = await tempDir();
    const active = mintKey(standard('GOLD'), T);
    const revoked = mintKey(standard('GOLDER'), T - 1000);
    revoked.record.revokedAt = new Date(T).toISOString();
    await writeFile(
      path.join(own, FORMER_KEYS_FILE),
      JSON.stringify({ version: 1, keys: [revoked.record, active.record] }),
    );
    await writeFile(
      path.join(own, FORMER_IDEMPOTENCY_FILE),
      JSON.stringify({
        version: 1,
        records: [record('whole', T + IDEMPOTENCY_TTL_MS, 'from whole file'), record('expired', T - 1, 'gone')],
      }),
    );
    const journal = [
      { put: record('journal', T + IDEMPOTENCY_TTL_MS, 'from journal') },
      { put: record('deleted', T + IDEMPOTENCY_TTL_MS, 'deleted later') },
      { del: ['s', 'deleted'] },
    ];
    // A torn last line, as a crash mid-append left it.
    await writeFile(
      path.join(own, FORMER_JOURNAL_FILE),
      `${journal.map((e) => JSON.stringify(e)).join('\n')}\n{"put":{"sco`,
    );

    const store = createSqliteStores({ dataDir: own, now: () => T + 1 });
    expect((await store.keys.findByKey(active.key))?.walletAddress).toBe('GOLD');
    expect((await store.keys.lookup(revoked.key))?.state).toBe('revoked');
    const begin = (key: string) => store.idempotency.begin({ scope: 's', key, requestHash: 'h' });
    expect(await begin('whole')).toMatchObject({ state: 'replay', response: { body: 'from whole file' } });
    expect(await begin('journal')).toMatchObject({ state: 'replay', response: { body: 'from journal' } });
    expect(await begin('deleted')).toMatchObject({ state: 'started' });
    expect(await begin('expired')).toMatchObject({ state: 'started' });
    await store.close();

    const files = (await readdir(own)).sort();
    expect(files).toEqual(
      expect.arrayContaining(
        [FORMER_KEYS_FILE, FORMER_IDEMPOTENCY_FILE, FORMER_JOURNAL_FILE].map((f) => f + MIGRATED_SUFFIX),
      ),
    );
    expect(files).not.toEqual(expect.arrayContaining([FORMER_KEYS_FILE]));
    // A second start finds nothing to import and keeps what the first one did.
    const again = createSqliteStores({ dataDir: own, now: () => T + 2 });
    expect((await again.keys.list({ includeRevoked: true })).map((k) => k.walletAddress)).toEqual(['GOLDER', 'GOLD']);
    await again.close();
    await removeOwn();
  });

  it.each([
    { name: 'a keys file that is not JSON', file: FORMER_KEYS_FILE, text: '{"version":1,"keys":[' },
    { name: 'a journal damaged in the middle', file: FORMER_JOURNAL_FILE, text: '{"put":{"sco\n{"del":["s","k"]}\n' },
  ])('$name makes the store unavailable and is left in place', async ({ file, text }) => {
    const { dir: own, remove: removeOwn } = await tempDir();
    await writeFile(path.join(own, file), text);
    const store = createSqliteStores({ dataDir: own });
    await expect(store.keys.list()).rejects.toBeInstanceOf(StoreUnavailableError);
    expect(await readFile(path.join(own, file), 'utf8')).toBe(text);
    await store.close();
    await removeOwn();
  });
});
