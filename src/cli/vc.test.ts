// `credential-vault vc sign`: the proof it adds verifies with the issuer's key (src/did), the credential
// comes from the argument or standard input, --json-string prints what an issue request's vcData takes, and
// every refusal is a usage error that echoes no secret.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Keypair } from '@stellar/stellar-sdk';
import { afterAll, describe, expect, it } from 'vitest';
import { deriveVaultAddress } from '../chain/derive.ts';
import { encodeMultikey, verifyDataIntegrity } from '../did/index.ts';
import { UsageError, type CliIo } from './args.ts';
import { vcCommand } from './vc.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'cv-vc-sign-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function io(stdin = ''): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  const out = (l: string) => void stdout.push(l);
  const err = (l: string) => void stderr.push(l);
  return { stdout, stderr, out, err, readStdin: async () => stdin, fetch };
}

const issuer = Keypair.random();
const secretFile = path.join(dir, 'issuer.key');
writeFileSync(secretFile, `${issuer.secret()}\n`);
chmodSync(secretFile, 0o600);
const DID = 'did:ledger:testnet:b4pc2pclljuxrb4wuw2mhuxb6a';
const VM = `${DID}#assert-1`;
const credential = {
  '@context': ['https://www.w3.org/ns/credentials/v2'],
  type: ['VerifiableCredential'],
  issuer: DID,
  credentialSubject: { id: 'did:ledger:testnet:ugzmhvhf6ydrqkj2jnog27upsa', degree: 'BSc' },
};

const issuerMultikey = encodeMultikey('Ed25519', issuer.rawPublicKey());

/** Verifies `signed` as a verifier does, the issuer DID resolving to a document with the issuer's key. */
const verify = (signed: Record<string, unknown>) =>
  verifyDataIntegrity({
    document: signed,
    now: new Date(),
    resolve: async (did) =>
      ({
        didDocument: {
          id: did,
          verificationMethod: [{ id: VM, type: 'Multikey', controller: did, publicKeyMultibase: issuerMultikey }],
          assertionMethod: ['#assert-1'],
        },
        didDocumentMetadata: {},
        didResolutionMetadata: { contentType: 'application/did+ld+json' },
      }) as unknown as Awaited<ReturnType<Parameters<typeof verifyDataIntegrity>[0]['resolve']>>,
  });

describe('vc sign', () => {
  it('adds an eddsa-jcs-2022 proof by the verification method, from standard input', async () => {
    const run = io(JSON.stringify(credential));
    expect(await vcCommand(['sign', '--secret-file', secretFile, '--verification-method', VM], run, {})).toBe(0);
    const signed = JSON.parse(run.stdout[0]!) as Record<string, unknown>;
    const proof = { type: 'DataIntegrityProof', cryptosuite: 'eddsa-jcs-2022', verificationMethod: VM };
    expect(signed).toMatchObject({ ...credential, proof: { ...proof, proofPurpose: 'assertionMethod' } });
    expect(run.stderr.join('\n')).toContain(issuer.publicKey());
    expect(run.stderr.join('\n')).not.toContain(issuer.secret());
    expect((await verify(signed)).verified).toBe(true);
    const tampered = { ...signed, credentialSubject: { ...credential.credentialSubject, degree: 'PhD' } };
    expect((await verify(tampered)).verified).toBe(false);
  });

  it("adds an eddsa-rdfc-2022 proof with --cryptosuite eddsa-rdfc-2022 (digitalbazaar's implementation)", async () => {
    // RDF reads every term through the contexts: VC 2.0's own has no @vocab, so `degree` needs a definition.
    const ld = {
      ...credential,
      '@context': [...credential['@context'], { degree: 'https://schema.org/credentialCategory' }],
    };
    const run = io(JSON.stringify(ld));
    const args = ['sign', '--secret-file', secretFile, '--verification-method', VM, '--cryptosuite', 'eddsa-rdfc-2022'];
    expect(await vcCommand(args, run, {})).toBe(0);
    const signed = JSON.parse(run.stdout[0]!) as Record<string, unknown>;
    expect(signed).toMatchObject({
      ...ld,
      proof: { type: 'DataIntegrityProof', cryptosuite: 'eddsa-rdfc-2022', verificationMethod: VM },
    });
    expect((await verify(signed)).verified).toBe(true);
    const tampered = { ...signed, credentialSubject: { ...credential.credentialSubject, degree: 'PhD' } };
    expect((await verify(tampered)).verified).toBe(false);
  });

  it('refuses a cryptosuite it does not sign with', async () => {
    const args = ['sign', '--secret-file', secretFile, '--verification-method', VM, '--cryptosuite', 'ecdsa-rdfc-2019'];
    await expect(vcCommand(args, io(JSON.stringify(credential)), {})).rejects.toThrow(UsageError);
  });

  it('prints a JSON string with --json-string, the credential as an argument, at the given time', async () => {
    const run = io();
    const args = ['sign', '--verification-method', VM, '--created', '2026-07-01T09:00:00Z', '--json-string'];
    args.push(JSON.stringify(credential));
    expect(await vcCommand(args, run, { secretKey: issuer.secret() })).toBe(0);
    const text = JSON.parse(run.stdout[0]!) as string;
    expect(typeof text).toBe('string');
    const signed = JSON.parse(text) as { proof: { created: string } };
    expect(signed.proof.created).toBe('2026-07-01T09:00:00Z');
  });

  it.each([
    { args: ['verify'], want: /unknown subcommand/ },
    { args: ['sign', '--verification-method', VM], want: /no key/ },
    { args: ['sign', '--secret-file', secretFile], want: /--verification-method/ },
    { args: ['sign', '--secret-file', secretFile, '--verification-method', DID], want: /--verification-method/ },
    { args: ['sign', '--secret-file', secretFile, '--verification-method', VM, '--nope'], want: /unknown flag/ },
    { args: ['sign', '--secret-file', secretFile, '--verification-method', VM, '[1]'], want: /JSON object/ },
    { args: ['sign', '--secret-file', secretFile, '--verification-method', VM, '{not json'], want: /not JSON/ },
    { args: ['sign', '--secret-file', secretFile, '--verification-method', VM, '--created', 'x', '{}'], want: /date/ },
    { args: ['sign', '--secret', issuer.secret(), '--verification-method', VM, '{}'], want: /never goes on/ },
  ])('refuses $args.1 $args.2 … with a usage error', async ({ args, want }) => {
    const err = await vcCommand(args, io(), {}).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UsageError);
    expect((err as Error).message).toMatch(want);
    expect((err as Error).message).not.toContain(issuer.secret());
  });
});

describe('vc sign --status-owner --status-vc-id', () => {
  const owner = Keypair.random().publicKey();
  const config = {
    networkType: 'testnet',
    networkPassphrase: 'Credential Vault Simulator Testnet ; 2026',
    factoryContractId: 'CABAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAFNSZ',
  };
  /** A vault API that answers GET /config with `body`, recording what was asked. */
  const withConfig = (body: unknown, status = 200) => {
    const asked: string[] = [];
    const base = io(JSON.stringify(credential));
    base.fetch = (async (url: string | URL | Request) => {
      asked.push(String(url));
      return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    }) as typeof fetch;
    return { run: base, asked };
  };

  it("adds the owner's LedgerVaultStatusEntry and its context before signing: the proof covers them", async () => {
    const { run, asked } = withConfig(config);
    const args = ['sign', '--secret-file', secretFile, '--verification-method', VM];
    const flags = ['--status-owner', owner, '--status-vc-id', 'degree-1', '--vault-api', 'http://vault.test:3000/'];
    expect(await vcCommand([...args, ...flags], run, {})).toBe(0);
    expect(asked).toEqual(['http://vault.test:3000/config']);
    const signed = JSON.parse(run.stdout[0]!);
    expect(signed.credentialStatus).toEqual({
      type: 'LedgerVaultStatusEntry',
      statusPurpose: 'revocation',
      network: 'testnet',
      vaultContract: deriveVaultAddress({
        networkPassphrase: config.networkPassphrase,
        factoryId: config.factoryContractId,
        owner,
      }),
      vcId: 'degree-1',
    });
    expect(signed['@context']).toEqual([
      'https://www.w3.org/ns/credentials/v2',
      'http://vault.test:3000/contexts/ledger-vault/v1',
    ]);
    expect((await verify(signed)).verified).toBe(true);
    expect((await verify({ ...signed, credentialStatus: { ...signed.credentialStatus, vcId: 'x' } })).verified).toBe(
      false,
    );
  });

  it.each([
    { flags: ['--status-owner', 'GABC'], want: /--status-owner G… --status-vc-id/ },
    { flags: ['--status-vc-id', 'degree-1'], want: /--status-owner G… --status-vc-id/ },
    { flags: ['--status-owner', 'nope', '--status-vc-id', 'd'], want: /account address/ },
    { flags: ['--status-owner', owner, '--status-vc-id', 'x'.repeat(65)], want: /1 to 64/ },
    { flags: ['--vault-api', 'http://vault.test'], want: /goes with/ },
  ])('refuses $flags', async ({ flags, want }) => {
    const { run } = withConfig(config);
    const args = ['sign', '--secret-file', secretFile, '--verification-method', VM, ...flags];
    await expect(vcCommand(args, run, {})).rejects.toThrow(want);
  });

  it.each([
    { name: 'a service that is not a vault API', body: { hello: 'world' }, status: 200 },
    { name: 'a failing service', body: { error: 'internal_error' }, status: 500 },
  ])('refuses $name: no credential is printed', async ({ body, status }) => {
    const { run } = withConfig(body, status);
    const args = ['sign', '--secret-file', secretFile, '--verification-method', VM];
    await expect(vcCommand([...args, '--status-owner', owner, '--status-vc-id', 'degree-1'], run, {})).rejects.toThrow(
      /did not answer a vault API configuration/,
    );
    expect(run.stdout).toEqual([]);
  });
});
