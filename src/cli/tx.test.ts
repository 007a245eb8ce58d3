// `credential-vault tx sign` against the resolver over the chain simulator: a prepared registration signed
// from the prepare answer (payer = controller), the two-party case (the controller signs its authorization
// entry, then the payer the envelope), --submit, and every refusal. One run through the real command
// (bin/credential-vault.js) reads the answer from standard input as the README's curl example does.
import { execFile } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Keypair } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateDid } from '../did/index.ts';
import { multikey, startHarness, type Harness } from '../../test-support/resolver.ts';
import { UsageError, type CliIo } from './args.ts';
import { txCommand } from './tx.ts';

let h: Harness;
const dir = mkdtempSync(path.join(tmpdir(), 'cv-tx-sign-'));
beforeAll(async () => {
  h = await startHarness();
}, 60_000);
afterAll(async () => {
  await h?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** An io whose standard input is `stdin` and whose output is kept. */
function io(stdin = ''): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    out: (l) => stdout.push(l),
    err: (l) => stderr.push(l),
    readStdin: async () => stdin,
    fetch,
  };
}

function secretFile(kp: Keypair, mode = 0o600): string {
  const file = path.join(dir, `${kp.publicKey().slice(0, 8)}-${mode.toString(8)}.txt`);
  writeFileSync(file, `${kp.secret()}\n`);
  chmodSync(file, mode);
  return file;
}

/** The prepare answer ({xdr, network, networkPassphrase}) of a registration paid by `payer` for `controller`. */
async function prepareRegistration(payer: Keypair, controller: Keypair) {
  const { did } = generateDid({ network: 'testnet' });
  const record = {
    controller: controller.publicKey(),
    authentication: [{ publicKeyMultibase: multikey(controller) }],
    assertionMethod: [],
    keyAgreement: [],
    services: [],
  };
  const prep = await h.post('/v1/dids/stellar', { did, sourcePublicKey: payer.publicKey(), record });
  expect(prep.status, prep.text).toBe(200);
  return { did, answer: prep.text, body: prep.body as { xdr: string; networkPassphrase: string } };
}

describe('tx sign', () => {
  it.each([
    {
      given: 'the vault API',
      answer: { error: 'invalid_request', message: "Empty value found for query parameter 'account'" },
      want: "tx sign: the service refused the prepare: invalid_request: Empty value found for query parameter 'account'",
    },
    {
      given: 'the resolver',
      answer: { code: 'did_not_found', message: 'no such DID', details: {} },
      want: 'tx sign: the service refused the prepare: did_not_found: no such DID',
    },
    {
      given: 'neither',
      answer: { nope: 1 },
      want: 'tx sign: the JSON has no "xdr" (not a prepare answer or a challenge): {"nope":1}',
    },
  ])("an error answer of $given piped in: the service's words, no usage (a plain error)", async ({ answer, want }) => {
    const kp = Keypair.random();
    const attempt = txCommand(['sign', '--secret-file', secretFile(kp)], io(JSON.stringify(answer)), {});
    await expect(attempt).rejects.toThrow(want);
    await expect(attempt).rejects.not.toBeInstanceOf(UsageError);
  });

  it('through the real command: exit 1, the error on standard error, no usage text', async () => {
    const kp = Keypair.random();
    const answer = JSON.stringify({ error: 'invalid_request', message: 'Empty value' });
    const child = execFile(process.execPath, [
      path.resolve('bin/credential-vault.js'),
      'tx',
      'sign',
      '--secret-file',
      secretFile(kp),
    ]);
    child.stdin!.end(answer);
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise((r) => child.once('exit', r));
    expect(code).toBe(1);
    expect(stderr.trim()).toBe('tx sign: the service refused the prepare: invalid_request: Empty value');
  });

  it('signs the prepare answer read from standard input with --secret-file; the signed XDR registers the DID', async () => {
    const kp = await h.account();
    const { did, answer } = await prepareRegistration(kp, kp);
    const run = io(answer);
    expect(await txCommand(['sign', '--secret-file', secretFile(kp)], run, {})).toBe(0);
    expect(run.stdout).toHaveLength(1);
    expect(run.stderr.join('\n')).toContain(`signed the envelope as ${kp.publicKey()}`);
    const submitted = await h.post('/v1/dids/stellar', { signedXdr: run.stdout[0] });
    expect(submitted.status, submitted.text).toBe(200);
    expect((await h.get(`/1.0/identifiers/${did}`)).status).toBe(200);
  });

  it('takes the key from CV_SECRET_KEY, bare XDR with --passphrase, and --submit posts {signedXdr}', async () => {
    const kp = await h.account();
    const { did, body } = await prepareRegistration(kp, kp);
    const run = io();
    const code = await txCommand(
      ['sign', '--passphrase', body.networkPassphrase, '--submit', `${h.url}/v1/dids/stellar`, body.xdr],
      run,
      { secretKey: kp.secret() },
    );
    expect(code, run.stderr.join('\n')).toBe(0);
    expect(JSON.parse(run.stdout[0]!)).toEqual({ txId: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect((await h.get(`/1.0/identifiers/${did}`)).status).toBe(200);
  });

  it('two parties: the controller signs its authorization entry (--rpc-url), then the payer the envelope', async () => {
    const [payer, controller] = [await h.account(), await h.account()];
    const { did, answer } = await prepareRegistration(payer, controller);
    const first = io(answer);
    expect(
      await txCommand(['sign', '--rpc-url', h.info.testnet.rpcUrl!], first, { secretKey: controller.secret() }),
    ).toBe(0);
    expect(first.stderr.join('\n')).toMatch(/signed 1 authorization entry \(valid until ledger \d+\) as G/);
    expect(first.stderr.join('\n')).toContain(`the source ${payer.publicKey()} must sign it next`);
    // The payer signs what the controller handed over; the passphrase now comes from the flag.
    const second = io(first.stdout[0]);
    expect(
      await txCommand(['sign', '--passphrase', JSON.parse(answer).networkPassphrase, '-'], second, {
        secretKey: payer.secret(),
      }),
    ).toBe(0);
    const submitted = await h.post('/v1/dids/stellar', { signedXdr: second.stdout[0] });
    expect(submitted.status, submitted.text).toBe(200);
    expect((await h.get(`/1.0/identifiers/${did}`)).body.didDocumentMetadata.method.stellarAccount).toBe(
      controller.publicKey(),
    );
  });

  it('warns when the secret file is readable by others', async () => {
    const kp = await h.account();
    const { answer } = await prepareRegistration(kp, kp);
    const run = io(answer);
    expect(await txCommand(['sign', '--secret-file', secretFile(kp, 0o644)], run, {})).toBe(0);
    expect(run.stderr[0]).toMatch(/readable by other users \(chmod 600 /);
  });

  // A URL is shown without its userinfo and query (a password, an API key), whatever went wrong with it.
  describe('URLs in its messages', () => {
    const SECRETS = /SECRET|KEYVALUE/;
    const withSecrets = (pathAndQuery: string) => `${h.url.replace('://', '://user:SECRET@')}${pathAndQuery}`;

    it('--submit answered with an error: the URL without its query', async () => {
      const kp = await h.account();
      const { answer } = await prepareRegistration(kp, kp);
      const run = io(answer);
      const args = ['sign', '--submit', `${h.url}/v1/nope?apikey=KEYVALUE`];
      const code = await txCommand(args, run, { secretKey: kp.secret() });
      expect(code).toBe(1);
      expect(run.stderr.at(-1)).toBe(`${h.url}/v1/nope answered 404`);
      expect(run.stderr.join('\n')).not.toMatch(SECRETS);
    });

    it.each([
      {
        name: 'with userinfo',
        url: () => withSecrets('/v1/dids/stellar?apikey=KEYVALUE'),
        shown: () => `${h.url}/v1/dids/stellar`,
      },
      { name: 'unreachable', url: () => 'http://127.0.0.1:1/rpc?key=KEYVALUE', shown: () => 'http://127.0.0.1:1/rpc' },
      { name: 'not a URL', url: () => 'not a url SECRET', shown: () => '(not a URL)' },
    ])('--submit $name: cannot reach it, said without its secrets', async ({ url, shown }) => {
      const kp = await h.account();
      const { answer } = await prepareRegistration(kp, kp);
      const run = io(answer);
      const got = await txCommand(['sign', '--submit', url()], run, { secretKey: kp.secret() }).then(
        () => 'answered',
        (e: Error) => e.message,
      );
      expect(got.startsWith(`tx sign: cannot reach ${shown()} (--submit): `), got).toBe(true);
      expect(got).not.toMatch(SECRETS);
    });

    it('--rpc-url answering 404: the URL, the flag and the status', async () => {
      const [payer, controller] = [await h.account(), await h.account()];
      const { answer } = await prepareRegistration(payer, controller);
      // The resolver's own address: a server that answers 404 to an RPC path.
      const url = `${h.url}/not-an-rpc`;
      const got = await txCommand(['sign', '--rpc-url', url], io(answer), { secretKey: controller.secret() }).then(
        () => 'signed',
        (e: Error) => e.message,
      );
      expect(got).toBe(`tx sign: cannot reach ${url} (--rpc-url): HTTP 404`);
    });

    it('--rpc-url unreachable: said without its secrets', async () => {
      const [payer, controller] = [await h.account(), await h.account()];
      const { answer } = await prepareRegistration(payer, controller);
      const url = 'http://user:SECRET@127.0.0.1:1/rpc?apikey=KEYVALUE';
      const got = await txCommand(['sign', '--rpc-url', url], io(answer), { secretKey: controller.secret() }).then(
        () => 'signed',
        (e: Error) => e.message,
      );
      expect(got.startsWith('tx sign: cannot reach http://127.0.0.1:1/rpc (--rpc-url): '), got).toBe(true);
      expect(got).not.toMatch(SECRETS);
    });
  });

  describe('refuses', () => {
    let kp: Keypair;
    let answer: string;
    beforeAll(async () => {
      kp = await h.account();
      ({ answer } = await prepareRegistration(kp, kp));
    });

    it.each([
      { given: () => ['sign', '--secret', kp.secret()], env: {}, want: /never goes on the command line/ },
      { given: () => ['sign', `--secret-key=${kp.secret()}`], env: {}, want: /never goes on the command line/ },
      { given: () => ['sign', kp.secret()], env: {}, want: /never goes on the command line/ },
      { given: () => ['sign'], env: {}, want: /no key: --secret-file FILE, or CV_SECRET_KEY/ },
      { given: () => ['sign', '--secret-file', path.join(dir, 'missing.txt')], env: {}, want: /missing\.txt: ENOENT/ },
      { given: () => ['sign'], env: { secretKey: 'SNOTASECRET' }, want: /CV_SECRET_KEY: not a secret seed/ },
      {
        given: () => ['sign', '--passphrase', 'Public Global Stellar Network ; September 2015'],
        env: () => ({ secretKey: kp.secret() }),
        want: /refusing to sign/,
      },
      {
        given: () => ['sign', JSON.parse(answer).xdr],
        env: () => ({ secretKey: kp.secret() }),
        want: /bare XDR needs --passphrase/,
      },
      {
        given: () => ['sign', '--passphrase', 'Test', 'AAAA'],
        env: () => ({ secretKey: kp.secret() }),
        want: /not a transaction envelope/,
      },
      {
        given: () => ['sign', '--colour', 'red'],
        env: () => ({ secretKey: kp.secret() }),
        want: /unknown flag --colour/,
      },
      {
        given: () => ['sign'],
        env: () => ({ secretKey: Keypair.random().secret() }),
        want: /has nothing to sign: the transaction's source is G/,
      },
      { given: () => ['verify'], env: {}, want: /unknown subcommand "verify"/ },
    ])('$want', async ({ given, env, want }) => {
      const run = io(answer);
      await expect(txCommand(given(), run, typeof env === 'function' ? env() : env)).rejects.toThrow(want);
      await expect(txCommand(given(), io(answer), typeof env === 'function' ? env() : env)).rejects.toBeInstanceOf(
        UsageError,
      );
      expect(run.stdout).toEqual([]);
    });

    it('an authorization entry without a ledger to be valid until', async () => {
      const [payer, controller] = [await h.account(), await h.account()];
      const prepared = await prepareRegistration(payer, controller);
      await expect(txCommand(['sign'], io(prepared.answer), { secretKey: controller.secret() })).rejects.toThrow(
        /needs G[A-Z2-7]+'s authorization: give the ledger/,
      );
    });
  });

  it('works as the command the README shows: the answer piped in, the key in CV_SECRET_KEY', async () => {
    const kp = await h.account();
    const { did, answer } = await prepareRegistration(kp, kp);
    const bin = path.resolve('bin/credential-vault.js');
    const child = promisify(execFile)(process.execPath, [bin, 'tx', 'sign', '--submit', `${h.url}/v1/dids/stellar`], {
      env: { ...process.env, CV_SECRET_KEY: kp.secret() },
    });
    child.child.stdin!.end(answer);
    const { stdout } = await child;
    expect(JSON.parse(stdout)).toEqual({ txId: expect.any(String) });
    expect((await h.get(`/1.0/identifiers/${did}`)).status).toBe(200);
  });
});
