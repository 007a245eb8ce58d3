// The unpacking of the Chromium that @sparticuz/chromium ships (./chromium.ts), on archives shaped as the
// package's are: the tar's end marker followed by zero padding, which tar never reads.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, constants } from 'node:zlib';
import { afterAll, expect, it } from 'vitest';
import { untarBrotli } from './chromium.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'cv-untar-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('unpacks a .tar.br whose archive ends long before its data does', async () => {
  const source = path.join(dir, 'source');
  spawnSync('mkdir', ['-p', path.join(source, 'lib')]);
  writeFileSync(path.join(source, 'lib', 'libexample.so'), 'library bytes');
  const tar = spawnSync('tar', ['-c', '-f', '-', '-C', source, 'lib'], { maxBuffer: 16 * 1024 * 1024 });
  expect(tar.status, String(tar.stderr)).toBe(0);
  // 4 MiB of zeros after the end marker: far more than a pipe holds, so a reader that stops at the marker
  // leaves the writer with data it cannot send.
  const archive = Buffer.concat([tar.stdout, Buffer.alloc(4 * 1024 * 1024)]);
  const packed = path.join(dir, 'example.tar.br');
  writeFileSync(packed, brotliCompressSync(archive, { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } }));
  const target = path.join(dir, 'target');
  spawnSync('mkdir', ['-p', target]);

  await untarBrotli(packed, target);

  expect(readFileSync(path.join(target, 'lib', 'libexample.so'), 'utf8')).toBe('library bytes');
  expect(readdirSync(target), 'only what the archive holds').toEqual(['lib']);
});

it('says which archive it could not unpack', async () => {
  const packed = path.join(dir, 'not-a-tar.tar.br');
  writeFileSync(packed, brotliCompressSync(Buffer.from('not a tar archive, just text'.repeat(100))));
  const target = path.join(dir, 'target-bad');
  spawnSync('mkdir', ['-p', target]);
  await expect(untarBrotli(packed, target)).rejects.toThrow(/tar -x of .*not-a-tar\.tar\.br exited/);
  expect(readdirSync(target)).toEqual([]);
});

it("gives the files to the caller, not to the archive's owner (uid 1001, which a user namespace cannot map)", async () => {
  const source = path.join(dir, 'owned');
  spawnSync('mkdir', ['-p', path.join(source, 'bin')]);
  writeFileSync(path.join(source, 'bin', 'chromium'), 'binary');
  // The package's archives name uid 1001; GNU tar run as root would chown to it.
  const tar = spawnSync('tar', [
    '-c',
    '--owner=1001',
    '--group=1001',
    '--numeric-owner',
    '-f',
    '-',
    '-C',
    source,
    'bin',
  ]);
  expect(tar.status, String(tar.stderr)).toBe(0);
  const packed = path.join(dir, 'owned.tar.br');
  writeFileSync(packed, brotliCompressSync(tar.stdout));
  const target = path.join(dir, 'target-owned');
  spawnSync('mkdir', ['-p', target]);
  await untarBrotli(packed, target);
  expect(statSync(path.join(target, 'bin', 'chromium')).uid).toBe(process.getuid!());
});
