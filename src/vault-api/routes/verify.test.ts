// Credentials with Data Integrity proofs, end to end over HTTP against the RPC simulator: issuance checks a
// carried proof at prepare and at submit (vc_proof_invalid), and POST /credentials/verify answers the five
// checks for presented credentials (keyless) and by reference (keyed). Responses are validated by the spec.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keypair } from '@stellar/stellar-sdk';
import { startVaultTestEnv, type MintedKey, type VaultTestEnv } from '../../../test-support/vault-api.ts';
import { didIdToBytes, encodeMultikey, generateDid, signCredential } from '../../did/index.ts';

const V2 = 'https://www.w3.org/ns/credentials/v2';

let env: VaultTestEnv;
let owner: Keypair, issuer: Keypair, rotating: Keypair;
let ownerKey: MintedKey, issuerKey: MintedKey, rotatingKey: MintedKey;
/** The issuer DID: authentication = the issuer wallet's key, assertionMethod = `assertKp`. */
let did: { did: string; didId: Uint8Array };
const assertKp = Keypair.random();

const call = (path: string, key: MintedKey | undefined, body?: unknown) =>
  env.request(path, { ...(key ? { key: key.key } : {}), ...(body !== undefined ? { body } : {}) });

async function write(path: string, body: unknown, key: MintedKey, signer: Keypair): Promise<void> {
  const p = await call(path, key, body);
  expect(p.status, JSON.stringify(p.body)).toBe(200);
  const s = await call(path, key, { signedXdr: env.sign(p.body.xdr, signer) });
  expect(s.status, JSON.stringify(s.body)).toBe(200);
}

const mk = (kp: Keypair) => ({ publicKeyMultibase: encodeMultikey('Ed25519', kp.rawPublicKey()) });
const record = (controller: Keypair, assertion: Keypair) => ({
  controller: controller.publicKey(), authentication: [mk(controller)], assertionMethod: [mk(assertion)], keyAgreement: [], services: [],
});

async function registerDid(controller: Keypair, assertion: Keypair) {
  const d = generateDid({ network: 'testnet' });
  const didId = didIdToBytes(d.didId);
  const prepared = await env.chain.registry.register({ source: controller.publicKey(), didId, record: record(controller, assertion) });
  await env.chain.client.submit(env.sign(prepared.xdr, controller));
  return { did: d.did, didId };
}

const credential = (issuerDid: string, extra: Record<string, unknown> = {}) => ({
  '@context': [V2],
  id: `urn:uuid:${crypto.randomUUID()}`,
  type: ['VerifiableCredential', 'EmployeeCredential'],
  issuer: issuerDid,
  validFrom: '2026-01-01T00:00:00Z',
  credentialSubject: { id: 'did:ledger:testnet:aaaqeayeaudaocajbifqydiob4', role: 'auditor' },
  ...extra,
});

const signed = (o: { issuerDid?: string; fragment?: string; key?: Keypair; extra?: Record<string, unknown> } = {}) =>
  signCredential({
    credential: credential(o.issuerDid ?? did.did, o.extra),
    verificationMethod: `${o.issuerDid ?? did.did}#${o.fragment ?? 'assert-1'}`,
    secretKey: (o.key ?? assertKp).rawSecretKey(),
    created: new Date(env.clock.now() - 60_000),
  });

const issueBody = (vcId: string, vc: object, who: { issuer: Keypair; did: string } = { issuer, did: did.did }) => ({
  owner: owner.publicKey(), vcId, vcData: JSON.stringify(vc), issuer: who.issuer.publicKey(), issuerDid: who.did, sourcePublicKey: who.issuer.publicKey(),
});

const verify = (body: unknown, key?: MintedKey) => call('/credentials/verify', key, body);

function checksOf(body: { checks: { check: string; status: string }[] }): Record<string, string> {
  return Object.fromEntries(body.checks.map((c) => [c.check, c.status]));
}

let vc1: Record<string, unknown>;

beforeAll(async () => {
  const many = { read: 10_000, write: 10_000 };
  env = await startVaultTestEnv({ network: 'testnet', limits: { rateLimits: { standard: many, early: many, admin: many } } });
  [owner, issuer, rotating] = await Promise.all([env.fund(), env.fund(), env.fund()]);
  [ownerKey, issuerKey, rotatingKey] = await Promise.all([env.mintKey({ wallet: owner }), env.mintKey({ wallet: issuer }), env.mintKey({ wallet: rotating })]);
  did = await registerDid(issuer, assertKp);
  await write('/contracts/vault/create', { owner: owner.publicKey(), didUri: 'did:ledger:testnet:owner', sourcePublicKey: owner.publicKey() }, ownerKey, owner);
  vc1 = await signed();
  await write('/contracts/vc/issue', issueBody('vc-1', vc1), issuerKey, issuer);
  await write('/contracts/vc/issue', issueBody('vc-unsigned', credential(did.did)), issuerKey, issuer);
}, 120_000);
afterAll(async () => {
  await env?.close();
});

describe('issuance with a proof (vc_proof_invalid)', () => {
  it.each([
    ['a tampered credential', async () => ({ ...(await signed()), credentialSubject: { id: 'did:ledger:testnet:aaaqeayeaudaocajbifqydiob4', role: 'admin' } }), /signature_invalid/],
    ['a key not under assertionMethod', () => signed({ fragment: 'auth-1', key: issuer }), /verification_method_not_authorized/],
    ['another DID named as issuer', async () => ({ ...(await signed()), issuer: 'did:ledger:testnet:aaaqeayeaudaocajbifqydiob4' }), /signature_invalid|issuer/],
  ])('refuses %s at prepare', async (_name, make, words) => {
    const r = await call('/contracts/vc/issue', issuerKey, issueBody('vc-bad', await make()));
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.error).toBe('vc_proof_invalid');
    expect(r.body.message).toMatch(words);
  });

  it('refuses a proof of another DID than issuerDid, in a batch with the entry named', async () => {
    const otherAssert = Keypair.random();
    const other = await registerDid(rotating, otherAssert);
    const foreign = await signed({ issuerDid: other.did, key: otherAssert, extra: {} });
    const r = await call('/contracts/vc/batch-issue', issuerKey, {
      owner: owner.publicKey(), issuer: issuer.publicKey(), issuerDid: did.did, sourcePublicKey: issuer.publicKey(),
      vcs: [{ vcId: 'b-1', vcData: JSON.stringify(await signed()) }, { vcId: 'b-2', vcData: JSON.stringify({ ...foreign, issuer: did.did }) }],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body).toMatchObject({ error: 'vc_proof_invalid', message: expect.stringContaining('vcs[1].') });
  });

  it('checks the proof again at submit: a key rotated after prepare refuses the signed transaction', async () => {
    const oldAssert = Keypair.random();
    const rot = await registerDid(rotating, oldAssert);
    const vc = await signed({ issuerDid: rot.did, key: oldAssert });
    const p = await call('/contracts/vc/issue', rotatingKey, issueBody('vc-rotated', vc, { issuer: rotating, did: rot.did }));
    expect(p.status, JSON.stringify(p.body)).toBe(200);
    const updated = await env.chain.registry.update({ source: rotating.publicKey(), didId: rot.didId, expectedVersion: 1, record: record(rotating, Keypair.random()) });
    await env.chain.client.submit(env.sign(updated.xdr, rotating));
    const s = await call('/contracts/vc/issue', rotatingKey, { signedXdr: env.sign(p.body.xdr, rotating) });
    expect(s.status, JSON.stringify(s.body)).toBe(400);
    expect(s.body).toMatchObject({ error: 'vc_proof_invalid', message: expect.stringMatching(/signature_invalid/) });
  });
});

describe('POST /credentials/verify', () => {
  it('a presented credential, keyless: verified, the vault checks skipped with warnings', async () => {
    const r = await verify({ verifiableCredential: vc1 });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.verified).toBe(true);
    expect(checksOf(r.body)).toEqual({ proof: 'passed', issuerDid: 'passed', status: 'skipped', issuerAllowed: 'skipped', validityPeriod: 'passed' });
    expect(r.body.warnings.map((w: { reason: string }) => w.reason)).toEqual(['no_vault_reference', 'no_vault_reference']);
    expect(r.headers.get('x-ratelimit-limit')).toBe('30');
  });

  it('by reference (keyed): every check passes', async () => {
    const r = await verify({ owner: owner.publicKey(), vcId: 'vc-1' }, issuerKey);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toEqual({
      verified: true,
      checks: ['proof', 'issuerDid', 'status', 'issuerAllowed', 'validityPeriod'].map((check) => ({ check, status: 'passed' })),
      warnings: [],
      errors: [],
    });
  });

  it.each([
    ['a tampered credential', async () => ({ verifiableCredential: { ...vc1, credentialSubject: { id: 'did:ledger:testnet:aaaqeayeaudaocajbifqydiob4', role: 'admin' } } }), 'proof', 'signature_invalid'],
    ['a key not under assertionMethod', async () => ({ verifiableCredential: await signed({ fragment: 'auth-1', key: issuer }) }), 'proof', 'verification_method_not_authorized'],
    ['an expired credential', async () => ({ verifiableCredential: await signed({ extra: { validUntil: '2026-02-01T00:00:00Z' } }) }), 'validityPeriod', 'expired'],
    ['a credential without a proof, by reference', async () => ({ owner: owner.publicKey(), vcId: 'vc-unsigned' }), 'proof', 'no_proof'],
    ['another credential presented with a reference', async () => ({ verifiableCredential: await signed(), owner: owner.publicKey(), vcId: 'vc-1' }), 'status', 'not_the_stored_credential'],
    ['an issuer that is not a did:ledger DID', async () => ({ verifiableCredential: { ...credential('https://issuer.example') } }), 'issuerDid', 'issuer_not_ledger_did'],
  ])('%s → verified: false, %s check failed (%s)', async (_name, make, check, reason) => {
    const r = await verify(await make(), issuerKey);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.verified).toBe(false);
    expect(checksOf(r.body)[check]).toBe('failed');
    expect(r.body.errors).toContainEqual({ check, reason, message: expect.any(String) });
  });

  it('a denied issuer fails issuerAllowed until allowed again', async () => {
    const issuerAccess = { owner: owner.publicKey(), issuer: issuer.publicKey(), sourcePublicKey: owner.publicKey() };
    await write('/contracts/vault/deny-issuer', issuerAccess, ownerKey, owner);
    const denied = await verify({ owner: owner.publicKey(), vcId: 'vc-1' }, issuerKey);
    expect(checksOf(denied.body).issuerAllowed).toBe('failed');
    expect(denied.body.errors).toEqual([{ check: 'issuerAllowed', reason: 'issuer_denied', message: expect.stringContaining(issuer.publicKey()) }]);
    await write('/contracts/vault/allow-issuer', issuerAccess, ownerKey, owner);
    expect((await verify({ owner: owner.publicKey(), vcId: 'vc-1' }, issuerKey)).body.verified).toBe(true);
  });

  it('a revoked credential → verified: false, status failed (revoked)', async () => {
    await write('/contracts/vc/revoke', { owner: owner.publicKey(), vcId: 'vc-1', date: '2026-07-15T09:30:00.000Z', sourcePublicKey: owner.publicKey() }, ownerKey, owner);
    const r = await verify({ owner: owner.publicKey(), vcId: 'vc-1' }, issuerKey);
    expect(r.body.verified).toBe(false);
    expect(checksOf(r.body)).toMatchObject({ proof: 'passed', status: 'failed' });
    expect(r.body.errors).toEqual([{ check: 'status', reason: 'revoked', message: 'the credential was revoked on 2026-07-15T09:30:00.000Z' }]);
  });

  it('a deactivated issuer DID → verified: false, proof and issuerDid failed (did_deactivated)', async () => {
    const d = await env.chain.registry.deactivate({ source: issuer.publicKey(), didId: did.didId, expectedVersion: 1 });
    await env.chain.client.submit(env.sign(d.xdr, issuer));
    const r = await verify({ verifiableCredential: vc1 });
    expect(r.body.verified).toBe(false);
    expect(checksOf(r.body)).toMatchObject({ proof: 'failed', issuerDid: 'failed' });
    expect(r.body.errors).toEqual([
      { check: 'proof', reason: 'did_deactivated', message: expect.any(String) },
      { check: 'issuerDid', reason: 'did_deactivated', message: expect.any(String) },
    ]);
  });
});

describe('POST /credentials/verify: requests and keys', () => {
  it.each([
    ['an empty body', {}],
    ['owner without vcId', { owner: 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR' }],
    ['a credential that is not an object', { verifiableCredential: 'eyJ…' }],
    ['an unknown field', { verifiableCredential: {}, holder: 'x' }],
  ])('400 invalid_request for %s', async (_name, body) => {
    const r = await verify(body);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.error).toBe('invalid_request');
  });

  it('by reference without a key → 401 missing_api_key; an invalid key is 401 even for a presented credential', async () => {
    expect((await verify({ owner: owner.publicKey(), vcId: 'vc-1' })).body.error).toBe('missing_api_key');
    const bad = await env.request('/credentials/verify', { key: 'ab'.repeat(32), body: { verifiableCredential: vc1 } });
    expect(bad.status).toBe(401);
    expect(bad.body.error).toBe('invalid_api_key');
  });

  it('404 for an unknown vcId or vault', async () => {
    expect((await verify({ owner: owner.publicKey(), vcId: 'nope' }, issuerKey)).body.error).toBe('vc_not_found');
    expect((await verify({ owner: rotating.publicKey(), vcId: 'vc-1' }, issuerKey)).body.error).toBe('vault_not_found');
  });

  it('scopes: credentials:verify opens it, credentials:read alone does not', async () => {
    const readOnly = await env.mintKey({ wallet: Keypair.random().publicKey(), scopes: ['credentials:read'] });
    const verifier = await env.mintKey({ wallet: Keypair.random().publicKey(), scopes: ['credentials:verify'] });
    expect((await verify({ verifiableCredential: vc1 }, readOnly)).body.error).toBe('insufficient_scope');
    expect((await verify({ verifiableCredential: vc1 }, verifier)).status).toBe(200);
  });

  it('keyless callers share a per-IP limit of 30 per minute', async () => {
    let last = await verify({ verifiableCredential: vc1 });
    for (let i = 0; i < 30 && last.status === 200; i++) last = await verify({ verifiableCredential: vc1 });
    expect(last.status).toBe(429);
    expect(last.body.error).toBe('rate_limit_exceeded');
    // A keyed verifier draws on its key's bucket instead.
    expect((await verify({ verifiableCredential: vc1 }, issuerKey)).status).toBe(200);
  });
});
