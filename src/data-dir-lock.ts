// Which local files a `start | serve | resolver` process owns, and their locks (src/process-lock.ts), taken before
// anything reads or writes them: the data directory when it holds a store, the keyring or the simulator's state,
// and the simulator's state file itself (which may lie elsewhere, and which `credential-vault simulator` locks
// too). With PostgreSQL and CV_ENCRYPTION_KEYS and no embedded simulator nothing is local: no lock, and many
// instances may share a directory (Redis keeps nothing local in any case).
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Config } from './config/index.ts';
import { acquireLock, type HeldLock, type LockSystem } from './process-lock.ts';

/** The lock file of a data directory. */
export const DATA_DIR_LOCK = '.credential-vault.lock';

export interface LocalLocks {
  /** What this process keeps in its data directory (empty: nothing, no lock). */
  local: string[];
  /** Releases every lock, in the reverse order of taking. */
  release(): void;
}

type LockConfig = Pick<Config, 'dataDir' | 'stateFile' | 'databaseUrl' | 'encryptionKeys' | 'simulator'>;

/** The simulator's state file under `start`: the setting, else the data directory's. */
export const stateFileOf = (config: Pick<Config, 'dataDir' | 'stateFile'>): string =>
  config.stateFile ?? path.join(config.dataDir, 'simulator-state.json');

/** What of the data directory a process of `mode` uses with these settings. */
export function localFiles(config: LockConfig, mode: 'start' | 'serve' | 'resolver'): string[] {
  const inDir = (file: string) => !path.relative(path.resolve(config.dataDir), path.resolve(file)).startsWith('..');
  // The resolver keeps no keys and no keyring: beside a `serve` over the same directory it takes no lock.
  const keys = mode !== 'resolver';
  return [
    ...(keys && !config.databaseUrl ? ['the key and idempotency store (SQLite)'] : []),
    ...(keys && !config.encryptionKeys ? ['the encryption keyring'] : []),
    ...(config.simulator && inDir(stateFileOf(config)) ? ['the simulator state'] : []),
  ];
}

/** Takes the data directory's lock (when it holds anything) and the simulator state file's (when it runs). */
export function lockLocalFiles(
  config: LockConfig,
  mode: 'start' | 'serve' | 'resolver',
  system?: LockSystem,
): LocalLocks {
  const local = localFiles(config, mode);
  const held: HeldLock[] = [];
  const release = () => {
    for (const l of held.splice(0).reverse()) l.release();
  };
  try {
    if (local.length) {
      const dir = path.resolve(config.dataDir);
      mkdirSync(dir, { recursive: true, mode: 0o700 });
      held.push(
        acquireLock(path.join(dir, DATA_DIR_LOCK), {
          what: `the data directory ${dir}`,
          hint: 'or give this one another data directory (CV_DATA_DIR, --data-dir)',
          ...(system ? { system } : {}),
        }),
      );
    }
    if (config.simulator) held.push(lockStateFile(stateFileOf(config), system));
    return { local, release };
  } catch (e) {
    release();
    throw e;
  }
}

/** The lock of a simulator state file: `<file>.lock`, beside it. */
export function lockStateFile(file: string, system?: LockSystem): HeldLock {
  const resolved = path.resolve(file);
  mkdirSync(path.dirname(resolved), { recursive: true, mode: 0o700 });
  return acquireLock(`${resolved}.lock`, {
    what: `the simulator state file ${resolved}`,
    hint: 'or give this one another state file (CV_SIMULATOR_STATE_FILE, --state-file)',
    ...(system ? { system } : {}),
  });
}
