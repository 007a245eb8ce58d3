import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DATA_DIR_LOCK, localFiles, lockLocalFiles, lockStateFile } from './data-dir-lock.ts';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'cv-datadir-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const embedded = (d: string) => ({ dataDir: d, simulator: true });
const shared = (d: string) => ({
  dataDir: d,
  simulator: false,
  databaseUrl: 'postgres://db/cv',
  encryptionKeys: 'k:AAAA',
});

describe('localFiles: what a process keeps in its data directory', () => {
  it.each([
    {
      mode: 'start',
      config: embedded('d'),
      want: ['the key and idempotency store (SQLite)', 'the encryption keyring', 'the simulator state'],
    },
    { mode: 'serve', config: shared('d'), want: [] },
    { mode: 'serve', config: { ...shared('d'), encryptionKeys: undefined }, want: ['the encryption keyring'] },
    { mode: 'resolver', config: { dataDir: 'd', simulator: false }, want: [] },
    {
      mode: 'start',
      config: { ...embedded('d'), stateFile: '/elsewhere/state.json' },
      want: ['the key and idempotency store (SQLite)', 'the encryption keyring'],
    },
  ] as const)('$mode $config → $want', ({ mode, config, want }) => {
    expect(localFiles(config, mode)).toEqual(want);
  });
});

describe('lockLocalFiles', () => {
  it('a second process over the same directory is refused, naming the directory and the PID; release frees it', () => {
    const first = lockLocalFiles(embedded(dir), 'start');
    expect(existsSync(path.join(dir, DATA_DIR_LOCK))).toBe(true);
    expect(existsSync(path.join(dir, 'simulator-state.json.lock'))).toBe(true);
    expect(() => lockLocalFiles(embedded(dir), 'serve')).toThrow(
      `the data directory ${dir} is in use by this process (${process.pid})`,
    );
    first.release();
    expect(existsSync(path.join(dir, DATA_DIR_LOCK))).toBe(false);
    lockLocalFiles(embedded(dir), 'serve').release();
  });

  it('the state file is locked on its own: the standalone simulator and a start over it exclude each other', () => {
    const stateFile = path.join(dir, 'shared', 'state.json');
    const simulator = lockStateFile(stateFile);
    const other = path.join(dir, 'other');
    expect(() => lockLocalFiles({ ...embedded(other), stateFile }, 'start')).toThrow(
      `the simulator state file ${stateFile} is in use`,
    );
    // Nothing of the refused start stays locked.
    expect(existsSync(path.join(other, DATA_DIR_LOCK))).toBe(false);
    simulator.release();
  });

  it('with nothing local no lock is taken: instances over shared stores may share a directory', () => {
    const a = lockLocalFiles(shared(dir), 'serve');
    const b = lockLocalFiles(shared(dir), 'serve');
    expect([a.local, existsSync(path.join(dir, DATA_DIR_LOCK))]).toEqual([[], false]);
    a.release();
    b.release();
  });
});
