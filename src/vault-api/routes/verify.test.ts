// POST /credentials/verify end to end over HTTP against the RPC simulator (responses validated by the spec):
// the VC API (VCALM) answer and status codes, presented credentials (keyless), LedgerVaultStatusEntry status
// read from the vault, verification by reference for the owner's key only, issuer access judged by the
// recorded issuing wallet and the DID's current controller, I-JSON, and issuance rules for proofs and
// status entries. Presentations are in presentations.test.ts; the W3C suites' cases in
// contract-tests/w3c-verifier-suites.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keypair } from '@stellar/stellar-sdk';
import { signCredential } from '../../did/index.ts';
import { didKeyOf, startVerificationEnv, type VerificationEnv } from '../../../test-support/verification.ts';

let t: VerificationEnv;
let vc1: Record<string, unknown>;
let vcEntry: Record<string, unknown>;

const verify = (body: unknown, key?: Parameters<VerificationEnv['call']>[2]) =>
  t.call('/credentials/verify', body, key);
const reasons = (body: { problemDetails?: { reason: string; level: string }[] }, level = 'error') =>
  (body.problemDetails ?? []).filter((p) => p.level === level).map((p) => p.reason);

beforeAll(async () => {
  t = await startVerificationEnv();
  vc1 = await t.sign();
  vcEntry = await t.sign({ statusFor: 'vc-entry' });
  await t.issue('vc-1', vc1);
  await t.issue('vc-entry', vcEntry);
  await t.issue('vc-unsigned', t.credential());
}, 120_000);
afterAll(async () => {
  await t?.close();
});

/** Moves the issuer's DID from the wallet `from` to `to`, at whatever version it has. */
async function transferIssuerDid(from: Keypair, to: Keypair): Promise<void> {
  const current = await t.env.chain.registry.get(t.issuer.didId);
  const moved = await t.env.chain.registry.transferController({
    source: from.publicKey(),
    didId: t.issuer.didId,
    expectedVersion: current!.record.version,
    newController: to.publicKey(),
  });
  await t.env.chain.client.submit(t.env.sign(moved.xdr, from));
}

describe('presented credentials', () => {
  it('keyless: 200 verified, every check in results, the unchecked status and access as warnings', async () => {
    const r = await verify({ verifiableCredential: vc1 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.verified).toBe(true);
    expect(reasons(r.body)).toEqual([]);
    expect(reasons(r.body, 'warning')).toEqual(['no_status_entry', 'no_vault']);
    expect(r.body.results).toEqual({
      proof: [
        {
          verified: true,
          input: expect.objectContaining({
            type: 'DataIntegrityProof',
            cryptosuite: 'eddsa-jcs-2022',
            proofPurpose: 'assertionMethod',
          }),
        },
      ],
      validFrom: { verified: true, input: '2026-01-01T00:00:00Z' },
      credentialStatus: [],
      issuerDid: { outcome: 'passed', input: t.issuer.did },
      issuerAllowed: { outcome: 'not_checked', input: t.issuer.did },
    });
    expect(r.headers.get('x-ratelimit-limit')).toBe('30');
  });

  it('options.checks [proof]: only the proof runs; returnResults/returnProblemDetails/returnCredential shape the answer', async () => {
    const r = await verify({ verifiableCredential: vc1, options: { checks: ['proof'] } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      verified: true,
      problemDetails: [],
      results: { proof: [expect.objectContaining({ verified: true })] },
    });
    const bare = await verify({
      verifiableCredential: vc1,
      options: { checks: ['proof'], returnResults: false, returnProblemDetails: false, returnCredential: true },
    });
    expect(bare.body).toEqual({ verified: true, credential: vc1 });
  });

  it.each([
    ['an unknown check', { checks: ['credentialSchema'] }],
    ['an unknown option', { expectedProofPurpose: 'authentication' }],
    ['a check named twice', { checks: ['proof', 'proof'] }],
  ])('400 invalid_request for %s', async (_name, options) => {
    const r = await verify({ verifiableCredential: vc1, options });
    expect([r.status, r.body.error]).toEqual([400, 'invalid_request']);
  });

  it.each([
    [
      'a tampered credential',
      () => ({ ...vc1, credentialSubject: { id: t.holder.did, role: 'admin' } }),
      'PROOF_VERIFICATION_ERROR',
      'signature_invalid',
    ],
    [
      'a key not under assertionMethod',
      () => t.sign({ fragment: 'auth-1', key: t.issuer.wallet }),
      'PROOF_VERIFICATION_ERROR',
      'verification_method_not_authorized',
    ],
    [
      'an expired credential',
      () => t.sign({ credential: t.credential({ validUntil: '2026-02-01T00:00:00Z' }) }),
      'CREDENTIAL_EXPIRED',
      'expired',
    ],
    [
      'a credential valid from next year',
      () => t.sign({ credential: t.credential({ validFrom: '2099-01-01T00:00:00Z' }) }),
      'CREDENTIAL_NOT_YET_VALID',
      'not_yet_valid',
    ],
    ['no proof', () => t.credential(), 'PROOF_VERIFICATION_ERROR', 'no_proof'],
    [
      'a proof by another DID than the issuer',
      async () => ({ ...(await t.sign()), issuer: t.holder.did }),
      'PROOF_VERIFICATION_ERROR',
      'not_proof_signer',
    ],
    [
      'an issuer of another DID method',
      async () => {
        const vc = t.credential({}, 'did:web:issuer.example');
        return {
          ...vc,
          proof: { ...((await t.sign()).proof as object), verificationMethod: 'did:web:issuer.example#key-1' },
        };
      },
      'UNSUPPORTED_DID_METHOD',
      'did_method_not_supported',
    ],
  ])('%s → 400, verified false, %s (%s)', async (_name, make, title, reason) => {
    const r = await verify({ verifiableCredential: await make() });
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.verified).toBe(false);
    expect(r.body.problemDetails).toContainEqual(expect.objectContaining({ title, reason, level: 'error' }));
  });

  it('a did:key issuer verifies offline; its ledger checks are not applicable, not failed', async () => {
    const k = didKeyOf(Keypair.random());
    const vc = await signCredential({
      credential: t.credential({}, k.did),
      verificationMethod: k.vm,
      secretKey: k.key.rawSecretKey(),
      created: new Date(t.env.clock.now() - 1000),
    });
    const r = await verify({ verifiableCredential: vc });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.results.issuerDid).toEqual({ outcome: 'not_applicable', input: k.did });
    expect(reasons(r.body)).toEqual([]);
  });

  // Adversarial review defect 4: JSON.parse keeps the last of two members, another reader the first.
  it('a credential whose JSON repeats a member name is PARSING_ERROR; a repeat outside it is invalid_request', async () => {
    const text = JSON.stringify({ verifiableCredential: vc1 }).replace(
      '"validFrom":"2026-01-01T00:00:00Z"',
      '"validUntil":"2099-01-01T00:00:00Z","validUntil":"2035-01-01T00:00:00Z","validFrom":"2026-01-01T00:00:00Z"',
    );
    const r = await verify(text);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      verified: false,
      problemDetails: [expect.objectContaining({ title: 'PARSING_ERROR', reason: 'duplicate_member' })],
    });
    const outside = await verify(
      `{"verifiableCredential":${JSON.stringify(vc1)},"options":{"checks":["proof"]},"options":{}}`,
    );
    expect([outside.status, outside.body.error]).toEqual([400, 'invalid_request']);
  });

  // The I-JSON scan read the quote of a \" after a \u escape as the string's end, gave the text up as not JSON,
  // and so found no repeated member in it at all.
  it('finds a repeated member in a body whose strings hold a \\u escape and then \\"', async () => {
    t.env.clock.advance(61_000); // a new keyless window (30 per minute)
    const credential = JSON.stringify({ ...vc1, description: 'caf\u00e9 "quoted"' }).replace('caf\u00e9', 'caf\\u00e9');
    expect(credential).toContain('caf\\u00e9 \\"quoted');
    const repeated = credential.replace(
      '"validFrom":"2026-01-01T00:00:00Z"',
      '"validUntil":"2099-01-01T00:00:00Z","validUntil":"2035-01-01T00:00:00Z","validFrom":"2026-01-01T00:00:00Z"',
    );
    const r = await verify(`{"verifiableCredential":${repeated}}`);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      verified: false,
      problemDetails: [expect.objectContaining({ title: 'PARSING_ERROR', reason: 'duplicate_member' })],
    });
    const outside = await verify(`{"verifiableCredential":${credential},"options":{"checks":["proof"]},"options":{}}`);
    expect([outside.status, outside.body.error]).toEqual([400, 'invalid_request']);
  });

  // A credential nested 5,000 levels deep (10 KB) asked back with returnCredential was a 500 (JSON.stringify
  // ran out of stack); 20,000 levels overflowed the body reader's I-JSON scan (400 "cannot be read").
  it.each([5_000, 20_000, 200_000])(
    'a body nested %i levels deep: 400 invalid_json, whatever it asks back',
    async (depth) => {
      t.env.clock.advance(61_000); // a new keyless window (30 per minute)
      const deep = '['.repeat(depth) + ']'.repeat(depth);
      const body = `{"verifiableCredential":${JSON.stringify(vc1).replace('"auditor"', deep)},"options":{"returnCredential":true}}`;
      // Over 64 KiB a keyless body is refused before it is read (413): the deepest one is sent with a key.
      const r = await verify(body, body.length > 64 * 1024 ? await t.env.mintKey() : undefined);
      expect([r.status, r.body.error], JSON.stringify(r.body).slice(0, 300)).toEqual([400, 'invalid_json']);
      expect(r.body.message).toMatch(/nests \d+ levels deep; .* at most 64 levels/);
    },
  );

  it('a credential as deep as the bound allows is verified and answered back', async () => {
    t.env.clock.advance(61_000);
    const deep = `${'['.repeat(60)}"x"${']'.repeat(60)}`;
    const vc = await t.sign({
      credential: t.credential({ credentialSubject: { id: t.holder.did, nested: JSON.parse(deep) } }),
    });
    const r = await verify({ verifiableCredential: vc, options: { returnCredential: true, checks: ['proof'] } });
    expect(r.status, JSON.stringify(r.body).slice(0, 300)).toBe(200);
    expect(r.body.credential).toEqual(vc);
  });
});

describe('LedgerVaultStatusEntry: status that travels inside the credential', () => {
  it('a presented credential carrying its entry: status and issuer access read from the vault, keyless', async () => {
    const r = await verify({ verifiableCredential: vcEntry });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.results.credentialStatus).toEqual([
      { verified: true, status: 'valid', input: t.statusEntry('vc-entry') },
    ]);
    expect(r.body.results.issuerAllowed.outcome).toBe('passed');
    expect(r.body.problemDetails).toEqual([]);
  });

  it('is trusted only under a verified proof: a tampered credential does not get its status read', async () => {
    const r = await verify({
      verifiableCredential: { ...vcEntry, credentialSubject: { id: t.holder.did, role: 'admin' } },
    });
    expect(r.status).toBe(400);
    expect(reasons(r.body)).toEqual(['signature_invalid', 'status_unconfirmed']);
  });

  it.each([
    ['another network', { network: 'mainnet' }, 'network_mismatch'],
    ['a vcId the vault does not hold', { vcId: 'vc-none' }, 'vc_not_found'],
    [
      'a contract that is no vault',
      { vaultContract: 'CABAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAEAQCAIBAFNSZ' },
      'vc_not_found',
    ],
    ['a vcId that holds another credential', { vcId: 'vc-1' }, 'not_the_stored_credential'],
  ])('an entry naming %s fails credentialStatus (%s)', async (_name, over, reason) => {
    const vc = await t.sign({ credential: t.credential({ credentialStatus: t.statusEntry('vc-entry', over) }) });
    const r = await verify({ verifiableCredential: vc });
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(reasons(r.body)).toEqual([reason]);
  });
});

describe('by reference: what get-vc protects stays protected', () => {
  it("the owner's key: every check passes", async () => {
    const r = await verify({ owner: t.holder.wallet.publicKey(), vcId: 'vc-1' }, t.holder.key);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.results.credentialStatus).toEqual([
      {
        verified: true,
        status: 'valid',
        input: { type: 'VaultReference', network: 'testnet', vaultContract: t.vault, vcId: 'vc-1' },
      },
    ]);
    expect(r.body.problemDetails).toEqual([]);
  });

  it('an admin key may; any other key gets 403 and nothing of the content, also with a guessed credential beside', async () => {
    const admin = await t.env.mintKey({ wallet: null, role: 'admin' });
    expect((await verify({ owner: t.holder.wallet.publicKey(), vcId: 'vc-1' }, admin)).status).toBe(200);
    for (const body of [
      { owner: t.holder.wallet.publicKey(), vcId: 'vc-1' },
      { owner: t.holder.wallet.publicKey(), vcId: 'vc-1', verifiableCredential: vc1 },
    ]) {
      const r = await verify(body, t.issuer.key);
      expect([r.status, r.body.error], JSON.stringify(r.body)).toEqual([403, 'forbidden']);
      expect(Object.keys(r.body)).toEqual(['error', 'message']);
      expect(r.body.message).not.toMatch(/2026-01-01|auditor/);
    }
    expect((await verify({ owner: t.holder.wallet.publicKey(), vcId: 'vc-1' })).body.error).toBe('missing_api_key');
  });

  // An admin key answered not_the_stored_credential or verified true: an equality oracle on the content.
  it("comparing a presented credential with the stored one is for the owner's key alone; an admin key gets 403", async () => {
    const admin = await t.env.mintKey({ wallet: null, role: 'admin' });
    for (const presented of [vc1, await t.sign()]) {
      const r = await verify(
        { owner: t.holder.wallet.publicKey(), vcId: 'vc-1', verifiableCredential: presented },
        admin,
      );
      expect([r.status, r.body.error], JSON.stringify(r.body)).toEqual([403, 'forbidden']);
      expect(Object.keys(r.body)).toEqual(['error', 'message']);
    }
    expect(
      (await verify({ owner: t.holder.wallet.publicKey(), vcId: 'vc-1', verifiableCredential: vc1 }, t.holder.key))
        .status,
    ).toBe(200);
  });

  it('the owner comparing another credential with the stored one: not_the_stored_credential', async () => {
    const r = await verify(
      { verifiableCredential: await t.sign(), owner: t.holder.wallet.publicKey(), vcId: 'vc-1' },
      t.holder.key,
    );
    expect(r.status).toBe(400);
    expect(reasons(r.body)).toEqual(['not_the_stored_credential']);
  });

  it('404 for an unknown vcId or vault', async () => {
    expect((await verify({ owner: t.holder.wallet.publicKey(), vcId: 'nope' }, t.holder.key)).body.error).toBe(
      'vc_not_found',
    );
    const stranger = await t.env.fund();
    const key = await t.env.mintKey({ wallet: stranger });
    expect((await verify({ owner: stranger.publicKey(), vcId: 'vc-1' }, key)).body.error).toBe('vault_not_found');
  });

  it('a stored credential without a proof fails proof (no_proof)', async () => {
    const r = await verify({ owner: t.holder.wallet.publicKey(), vcId: 'vc-unsigned' }, t.holder.key);
    expect(reasons(r.body)).toEqual(['no_proof']);
  });
});

describe('issuance rules', () => {
  const issueBody = (vcId: string, vc: object) => ({
    owner: t.holder.wallet.publicKey(),
    vcId,
    vcData: JSON.stringify(vc),
    issuer: t.issuer.wallet.publicKey(),
    issuerDid: t.issuer.did,
    sourcePublicKey: t.issuer.wallet.publicKey(),
  });

  it.each([
    ['another vcId', 'vc-x', { vcId: 'vc-y' }],
    ['another vault', 'vc-x', { vaultContract: 'CANONPF2ORKR6OEA5I7A5ZMQZZCNXLSWJDVXY2IKWHCNHLPCXSD4HTVG' }],
    ['another network', 'vc-x', { network: 'mainnet' }],
  ])('refuses a LedgerVaultStatusEntry naming %s: 400 credentialStatus_mismatch', async (_name, vcId, over) => {
    const vc = await t.sign({ credential: t.credential({ credentialStatus: t.statusEntry(vcId, over) }) });
    const r = await t.call('/contracts/vc/issue', issueBody(vcId, vc), t.issuer.key);
    expect([r.status, r.body.error], JSON.stringify(r.body)).toEqual([400, 'credentialStatus_mismatch']);
  });

  it.each([
    [
      'a repeated member name',
      (text: string) =>
        text.replace(
          '"validFrom":',
          '"validUntil":"2001-01-01T00:00:00Z","validUntil":"2099-01-01T00:00:00Z","validFrom":',
        ),
    ],
    ['a lone surrogate escape', (text: string) => text.replace('"auditor"', '"\\ud800"')],
  ])('refuses vcData that is not I-JSON (%s), with or without a proof: 400 vcData_invalid', async (_name, spoil) => {
    for (const vc of [t.credential(), await t.sign()]) {
      const r = await t.call(
        '/contracts/vc/issue',
        { ...issueBody('vc-ijson', vc), vcData: spoil(JSON.stringify(vc)) },
        t.issuer.key,
      );
      expect([r.status, r.body.error], JSON.stringify(r.body)).toEqual([400, 'vcData_invalid']);
    }
  });

  it('accepts a credential of a did:key issuer signed by that key (the vault records issuerDid)', async () => {
    const k = didKeyOf(Keypair.random());
    const vc = await signCredential({
      credential: t.credential({ credentialStatus: t.statusEntry('vc-didkey') }, k.did),
      verificationMethod: k.vm,
      secretKey: k.key.rawSecretKey(),
      created: new Date(t.env.clock.now() - 1000),
    });
    await t.issue('vc-didkey', vc);
    const r = await verify({ verifiableCredential: vc });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.results).toMatchObject({
      issuerDid: { outcome: 'not_applicable' },
      credentialStatus: [{ status: 'valid' }],
      issuerAllowed: { outcome: 'passed' },
    });
  });
});

describe('issuer access and revocation on the chain', () => {
  // Adversarial review defect 3: issuerAllowed read only the DID's current controller, so a denied issuer
  // that moved its DID to another wallet had its credentials verify again.
  it('a denied issuer stays denied after moving its DID to another wallet; the new controller counts too', async () => {
    const access = (issuer: string) => ({
      owner: t.holder.wallet.publicKey(),
      issuer,
      sourcePublicKey: t.holder.wallet.publicKey(),
    });
    t.env.clock.advance(61_000); // a new keyless window (30 per minute): this test makes 5 keyless calls
    const next = await t.env.fund();
    await t.write('/contracts/vault/deny-issuer', access(t.issuer.wallet.publicKey()), t.holder.key, t.holder.wallet);
    let moved = false;
    let denying = true;
    try {
      const denied = await verify({ verifiableCredential: vcEntry });
      expect([denied.status, reasons(denied.body)]).toEqual([400, ['issuer_denied']]);

      await transferIssuerDid(t.issuer.wallet, next);
      moved = true;
      const still = await verify({ verifiableCredential: vcEntry });
      expect([still.status, reasons(still.body)]).toEqual([400, ['issuer_denied']]);
      expect(still.body.problemDetails[0].detail).toContain(t.issuer.wallet.publicKey());

      await t.write(
        '/contracts/vault/allow-issuer',
        access(t.issuer.wallet.publicKey()),
        t.holder.key,
        t.holder.wallet,
      );
      denying = false;
      expect((await verify({ verifiableCredential: vcEntry })).status).toBe(200);
      await t.write('/contracts/vault/deny-issuer', access(next.publicKey()), t.holder.key, t.holder.wallet);
      const byController = await verify({ verifiableCredential: vcEntry });
      expect([byController.status, reasons(byController.body)]).toEqual([400, ['issuer_denied']]);
      expect(byController.body.problemDetails[0].detail).toContain(next.publicKey());
      await t.write('/contracts/vault/allow-issuer', access(next.publicKey()), t.holder.key, t.holder.wallet);
    } finally {
      // The other tests (in any order) issue and verify under the issuer's own wallet, allowed by the holder.
      if (moved) await transferIssuerDid(next, t.issuer.wallet);
      if (denying)
        await t.write(
          '/contracts/vault/allow-issuer',
          access(t.issuer.wallet.publicKey()),
          t.holder.key,
          t.holder.wallet,
        );
    }
  });

  // Asked alone, issuerAllowed did not read the vault the entry names: a denied issuer passed with a warning.
  it('checks [issuerAllowed] alone: the vault the entry names is read, under a verified proof', async () => {
    const access = {
      owner: t.holder.wallet.publicKey(),
      issuer: t.issuer.wallet.publicKey(),
      sourcePublicKey: t.holder.wallet.publicKey(),
    };
    t.env.clock.advance(61_000);
    const allowed = await verify({ verifiableCredential: vcEntry, options: { checks: ['issuerAllowed'] } });
    expect([allowed.status, allowed.body.results], JSON.stringify(allowed.body)).toEqual([
      200,
      {
        proof: [expect.objectContaining({ verified: true })],
        issuerAllowed: { outcome: 'passed', input: t.issuer.did },
      },
    ]);
    await t.write('/contracts/vault/deny-issuer', access, t.holder.key, t.holder.wallet);
    try {
      const denied = await verify({ verifiableCredential: vcEntry, options: { checks: ['issuerAllowed'] } });
      expect([denied.status, reasons(denied.body)]).toEqual([400, ['issuer_denied']]);
      const tampered = await verify({
        verifiableCredential: { ...vcEntry, credentialSubject: { id: t.holder.did, role: 'admin' } },
        options: { checks: ['issuerAllowed'] },
      });
      expect([tampered.status, reasons(tampered.body)]).toEqual([400, ['signature_invalid']]);
    } finally {
      await t.write('/contracts/vault/allow-issuer', access, t.holder.key, t.holder.wallet);
    }
  });

  // Its own credential: the others' vcEntry stays valid whatever order the tests run in.
  it('a presented credential carrying its entry verifies, then fails with its status once the owner revokes it', async () => {
    const vcRevoked = await t.sign({ statusFor: 'vc-revoked' });
    await t.issue('vc-revoked', vcRevoked);
    expect((await verify({ verifiableCredential: vcRevoked })).status).toBe(200);
    await t.write(
      '/contracts/vc/revoke',
      {
        owner: t.holder.wallet.publicKey(),
        vcId: 'vc-revoked',
        date: '2026-07-15T09:30:00.000Z',
        sourcePublicKey: t.holder.wallet.publicKey(),
      },
      t.holder.key,
      t.holder.wallet,
    );
    const r = await verify({ verifiableCredential: vcRevoked });
    expect(r.status).toBe(400);
    expect(r.body.problemDetails).toEqual([
      expect.objectContaining({
        title: 'CREDENTIAL_REVOKED',
        reason: 'revoked',
        detail: 'the credential was revoked on 2026-07-15T09:30:00.000Z',
      }),
    ]);
    expect(r.body.results.credentialStatus).toEqual([
      { verified: false, status: 'revoked', since: '2026-07-15T09:30:00.000Z', input: t.statusEntry('vc-revoked') },
    ]);
  });
});

describe('requests and keys', () => {
  it.each([
    ['an empty body', {}],
    ['owner without vcId', { owner: 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR' }],
    ['a credential that is not an object', { verifiableCredential: 'eyJ…' }],
    ['an unknown field', { verifiableCredential: {}, holder: 'x' }],
  ])('400 invalid_request for %s', async (_name, body) => {
    const r = await verify(body, t.issuer.key);
    expect([r.status, r.body.error], JSON.stringify(r.body)).toEqual([400, 'invalid_request']);
  });

  it('an invalid key is 401 even for a presented credential', async () => {
    const bad = await t.env.request('/credentials/verify', {
      key: 'ab'.repeat(32),
      body: { verifiableCredential: vc1 },
    });
    expect([bad.status, bad.body.error]).toEqual([401, 'invalid_api_key']);
  });

  it('scopes: credentials:verify opens it, credentials:read alone does not', async () => {
    const readOnly = await t.env.mintKey({ wallet: Keypair.random().publicKey(), scopes: ['credentials:read'] });
    const verifier = await t.env.mintKey({ wallet: Keypair.random().publicKey(), scopes: ['credentials:verify'] });
    expect((await verify({ verifiableCredential: vc1 }, readOnly)).body.error).toBe('insufficient_scope');
    expect((await verify({ verifiableCredential: vc1 }, verifier)).status).toBe(200);
  });

  it('the JSON-LD context of LedgerVaultStatusEntry, keyless, GET and HEAD', async () => {
    const r = await t.env.request('/contexts/ledger-vault/v1');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/ld\+json/);
    expect(r.body['@context'].LedgerVaultStatusEntry['@context']).toMatchObject({
      network: expect.any(String),
      vaultContract: expect.any(String),
      vcId: expect.any(String),
    });
    expect((await t.env.request('/contexts/ledger-vault/v1', { method: 'HEAD' })).status).toBe(200);
  });

  it('the context is readable from any web origin (a verifier page loading it with CORS)', async () => {
    for (const headers of [{ origin: 'https://verifier.example' }, {}] as Record<string, string>[]) {
      const r = await t.env.request('/contexts/ledger-vault/v1', {
        headers: { accept: 'application/ld+json, application/json', ...headers },
      });
      expect([r.status, r.headers.get('access-control-allow-origin')]).toEqual([200, '*']);
    }
  });

  it('keyless callers share a per-IP limit of 30 per minute across the verification routes', async () => {
    await t.env.clock.advance(61_000);
    try {
      let last = await t.call('/challenges', {});
      for (let i = 0; i < 30 && last.status !== 429; i++)
        last = await verify({ verifiableCredential: vc1, options: { checks: ['proof'] } });
      expect([last.status, last.body.error]).toEqual([429, 'rate_limit_exceeded']);
      expect((await t.call('/challenges', {})).status).toBe(429);
      // A keyed verifier draws on its key's bucket instead.
      expect((await verify({ verifiableCredential: vc1, options: { checks: ['proof'] } }, t.issuer.key)).status).toBe(
        200,
      );
    } finally {
      // The tests after this one (in any order) start in a window this one did not use up.
      t.env.clock.advance(61_000);
    }
  });
});
