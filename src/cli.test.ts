// The command line as the README uses it: every `keys` command names its store, `did multikey`, `did new`,
// `account new`, and `credential-vault resolver` serving one network with only that network's settings.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Keypair } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../simulator/index.ts';
import { describeKeyStore, main } from './cli.ts';
import { decodeMultikey, generateDid, parseDid } from './did/index.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'cv-cli-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Runs main() with console output captured. */
async function run(argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const [log, error] = [console.log, console.error];
  console.log = (line: string) => out.push(line);
  console.error = (line: string) => err.push(line);
  try {
    return { code: await main(argv), out: out.join('\n'), err: err.join('\n') };
  } finally {
    [console.log, console.error] = [log, error];
  }
}

describe('keys: every command names the store it used, on standard error', () => {
  const store = `store: data directory ${path.resolve(dataDir)}`;
  it('create, list and revoke', async () => {
    const created = await run([
      'keys',
      'create',
      '--network',
      'testnet',
      '--wallet',
      Keypair.random().publicKey(),
      '--data-dir',
      dataDir,
    ]);
    expect(created.code, created.err).toBe(0);
    expect(created.err).toBe(store);
    const { key_id: keyId } = JSON.parse(created.out) as { key_id: string };
    const listed = await run(['keys', 'list', '--data-dir', dataDir]);
    expect([listed.code, listed.err]).toEqual([0, store]);
    expect(JSON.parse(listed.out).keys.map((k: { key_id: string }) => k.key_id)).toContain(keyId);
    const revoked = await run(['keys', 'revoke', keyId, '--data-dir', dataDir]);
    expect([revoked.code, revoked.err, JSON.parse(revoked.out)]).toEqual([0, store, { key_id: keyId, revoked: true }]);
  });

  it.each([
    { given: { dataDir: './data' }, want: `data directory ${path.resolve('data')}` },
    {
      given: { dataDir: './data', databaseUrl: 'postgres://cv:secret@db.example:5432/vault' },
      want: 'PostgreSQL postgres://db.example:5432/vault',
    },
    {
      given: { dataDir: './data', databaseUrl: 'postgresql://db.example/vault', databaseSchema: 'eu' },
      want: 'PostgreSQL postgresql://db.example/vault (schema eu)',
    },
    {
      given: { dataDir: './data', databaseUrl: 'postgres://cv:s=c@db.example/vault?sslmode=require&password=p' },
      want: 'PostgreSQL postgres://db.example/vault',
    },
  ])('$given → $want (no userinfo, no query)', ({ given, want }) => {
    expect(describeKeyStore(given)).toBe(want);
  });
});

describe('a wrong command line touches nothing; --help prints the usage', () => {
  // A data directory that must never be created: no server started, no store opened.
  const untouched = path.join(dataDir, 'untouched');

  it.each([
    {
      given: ['start', '--database-url-flie', 'db.txt'],
      want: /start: unknown flag or argument --database-url-flie db\.txt/,
    },
    { given: ['serve', 'testnet'], want: /serve: unknown flag or argument testnet/ },
    {
      given: ['resolver', '--resolver-network', 'testnet'],
      want: /resolver: unknown flag or argument --resolver-network testnet/,
    },
    { given: ['keys', 'list', '--netwrk', 'testnet'], want: /keys list: unknown flag or argument --netwrk testnet/ },
    { given: ['keys', 'revoke', 'k1', 'k2'], want: /keys revoke: unknown flag or argument k2/ },
    { given: ['keys', 'rotate'], want: /keys: unknown subcommand "rotate" \(create, list or revoke\)/ },
    { given: ['keys'], want: /^keys: name a subcommand: create, list or revoke\n\nusage: credential-vault keys crea/ },
    { given: ['keys', '--network', 'testnet'], want: /^keys: name a subcommand: create, list or revoke\n/ },
    { given: ['account'], want: /^account: name a subcommand: new\n\nusage: credential-vault account new/ },
    { given: ['did'], want: /^did: name a subcommand: new, multikey or create\n\nusage: credential-vault did new/ },
    { given: ['tx'], want: /^tx: name a subcommand: sign\n\nusage: credential-vault tx sign/ },
  ])('$given → exit 2, $want', async ({ given, want }) => {
    const r = await run([...given, '--data-dir', untouched]);
    expect([r.code, r.out]).toEqual([2, '']);
    expect(r.err).toMatch(want);
    expect(r.err).toContain('usage: credential-vault');
    expect(existsSync(untouched)).toBe(false);
  });

  it.each([
    {
      given: ['start', '--help'],
      want: /^usage: credential-vault <command>[\s\S]*\| `CV_DATA_DIR` \| `--data-dir` \|/,
    },
    { given: ['serve', '--port', '0', '-h'], want: /^usage: credential-vault <command>/ },
    { given: ['resolver', '--help'], want: /^usage: credential-vault <command>/ },
    { given: ['keys', '--help'], want: /^usage: credential-vault keys create --network N [\s\S]*\n {2}keys list / },
    { given: ['keys', 'create', '--network', 'testnet', '-h'], want: /^usage: credential-vault keys/ },
    { given: ['tx', 'sign', '--help'], want: /^usage: credential-vault tx sign \[--secret-file FILE\]/ },
    { given: ['tx', '--help'], want: /^usage: credential-vault tx sign/ },
    { given: ['did', 'multikey', '--help'], want: /^usage: credential-vault did new[\s\S]*did multikey/ },
    { given: ['did', 'new', '-h'], want: /^usage: credential-vault did new/ },
    { given: ['account', 'new', '--help'], want: /^usage: credential-vault account new --secret-file FILE/ },
  ])('$given → exit 0, $want', async ({ given, want }) => {
    const r = await run([...given, '--data-dir', untouched]);
    expect([r.code, r.err]).toEqual([0, '']);
    expect(r.out).toMatch(want);
    expect(existsSync(untouched)).toBe(false);
  });
});

describe('did multikey', () => {
  const kp = Keypair.random();
  const decoded = (multikey: string) => decodeMultikey(multikey, 'Ed25519');

  it('--public G… prints the Multikey of the account key', async () => {
    const r = await run(['did', 'multikey', '--public', kp.publicKey()]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^z6Mk[1-9A-HJ-NP-Za-km-z]+$/);
    expect(decoded(r.out)).toEqual({ ok: true, type: 'Ed25519', publicKey: new Uint8Array(kp.rawPublicKey()) });
  });

  it('--secret-file prints the same Multikey', async () => {
    const file = path.join(dataDir, 'secret.txt');
    writeFileSync(file, kp.secret(), { mode: 0o600 });
    const [fromFile, fromPublic] = [
      await run(['did', 'multikey', '--secret-file', file]),
      await run(['did', 'multikey', '--public', kp.publicKey()]),
    ];
    expect(fromFile.code).toBe(0);
    expect(fromFile.out).toBe(fromPublic.out);
  });

  it.each([
    { given: ['did', 'multikey', '--public', 'GABC'], want: /--public must be an account address/ },
    { given: ['did', 'multikey', '--secret', 'x'], want: /never goes on the command line/ },
    { given: ['did', 'multikey', Keypair.random().secret()], want: /never goes on the command line/ },
    { given: ['did', 'resolve'], want: /did: unknown subcommand "resolve"/ },
  ])('$given → exit 2, $want', async ({ given, want }) => {
    const r = await run(given);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(want);
    expect(r.err).toContain('usage: credential-vault did new');
    expect(r.err).toContain('did multikey --public G…');
    expect(r.out).toBe('');
  });
});

describe('did new and account new', () => {
  it.each(['testnet', 'mainnet'])(
    'did new --network %s prints a fresh canonical DID of that network',
    async (network) => {
      const [a, b] = [await run(['did', 'new', '--network', network]), await run(['did', 'new', '--network', network])];
      expect(a.code).toBe(0);
      expect(parseDid(a.out)).toMatchObject({ ok: true, value: { network } });
      expect(a.out).not.toBe(b.out);
    },
  );

  it('did new --network public → exit 2', async () => {
    expect((await run(['did', 'new', '--network', 'public'])).code).toBe(2);
  });

  it('account new writes the secret owner-only, prints only the address, and never overwrites', async () => {
    const file = path.join(dataDir, 'new.key');
    const r = await run(['account', 'new', '--secret-file', file]);
    expect(r.code).toBe(0);
    const secret = readFileSync(file, 'utf8').trim();
    expect(Keypair.fromSecret(secret).publicKey()).toBe(r.out);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(r.out + r.err).not.toContain(secret);
    const again = await run(['account', 'new', '--secret-file', file]);
    expect([again.code, again.out]).toEqual([2, '']);
    expect(again.err).toContain('exists already (never overwritten)');
    expect(readFileSync(file, 'utf8').trim()).toBe(secret);
  });

  it('account new without --secret-file → exit 2 (the secret is never printed)', async () => {
    const r = await run(['account', 'new']);
    expect([r.code, r.out]).toEqual([2, '']);
    expect(r.err).toMatch(/--secret-file FILE is required/);
  });
});

describe('credential-vault resolver serving one network', () => {
  let sim: Awaited<ReturnType<typeof startSimulator>>;
  beforeAll(async () => {
    sim = await startSimulator({ port: 0 });
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('starts with the testnet resolver settings alone (no factory id), serves testnet, and answers a mainnet DID with invalidDid', async () => {
    const t = sim.networks.testnet;
    const args = [
      'resolver',
      '--resolver-networks',
      'testnet',
      '--simulator',
      'false',
      '--resolver-port',
      '0',
      '--data-dir',
      dataDir,
      '--log-level',
      'silent',
      '--testnet-rpc-url',
      t.rpcUrl!,
      '--testnet-passphrase',
      t.passphrase,
      '--testnet-registry-id',
      t.registryId,
      '--testnet-simulation-account',
      t.admin.publicKey,
    ];
    const child = spawn(process.execPath, [path.resolve('bin/credential-vault.js'), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    let output = '';
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    try {
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (c: Buffer) => {
          output += c.toString();
          const m = /DID resolver\s+(http:\/\/\S+)/.exec(output);
          if (m) resolve(m[1]!);
        });
        void exited.then(() => reject(new Error(`exited before serving:\n${output}`)));
      });
      const health = (await (await fetch(`${url}/health`)).json()) as { networks: { network: string }[] };
      expect(health.networks.map((n) => n.network)).toEqual(['testnet']);
      const mainnetDid = generateDid({ network: 'mainnet' }).did;
      const res = await fetch(`${url}/1.0/identifiers/${mainnetDid}`, { headers: { Accept: 'application/did+json' } });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { didResolutionMetadata: { error: string } }).didResolutionMetadata.error).toBe(
        'invalidDid',
      );
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exited, output).toBe(0);
  }, 60_000);
});

/** util-linux's `script`, which runs a command in a pseudo-terminal of its own. */
const script = ['/usr/bin/script', '/bin/script'].find((f) => existsSync(f));

// `npm link`, a global install or the file's own path start the command with whatever Node is on PATH; without
// type stripping (a system Node 20, here a Node 24 with it switched off) it runs itself again under the pinned Node,
// in the caller's folder, from any folder.
describe('bin/credential-vault.js under a Node without type stripping', () => {
  const bin = path.resolve('bin/credential-vault.js');
  // `detached`: in a process group of its own, as a background job or a service is, so that the signal reaches the
  // wrapper alone and nothing but the wrapper can pass it on.
  const runBin = (args: string[], cwd: string, signal?: NodeJS.Signals) =>
    new Promise<{ code: number | null; out: string; err: string }>((resolve, reject) => {
      const argv = ['--no-experimental-strip-types', bin, ...args];
      const child = spawn(process.execPath, argv, { cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      let out = '';
      let err = '';
      let signalled = false;
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        if (signal && !signalled && /admin/.test(out)) signalled = child.kill(signal);
      });
      child.stderr.on('data', (c: Buffer) => (err += c.toString()));
      child.on('error', reject);
      child.on('exit', (code) => resolve({ code, out, err }));
    });

  it('runs under the pinned Node from another folder, which stays the working folder', async () => {
    const elsewhere = mkdtempSync(path.join(tmpdir(), 'cv-elsewhere-'));
    try {
      const did = await runBin(['did', 'new', '--network', 'mainnet'], elsewhere);
      expect([did.code, did.err]).toEqual([0, '']);
      expect(parseDid(did.out.trim())).toMatchObject({ ok: true, value: { network: 'mainnet' } });
      const account = await runBin(['account', 'new', '--secret-file', 'me.key'], elsewhere);
      expect(account.code, account.err).toBe(0);
      expect(existsSync(path.join(elsewhere, 'me.key'))).toBe(true);
      const keys = await runBin(['keys'], elsewhere);
      expect(keys.code).toBe(2);
      expect(keys.err).toMatch(/^keys: name a subcommand: create, list or revoke/);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  }, 60_000);

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'passes a %s sent to it alone on: it stops gracefully',
    async (sig) => {
      const stateFile = path.join(dataDir, `wrapped-${sig}.json`);
      const r = await runBin(['simulator', '--port', '0', '--state-file', stateFile], dataDir, sig);
      expect(r.code, r.err).toBe(0);
      expect(r.out).toContain(`${sig}: stopping, saving ${stateFile}`);
      expect(existsSync(stateFile)).toBe(true);
    },
    60_000,
  );

  // A terminal (a pseudo-terminal from util-linux's `script`) whose Ctrl-C reaches the wrapper and the command alike:
  // the command is stopped once, gracefully. (Passed on as well, the second INT kills it, exit 130 and no state,
  // unless the two INTs merge into one pending signal: whether the wrapper passes it on is tested below.)
  it.runIf(process.platform === 'linux' && script)(
    'a Ctrl-C at a terminal stops the command once',
    async () => {
      const stateFile = path.join(dataDir, 'wrapped-ctrl-c.json');
      const command = [process.execPath, '--no-experimental-strip-types', bin, 'simulator', '--port', '0']
        .concat(['--state-file', stateFile])
        .map((a) => `'${a}'`)
        .join(' ');
      // `exec`: the shell that `script` starts ($SHELL, or sh, which is dash on Debian) is replaced by the command.
      // Left waiting in the same foreground group, dash would die of the Ctrl-C itself and `script` report 130.
      const child = spawn(script!, ['-qfec', `exec ${command}`, '/dev/null'], {
        cwd: dataDir,
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      let out = '';
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
      child.stdout.on('data', (c: Buffer) => {
        const before = out;
        out += c.toString();
        if (!/admin[\s\S]*admin/.test(before) && /admin[\s\S]*admin/.test(out)) child.stdin.write('\x03');
      });
      const code = await exited;
      child.stdin.end();
      expect(code, out).toBe(0);
      expect(out.match(/SIGINT: stopping/g)).toHaveLength(1);
      expect(existsSync(stateFile)).toBe(true);
    },
    60_000,
  );
});

describe('bin/foreground.js', () => {
  const module = JSON.stringify(path.resolve('bin/foreground.js'));
  const probe = `import(${module}).then((m) => console.log(String(m.terminalForeground())))`;
  const output = (child: ReturnType<typeof spawn>) =>
    new Promise<string>((resolve) => {
      let out = '';
      child.stdout!.on('data', (c: Buffer) => (out += c.toString()));
      child.on('exit', () => resolve(out.trim()));
    });

  it('terminalForeground: false in a process group of its own, without a terminal', async () => {
    const child = spawn(process.execPath, ['-e', probe], { stdio: ['ignore', 'pipe', 'inherit'], detached: true });
    expect(await output(child)).toBe('false');
  });

  it.runIf(process.platform === 'linux' && script)("terminalForeground: true in a terminal's foreground", async () => {
    const command = `exec '${process.execPath}' -e '${probe.replaceAll("'", "'\\''")}'`;
    const child = spawn(script!, ['-qec', command, '/dev/null'], { stdio: ['pipe', 'pipe', 'inherit'] });
    expect(await output(child)).toBe('true');
    child.stdin!.end();
  });

  it.each([
    { stat: '4242 (node) S 1 4242 4242 34816 4242 4194560', want: { pgrp: 4242, tpgid: 4242 } },
    { stat: '4243 (a) (b c) S 4242 4242 4242 0 -1 4194560', want: { pgrp: 4242, tpgid: -1 } },
    { stat: 'garbage', want: undefined },
  ])("reads the process group and the terminal's foreground group from $stat", async ({ stat, want }) => {
    const { groupsFromStat } = (await import(path.resolve('bin/foreground.js'))) as {
      groupsFromStat: (s: string) => { pgrp: number; tpgid: number } | undefined;
    };
    expect(groupsFromStat(stat)).toEqual(want);
  });
});
