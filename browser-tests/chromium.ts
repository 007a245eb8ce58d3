// Which Chromium the browser tests drive, so that `npm test` needs nothing installed by hand:
//   1. the system's (Debian's /usr/bin/chromium) when it is there;
//   2. else, on Linux x64, the headless Chromium that the devDependency @sparticuz/chromium ships inside its
//      npm package (brotli-compressed, with the NSS libraries and a font it needs), unpacked once into
//      node_modules/.cache and launched with that package's own flags;
//   3. else a failure whose one line says what to install. Never a skip.
import { spawn } from 'node:child_process';
import {
  accessSync,
  constants,
  createReadStream,
  createWriteStream,
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { createBrotliDecompress } from 'node:zlib';
import { chromium, type Browser } from 'playwright-core';

export const SYSTEM_CHROMIUM = '/usr/bin/chromium';
const SYSTEM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--headless',
];
const PACKAGE = '@sparticuz/chromium';
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export const NO_BROWSER =
  `no browser for the browser tests: install Debian's chromium (apt-get install -y chromium), or run on Linux x64, ` +
  `where the devDependency ${PACKAGE} ships one (npm ci installs it)`;

export interface LaunchedBrowser {
  browser: Browser;
  /** `system /usr/bin/chromium` or `@sparticuz/chromium <version>`. */
  source: string;
}

/** True for an executable regular file (a path masked by a bind mount of /dev/null is not one). */
function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The installed package's folder, or undefined when it is not installed. */
function packageDir(): string | undefined {
  const dir = path.join(ROOT, 'node_modules', PACKAGE);
  const complete = existsSync(path.join(dir, 'package.json')) && existsSync(path.join(dir, 'bin', 'chromium.br'));
  return complete ? dir : undefined;
}

async function unbrotli(from: string, to: string): Promise<void> {
  await pipeline(createReadStream(from), createBrotliDecompress(), createWriteStream(to, { mode: 0o755 }));
}

/**
 * A `.tar.br` of the package unpacked into `dir`: Node decompresses it to a file, the system's tar reads that
 * file. (Piped into tar's stdin, the copy raced tar's exit: tar stops at the archive's end marker, before
 * the zero padding the package's archives carry after it, and a write still under way then failed with
 * "Premature close".)
 */
export async function untarBrotli(from: string, dir: string): Promise<void> {
  const tarFile = path.join(dir, `${path.basename(from, '.br')}.unpacking`);
  try {
    await unbrotli(from, tarFile);
    // --no-same-owner: GNU tar run as root gives files the archive's owner (uid 1001), which a user namespace
    // cannot map ("Cannot change ownership"); the files are the caller's.
    const tar = spawn('tar', ['-x', '--no-same-owner', '-f', tarFile, '-C', dir], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    tar.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const code = await new Promise<number | null>((resolve, reject) => {
      tar.once('error', reject);
      tar.once('close', resolve);
    });
    if (code !== 0) throw new Error(`tar -x of ${from} exited ${code}: ${stderr.trim()}`);
  } finally {
    rmSync(tarFile, { force: true });
  }
}

/**
 * The package's browser unpacked under node_modules/.cache/<package>-<version>/ (once; a run that finds it
 * complete reuses it). Unpacked beside and renamed into place, so that a run stopped half-way leaves nothing
 * that looks complete.
 */
async function unpacked(dir: string, version: string): Promise<string> {
  const target = path.join(ROOT, 'node_modules', '.cache', `sparticuz-chromium-${version}`);
  if (isExecutableFile(path.join(target, 'chromium'))) return target;
  const staging = `${target}.partial-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const bin = path.join(dir, 'bin');
  try {
    await Promise.all([
      unbrotli(path.join(bin, 'chromium.br'), path.join(staging, 'chromium')),
      untarBrotli(path.join(bin, 'al2023.tar.br'), staging), // lib/: NSS, NSPR and expat, absent on a bare system
      untarBrotli(path.join(bin, 'fonts.tar.br'), staging), // fonts/: Open Sans
      untarBrotli(path.join(bin, 'swiftshader.tar.br'), staging), // the software GL the package's flags select
    ]);
  } catch (err) {
    // Nothing half-unpacked stays behind, and the one line says what failed and the other way to a browser.
    rmSync(staging, { recursive: true, force: true });
    const why = err instanceof Error ? err.message : String(err);
    throw new Error(
      `cannot unpack the Chromium of ${PACKAGE} into ${target}: ${why} ` +
        `(or install Debian's chromium: apt-get install -y chromium)`,
      { cause: err },
    );
  }
  // The package's fonts.conf names Lambda's folders; this one names the unpacked fonts.
  writeFileSync(
    path.join(staging, 'fonts.conf'),
    `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n` +
      `  <dir>${path.join(target, 'fonts')}</dir>\n` +
      `  <cachedir>${path.join(target, 'fonts-cache')}</cachedir>\n</fontconfig>\n`,
  );
  try {
    renameSync(staging, target);
  } catch (err) {
    // Another run got there first: use its copy.
    rmSync(staging, { recursive: true, force: true });
    if (!isExecutableFile(path.join(target, 'chromium'))) throw err;
  }
  return target;
}

async function launchPackaged(dir: string): Promise<LaunchedBrowser> {
  const { version } = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string };
  const home = await unpacked(dir, version);
  // The package's own flags for its headless shell (no sandbox, no zygote, SwiftShader GL), less two:
  // playwright adds its headless flag itself, and in one process closing a page closes the browser.
  const { default: Chromium } = (await import(PACKAGE)) as { default: { args: string[] } };
  const args = Chromium.args.filter((a) => !a.startsWith('--headless') && a !== '--single-process');
  const libs = path.join(home, 'lib');
  const browser = await chromium.launch({
    executablePath: path.join(home, 'chromium'),
    headless: true,
    args,
    env: {
      ...process.env,
      LD_LIBRARY_PATH: process.env['LD_LIBRARY_PATH'] ? `${libs}:${process.env['LD_LIBRARY_PATH']}` : libs,
      FONTCONFIG_PATH: home,
    },
  });
  return { browser, source: `${PACKAGE} ${version}` };
}

/** Launches the first browser of the list above; throws NO_BROWSER when there is none. */
export async function launchChromium(): Promise<LaunchedBrowser> {
  if (isExecutableFile(SYSTEM_CHROMIUM)) {
    const browser = await chromium.launch({ executablePath: SYSTEM_CHROMIUM, headless: true, args: SYSTEM_FLAGS });
    return { browser, source: `system ${SYSTEM_CHROMIUM}` };
  }
  const dir = process.platform === 'linux' && process.arch === 'x64' ? packageDir() : undefined;
  if (dir === undefined) throw new Error(NO_BROWSER);
  return launchPackaged(dir);
}
