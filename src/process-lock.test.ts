import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  acquireLock,
  holderState,
  LockHeldError,
  localSystem,
  type LockHolder,
  type LockSystem,
} from './process-lock.ts';

let dir: string;
let file: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'cv-lock-'));
  file = path.join(dir, 'lock');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const options = (system?: LockSystem) => ({
  what: 'the data directory D',
  hint: 'or give this one another data directory',
  ...(system ? { system } : {}),
});

/** A system where `live` maps each running PID to its start time. */
function system(over: Partial<LockSystem> & { live?: Record<number, string> } = {}): LockSystem {
  const live = over.live ?? {};
  return {
    pid: 100,
    host: 'h1',
    bootId: 'boot-1',
    startedOf: (pid) => live[pid],
    exists: (pid) => pid in live,
    now: () => 0,
    ...over,
  };
}

const holder = (h: Partial<LockHolder>): LockHolder => ({
  pid: 200,
  host: 'h1',
  bootId: 'boot-1',
  started: '5000',
  command: 'bin/credential-vault.js start',
  since: '2026-11-28T00:00:00.000Z',
  token: 'old',
  ...h,
});

describe('holderState', () => {
  const sys = system({ live: { 100: '1', 200: '5000' } });
  it.each([
    { given: holder({}), want: 'alive' },
    { given: holder({ pid: 300 }), want: 'stale' }, // no such process (kill -9)
    { given: holder({ started: '4000' }), want: 'stale' }, // the PID now names another process
    { given: holder({ bootId: 'boot-0' }), want: 'stale' }, // the machine restarted since
    { given: holder({ host: 'h2' }), want: 'elsewhere' },
    { given: holder({ started: undefined }), want: 'alive' }, // no start time to compare: the PID decides
  ])('$given.pid $given.host $given.started $given.bootId → $want', ({ given, want }) => {
    expect(holderState(given, sys)).toBe(want);
  });
});

describe('acquireLock', () => {
  it('takes a free lock, names its holder in the file, and removes it on release', () => {
    const lock = acquireLock(file, options(system({ live: { 100: '1' } })));
    const written = JSON.parse(readFileSync(file, 'utf8')) as LockHolder;
    expect(written).toMatchObject({ pid: 100, host: 'h1', bootId: 'boot-1', started: '1', token: lock.holder.token });
    lock.release();
    expect(existsSync(file)).toBe(false);
    expect(existsSync(`${file}.takeover`)).toBe(false);
  });

  it('refuses while the holder runs, naming what it guards and the PID', () => {
    writeFileSync(file, JSON.stringify(holder({})));
    const attempt = () => acquireLock(file, options(system({ live: { 100: '1', 200: '5000' } })));
    expect(attempt).toThrow(LockHeldError);
    expect(attempt).toThrow(/the data directory D is in use by process 200 .*another data directory/);
    expect(JSON.parse(readFileSync(file, 'utf8')).token).toBe('old');
  });

  it('refuses a lock held on another host and says how to clear it', () => {
    writeFileSync(file, JSON.stringify(holder({ host: 'h2' })));
    expect(() => acquireLock(file, options(system()))).toThrow(/process 200 on host h2 .*remove the lock file/);
  });

  it.each([
    { case: 'a dead holder (kill -9)', text: JSON.stringify(holder({ pid: 300 })) },
    { case: 'a reused PID', text: JSON.stringify(holder({ started: '4000' })) },
    { case: 'a holder of an earlier boot', text: JSON.stringify(holder({ bootId: 'boot-0' })) },
    { case: 'an unreadable file', text: '{"pid": 2' },
  ])('takes over the stale lock of $case', ({ text }) => {
    writeFileSync(file, text);
    const lock = acquireLock(file, options(system({ live: { 100: '1', 200: '5000' } })));
    expect(JSON.parse(readFileSync(file, 'utf8')).token).toBe(lock.holder.token);
    expect(existsSync(`${file}.takeover`)).toBe(false);
    lock.release();
  });

  it('refuses while another process is taking a stale lock over, and clears a dead taker', () => {
    writeFileSync(file, JSON.stringify(holder({ pid: 300 })));
    writeFileSync(`${file}.takeover`, JSON.stringify(holder({ pid: 400, token: 'taker' })));
    const sys = system({ live: { 100: '1', 400: '5000' } });
    expect(() => acquireLock(file, options(sys))).toThrow(/in use by process 400/);
    // The taker died mid-takeover: its guard is stale too, and the next attempt goes through.
    const lock = acquireLock(file, options(system({ live: { 100: '1' } })));
    expect(JSON.parse(readFileSync(file, 'utf8')).token).toBe(lock.holder.token);
    lock.release();
  });

  it('a second acquisition in the same process is refused; release leaves a successor’s lock alone', () => {
    const sys = system({ live: { 100: '1' } });
    const first = acquireLock(file, options(sys));
    expect(() => acquireLock(file, options(sys))).toThrow(/in use by this process \(100\)/);
    // Someone judged it stale and took it over: the first holder's release must not remove the new lock.
    writeFileSync(file, JSON.stringify(holder({ pid: 100, token: 'successor' })));
    first.release();
    expect(JSON.parse(readFileSync(file, 'utf8')).token).toBe('successor');
  });

  it('with real processes: a live holder is refused by PID, its lock taken over after kill -9', async () => {
    const script = `import { acquireLock } from ${JSON.stringify(path.resolve('src/process-lock.ts'))};
      acquireLock(${JSON.stringify(file)}, { what: 'D', hint: 'h' }); console.log('held'); setInterval(() => {}, 1000);`;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      let out = '';
      child.stdout.on('data', (d: Buffer) => (out += d.toString()));
      await vi.waitFor(() => expect(out).toContain('held'), { timeout: 10_000 });
      expect(() => acquireLock(file, options())).toThrow(new RegExp(`in use by process ${child.pid} `));
      const gone = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await gone;
      const lock = acquireLock(file, options());
      expect(lock.holder.pid).toBe(process.pid);
      expect(lock.holder.started).toBe(localSystem().startedOf(process.pid));
      lock.release();
    } finally {
      child.kill('SIGKILL');
    }
  });
});
