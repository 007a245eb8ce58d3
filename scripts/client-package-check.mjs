// `npm run test:client-package` (plain JavaScript: runs on any Node the repository supports, no loader): the
// published client, used the way another project uses it. Packs packages/client exactly as a publisher
// does (`npm pack` in that folder, whose `prepack` builds dist/: this script builds nothing itself),
// installs the tarball into a fresh ESM project outside the repository (with the repository's .npmrc: no
// install scripts), imports it with plain `node`, type-checks the package README's example and the example
// program with plain `tsc --strict` (NodeNext), starts `npm start` on free ports with a temporary data
// directory, and runs the example program as TypeScript with plain `node` against it: funded accounts, API
// keys by wallet proof, an issuer DID, a vault, a signed credential issued and verified. Then it scrapes
// /metrics on each port of that npm start: no series may show on two ports. Every step that fails stops
// the run with exit code 1 and says which.
import { spawn } from 'node:child_process';
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PACKAGE_DIR = path.join(ROOT, 'packages/client');
const EXAMPLE = path.join(PACKAGE_DIR, 'examples/issue-and-verify.ts');
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const SERVER_READY_TIMEOUT_MS = 90_000;
const CONSUMER_TIMEOUT_MS = 180_000;
const INSTALL_TIMEOUT_MS = 180_000;

class CheckFailed extends Error {}

let stepNo = 0;
/**
 * @template T
 * @param {string} title
 * @param {() => Promise<T> | T} fn
 * @returns {Promise<T>}
 */
async function step(title, fn) {
  stepNo += 1;
  const started = Date.now();
  process.stdout.write(`${stepNo}. ${title} … `);
  try {
    const value = await fn();
    console.log(`ok (${Date.now() - started} ms)`);
    return value;
  } catch (err) {
    console.log('FAILED');
    throw new CheckFailed(`${stepNo}. ${title}: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Runs a command to completion; a non-zero exit, a signal or a timeout throws with its output.
 * Asynchronous on purpose: a blocked event loop (spawnSync) outlives the keep-alive of npm start's sockets
 * in fetch's pool, and the next fetch on one of them meets "other side closed".
 * @param {string} command
 * @param {string[]} args
 * @param {import('node:child_process').SpawnOptions & { timeout: number }} options
 * @returns {Promise<string>}
 */
function run(command, args, options) {
  const { timeout, ...rest } = options;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { ...rest, stdio: ['ignore', 'pipe', 'pipe'] });
    /** @type {Buffer[]} */
    const out = [];
    /** @type {Buffer[]} */
    const err = [];
    child.stdout?.on('data', (chunk) => out.push(chunk));
    child.stderr?.on('data', (chunk) => err.push(chunk));
    // SIGKILL at the timeout: a SIGTERM did not always stop an npm install waiting on an unreachable registry.
    const timer = setTimeout(() => child.kill('SIGKILL'), timeout);
    const output = () => `${Buffer.concat(out).toString('utf8')}${Buffer.concat(err).toString('utf8')}`.trim();
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`${command} ${args.join(' ')}: ${e.message}\n${output()}`));
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(Buffer.concat(out).toString('utf8'));
      else reject(new Error(`${command} ${args.join(' ')} exited ${code ?? signal}\n${output()}`));
    });
  });
}

/** @returns {Promise<number>} */
async function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
      server.close(() => resolve(port));
    });
  });
}

/** Distinct free ports (asked for one by one while the others are still unknown to the kernel's picker). */
/** @param {number} n */
async function freePorts(n) {
  const ports = new Set();
  while (ports.size < n) ports.add(await freePort());
  return [...ports];
}

/** @typedef {{ child: import('node:child_process').ChildProcess, log: () => string, exited: Promise<number | null> }} Server */

/**
 * @param {string[]} args
 * @returns {Server}
 */
function startServer(args) {
  // Its own process group, so that stopping it stops npm and the node process npm started.
  const child = spawn(NPM, ['start', '--', ...args], { cwd: ROOT, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  const keep = (/** @type {Buffer} */ chunk) => {
    log = (log + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  /** @type {Promise<number | null>} */
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, log: () => log, exited };
}

/**
 * @param {Server} server
 * @param {string[]} urls
 */
async function waitReady(server, urls) {
  const deadline = Date.now() + SERVER_READY_TIMEOUT_MS;
  /** @type {number | null | undefined} */
  let exitCode;
  void server.exited.then((code) => (exitCode = code));
  for (const url of urls) {
    for (;;) {
      if (exitCode !== undefined)
        throw new Error(`npm start exited ${exitCode} before ${url} was ready\n${server.log()}`);
      if (Date.now() > deadline)
        throw new Error(`${url} not ready after ${SERVER_READY_TIMEOUT_MS} ms\n${server.log()}`);
      const ok = await fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
        (r) => r.ok,
        () => false,
      );
      if (ok) break;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
}

/**
 * True while any process of the group `pgid` lives.
 * @param {number} pgid
 */
function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/** SIGTERM to the whole group (npm and the node it started), SIGKILL to what still runs after 15 s. */
/** @param {Server} server */
async function stopServer(server) {
  const pid = server.child.pid;
  if (pid === undefined || !groupAlive(pid)) return;
  process.kill(-pid, 'SIGTERM');
  // npm may exit before the service has drained: wait for the group, not for npm.
  const deadline = Date.now() + 15_000;
  while (groupAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (groupAlive(pid)) process.kill(-pid, 'SIGKILL');
  while (groupAlive(pid)) await new Promise((r) => setTimeout(r, 100));
}

async function main() {
  /** @type {{ dependencies: Record<string, string>, devDependencies: Record<string, string> }} */
  const rootPkg = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8'));
  const work = await mkdtemp(path.join(tmpdir(), 'cv-client-package-'));
  /** @type {Server | undefined} */
  let server;
  let ok = false;
  try {
    const tarball = await step('npm pack in packages/client as a publisher runs it (prepack builds)', async () => {
      // No dist/ before: what the tarball holds was built by the package's own prepack.
      await rm(path.join(PACKAGE_DIR, 'dist'), { recursive: true, force: true });
      const dest = path.join(work, 'pack');
      await mkdir(dest);
      // A publisher's shell: none of the npm_config_* that `npm run` exported from the repository's .npmrc
      // (its ignore-scripts would skip prepack; in packages/client that .npmrc is not read).
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
      const out = await run(NPM, ['pack', '--pack-destination', dest, '--json'], {
        cwd: PACKAGE_DIR,
        env,
        timeout: 300_000,
      });
      /** @type {{ filename: string, files: { path: string }[] }[]} */
      const [packed] = JSON.parse(out);
      if (!packed) throw new Error(`npm pack printed no package: ${out}`);
      const files = packed.files.map((f) => f.path);
      const stray = files.filter((f) => /\.test\.|\.spec\.|(?<!\.d)\.ts$/.test(f) || f.startsWith('examples/'));
      if (stray.length) throw new Error(`the tarball holds test or source files: ${stray.join(', ')}`);
      const built = ['dist/client/index.js', 'dist/client/index.d.ts', 'dist/generated/vault-api.d.ts'];
      for (const must of [...built, 'README.md', 'CHANGELOG.md', 'package.json']) {
        if (!files.includes(must)) throw new Error(`the tarball lacks ${must} (ignore-scripts skips prepack)`);
      }
      return path.join(dest, packed.filename);
    });

    const consumer = path.join(work, 'consumer');
    await step('fresh consumer project: npm install the tarball, the SDK, typescript and @types/node', async () => {
      await mkdir(path.join(consumer, 'src'), { recursive: true });
      await copyFile(path.join(ROOT, '.npmrc'), path.join(consumer, '.npmrc'));
      const json = (/** @type {unknown} */ value) => `${JSON.stringify(value, null, 2)}\n`;
      const manifest = { name: 'cv-client-consumer', private: true, type: 'module' };
      await writeFile(path.join(consumer, 'package.json'), json(manifest));
      const compilerOptions = {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        noEmit: true,
        types: ['node'],
      };
      await writeFile(path.join(consumer, 'tsconfig.json'), json({ compilerOptions, include: ['src'] }));
      await copyFile(EXAMPLE, path.join(consumer, 'src/index.ts'));
      // The README's example is type-checked too (not run: it stands for a browser wallet with `declare`).
      const readme = await readFile(path.join(PACKAGE_DIR, 'README.md'), 'utf8');
      const example = /## Example[\s\S]*?```ts\n([\s\S]*?)```/.exec(readme)?.[1];
      if (!example) throw new Error('packages/client/README.md has no ```ts block under "## Example"');
      await writeFile(path.join(consumer, 'src/readme-example.ts'), example);
      const typescript = rootPkg.devDependencies['typescript'];
      const typesNode = rootPkg.devDependencies['@types/node'];
      const sdk = rootPkg.dependencies['@stellar/stellar-sdk'];
      if (!typescript || !typesNode || !sdk) throw new Error('package.json names no typescript, @types/node or SDK');
      // The versions the repository installed, preferring npm's cache. `npm ci` caches tarballs but not the
      // registry's package documents that `npm install name@version` reads, so this step needs the registry
      // (docs/testing.md); without one it fails in about a minute (one retry), naming the registry.
      const args = [
        'install',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
        '--prefer-offline',
        '--fetch-retries=1',
        '--fetch-retry-maxtimeout=10000',
      ];
      const packages = [tarball, `@stellar/stellar-sdk@${sdk}`, `typescript@${typescript}`, `@types/node@${typesNode}`];
      try {
        await run(NPM, [...args, ...packages], { cwd: consumer, timeout: INSTALL_TIMEOUT_MS });
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        throw new Error(`this step installs from the npm registry, which must be reachable: ${why}`);
      }
    });

    await step('import the installed package with plain node: every export is there', async () => {
      const script = "const m = await import('@credential-vault/client'); console.log(Object.keys(m).sort().join(' '))";
      const out = await run(process.execPath, ['--input-type=module', '-e', script], {
        cwd: consumer,
        timeout: 60_000,
      });
      const exported = out.split(' ').map((s) => s.trim());
      const wanted = ['createVaultClient', 'createResolverClient', 'prepareAndSubmit', 'obtainApiKey', 'registerDid'];
      for (const name of [...wanted, 'signCredential', 'signingPassphrase', 'transactionId']) {
        if (!exported.includes(name)) throw new Error(`the package exports no ${name}: ${out}`);
      }
    });

    await step("type-check the example program and the package README's example with plain tsc --strict", async () => {
      const tsc = path.join(consumer, 'node_modules/typescript/bin/tsc');
      await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: consumer, timeout: 300_000 });
    });

    const [testnet, mainnet, resolver, simulator] = await freePorts(4);
    const urls = {
      vault: `http://127.0.0.1:${testnet}`,
      resolver: `http://127.0.0.1:${resolver}`,
      simulator: `http://127.0.0.1:${simulator}`,
    };
    await step(
      `npm start on ports ${testnet}/${mainnet}/${resolver}/${simulator} with a temporary data directory`,
      async () => {
        server = startServer([
          '--testnet-port',
          String(testnet),
          '--mainnet-port',
          String(mainnet),
          '--resolver-port',
          String(resolver),
          '--simulator-port',
          String(simulator),
          '--data-dir',
          path.join(work, 'data'),
          '--log-level',
          'warn',
        ]);
        await waitReady(server, [`${urls.vault}/ready`, `${urls.resolver}/ready`]);
      },
    );

    await step('run the example as TypeScript with plain node: sign, issue and verify a credential', async () => {
      const friendbot = `${urls.simulator}/testnet/friendbot`;
      const out = await run(
        process.execPath,
        ['src/index.ts', '--vault-url', urls.vault, '--resolver-url', urls.resolver, '--friendbot-url', friendbot],
        { cwd: consumer, timeout: CONSUMER_TIMEOUT_MS },
      );
      process.stdout.write(`\n${out.replace(/^/gm, '   | ')}`);
      if (
        !/verified .*: proof passed, credentialStatus valid, issuerAllowed passed \(presented\); by reference: verified true/.test(
          out,
        )
      ) {
        throw new Error('the example verified no credential');
      }
    });
    await step('scrape /metrics on every port of npm start: no series twice, each with its service', async () => {
      const mainnetUrl = `http://127.0.0.1:${mainnet}`;
      const ports = { 'vault-api-testnet': urls.vault, 'vault-api-mainnet': mainnetUrl, resolver: urls.resolver };
      /** @type {Map<string, string>} */
      const seen = new Map();
      for (const [service, base] of Object.entries(ports)) {
        const text = await (await fetch(`${base}/metrics`)).text();
        for (const line of text.split('\n')) {
          if (!line || line.startsWith('#')) continue;
          const series = line.slice(0, line.lastIndexOf(' '));
          const label = /[{,]service="([^"]*)"/.exec(series)?.[1];
          if (label !== service) throw new Error(`${base}/metrics: ${series} is not labelled service="${service}"`);
          if (seen.has(series)) throw new Error(`${series} is on ${seen.get(series)} and on ${service}`);
          seen.set(series, service);
        }
      }
      if (seen.size < 50) throw new Error(`only ${seen.size} series on the three ports`);
    });
    ok = true;
  } finally {
    if (server) {
      if (!ok) console.error(`--- npm start output (last lines) ---\n${server.log()}`);
      await stopServer(server);
    }
    await rm(work, { recursive: true, force: true });
  }
}

main().then(
  () => console.log('client package: installed from its tarball, type-checked and run in a fresh project'),
  (err) => {
    console.error(err instanceof CheckFailed ? err.message : err);
    process.exitCode = 1;
  },
);
