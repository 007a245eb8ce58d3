// Where the credential encryption keys come from: configuration (`kid:base64key,...`, first one active),
// or, in the embedded default, a key file in the data directory created once. Losing that file loses
// every credential encrypted under it: it must be backed up with the data directory.
import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, mkdirSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import path from 'node:path';
import { createKeyring, type Keyring, type KeyringEntry } from './envelope.ts';

export const KEYRING_FILE = 'vc-encryption-keys.json';

interface KeyFile {
  version: 1;
  activeKid: string;
  keys: { kid: string; key: string }[];
}

/** A fresh key id: `k` and 8 random hex characters. */
export function newKid(): string {
  return `k${randomBytes(4).toString('hex')}`;
}

function decodeKey(kid: string, text: string): Buffer {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) throw new RangeError(`key ${kid} is not base64`);
  const key = Buffer.from(text.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (key.length !== 32) throw new RangeError(`key ${kid} must decode to 32 bytes, got ${key.length}`);
  return key;
}

/**
 * Parses `kid1:base64key,kid2:base64key` (base64 or base64url, 32 bytes each). The first key is active:
 * to rotate, put a new key first and keep the old ones so older credentials stay readable.
 */
export function keyringFromConfig(value: string): Keyring {
  const entries: KeyringEntry[] = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((item) => {
      const colon = item.indexOf(':');
      if (colon <= 0) throw new RangeError('each key must be written kid:base64key');
      const kid = item.slice(0, colon).trim();
      return { kid, key: decodeKey(kid, item.slice(colon + 1).trim()) };
    });
  const first = entries[0];
  if (!first) throw new RangeError('no encryption key configured');
  return createKeyring({ keys: entries, activeKid: first.kid });
}

function parseKeyFile(file: string, text: string): Keyring {
  const doc = JSON.parse(text) as Partial<KeyFile>;
  if (doc.version !== 1 || typeof doc.activeKid !== 'string' || !Array.isArray(doc.keys)) {
    throw new Error(`${file} is not a credential-vault key file`);
  }
  return createKeyring({
    activeKid: doc.activeKid,
    keys: doc.keys.map((k) => ({ kid: k.kid, key: decodeKey(k.kid, k.key) })),
  });
}

function serialize(doc: KeyFile): string {
  return `${JSON.stringify(doc, null, 2)}\n`;
}

/** Writes the file only if it does not exist yet (link is atomic and fails on an existing name). */
function createExclusive(file: string, content: string): boolean {
  const tmp = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const fd = openSync(tmp, 'wx', 0o600);
  try {
    writeSync(fd, content);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  try {
    linkSync(tmp, file);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'ENOSYS') throw err;
  } finally {
    unlinkSync(tmp);
  }
  // No hard links on this file system: exclusive create, written in place.
  let direct: number;
  try {
    direct = openSync(file, 'wx', 0o600);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
  try {
    writeSync(direct, content);
    fsyncSync(direct);
  } finally {
    closeSync(direct);
  }
  return true;
}

/**
 * The keyring of the data directory: created on first use (one random 32-byte key, file mode 0600) and
 * loaded afterwards. Two processes starting together end up with the same key.
 */
export function loadOrCreateKeyring(options: { dataDir: string }): Keyring {
  const file = path.join(options.dataDir, KEYRING_FILE);
  try {
    return parseKeyFile(file, readFileSync(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(options.dataDir, { recursive: true, mode: 0o700 });
  const kid = newKid();
  createExclusive(
    file,
    serialize({ version: 1, activeKid: kid, keys: [{ kid, key: randomBytes(32).toString('base64') }] }),
  );
  return parseKeyFile(file, readFileSync(file, 'utf8'));
}
