// `credential-vault did create --registrar URL` against the resolver over the simulator: the controller's key from
// CV_SECRET_KEY signs here, the DID is finished and resolves; usage errors say what is missing.
import { Keypair } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multikey, startHarness, type Harness } from '../../test-support/resolver.ts';
import { UsageError, type CliIo } from './args.ts';
import { didCommand } from './did.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 60_000);
afterAll(async () => {
  await h?.close();
});

function io(): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return { stdout, stderr, out: (l) => stdout.push(l), err: (l) => stderr.push(l), readStdin: async () => '', fetch };
}

describe('did create --registrar', () => {
  it('creates a DID the key in CV_SECRET_KEY controls, with an assertion key', async () => {
    const controller = await h.account();
    const assertion = Keypair.random();
    const out = io();
    const code = await didCommand(['create', '--registrar', h.url, '--assertion-key', multikey(assertion)], out, {
      secretKey: controller.secret(),
    });
    expect(code, out.stderr.join('\n')).toBe(0);
    const state = JSON.parse(out.stdout.join('\n'));
    expect(state.didState.state).toBe('finished');
    const resolved = await h.get(`/1.0/identifiers/${state.didState.did}`);
    expect(resolved.status).toBe(200);
    expect(resolved.body.didDocumentMetadata.method.stellarAccount).toBe(controller.publicKey());
    expect(
      resolved.body.didDocument.verificationMethod.map((m: { publicKeyMultibase: string }) => m.publicKeyMultibase),
    ).toEqual([multikey(controller), multikey(assertion)]);
  });

  it.each([
    [['create'], /--registrar/],
    [['create', '--registrar', 'http://127.0.0.1:1'], /--secret-file FILE or CV_SECRET_KEY/],
    [['create', '--registrar', 'http://127.0.0.1:1', '--network', 'devnet'], /--network/],
  ])('%j is a usage error', async (argv, message) => {
    await expect(Promise.resolve().then(() => didCommand(argv, io(), {}))).rejects.toThrow(UsageError);
    await expect(Promise.resolve().then(() => didCommand(argv, io(), {}))).rejects.toThrow(message);
  });
});
