// A cross-process lock and atomic JSON files, so the `credential-vault keys` CLI can write the data
// directory while the server runs.
//
// Lock: exclusive creation (O_EXCL) of `<file>.lock` holding {pid, host, token}. A lock is stale when its
// process is gone (same host) or it is older than staleMs; it is broken by renaming it aside first, so two
// processes breaking the same stale lock cannot both win. Within a process a promise queue per lock path
// serializes callers, so the process never waits for its own lock file.
// Files: write to a unique temp file, fsync, rename over the target, fsync the directory.
import { randomBytes, randomUUID } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import { link, mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';

export interface LockOptions {
  /** A lock older than this is broken even if its process seems alive (default 10 s; holds last ms). */
  staleMs?: number;
  /** Give up after this long (default 5 s). */
  timeoutMs?: number;
}

export class LockTimeoutError extends Error {
  override readonly name = 'LockTimeoutError';
}

const queues = new Map<string, Promise<unknown>>();

/** Runs fn while holding the lock at lockPath, in this process and across processes. */
export async function withFileLock<T>(file: string, fn: () => Promise<T>, options: LockOptions = {}): Promise<T> {
  const lockPath = path.resolve(file);
  const previous = queues.get(lockPath) ?? Promise.resolve();
  const run = previous.then(
    () => holdLock(lockPath, fn, options),
    () => holdLock(lockPath, fn, options),
  );
  const tail = run.catch(() => undefined);
  queues.set(lockPath, tail);
  void tail.then(() => {
    if (queues.get(lockPath) === tail) queues.delete(lockPath);
  });
  return run;
}

async function holdLock<T>(lockPath: string, fn: () => Promise<T>, options: LockOptions): Promise<T> {
  const token = await acquire(lockPath, options);
  try {
    return await fn();
  } finally {
    await releaseLock(lockPath, token);
  }
}

interface LockContent {
  pid: number;
  host: string;
  token: string;
}

async function acquire(lockPath: string, options: LockOptions): Promise<string> {
  const staleMs = options.staleMs ?? 10_000;
  const deadline = Date.now() + (options.timeoutMs ?? 5_000);
  const token = randomUUID();
  const content = JSON.stringify({ pid: process.pid, host: hostname(), token } satisfies LockContent);
  let delay = 1;
  for (;;) {
    try {
      const fh = await open(lockPath, fsConstants.O_CREAT | fsConstants.O_EXCL | fsConstants.O_WRONLY, 0o600);
      try {
        await fh.writeFile(content);
      } finally {
        await fh.close();
      }
      return token;
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') {
        await mkdir(path.dirname(lockPath), { recursive: true, mode: 0o700 });
        continue;
      }
      if (code !== 'EEXIST') throw err;
    }
    if (await breakIfStale(lockPath, staleMs)) continue;
    if (Date.now() > deadline) throw new LockTimeoutError(`lock ${lockPath} held for too long`);
    await new Promise((resolve) => setTimeout(resolve, delay + Math.random() * delay));
    delay = Math.min(delay * 2, 50);
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True when the lock is gone or was broken (retry at once); false when it is live. */
async function breakIfStale(lockPath: string, staleMs: number): Promise<boolean> {
  let before;
  let holder: Partial<LockContent> = {};
  try {
    before = await stat(lockPath);
    const text = await readFile(lockPath, 'utf8');
    if (text) holder = JSON.parse(text) as Partial<LockContent>;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
    if (!(err instanceof SyntaxError)) throw err;
  }
  const dead = holder.host === hostname() && typeof holder.pid === 'number' && holder.pid !== process.pid && !processAlive(holder.pid);
  const old = Date.now() - before!.mtimeMs > staleMs;
  if (!dead && !old) return false;
  const aside = `${lockPath}.stale.${randomBytes(6).toString('hex')}`;
  try {
    await rename(lockPath, aside);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw err;
  }
  const moved = await stat(aside);
  if (moved.ino !== before!.ino) {
    // Another process took the lock between our look and the rename: put its lock back.
    await link(aside, lockPath).catch(() => undefined);
  }
  await unlink(aside).catch(() => undefined);
  return true;
}

async function releaseLock(lockPath: string, token: string): Promise<void> {
  try {
    const text = await readFile(lockPath, 'utf8');
    if ((JSON.parse(text) as LockContent).token === token) await unlink(lockPath);
  } catch {
    // Already broken by another process as stale: nothing of ours to remove.
  }
}

/** Identity of a file version; rename always gives a new inode, so a change of any field means reload. */
interface Version {
  ino: number;
  size: number;
  mtimeMs: number;
}

/** A JSON document on disk with a parsed copy that is reused while the file is unchanged. */
export class JsonFile<T> {
  private cached: { version: Version; value: T } | undefined;

  readonly filePath: string;
  private readonly parse: (raw: unknown) => T;
  private readonly empty: () => T;
  private readonly mode: number;
  constructor(
    filePath: string,
    parse: (raw: unknown) => T,
    empty: () => T,
    mode = 0o600,
  ) {
    this.filePath = filePath;
    this.parse = parse;
    this.empty = empty;
    this.mode = mode;
  }

  /** The current document; a missing file is the empty document. Do not mutate the result. */
  async read(): Promise<T> {
    let fh;
    try {
      fh = await open(this.filePath, 'r');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
        this.cached = undefined;
        return this.empty();
      }
      throw err;
    }
    try {
      const st = await fh.stat();
      const version = { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs };
      if (this.cached && sameVersion(this.cached.version, version)) return this.cached.value;
      const text = await fh.readFile('utf8');
      const value = this.parse(JSON.parse(text) as unknown);
      this.cached = { version, value };
      return value;
    } finally {
      await fh.close();
    }
  }

  /** Replaces the document atomically and durably. */
  async write(value: T): Promise<void> {
    const dir = path.dirname(this.filePath);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const tmp = `${this.filePath}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    const fh = await open(tmp, 'w', this.mode);
    let version: Version;
    try {
      await fh.writeFile(JSON.stringify(value));
      await fh.sync();
      // The inode keeps its identity through the rename, so this is the version readers will see.
      const st = await fh.stat();
      version = { ino: st.ino, size: st.size, mtimeMs: st.mtimeMs };
    } catch (err) {
      await fh.close();
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
    await fh.close();
    try {
      await rename(tmp, this.filePath);
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
    await syncDir(dir);
    this.cached = { version, value };
  }
}

function sameVersion(a: Version, b: Version): boolean {
  return a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs;
}

async function syncDir(dir: string): Promise<void> {
  try {
    const fh = await open(dir, 'r');
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  } catch {
    // Not every platform can fsync a directory; the rename is still atomic.
  }
}
