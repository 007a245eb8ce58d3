// What only the file store must prove: another process (the keys CLI) writing while the server runs,
// the lock's stale-lock recovery, durability on disk and purging.
import { spawn, spawnSync } from 'node:child_process';
import { readFile, readdir, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_FILE, KEYS_FILE, createFileIdempotencyStore, createFileKeyStore } from './file.ts';
import { LockTimeoutError, withFileLock } from './file-lock.ts';
import { manualClock, tempDir } from './testing/backends.ts';
import { IDEMPOTENCY_TTL_MS, StoreUnavailableError } from './types.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHILD = path.join(ROOT, 'src/stores/testing/file-child.ts');

interface Child {
  ready: Promise<void>;
  go(): void;
  output: Promise<string>;
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
  const output = new Promise<string>((resolve, reject) =>
    child.on('exit', (code) => (code === 0 ? resolve(out.replace(/^ready\n/, '')) : reject(new Error(`child failed: ${err}`)))),
  );
  return { ready, go: () => child.stdin.end('go\n'), output };
}

let dir = '';
let remove = async () => {};
beforeAll(async () => {
  ({ dir, remove } = await tempDir());
});
afterAll(() => remove());

describe('file store across processes', () => {
  it('a key created by another process works at once on a running store instance', async () => {
    const keys = createFileKeyStore({ dataDir: dir });
    const mine = await keys.create({ walletAddress: 'GPARENT', network: 'testnet', role: 'standard', scopes: [], expiresAt: null });
    expect(await keys.findByKey(mine.key)).toBeDefined(); // the instance has the file cached now

    const created = JSON.parse(await runChild(['create-key', dir, 'GCHILD']).output) as { key: string };
    expect((await keys.findByKey(created.key))?.walletAddress).toBe('GCHILD');
    expect(await keys.findByKey(mine.key)).toBeDefined();
  });

  it('20 concurrent begin() from three processes: exactly one starts', async () => {
    const children = [runChild(['begin', dir, 'race', 'xproc', '7']), runChild(['begin', dir, 'race', 'xproc', '7'])];
    await Promise.all(children.map((c) => c.ready));
    const store = createFileIdempotencyStore({ dataDir: dir });
    children.forEach((c) => c.go());
    const mine = await Promise.all(
      Array.from({ length: 6 }, () => store.begin({ scope: 'race', key: 'xproc', requestHash: 'h' })),
    );
    const theirs = (await Promise.all(children.map((c) => c.output))).flatMap((o) => JSON.parse(o) as string[]);
    const states = [...mine.map((r) => r.state), ...theirs];
    expect(states).toHaveLength(20);
    expect(states.filter((s) => s === 'started')).toHaveLength(1);
  });
});

describe('key lookups between checks of the file', () => {
  const input = (wallet: string) => ({ walletAddress: wallet, network: 'testnet' as const, role: 'standard' as const, scopes: [], expiresAt: null });
  /** A server's store with a manual monotonic clock, and the CLI's store (another instance: its own cached copy). */
  async function setup(keyRefreshMs: number) {
    const { dir: d, remove: rm } = await tempDir();
    let t = 0;
    const server = createFileKeyStore({ dataDir: d, keyRefreshMs, monotonic: () => t });
    const cli = createFileKeyStore({ dataDir: d });
    return { server, cli, advance: (ms: number) => (t += ms), remove: rm };
  }

  it('a key revoked by another process stops working once keyRefreshMs has passed', async () => {
    const { server, cli, advance, remove: rm } = await setup(250);
    const { key, record } = await cli.create(input('GREVOKED'));
    expect(await server.findByKey(key)).toBeDefined();
    await cli.revoke(record.keyId);
    advance(249);
    expect(await server.findByKey(key)).toBeDefined(); // the documented delay
    advance(1);
    expect(await server.findByKey(key)).toBeUndefined();
    await rm();
  });

  it('with keyRefreshMs 0 a revocation by another process applies at once', async () => {
    const { server, cli, remove: rm } = await setup(0);
    const { key, record } = await cli.create(input('GZERO'));
    expect(await server.findByKey(key)).toBeDefined();
    await cli.revoke(record.keyId);
    expect(await server.findByKey(key)).toBeUndefined();
    await rm();
  });

  it('a key created by another process works at once, inside the window too', async () => {
    const { server, cli, remove: rm } = await setup(60_000);
    const first = await cli.create(input('GFIRST'));
    expect(await server.findByKey(first.key)).toBeDefined();
    const second = await cli.create(input('GSECOND'));
    expect((await server.findByKey(second.key))?.walletAddress).toBe('GSECOND');
    expect(await server.findByKey('cd'.repeat(32))).toBeUndefined();
    await rm();
  });

  it("the store's own revocation applies at once", async () => {
    const { server, remove: rm } = await setup(60_000);
    const { key, record } = await server.create(input('GOWN'));
    expect(await server.findByKey(key)).toBeDefined();
    expect(await server.revoke(record.keyId)).toBe(true);
    expect(await server.findByKey(key)).toBeUndefined();
    await rm();
  });
});

describe('file store on disk', () => {
  it('stores only hashes, with mode 0600, and no lock or temp file is left behind', async () => {
    const keys = createFileKeyStore({ dataDir: dir });
    const { key } = await keys.create({ walletAddress: 'GDISK', network: 'mainnet', role: 'standard', scopes: [], expiresAt: null });
    const file = path.join(dir, KEYS_FILE);
    expect(await readFile(file, 'utf8')).not.toContain(key);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect((await readdir(dir)).filter((f) => f.endsWith('.lock') || f.endsWith('.tmp'))).toEqual([]);
  });

  it('purges expired idempotency records from the file', async () => {
    const clock = manualClock();
    const { dir: own, remove: removeOwn } = await tempDir();
    // The journal drops expired records when it compacts; no slack, so the third line (one live record) compacts.
    const store = createFileIdempotencyStore({ dataDir: own, now: clock.now, compactSlack: 0 });
    const first = await store.begin({ scope: 's', key: 'purge-me', requestHash: 'h' });
    await store.complete('s', 'purge-me', (first as { token: string }).token, { status: 200, headers: {}, body: {} });
    expect(await readFile(path.join(own, IDEMPOTENCY_FILE), 'utf8')).toContain('purge-me');
    clock.advance(IDEMPOTENCY_TTL_MS);
    await store.begin({ scope: 's', key: 'other', requestHash: 'h' });
    expect(await readFile(path.join(own, IDEMPOTENCY_FILE), 'utf8')).not.toContain('purge-me');
    await store.close();
    await removeOwn();
  });

  it('a corrupt file makes the store unavailable rather than empty', async () => {
    const { dir: bad, remove: removeBad } = await tempDir();
    await writeFile(path.join(bad, KEYS_FILE), '{"version":1,"keys":[');
    const keys = createFileKeyStore({ dataDir: bad });
    await expect(keys.findByKey('ab'.repeat(32))).rejects.toMatchObject({ name: 'StoreUnavailableError', store: 'keys' });
    await removeBad();
  });
});

describe('file lock', () => {
  const lockPath = () => path.join(dir, 'test.lock');
  const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;

  it.each([
    { given: 'a lock of a process that has exited', holder: () => ({ pid: deadPid(), host: hostname(), token: 't' }), ageMs: 0 },
    { given: 'an old lock of a live process', holder: () => ({ pid: process.ppid, host: hostname(), token: 't' }), ageMs: 60_000 },
    { given: 'an old empty lock (writer crashed before writing)', holder: () => null, ageMs: 60_000 },
  ])('recovers $given', async ({ holder, ageMs }) => {
    const h = holder();
    await writeFile(lockPath(), h ? JSON.stringify(h) : '');
    const past = new Date(Date.now() - ageMs);
    await utimes(lockPath(), past, past);
    const started = Date.now();
    expect(await withFileLock(lockPath(), async () => 'ran', { staleMs: 10_000, timeoutMs: 3_000 })).toBe('ran');
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('waits for a live lock and gives up after its timeout', async () => {
    await writeFile(lockPath(), JSON.stringify({ pid: process.ppid, host: hostname(), token: 'live' }));
    await expect(withFileLock(lockPath(), async () => 'ran', { timeoutMs: 200 })).rejects.toBeInstanceOf(LockTimeoutError);
    const keys = createFileKeyStore({ dataDir: dir, lock: { timeoutMs: 200 } });
    await writeFile(path.join(dir, `${KEYS_FILE}.lock`), JSON.stringify({ pid: process.ppid, host: hostname(), token: 'live' }));
    const create = keys.create({ walletAddress: 'GLOCKED', network: 'testnet', role: 'standard', scopes: [], expiresAt: null });
    await expect(create).rejects.toBeInstanceOf(StoreUnavailableError);
    await unlink(path.join(dir, `${KEYS_FILE}.lock`));
    await unlink(lockPath());
    // Reads take no lock: the running server keeps authenticating while the CLI holds it.
    expect(await keys.list()).toBeDefined();
  });

  it('serializes holders in one process and across store instances', async () => {
    let inside = 0;
    let overlap = false;
    await Promise.all(
      Array.from({ length: 10 }, () =>
        withFileLock(lockPath(), async () => {
          inside++;
          if (inside > 1) overlap = true;
          await new Promise((r) => setTimeout(r, 2));
          inside--;
        }),
      ),
    );
    expect(overlap).toBe(false);
  });
});
