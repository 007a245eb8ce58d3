// The file store's idempotency records as an append-only journal (`idempotency.jsonl`) with an in-memory
// index, shared by every process that opens the same data directory.
//
// Format: one JSON object per line, `{"put":<IdempotencyRecord>}` (the whole record as it is now) or
// `{"del":[scope,key]}`. Replaying the lines in order gives the records; a later line wins.
//
// Every method is called with the journal's lock file held (file.ts takes it with withFileLock), so the
// file only grows between two calls, unless another process compacted it (a new inode) or someone cut it.
// sync() stats the path: same inode and a size at least the offset this process has read up to → it
// reads only the bytes appended since (O(new bytes)); otherwise it reloads the whole file. The decision is
// made on the map (records.ts), then append() writes one line with a single write and fdatasync()s before
// returning: a completed response survives the process being killed and the machine losing power once the
// call returned.
//
// Crash safety: a writer that dies mid-append leaves a torn last line (no newline, or one that does not
// parse). It is never an error: whoever reads it next (under the lock) ignores it and truncates the file
// back to the end of the last good line, so the next append starts on a line of its own. A bad line
// followed by good lines is not a torn write but a damaged file: that is an error (the store answers
// store_unavailable) rather than silently losing records.
//
// Compaction: when the file holds more than `ratio` × live records + `slack` lines, the live records are
// written to a temp file (fsync) that is renamed over the journal (and the directory fsynced); expired
// records are dropped there, and skipped when a file is loaded. Other processes see the new inode and
// reload. A failed compaction does not fail the operation that triggered it; it is retried `slack` lines later.
//
// Migration: when the journal does not exist but the former whole-file store's `idempotency.json`
// ({"version":1,"records":[…]}) does, its live records become the first journal, then it is deleted.
import { randomBytes } from 'node:crypto';
import * as nodeFs from 'node:fs/promises';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { purgeIn, recordId, type IdempotencyRecord } from './records.ts';

/** The file operations the journal uses; tests inject failing or counting ones. */
export type JournalFs = Pick<typeof nodeFs, 'open' | 'stat' | 'rename' | 'unlink' | 'mkdir' | 'readFile'>;

export type JournalEntry = { put: IdempotencyRecord } | { del: [scope: string, key: string] };

export interface JournalOptions {
  /** The journal file. */
  filePath: string;
  /** The former whole-file store, migrated once when the journal does not exist yet. */
  legacyPath?: string;
  fs?: JournalFs;
  /** Compact when lines > ratio × live records + slack (defaults 2 and 1,000). */
  compactRatio?: number;
  compactSlack?: number;
}

export interface JournalStats {
  /** Good lines in the current file. */
  lines: number;
  /** Records in the index (expired ones linger until the next purge). */
  records: number;
  /** Bytes of the file this process has read up to (the file's size after this process's last operation). */
  offset: number;
  /** Bytes read from journals since this journal object was created. */
  bytesRead: number;
  /** Loads of a whole file: first use, another process's compaction, recovery after an error. */
  fullLoads: number;
  compactions: number;
  compactionFailures: number;
  /** Torn last lines cut off. */
  tornTails: number;
  /** Records carried over from a legacy file. */
  migrated: number;
}

/** A line that does not parse is followed by lines that do: the file is damaged, not torn. */
export class JournalCorruptError extends Error {
  override readonly name = 'JournalCorruptError';
}

const CHUNK = 1 << 20;
const FILE_MODE = 0o600;
const DIR_MODE = 0o700;

function isRecord(r: unknown): r is IdempotencyRecord {
  if (typeof r !== 'object' || r === null) return false;
  const x = r as Record<string, unknown>;
  return (
    typeof x['scope'] === 'string' &&
    typeof x['key'] === 'string' &&
    typeof x['requestHash'] === 'string' &&
    typeof x['token'] === 'string' &&
    (x['state'] === 'in_progress' || x['state'] === 'completed') &&
    (x['response'] === undefined || typeof x['response'] === 'string') &&
    typeof x['createdAtMs'] === 'number' &&
    typeof x['expiresAtMs'] === 'number'
  );
}

/** The entry of a line, or undefined when it is not one. */
export function parseEntry(text: string): JournalEntry | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof raw !== 'object' || raw === null) return undefined;
  const e = raw as { put?: unknown; del?: unknown };
  if (e.put !== undefined) return isRecord(e.put) ? { put: e.put } : undefined;
  if (Array.isArray(e.del) && e.del.length === 2 && typeof e.del[0] === 'string' && typeof e.del[1] === 'string') {
    return { del: [e.del[0], e.del[1]] };
  }
  return undefined;
}

export function formatEntry(entry: JournalEntry): string {
  return `${JSON.stringify(entry)}\n`;
}

async function writeAll(fh: FileHandle, buf: Buffer): Promise<void> {
  let done = 0;
  while (done < buf.length) {
    const { bytesWritten } = await fh.write(buf, done, buf.length - done, null);
    if (bytesWritten <= 0) throw new Error('write wrote nothing');
    done += bytesWritten;
  }
}

export class IdempotencyJournal {
  readonly filePath: string;
  private readonly legacyPath: string | undefined;
  private readonly fs: JournalFs;
  private readonly ratio: number;
  private readonly slack: number;

  /** The index: replay of the file's lines (minus purged expired records). */
  private readonly records = new Map<string, IdempotencyRecord>();
  private fh: FileHandle | undefined;
  private ino = -1;
  private offset = 0;
  private lines = 0;
  /** After a failed compaction, none is tried again before the file has this many lines. */
  private compactFloor = 0;
  private readonly counters = { bytesRead: 0, fullLoads: 0, compactions: 0, compactionFailures: 0, tornTails: 0, migrated: 0 };

  constructor(options: JournalOptions) {
    this.filePath = path.resolve(options.filePath);
    this.legacyPath = options.legacyPath && path.resolve(options.legacyPath);
    this.fs = options.fs ?? nodeFs;
    this.ratio = options.compactRatio ?? 2;
    this.slack = options.compactSlack ?? 1_000;
  }

  stats(): JournalStats {
    return { lines: this.lines, records: this.records.size, offset: this.offset, ...this.counters };
  }

  /**
   * Under the lock: brings the index up to date with the file (creating or migrating it when missing)
   * and returns it. The caller changes it and append()s what it changed. `now` only decides which
   * records a whole-file load skips as expired.
   */
  async sync(now: number): Promise<Map<string, IdempotencyRecord>> {
    let st;
    try {
      st = await this.fs.stat(this.filePath);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    if (!st) await this.create(now);
    else if (!this.fh || st.ino !== this.ino || st.size < this.offset) await this.reload(now);
    else if (st.size > this.offset) await this.readRange(this.offset, st.size, undefined);
    return this.records;
  }

  /** Under the lock, after sync(): appends the entries as one write, durably, then compacts if due. */
  async append(entries: JournalEntry[], now: number): Promise<void> {
    if (entries.length === 0) return;
    const fh = this.fh;
    if (!fh) throw new Error('journal not synced');
    const buf = Buffer.from(entries.map(formatEntry).join(''));
    await writeAll(fh, buf);
    await fh.datasync();
    this.offset += buf.length;
    this.lines += entries.length;
    if (this.lines > this.ratio * this.records.size + this.slack && this.lines >= this.compactFloor) {
      await this.compact(now);
    }
  }

  /** Forgets everything read (after an error): the next sync() loads the whole file again. */
  async invalidate(): Promise<void> {
    const fh = this.fh;
    this.fh = undefined;
    this.ino = -1;
    this.offset = 0;
    this.lines = 0;
    this.records.clear();
    await fh?.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    await this.invalidate();
  }

  /** Rewrites the live records into a new file (under the lock). */
  private async compact(now: number): Promise<void> {
    purgeIn(this.records, now);
    try {
      await this.replaceWith(this.records.values());
      this.counters.compactions++;
      this.compactFloor = 0;
    } catch {
      // The append before it is durable: the operation stands. Try again a while later, from a fresh load
      // (the failure may have come after the rename).
      this.counters.compactionFailures++;
      const floor = this.lines + this.slack;
      await this.invalidate();
      this.compactFloor = floor;
    }
  }

  /** No journal yet: start one, from the legacy file's live records when there is one. */
  private async create(now: number): Promise<void> {
    await this.invalidate();
    let legacyText: string | undefined;
    if (this.legacyPath) {
      try {
        legacyText = await this.fs.readFile(this.legacyPath, 'utf8');
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
    if (legacyText !== undefined) {
      const doc = JSON.parse(legacyText) as { version?: unknown; records?: unknown };
      if (doc?.version !== 1 || !Array.isArray(doc.records)) throw new Error(`unrecognized ${path.basename(this.legacyPath!)}`);
      for (const r of doc.records as unknown[]) {
        if (!isRecord(r) || r.expiresAtMs <= now) continue;
        this.records.set(recordId(r.scope, r.key), { ...r });
      }
      this.counters.migrated += this.records.size;
    }
    await this.replaceWith(this.records.values());
    // Only once the journal holding its records is in place (a crash before this leaves both; the
    // journal wins and the next full load removes the legacy file).
    if (legacyText !== undefined) await this.removeLegacy();
  }

  /** Another process compacted (or someone replaced) the file: read it whole. */
  private async reload(now: number): Promise<void> {
    await this.invalidate();
    const fh = await this.fs.open(this.filePath, 'a+', FILE_MODE);
    this.fh = fh;
    const st = await fh.stat();
    this.ino = st.ino;
    this.counters.fullLoads++;
    await this.readRange(0, st.size, now);
    await this.removeLegacy();
  }

  /** Best effort: once the journal exists the legacy file is never read again, so one left behind is harmless. */
  private async removeLegacy(): Promise<void> {
    if (!this.legacyPath) return;
    await this.fs.unlink(this.legacyPath).catch(() => undefined);
  }

  /**
   * Applies the lines in [start, end) to the index. `expiredAt` (whole-file loads) skips records expired
   * by then. A torn tail is cut off; a bad line before a good one throws JournalCorruptError.
   */
  private async readRange(start: number, end: number, expiredAt: number | undefined): Promise<void> {
    const fh = this.fh!;
    const buf = Buffer.allocUnsafe(Math.max(1, Math.min(CHUNK, end - start)));
    let pos = start;
    /** End of the last good line (or blank line before any bad one). */
    let validEnd = start;
    let firstBad: number | undefined;
    /** An unfinished line carried over from the previous chunk, and where it starts in the file. */
    let carry: Buffer | undefined;
    let carryStart = start;
    while (pos < end) {
      const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, end - pos), pos);
      if (bytesRead === 0) break;
      this.counters.bytesRead += bytesRead;
      const fresh = buf.subarray(0, bytesRead);
      const data = carry ? Buffer.concat([carry, fresh]) : fresh;
      const dataStart = carry ? carryStart : pos;
      pos += bytesRead;
      let from = 0;
      for (;;) {
        const nl = data.indexOf(0x0a, from);
        if (nl < 0) break;
        const lineStart = dataStart + from;
        const text = data.toString('utf8', from, nl);
        from = nl + 1;
        if (text.trim() === '') {
          if (firstBad === undefined) validEnd = dataStart + from;
          continue;
        }
        const entry = parseEntry(text);
        if (!entry) {
          firstBad ??= lineStart;
          continue;
        }
        if (firstBad !== undefined) {
          throw new JournalCorruptError(`${path.basename(this.filePath)}: unreadable line at byte ${firstBad} followed by good lines`);
        }
        this.apply(entry, expiredAt);
        this.lines++;
        validEnd = dataStart + from;
      }
      carry = from < data.length ? Buffer.from(data.subarray(from)) : undefined;
      carryStart = dataStart + from;
    }
    if (validEnd < end) {
      // A writer died mid-append: its line never counted (its call did not return). Cut it off so the
      // next line starts clean.
      await fh.truncate(validEnd);
      await fh.datasync();
      this.counters.tornTails++;
    }
    this.offset = validEnd;
  }

  private apply(entry: JournalEntry, expiredAt: number | undefined): void {
    if ('put' in entry) {
      const r = entry.put;
      const id = recordId(r.scope, r.key);
      if (expiredAt !== undefined && r.expiresAtMs <= expiredAt) this.records.delete(id);
      else this.records.set(id, r);
    } else {
      this.records.delete(recordId(entry.del[0], entry.del[1]));
    }
  }

  /** Writes the records as a new file (temp, fsync, rename over the journal, fsync the directory) and switches to it. */
  private async replaceWith(records: Iterable<IdempotencyRecord>): Promise<void> {
    const dir = path.dirname(this.filePath);
    await this.fs.mkdir(dir, { recursive: true, mode: DIR_MODE });
    const tmp = `${this.filePath}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    const out = await this.fs.open(tmp, 'w', FILE_MODE);
    let count = 0;
    try {
      let batch: string[] = [];
      let size = 0;
      for (const r of records) {
        const line = formatEntry({ put: r });
        batch.push(line);
        size += line.length;
        count++;
        if (size >= CHUNK) {
          await writeAll(out, Buffer.from(batch.join('')));
          batch = [];
          size = 0;
        }
      }
      if (batch.length > 0) await writeAll(out, Buffer.from(batch.join('')));
      await out.sync();
    } catch (err) {
      await out.close().catch(() => undefined);
      await this.fs.unlink(tmp).catch(() => undefined);
      throw err;
    }
    await out.close();
    try {
      await this.fs.rename(tmp, this.filePath);
    } catch (err) {
      await this.fs.unlink(tmp).catch(() => undefined);
      throw err;
    }
    await this.syncDir(dir);
    const old = this.fh;
    this.fh = undefined;
    await old?.close().catch(() => undefined);
    const fh = await this.fs.open(this.filePath, 'a+', FILE_MODE);
    this.fh = fh;
    const st = await fh.stat();
    this.ino = st.ino;
    this.offset = st.size;
    this.lines = count;
  }

  private async syncDir(dir: string): Promise<void> {
    try {
      const fh = await this.fs.open(dir, 'r');
      try {
        await fh.sync();
      } finally {
        await fh.close();
      }
    } catch {
      // Not every platform can fsync a directory; the rename is still atomic.
    }
  }
}
