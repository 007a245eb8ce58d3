// One process per data directory (and per simulator state file). Two processes over one directory each believe
// they own the simulator's state file, its journal and the keyring, and the one that writes last loses what the
// other acknowledged. Node has no flock(2) and the project takes no native addons, so the lock is a lock file
// created atomically: written whole to a private temporary file, then hard-linked to its name, which fails when
// the name exists (link(2) is atomic, also over NFS), so the file under the name is never half-written.
//
// The file names its holder: PID, host, boot id and the process's start time. A lock whose holder is gone (kill -9,
// a crash, a reboot) is stale and taken over; a PID the kernel has since given to another process is told apart
// by its start time. Taking over goes through a second lock file (`<lock>.takeover`), so that of two processes
// that find one stale lock together only one removes it and the other then finds the new holder alive.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import os from 'node:os';

/** Who holds a lock, as its file says. */
export interface LockHolder {
  pid: number;
  host: string;
  /** Linux's /proc/sys/kernel/random/boot_id: another value means the machine restarted since. */
  bootId?: string;
  /** The process's start time as the system reports it (clock ticks since boot on Linux). */
  started?: string;
  /** The command line that took it, for the person who reads the refusal. */
  command: string;
  /** When it was taken (ISO 8601). */
  since: string;
  /** Unique per acquisition: release removes the file only while it still holds this one. */
  token: string;
}

/** What a lock check needs from the system; injected in tests (a dead PID, a reused PID, another host). */
export interface LockSystem {
  pid: number;
  host: string;
  bootId?: string;
  /** The start time of a live process, or undefined when it cannot be read. */
  startedOf(pid: number): string | undefined;
  /** Whether a process with this PID exists (it may belong to another user). */
  exists(pid: number): boolean;
  now(): number;
}

/** A second process found the lock held. */
export class LockHeldError extends Error {
  readonly holder: LockHolder;
  constructor(message: string, holder: LockHolder) {
    super(message);
    this.name = 'LockHeldError';
    this.holder = holder;
  }
}

export interface HeldLock {
  file: string;
  holder: LockHolder;
  /** Removes the lock file if it is still this acquisition's; idempotent. */
  release(): void;
}

export interface LockOptions {
  /** What the lock guards, for messages: `the data directory /srv/cv/data`. */
  what: string;
  /** How to run a second process instead: `or give it another data directory (CV_DATA_DIR, --data-dir)`. */
  hint: string;
  system?: LockSystem;
}

/**
 * Takes the lock `file` for this process, or throws LockHeldError naming the holder. A stale lock (its holder is
 * gone) is taken over. The lock is released by `release()`.
 */
export function acquireLock(file: string, options: LockOptions): HeldLock {
  const system = options.system ?? localSystem();
  const me: LockHolder = {
    pid: system.pid,
    host: system.host,
    ...(system.bootId ? { bootId: system.bootId } : {}),
    ...optional('started', system.startedOf(system.pid)),
    command: process.argv.slice(1).join(' ').slice(0, 200),
    since: new Date(system.now()).toISOString(),
    token: randomBytes(12).toString('hex'),
  };
  // Three rounds: each one either takes the lock, refuses, or removed a stale file that someone else then took.
  for (let round = 0; round < 3; round++) {
    if (createExclusive(file, me)) return held(file, me);
    const found = readHolder(file);
    if (found === 'absent') continue;
    if (found !== 'unreadable' && holderState(found, system) !== 'stale') throw refusal(found, options, system);
    takeOver(file, found, me, options, system);
  }
  const last = readHolder(file);
  if (typeof last === 'object') throw refusal(last, options, system);
  throw new Error(`could not take the lock ${file} for ${options.what}: it keeps changing hands`);
}

/** Removes the stale lock `seen` under the takeover lock; throws when another process is taking it over now. */
function takeOver(
  file: string,
  seen: LockHolder | 'unreadable',
  me: LockHolder,
  options: LockOptions,
  system: LockSystem,
): void {
  const guard = `${file}.takeover`;
  if (!createExclusive(guard, me)) {
    const other = readHolder(guard);
    if (typeof other === 'object' && holderState(other, system) !== 'stale') throw refusal(other, options, system);
    // The takeover lock's own holder died while taking over: remove it; the next round tries again.
    removeIf(guard, other);
    return;
  }
  try {
    // Still the stale file we judged (not a new holder that took it meanwhile): remove it.
    const now = readHolder(file);
    if (now === 'unreadable' || (typeof now === 'object' && typeof seen === 'object' && now.token === seen.token))
      removeIf(file, now);
  } finally {
    removeIf(guard, me);
  }
}

type HolderState = 'alive' | 'stale' | 'elsewhere';

/** Whether the holder still runs: on this host, in this boot, under its PID with its own start time. */
export function holderState(h: LockHolder, system: LockSystem): HolderState {
  if (h.host !== system.host) return 'elsewhere';
  if (h.bootId && system.bootId && h.bootId !== system.bootId) return 'stale';
  if (!system.exists(h.pid)) return 'stale';
  // The PID exists: the same process, unless the kernel gave the number to another one since (start time).
  const started = system.startedOf(h.pid);
  if (h.started && started && h.started !== started) return 'stale';
  return 'alive';
}

function refusal(h: LockHolder, options: LockOptions, system: LockSystem): LockHeldError {
  const since = `since ${h.since}: ${h.command}`;
  if (holderState(h, system) === 'elsewhere')
    return new LockHeldError(
      `${options.what} is in use by process ${h.pid} on host ${h.host} (${since}); stop it first, ${options.hint}. ` +
        'If that process is gone, remove the lock file by hand (this host cannot check another host’s processes).',
      h,
    );
  const who = h.pid === system.pid ? `this process (${h.pid})` : `process ${h.pid}`;
  return new LockHeldError(`${options.what} is in use by ${who} (${since}); stop it first, ${options.hint}`, h);
}

/** Writes the holder to a private temporary file, then links it to `file`: false when `file` exists. */
function createExclusive(file: string, me: LockHolder): boolean {
  const temp = `${file}.${me.pid}.${me.token}.tmp`;
  const fd = openSync(temp, 'wx', 0o600);
  try {
    writeSync(fd, `${JSON.stringify(me)}\n`);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(temp, file);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  } finally {
    unlinkSync(temp);
  }
}

function readHolder(file: string): LockHolder | 'absent' | 'unreadable' {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
    throw e;
  }
  try {
    const h = JSON.parse(text) as LockHolder;
    return Number.isInteger(h.pid) && typeof h.host === 'string' && typeof h.token === 'string' ? h : 'unreadable';
  } catch {
    // Never written by a holder (they link whole files): a torn copy or something else, not a live lock.
    return 'unreadable';
  }
}

/** Unlinks `file` if it still holds `expected` (by token), or is unreadable when that is what was expected. */
function removeIf(file: string, expected: LockHolder | 'absent' | 'unreadable'): void {
  const now = readHolder(file);
  const same =
    typeof now === 'object' ? typeof expected === 'object' && now.token === expected.token : now === expected;
  if (!same || now === 'absent') return;
  try {
    unlinkSync(file);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

function held(file: string, me: LockHolder): HeldLock {
  let released = false;
  // A process that ends without releasing (kill -9, an uncaught error) leaves its lock, which the next start finds
  // stale and takes over: no exit hook needed (and none to pile up when one process starts services many times).
  const release = () => {
    if (released) return;
    released = true;
    removeIf(file, me);
  };
  return { file, holder: me, release };
}

const optional = <K extends string>(key: K, value: string | undefined) =>
  (value === undefined ? {} : { [key]: value }) as Partial<Record<K, string>>;

/** The running system: /proc on Linux, `ps` elsewhere. */
export function localSystem(): LockSystem {
  return {
    pid: process.pid,
    host: os.hostname(),
    ...optional('bootId', readText('/proc/sys/kernel/random/boot_id')),
    startedOf,
    exists(pid) {
      try {
        process.kill(pid, 0);
        return true;
      } catch (e) {
        // EPERM: it exists, under another user.
        return (e as NodeJS.ErrnoException).code === 'EPERM';
      }
    },
    now: Date.now,
  };
}

/** The start time of `pid`: field 22 of /proc/<pid>/stat (after the command name, which may hold spaces). */
function startedOf(pid: number): string | undefined {
  const stat = readText(`/proc/${pid}/stat`);
  if (stat !== undefined) return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19];
  if (process.platform === 'win32') return undefined;
  try {
    const text = execFileSync('ps', ['-o', 'lstart=', '-p', String(pid)], { encoding: 'utf8', timeout: 2000 });
    return text.trim() || undefined;
  } catch {
    return undefined;
  }
}

function readText(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return undefined;
  }
}
