// What the idempotency journal (the file store's idempotency records) must prove beyond the shared store
// contract (records.test.ts): torn last lines, several stores on one directory, compaction, reload after
// another process compacted, migration from the whole-file format, O(new bytes) per operation, durability
// once complete() returned, and I/O failures as StoreUnavailableError with recovery.
import { spawn } from 'node:child_process';
import * as fsp from 'node:fs/promises';
import { appendFile, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_FILE, LEGACY_IDEMPOTENCY_FILE, createFileIdempotencyStore, type FileIdempotencyOptions, type FileIdempotencyStore } from './file.ts';
import type { JournalFs } from './idempotency-journal.ts';
import type { IdempotencyRecord } from './records.ts';
import { manualClock, tempDir } from './testing/backends.ts';
import { IDEMPOTENCY_LEASE_MS, IDEMPOTENCY_TTL_MS, StoreUnavailableError, type BeginResult, type StoredResponse } from './types.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CHILD = path.join(ROOT, 'src/stores/testing/file-child.ts');

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function newDir(): Promise<string> {
  const { dir, remove } = await tempDir();
  cleanups.push(remove);
  return dir;
}

function open(dir: string, extra: Partial<FileIdempotencyOptions> = {}): FileIdempotencyStore {
  const store = createFileIdempotencyStore({ dataDir: dir, ...extra });
  cleanups.push(() => store.close());
  return store;
}

const ok = (body: unknown, status = 200): StoredResponse => ({ status, headers: { 'content-type': 'application/json' }, body });
const tokenOf = (r: BeginResult): string => {
  if (r.state !== 'started') throw new Error(`expected started, got ${r.state}`);
  return r.token;
};
const journalPath = (dir: string) => path.join(dir, IDEMPOTENCY_FILE);
const journalLines = async (dir: string) => (await readFile(journalPath(dir), 'utf8')).split('\n').filter((l) => l !== '');

/** begin + complete with a 200. */
async function done(store: FileIdempotencyStore, key: string, body: unknown = { key }): Promise<void> {
  const token = tokenOf(await store.begin({ scope: 's', key, requestHash: 'h' }));
  expect(await store.complete('s', key, token, ok(body))).toBe(true);
}

/** Wraps node:fs/promises so every byte read through a file handle is counted. */
function countingFs(): { fs: JournalFs; bytesRead: () => number } {
  let bytes = 0;
  const wrap = (fh: fsp.FileHandle): fsp.FileHandle =>
    new Proxy(fh, {
      get(target, prop) {
        const value = Reflect.get(target, prop) as unknown;
        if (prop === 'read') {
          return async (...args: unknown[]) => {
            const r = await (target.read as (...a: unknown[]) => Promise<{ bytesRead: number }>).apply(target, args);
            bytes += r.bytesRead;
            return r;
          };
        }
        if (prop === 'readFile' || prop === 'readv' || prop === 'createReadStream' || prop === 'readLines') {
          throw new Error(`journal read through ${String(prop)}: not counted`);
        }
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  const fs: JournalFs = {
    ...fsp,
    open: (async (...args: Parameters<typeof fsp.open>) => wrap(await fsp.open(...args))) as typeof fsp.open,
    readFile: (async (...args: Parameters<typeof fsp.readFile>) => {
      const data = await fsp.readFile(...args);
      bytes += Buffer.byteLength(data);
      return data;
    }) as typeof fsp.readFile,
  };
  return { fs, bytesRead: () => bytes };
}

type Fault = 'stat' | 'write' | 'partial-write' | 'datasync';

/** node:fs/promises with switchable failures (EIO), as a failing disk gives. */
function faultyFs(): { fs: JournalFs; fail(f: Fault | undefined): void } {
  let fault: Fault | undefined;
  const eio = () => Object.assign(new Error('EIO: i/o error'), { code: 'EIO' });
  const wrap = (fh: fsp.FileHandle): fsp.FileHandle =>
    new Proxy(fh, {
      get(target, prop) {
        const value = Reflect.get(target, prop) as unknown;
        if (prop === 'write' && (fault === 'write' || fault === 'partial-write')) {
          return async (buf: Buffer, offset: number, length: number, position: number | null) => {
            if (fault === 'write') throw eio();
            // Half the line reaches the file, then the disk fails (ENOSPC, EIO).
            await target.write(buf, offset, Math.max(1, Math.floor(length / 2)), position);
            throw eio();
          };
        }
        if (prop === 'datasync' && fault === 'datasync') return async () => Promise.reject(eio());
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      },
    });
  const fs: JournalFs = {
    ...fsp,
    stat: (async (...args: Parameters<typeof fsp.stat>) => {
      if (fault === 'stat') throw eio();
      return fsp.stat(...args);
    }) as typeof fsp.stat,
    open: (async (...args: Parameters<typeof fsp.open>) => wrap(await fsp.open(...args))) as typeof fsp.open,
  };
  return { fs, fail: (f) => (fault = f) };
}

function legacyRecord(key: string, t: number, state: 'in_progress' | 'completed', expiresAtMs: number): IdempotencyRecord {
  return {
    scope: 's',
    key,
    requestHash: 'h',
    token: `tok-${key}`,
    state,
    ...(state === 'completed' ? { response: JSON.stringify(ok({ key })) } : {}),
    createdAtMs: t,
    expiresAtMs,
  };
}

describe('idempotency journal on disk', () => {
  it('writes one line per change, mode 0600, and leaves no lock or temp file', async () => {
    const dir = await newDir();
    const store = open(dir);
    await done(store, 'a');
    const token = tokenOf(await store.begin({ scope: 's', key: 'b', requestHash: 'h' }));
    await store.release('s', 'b', token);
    await store.release('s', 'b', token); // nothing left to release: no line
    expect(await store.begin({ scope: 's', key: 'a', requestHash: 'h' })).toMatchObject({ state: 'replay' }); // no line
    const lines = (await journalLines(dir)).map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(lines.map((l) => Object.keys(l)[0])).toEqual(['put', 'put', 'put', 'del']);
    expect(lines[3]).toEqual({ del: ['s', 'b'] });
    expect((await stat(journalPath(dir))).mode & 0o777).toBe(0o600);
    expect((await readdir(dir)).sort()).toEqual([IDEMPOTENCY_FILE]);
  });

  it.each([
    { given: 'an unterminated last line', tail: '{"put":{"scope":"s","key":"torn","requestHa' },
    { given: 'a terminated last line that does not parse', tail: '{"put":{"scope":"s","ke\n' },
    { given: 'a last line of NUL bytes (unflushed extent after a power loss)', tail: '\0'.repeat(40) },
  ])('ignores $given and cuts it off so the next line starts clean', async ({ tail }) => {
    const dir = await newDir();
    await done(open(dir), 'before');
    const goodSize = (await stat(journalPath(dir))).size;
    await appendFile(journalPath(dir), tail);

    const after = open(dir);
    expect(await after.begin({ scope: 's', key: 'before', requestHash: 'h' })).toEqual({ state: 'replay', response: ok({ key: 'before' }) });
    expect(after.stats().tornTails).toBe(1);
    expect((await stat(journalPath(dir))).size).toBe(goodSize);
    await done(after, 'after');

    const fresh = open(dir);
    expect((await fresh.begin({ scope: 's', key: 'after', requestHash: 'h' })).state).toBe('replay');
    expect((await fresh.begin({ scope: 's', key: 'torn', requestHash: 'h' })).state).toBe('started');
    expect(fresh.stats().tornTails).toBe(0);
  });

  it('a torn line appended by another process after this one loaded is cut off too', async () => {
    const dir = await newDir();
    const a = open(dir);
    await done(a, 'one');
    await appendFile(journalPath(dir), '{"put":{"sco');
    await done(a, 'two');
    expect(a.stats().tornTails).toBe(1);
    const fresh = open(dir);
    expect((await fresh.begin({ scope: 's', key: 'two', requestHash: 'h' })).state).toBe('replay');
    expect(fresh.stats().lines).toBe(4);
  });

  it('a damaged line followed by good lines makes the store unavailable rather than lose records', async () => {
    const dir = await newDir();
    await done(open(dir), 'x');
    const text = await readFile(journalPath(dir), 'utf8');
    await writeFile(journalPath(dir), `${text.slice(0, 20)}#${text.slice(21)}`);
    const err = await open(dir).begin({ scope: 's', key: 'y', requestHash: 'h' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect(err).toMatchObject({ store: 'idempotency', message: expect.stringMatching(/unreadable line at byte 0/) });
  });

  it('survives the process being killed (SIGKILL) right after complete() returned', async () => {
    const dir = await newDir();
    const child = spawn(process.execPath, [CHILD, 'complete-and-hang', dir, 's', 'killed'], { cwd: ROOT });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
    const line = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (d: Buffer) => {
        out += d.toString();
        if (out.includes('\n')) {
          child.kill('SIGKILL');
          resolve(out.trim());
        }
      });
      child.on('exit', () => reject(new Error(`child exited first: ${err}`)));
    });
    expect(line).toBe('completed');
    expect(await exited).toBe('SIGKILL');
    expect(await open(dir).begin({ scope: 's', key: 'killed', requestHash: 'h' })).toEqual({
      state: 'replay',
      response: { status: 201, headers: { 'content-type': 'application/json' }, body: { survived: true } },
    });
  });
});

describe('two stores on one data directory', () => {
  it("see each other's begin, complete and release at once", async () => {
    const dir = await newDir();
    const a = open(dir);
    const b = open(dir);
    const token = tokenOf(await a.begin({ scope: 's', key: 'shared', requestHash: 'h' }));
    expect(await b.begin({ scope: 's', key: 'shared', requestHash: 'h' })).toEqual({ state: 'in_progress' });
    expect(await b.begin({ scope: 's', key: 'shared', requestHash: 'other' })).toEqual({ state: 'mismatch' });
    expect(await a.complete('s', 'shared', token, ok({ n: 1 }))).toBe(true);
    expect(await b.begin({ scope: 's', key: 'shared', requestHash: 'h' })).toEqual({ state: 'replay', response: ok({ n: 1 }) });

    const t2 = tokenOf(await b.begin({ scope: 's', key: 'freed', requestHash: 'h' }));
    expect((await a.begin({ scope: 's', key: 'freed', requestHash: 'h' })).state).toBe('in_progress');
    // The token is the record's, whichever store instance hands it back.
    await a.release('s', 'freed', t2);
    expect((await b.begin({ scope: 's', key: 'freed', requestHash: 'h' })).state).toBe('started');
    // A 5xx completion by one store frees the key for the other.
    const t3 = tokenOf(await a.begin({ scope: 's', key: 'failed', requestHash: 'h' }));
    expect(await b.complete('s', 'failed', t3, ok({}, 502))).toBe(true);
    expect((await a.begin({ scope: 's', key: 'failed', requestHash: 'h' })).state).toBe('started');
  });

  it('compaction keeps live records and drops expired ones; a store that loaded before reloads the new file', async () => {
    const dir = await newDir();
    const clock = manualClock();
    const options = { now: clock.now, compactSlack: 9 };
    const a = open(dir, options);
    const b = open(dir, options);
    for (let i = 0; i < 5; i++) await done(a, `old-${i}`);
    const crashed = tokenOf(await a.begin({ scope: 's', key: 'old-lease', requestHash: 'h' }));
    clock.advance(60 * 60 * 1000);
    for (let i = 0; i < 3; i++) await done(a, `keep-${i}`);
    expect(a.stats()).toMatchObject({ lines: 17, compactions: 0 });
    expect((await b.begin({ scope: 's', key: 'keep-0', requestHash: 'h' })).state).toBe('replay'); // b has loaded this file
    const loadsBefore = b.stats().fullLoads;

    // The old-* responses expire: 17 lines for 3 live records, and the next line (18 > 2 × 4 + 9) compacts.
    clock.advance(IDEMPOTENCY_TTL_MS - 60 * 60 * 1000);
    const running = tokenOf(await a.begin({ scope: 's', key: 'running', requestHash: 'h' }));
    expect(a.stats()).toMatchObject({ lines: 4, records: 4, compactions: 1 });
    const keys = (await journalLines(dir)).map((l) => (JSON.parse(l) as { put: { key: string } }).put.key);
    expect(keys.sort()).toEqual(['keep-0', 'keep-1', 'keep-2', 'running']);
    await done(a, 'after');
    expect(a.stats()).toMatchObject({ lines: 6, compactions: 1 });

    // b still holds the old file's inode and offset: it notices and reloads once.
    expect(await b.begin({ scope: 's', key: 'keep-1', requestHash: 'h' })).toEqual({ state: 'replay', response: ok({ key: 'keep-1' }) });
    expect(b.stats().fullLoads).toBe(loadsBefore + 1);
    expect((await b.begin({ scope: 's', key: 'after', requestHash: 'h' })).state).toBe('replay');
    expect((await b.begin({ scope: 's', key: 'running', requestHash: 'h' })).state).toBe('in_progress');
    expect((await b.begin({ scope: 's', key: 'old-0', requestHash: 'h' })).state).toBe('started');
    expect(await b.complete('s', 'old-lease', crashed, ok({}))).toBe(false);
    expect(await b.complete('s', 'running', running, ok({ by: 'b' }))).toBe(true);
    expect(await a.begin({ scope: 's', key: 'running', requestHash: 'h' })).toEqual({ state: 'replay', response: ok({ by: 'b' }) });
    expect(b.stats().fullLoads).toBe(loadsBefore + 1);
  });

  it('two stores appending in turn keep one consistent journal (100 interleaved operations, compacting on the way)', async () => {
    const dir = await newDir();
    const stores = [open(dir, { compactSlack: 10 }), open(dir, { compactSlack: 10 })];
    await Promise.all(
      Array.from({ length: 50 }, async (_, i) => {
        const s = stores[i % 2]!;
        const token = tokenOf(await s.begin({ scope: 's', key: `k${i}`, requestHash: 'h' }));
        if (i % 5 === 0) await stores[(i + 1) % 2]!.release('s', `k${i}`, token);
        else expect(await stores[(i + 1) % 2]!.complete('s', `k${i}`, token, ok({ i }))).toBe(true);
      }),
    );
    const fresh = open(dir);
    for (let i = 0; i < 50; i++) {
      const r = await fresh.begin({ scope: 's', key: `k${i}`, requestHash: 'h' });
      if (i % 5 === 0) expect(r.state).toBe('started');
      else expect(r).toEqual({ state: 'replay', response: ok({ i }) });
    }
    expect(stores[0]!.stats().compactions + stores[1]!.stats().compactions).toBeGreaterThan(0);
  });
});

describe('migration from idempotency.json', () => {
  it('carries the live records of the old whole-file format into the journal, once', async () => {
    const dir = await newDir();
    const clock = manualClock();
    const t = clock.now();
    const records = [
      legacyRecord('kept', t - 1000, 'completed', t + IDEMPOTENCY_TTL_MS - 1000),
      legacyRecord('running', t - 1000, 'in_progress', t + IDEMPOTENCY_LEASE_MS - 1000),
      legacyRecord('expired', t - IDEMPOTENCY_TTL_MS - 5000, 'completed', t - 5000),
    ];
    await writeFile(path.join(dir, LEGACY_IDEMPOTENCY_FILE), JSON.stringify({ version: 1, records }));
    const store = open(dir, { now: clock.now });
    expect(await store.begin({ scope: 's', key: 'kept', requestHash: 'h' })).toEqual({ state: 'replay', response: ok({ key: 'kept' }) });
    expect(store.stats().migrated).toBe(2);
    expect(await store.begin({ scope: 's', key: 'running', requestHash: 'h' })).toEqual({ state: 'in_progress' });
    expect(await store.complete('s', 'running', 'tok-running', ok({ finished: true }))).toBe(true);
    expect((await store.begin({ scope: 's', key: 'expired', requestHash: 'h' })).state).toBe('started');
    expect(await readdir(dir)).not.toContain(LEGACY_IDEMPOTENCY_FILE);
    expect((await journalLines(dir)).length).toBe(4); // 2 migrated, 1 completion, 1 begin

    // A stale copy of the old file put back later is not loaded again while the journal exists.
    await writeFile(path.join(dir, LEGACY_IDEMPOTENCY_FILE), JSON.stringify({ version: 1, records: [legacyRecord('ghost', t, 'completed', t + 1000)] }));
    const again = open(dir, { now: clock.now });
    expect((await again.begin({ scope: 's', key: 'ghost', requestHash: 'h' })).state).toBe('started');
    expect(await again.begin({ scope: 's', key: 'running', requestHash: 'h' })).toEqual({ state: 'replay', response: ok({ finished: true }) });
  });

  it('an unreadable old file makes the store unavailable instead of dropping its records', async () => {
    const dir = await newDir();
    await writeFile(path.join(dir, LEGACY_IDEMPOTENCY_FILE), '{"version":1,"records":[');
    const err = await open(dir).begin({ scope: 's', key: 'k', requestHash: 'h' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect(await readdir(dir)).not.toContain(IDEMPOTENCY_FILE);
  });
});

describe('cost per operation', () => {
  it('on a journal of 10,000 records, an operation reads only the bytes appended since the last one', async () => {
    const dir = await newDir();
    const clock = manualClock();
    const t = clock.now();
    const records = Array.from({ length: 10_000 }, (_, i) => legacyRecord(`bulk-${i}`, t, 'completed', t + IDEMPOTENCY_TTL_MS));
    await writeFile(path.join(dir, LEGACY_IDEMPOTENCY_FILE), JSON.stringify({ version: 1, records }));
    await open(dir, { now: clock.now }).begin({ scope: 's', key: 'warm', requestHash: 'h' }); // migrates
    const size = (await stat(journalPath(dir))).size;
    expect(size).toBeGreaterThan(1_000_000);

    const counting = countingFs();
    const a = open(dir, { now: clock.now, fs: counting.fs });
    expect((await a.begin({ scope: 's', key: 'bulk-5000', requestHash: 'h' })).state).toBe('replay'); // first use: the whole file
    expect(counting.bytesRead()).toBe(size);

    const mark = () => {
      const at = counting.bytesRead();
      return () => counting.bytesRead() - at;
    };
    let read = mark();
    expect((await a.begin({ scope: 's', key: 'bulk-9999', requestHash: 'h' })).state).toBe('replay');
    expect(read()).toBe(0);
    read = mark();
    await done(a, 'mine'); // its own lines are not read back
    expect(read()).toBe(0);

    // Another store (another process) appends two lines: a's next operation reads exactly those.
    const b = open(dir, { now: clock.now });
    const before = (await stat(journalPath(dir))).size;
    await done(b, 'theirs');
    const appended = (await stat(journalPath(dir))).size - before;
    expect(appended).toBeLessThan(1_000);
    read = mark();
    expect(await a.begin({ scope: 's', key: 'theirs', requestHash: 'h' })).toEqual({ state: 'replay', response: ok({ key: 'theirs' }) });
    expect(read()).toBe(appended);
    expect(a.stats().fullLoads).toBe(1);
  });
});

describe('I/O failures', () => {
  it.each([
    { fault: 'stat' as const },
    { fault: 'write' as const },
    { fault: 'partial-write' as const },
    { fault: 'datasync' as const },
  ])('a failing disk ($fault) gives StoreUnavailableError, and the store recovers when it comes back', async ({ fault }) => {
    const dir = await newDir();
    const disk = faultyFs();
    const store = open(dir, { fs: disk.fs });
    await done(store, 'before');

    disk.fail(fault);
    const err = await store.begin({ scope: 's', key: 'during', requestHash: 'h' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreUnavailableError);
    expect(err).toMatchObject({ store: 'idempotency' });

    disk.fail(undefined);
    expect(await store.begin({ scope: 's', key: 'before', requestHash: 'h' })).toEqual({ state: 'replay', response: ok({ key: 'before' }) });
    // A begin whose line was written but not synced (datasync failed) may stand: its caller got a 503 and
    // the key frees itself after the lease. Otherwise nothing of it remains.
    expect((await store.begin({ scope: 's', key: 'during', requestHash: 'h' })).state).toBe(fault === 'datasync' ? 'in_progress' : 'started');
    await done(store, 'after');
    const fresh = open(dir);
    expect((await fresh.begin({ scope: 's', key: 'after', requestHash: 'h' })).state).toBe('replay');
    expect(fresh.stats().tornTails).toBe(0);
  });

  it('a failing complete() is unavailable, and a retry after recovery completes', async () => {
    const dir = await newDir();
    const disk = faultyFs();
    const store = open(dir, { fs: disk.fs });
    const token = tokenOf(await store.begin({ scope: 's', key: 'k', requestHash: 'h' }));
    disk.fail('write');
    await expect(store.complete('s', 'k', token, ok({ n: 1 }))).rejects.toBeInstanceOf(StoreUnavailableError);
    disk.fail(undefined);
    expect(await store.begin({ scope: 's', key: 'k', requestHash: 'h' })).toEqual({ state: 'in_progress' });
    expect(await store.complete('s', 'k', token, ok({ n: 1 }))).toBe(true);
    expect(await open(dir).begin({ scope: 's', key: 'k', requestHash: 'h' })).toEqual({ state: 'replay', response: ok({ n: 1 }) });
  });
});
