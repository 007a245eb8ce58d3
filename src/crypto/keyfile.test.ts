import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decryptVcData, encryptVcData } from './envelope.ts';
import { KEYRING_FILE, keyringFromConfig, loadOrCreateKeyring } from './keyfile.ts';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'cv-keyfile-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

const binding = { owner: 'GBRPYHIL2CI3FNQ4BXLFMNDLFJUNPU2HY3ZMFSHONUCEOASW7QC7OX2H', vcId: 'vc-1' };

describe('loadOrCreateKeyring', () => {
  it('creates the key file once, mode 0600, and loads the same key afterwards', () => {
    const dataDir = path.join(tempDir(), 'nested', 'data');
    const first = loadOrCreateKeyring({ dataDir });
    const file = path.join(dataDir, KEYRING_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const content = readFileSync(file, 'utf8');
    const data = encryptVcData(first, { ...binding, plaintext: '{"a":1}' });

    const second = loadOrCreateKeyring({ dataDir });
    expect(readFileSync(file, 'utf8')).toBe(content);
    expect(second.activeKid).toBe(first.activeKid);
    expect(decryptVcData(second, { ...binding, data })).toBe('{"a":1}');
  });

  it('refuses a file that is not a key file', () => {
    const dataDir = tempDir();
    writeFileSync(path.join(dataDir, KEYRING_FILE), '{"hello":1}');
    expect(() => loadOrCreateKeyring({ dataDir })).toThrow(/not a credential-vault key file/);
  });
});

describe('keyringFromConfig', () => {
  const k1 = randomBytes(32);
  const k2 = randomBytes(32);

  it.each([
    { given: 'one base64 key', value: `k1:${k1.toString('base64')}`, active: 'k1', kids: ['k1'] },
    {
      given: 'base64url and spaces',
      value: ` k1 : ${k1.toString('base64url')} , k2:${k2.toString('base64')} `,
      active: 'k1',
      kids: ['k1', 'k2'],
    },
    {
      given: 'rotation: new key first',
      value: `k2:${k2.toString('base64')},k1:${k1.toString('base64')}`,
      active: 'k2',
      kids: ['k2', 'k1'],
    },
  ])('$given', ({ value, active, kids }) => {
    const ring = keyringFromConfig(value);
    expect(ring.activeKid).toBe(active);
    expect(ring.kids).toEqual(kids);
    expect(ring.key('k1')).toEqual(k1);
  });

  it.each([
    { given: 'empty', value: '' },
    { given: 'no kid', value: k1.toString('base64') },
    { given: 'a 16-byte key', value: `k1:${randomBytes(16).toString('base64')}` },
    { given: 'not base64', value: 'k1:not*base64' },
    { given: 'duplicate kid', value: `k1:${k1.toString('base64')},k1:${k2.toString('base64')}` },
  ])('refuses $given', ({ value }) => {
    expect(() => keyringFromConfig(value)).toThrow(RangeError);
  });
});
