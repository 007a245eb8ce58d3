// The contract routes over HTTP on testnet, against the RPC simulator, with real signing: every write
// route (prepare → sign → submit → read back), every read, the bindings, safe submit, encryption, fees.
// One environment for the whole file. Its accounts and the owner's vault are only read or prepared against (they stay
// empty); a test that writes to a vault deploys its own (freshVault), so each test passes alone and in any order.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Account,
  Address,
  Contract,
  Keypair,
  TransactionBuilder,
  authorizeEntry,
  buildWithDelegatesEntry,
  nativeToScVal,
  xdr as xdrLib,
} from '@stellar/stellar-sdk';
import { authOf, withAuth } from '../../../simulator/core/testing.ts';
import type { RunningSimulator } from '../../../simulator/index.ts';
import { startVaultTestEnv, type MintedKey, type VaultTestEnv } from '../../../test-support/vault-api.ts';
import { encryptVcData } from '../../crypto/envelope.ts';
import { didIdToBytes, encodeMultikey, generateDid } from '../../did/index.ts';
import { i128 } from '../../chain/codec.ts';

const V2 = 'https://www.w3.org/ns/credentials/v2';
const UNIT = 10_000_000n;
const SALT_A = 'ab'.repeat(32);
const SALT_B = 'cd'.repeat(32);

let env: VaultTestEnv;
let owner: Keypair, issuer: Keypair, other: Keypair, sponsor: Keypair;
let ownerKey: MintedKey, issuerKey: MintedKey, otherKey: MintedKey, sponsorKey: MintedKey, adminKey: MintedKey;
let issuerDid: string, otherDid: string;

const vcData = (subject: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    '@context': [V2],
    type: ['VerifiableCredential'],
    issuer: issuerDid,
    credentialSubject: { id: subject },
    ...extra,
  });

/** POST (or the given method) with a key; returns status and body. */
const call = (path: string, key: MintedKey, body?: unknown, method?: string) =>
  env.request(path, { key: key.key, ...(body !== undefined ? { body } : {}), ...(method ? { method } : {}) });

async function prepare(path: string, body: unknown, key: MintedKey, method?: string): Promise<string> {
  const r = await call(path, key, body, method);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.network).toBe(env.passphrase);
  return r.body.xdr as string;
}

const submit = (path: string, xdr: string, signer: Keypair, key: MintedKey, method?: string) =>
  call(path, key, { signedXdr: env.sign(xdr, signer) }, method);

/** prepare → sign → submit, expecting success; returns the tx id. */
async function write(path: string, body: unknown, key: MintedKey, signer: Keypair, method?: string): Promise<string> {
  const r = await submit(path, await prepare(path, body, key, method), signer, key, method);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.tx_id).toMatch(/^[0-9a-f]{64}$/);
  return r.body.tx_id as string;
}

function expectError(r: { status: number; body: any }, status: number, code: string, words?: RegExp): void {
  expect({ status: r.status, error: r.body?.error }, JSON.stringify(r.body)).toEqual({ status, error: code });
  if (words) expect(r.body.message).toMatch(words);
}

/** An issuer's record (docs/did-resolver.md "Record rules": authentication and assertionMethod keys), or a holder's. */
const didRecord = (kp: Keypair, role: 'issuer' | 'holder' = 'issuer') => {
  const key = { publicKeyMultibase: encodeMultikey('Ed25519', kp.rawPublicKey()) };
  return {
    controller: kp.publicKey(),
    authentication: [key],
    assertionMethod: role === 'issuer' ? [key] : [],
    keyAgreement: [],
    services: [],
  };
};

async function registerDid(
  kp: Keypair,
  role: 'issuer' | 'holder' = 'issuer',
): Promise<{ did: string; didId: Uint8Array }> {
  const d = generateDid({ network: 'testnet' });
  const didId = didIdToBytes(d.didId);
  const prepared = await env.chain.registry.register({ source: kp.publicKey(), didId, record: didRecord(kp, role) });
  await env.chain.client.submit(env.sign(prepared.xdr, kp));
  return { did: d.did, didId };
}

const feeBalance = () => env.chain.token.balance(env.info!.feeTokenId, env.info!.admin.publicKey);

/** A vc/issue body from the shared issuer, to the shared owner's vault unless `to` names another owner. */
const issueBody = (vcId: string, o: Record<string, unknown> = {}, to = owner.publicKey()) => ({
  owner: to,
  vcId,
  vcData: vcData(to),
  issuer: issuer.publicKey(),
  issuerDid,
  sourcePublicKey: issuer.publicKey(),
  ...o,
});

/** A funded account with an API key bound to it. */
interface Party {
  kp: Keypair;
  key: MintedKey;
  pk: string;
}

async function party(): Promise<Party> {
  const kp = await env.fund();
  return { kp, key: await env.mintKey({ wallet: kp }), pk: kp.publicKey() };
}

/** A party with its own vault (the canonical one, or the salted one too): what a test writes there, no other test sees. */
async function freshVault(salt?: string): Promise<Party> {
  const v = await party();
  await createVault(v);
  if (salt) await createVault(v, salt);
  return v;
}

const createVault = (v: Party, userSalt?: string) =>
  write(
    '/contracts/vault/create',
    {
      owner: v.pk,
      didUri: `did:ledger:testnet:${v.pk.slice(0, 8)}`,
      sourcePublicKey: v.pk,
      ...(userSalt ? { userSalt } : {}),
    },
    v.key,
    v.kp,
  );

/** Issues the credentials (at most five) into a party's vault in one batch from the shared issuer. */
const issueAll = (v: Party, vcIds: string[], userSalt?: string) =>
  write(
    '/contracts/vc/batch-issue',
    {
      owner: v.pk,
      issuer: issuer.publicKey(),
      issuerDid,
      vcs: vcIds.map((vcId) => ({ vcId, vcData: vcData(v.pk, { n: vcId }) })),
      sourcePublicKey: issuer.publicKey(),
      ...(userSalt ? { userSalt } : {}),
    },
    issuerKey,
    issuer,
  );

beforeAll(async () => {
  const many = { read: 10_000, write: 10_000 };
  env = await startVaultTestEnv({
    network: 'testnet',
    limits: { rateLimits: { standard: many, early: many, admin: many } },
  });
  [owner, issuer, other, sponsor] = await Promise.all([env.fund(), env.fund(), env.fund(), env.fund()]);
  [ownerKey, issuerKey, otherKey, sponsorKey, adminKey] = await Promise.all([
    env.mintKey({ wallet: owner }),
    env.mintKey({ wallet: issuer }),
    env.mintKey({ wallet: other }),
    env.mintKey({ wallet: sponsor }),
    env.mintKey({ wallet: null, role: 'admin' }),
  ]);
  issuerDid = (await registerDid(issuer)).did;
  otherDid = (await registerDid(other)).did;
  await write(
    '/contracts/vault/create',
    { owner: owner.publicKey(), didUri: 'did:ledger:testnet:owner', sourcePublicKey: owner.publicKey() },
    ownerKey,
    owner,
  );
}, 60_000);

afterAll(async () => {
  await env?.close();
});

describe('vault create and metadata', () => {
  it('deploys the canonical vault; metadata reads it back; a second deploy fails with the chain words', async () => {
    const v = await party();
    await write(
      '/contracts/vault/create',
      { owner: v.pk, didUri: 'did:ledger:testnet:owner', sourcePublicKey: v.pk },
      v.key,
      v.kp,
    );
    const meta = await call(`/contracts/vault/${v.pk}`, otherKey);
    expect(meta.status).toBe(200);
    expect(meta.body).toEqual({
      owner: v.pk,
      vault_address: env.chain.vaultAddress(v.pk),
      did_uri: 'did:ledger:testnet:owner',
      version: '0.4.0',
      vc_count: 0,
      denied_issuer_count: 0,
    });
    const again = await call('/contracts/vault/create', v.key, {
      owner: v.pk,
      didUri: 'did:ledger:testnet:x',
      sourcePublicKey: v.pk,
    });
    expectError(again, 409, 'vault_already_deployed', /already (exists|deployed)/);
  });

  // A did:ledger DID of the other network is refused with vc/issue's code; other methods pass.
  it('a did:ledger didUri of the other network → 400 issuerDid_network_mismatch (create, sponsored create, set-vault-did)', async () => {
    const mainnetDid = 'did:ledger:mainnet:ugzmhvhf6ydrqkj2jnog27upsa';
    const o = other.publicKey();
    expectError(
      await call('/contracts/vault/create', otherKey, { owner: o, didUri: mainnetDid, sourcePublicKey: o }),
      400,
      'issuerDid_network_mismatch',
      /mainnet .* testnet/,
    );
    expectError(
      await call('/contracts/sponsored-vault/create', sponsorKey, {
        sponsor: sponsor.publicKey(),
        owner: o,
        didUri: mainnetDid,
        sourcePublicKey: sponsor.publicKey(),
      }),
      400,
      'issuerDid_network_mismatch',
    );
    expectError(
      await call('/contracts/vault/set-vault-did', ownerKey, {
        owner: owner.publicKey(),
        didUri: mainnetDid,
        sourcePublicKey: owner.publicKey(),
      }),
      400,
      'issuerDid_network_mismatch',
    );
    expect(
      (await call('/contracts/vault/create', otherKey, { owner: o, didUri: 'did:web:example.com', sourcePublicKey: o }))
        .status,
    ).toBe(200);
  });

  // A prepared transaction lives 5 minutes; later its own code says to prepare again.
  it('a submit after the prepared transaction expired → 400 tx_expired', async () => {
    const net = env.simulator!.sim.network('testnet');
    const snap = net.snapshot();
    try {
      const xdr = await prepare(
        '/contracts/vault/set-vault-did',
        { owner: owner.publicKey(), didUri: 'did:web:late.example', sourcePublicKey: owner.publicKey() },
        ownerKey,
      );
      net.setTime(net.ledger.nowSec() + 301);
      expectError(
        await submit('/contracts/vault/set-vault-did', xdr, owner, ownerKey),
        400,
        'tx_expired',
        /^the prepared transaction expired \(it is valid for 5 minutes after prepare\); prepare again, sign and submit/,
      );
    } finally {
      net.revert(snap);
    }
  });

  it('reports 404 vault_not_found for an owner without a vault, on reads and writes', async () => {
    const none = Keypair.random().publicKey();
    expectError(await call(`/contracts/vault/${none}`, otherKey), 404, 'vault_not_found');
    expectError(await call(`/contracts/vault/vc-count?owner=${none}`, otherKey), 404, 'vault_not_found');
    expectError(await call('/contracts/vault/verify-vc', otherKey, { owner: none, vcId: 'x' }), 404, 'vault_not_found');
    expectError(
      await call('/contracts/vault/set-vault-did', otherKey, {
        owner: none,
        didUri: 'did:ledger:testnet:y',
        sourcePublicKey: other.publicKey(),
      }),
      404,
      'vault_not_found',
    );
  });

  it('refuses an unknown source account and a vaultContract that is not the derived vault', async () => {
    const v = await freshVault();
    const ghost = Keypair.random().publicKey();
    expectError(
      await call('/contracts/vault/create', otherKey, {
        owner: ghost,
        didUri: 'did:ledger:testnet:g',
        sourcePublicKey: ghost,
      }),
      400,
      'source_account_not_found',
    );
    const wrong = env.chain.vaultAddress(v.pk, SALT_A);
    expectError(
      await call(`/contracts/vault/vc-count?owner=${v.pk}&vaultContract=${wrong}`, otherKey),
      400,
      'vaultContract_mismatch',
    );
    const right = env.chain.vaultAddress(v.pk);
    expect((await call(`/contracts/vault/vc-count?owner=${v.pk}&vaultContract=${right}`, otherKey)).body).toEqual({
      count: 0,
    });
  });
});

describe('issue, read back, fees, encryption', () => {
  it('issues a credential: fee of 5 units, ciphertext on chain, plaintext from get-vc, status valid', async () => {
    const v = await freshVault();
    const before = await feeBalance();
    const data = vcData(v.pk, { name: 'Ada' });
    await write('/contracts/vc/issue', issueBody('vc-1', { vcData: data }, v.pk), issuerKey, issuer);
    expect((await feeBalance()) - before).toBe(5n * UNIT);

    const stored = await env.chain.vault.getVc({ vault: env.chain.vaultAddress(v.pk), vcId: 'vc-1' });
    // cv2: the envelope records the issuing wallet (issuer access is judged by it at verification).
    expect(stored?.data.startsWith(`cv2.test.${issuer.publicKey()}.`)).toBe(true);
    expect(stored?.data).not.toContain('Ada');
    expect(stored?.issuerDid).toBe(issuerDid);

    const got = await call('/contracts/vault/get-vc', v.key, { owner: v.pk, vcId: 'vc-1' });
    expect(got.status).toBe(200);
    expect(got.body).toEqual({ result: JSON.parse(data) });
    expect((await call('/contracts/vault/verify-vc', otherKey, { owner: v.pk, vcId: 'vc-1' })).body).toEqual({
      status: 'valid',
    });
    expectError(await call('/contracts/vc/issue', issuerKey, issueBody('vc-1', {}, v.pk)), 409, 'vc_already_exists');
  });

  it('batch-issues n credentials in one transaction for n × the unit fee', async () => {
    const v = await freshVault();
    const before = await feeBalance();
    const vcs = ['vc-2', 'vc-3', 'vc-4'].map((vcId) => ({ vcId, vcData: vcData(v.pk, { n: vcId }) }));
    const body = {
      owner: v.pk,
      issuer: issuer.publicKey(),
      issuerDid,
      vcs,
      sourcePublicKey: issuer.publicKey(),
    };
    await write('/contracts/vc/batch-issue', body, issuerKey, issuer);
    expect((await feeBalance()) - before).toBe(15n * UNIT);
    const got = await call('/contracts/vault/get-vc', adminKey, { owner: v.pk, vcId: 'vc-3' });
    expect(got.body.result.n).toBe('vc-3');
  });

  it('lists and counts with pagination defaults and limits', async () => {
    const v = await freshVault();
    await issueAll(v, ['vc-1', 'vc-2', 'vc-3', 'vc-4']);
    const all = await call('/contracts/vault/list-vc-ids', v.key, { owner: v.pk });
    expect(all.body).toEqual({ result: ['vc-1', 'vc-2', 'vc-3', 'vc-4'], offset: 0, limit: 50 });
    const page = await call('/contracts/vault/list-vc-ids', v.key, {
      owner: v.pk,
      offset: 1,
      limit: 2,
    });
    expect(page.body).toEqual({ result: ['vc-2', 'vc-3'], offset: 1, limit: 2 });
    expectError(await call('/contracts/vault/list-vc-ids', v.key, { owner: v.pk, limit: 201 }), 400, 'limit_too_large');
    expect((await call(`/contracts/vault/vc-count?owner=${v.pk}`, otherKey)).body).toEqual({ count: 4 });
  });

  it('revokes with the default date; verify-vc says revoked since then; get-vc still reads it', async () => {
    const v = await freshVault();
    await issueAll(v, ['vc-1', 'vc-2']);
    const t0 = Date.now();
    await write('/contracts/vc/revoke', { owner: v.pk, vcId: 'vc-2', sourcePublicKey: v.pk }, v.key, v.kp);
    const st = await call('/contracts/vault/verify-vc', otherKey, { owner: v.pk, vcId: 'vc-2' });
    expect(st.body.status).toBe('revoked');
    expect(Date.parse(st.body.since)).toBeGreaterThanOrEqual(t0 - 1000);
    expect((await call(`/contracts/vault/vc-count?owner=${v.pk}`, otherKey)).body).toEqual({ count: 1 });
    expect((await call('/contracts/vault/get-vc', v.key, { owner: v.pk, vcId: 'vc-2' })).status).toBe(200);
    const again = await call('/contracts/vc/revoke', v.key, {
      owner: v.pk,
      vcId: 'vc-2',
      date: '2026-07-15T09:30:00.000Z',
      sourcePublicKey: v.pk,
    });
    expect(again.body.error).toBe('vc_already_revoked');
    expectError(
      await call('/contracts/vc/revoke', v.key, {
        owner: v.pk,
        vcId: 'nope',
        sourcePublicKey: v.pk,
      }),
      404,
      'vc_not_found',
    );
  });

  it('get-vc: 404 vc_not_found for an unknown id, while verify-vc reports invalid', async () => {
    expectError(
      await call('/contracts/vault/get-vc', ownerKey, { owner: owner.publicKey(), vcId: 'never' }),
      404,
      'vc_not_found',
    );
    expect(
      (await call('/contracts/vault/verify-vc', otherKey, { owner: owner.publicKey(), vcId: 'never' })).body,
    ).toEqual({ status: 'invalid' });
  });

  it('refuses a payload whose ciphertext would pass 10,000 characters, at prepare', async () => {
    // ~14 random bits per character: 8,000 characters encrypt to far more than 10,000.
    const r16 = randomBytes(16_000);
    const noise = Array.from({ length: 8000 }, (_, i) =>
      String.fromCharCode(0x4e00 + (r16.readUInt16LE(2 * i) % 20_000)),
    ).join('');
    const r = await call(
      '/contracts/vc/issue',
      issuerKey,
      issueBody('vc-big', { vcData: vcData(owner.publicKey(), { noise }) }),
    );
    expectError(r, 400, 'vcData_ciphertext_too_long');
  });

  it('answers 500 vc_decryption_failed when the service cannot open the stored payload (another key)', async () => {
    const v = await freshVault();
    await issueAll(v, ['vc-1']);
    const second = await startVaultTestEnv({ network: 'testnet', simulator: env.simulator! });
    try {
      const admin2 = await second.mintKey({ wallet: null, role: 'admin' });
      const r = await second.request('/contracts/vault/get-vc', {
        key: admin2.key,
        body: { owner: v.pk, vcId: 'vc-1' },
      });
      expectError(r, 500, 'vc_decryption_failed');
    } finally {
      await second.close();
    }
  });
});

describe('issue rules', () => {
  const cases: { name: string; body: () => Record<string, unknown>; status: number; code: string; words?: RegExp }[] = [
    {
      name: 'no v2 context',
      body: () =>
        issueBody('r1', {
          vcData: JSON.stringify({
            '@context': ['https://www.w3.org/2018/credentials/v1'],
            credentialSubject: { id: 'did:x:1' },
          }),
        }),
      status: 400,
      code: 'vcData_invalid',
    },
    {
      name: 'no credentialSubject.id',
      body: () => issueBody('r1', { vcData: JSON.stringify({ '@context': [V2], credentialSubject: {} }) }),
      status: 400,
      code: 'vcData_invalid',
    },
    { name: 'not JSON', body: () => issueBody('r1', { vcData: 'hello' }), status: 400, code: 'vcData_invalid' },
    {
      name: 'did:pkh issuer DID',
      body: () => issueBody('r1', { issuerDid: `did:pkh:stellar:testnet:${issuer.publicKey()}` }),
      status: 400,
      code: 'issuerDid_invalid',
    },
    {
      name: 'bare address issuer DID',
      body: () => issueBody('r1', { issuerDid: issuer.publicKey() }),
      status: 400,
      code: 'issuerDid_invalid',
    },
    {
      name: 'mainnet DID on testnet',
      body: () => issueBody('r1', { issuerDid: generateDid({ network: 'mainnet' }).did }),
      status: 400,
      code: 'issuerDid_network_mismatch',
    },
    {
      name: 'unregistered DID',
      body: () => issueBody('r1', { issuerDid: generateDid({ network: 'testnet' }).did }),
      status: 400,
      code: 'issuerDid_not_found',
    },
    {
      name: "another controller's DID",
      body: () => issueBody('r1', { issuerDid: otherDid }),
      status: 400,
      code: 'issuerDid_controller_mismatch',
      words: /^the issuer DID controller does not match the signing issuer$/,
    },
    { name: 'vcId over 64', body: () => issueBody('v'.repeat(65)), status: 400, code: 'vcId_too_long' },
    // 64 characters but 128 bytes: refused before the chain would answer input_too_long.
    {
      name: 'vcId of 64 two-byte characters',
      body: () => issueBody('é'.repeat(64)),
      status: 400,
      code: 'vcId_too_long',
    },
    {
      name: 'vcData over 10,000',
      body: () => issueBody('r1', { vcData: vcData(owner.publicKey(), { pad: 'x'.repeat(10_000) }) }),
      status: 400,
      code: 'vcData_too_long',
    },
    {
      name: 'a removed holder field',
      body: () => issueBody('r1', { holder: owner.publicKey() }),
      status: 400,
      code: 'invalid_request',
    },
  ];
  it.each(cases)('vc/issue: $name → $code', async ({ body, status, code, words }) => {
    expectError(await call('/contracts/vc/issue', issuerKey, body()), status, code, words);
  });

  it('rejects a deactivated issuer DID, at prepare and again at submit', async () => {
    const d = await registerDid(issuer);
    const early = await prepare('/contracts/vc/issue', issueBody('r2', { issuerDid: d.did }), issuerKey);
    const p = await env.chain.registry.deactivate({ source: issuer.publicKey(), didId: d.didId, expectedVersion: 1 });
    await env.chain.client.submit(env.sign(p.xdr, issuer));
    expectError(
      await call('/contracts/vc/issue', issuerKey, issueBody('r2', { issuerDid: d.did })),
      400,
      'issuerDid_deactivated',
    );
    expectError(await submit('/contracts/vc/issue', early, issuer, issuerKey), 400, 'issuerDid_deactivated');
  });

  it('rejects an issuer DID without an assertionMethod key (a holder DID), at prepare and again at submit', async () => {
    const holder = await registerDid(issuer, 'holder');
    const noKey = /has no assertionMethod key, so it cannot issue/;
    expectError(
      await call('/contracts/vc/issue', issuerKey, issueBody('r3', { issuerDid: holder.did })),
      400,
      'issuerDid_invalid',
      noKey,
    );
    expectError(
      await call('/contracts/vc/batch-issue', issuerKey, batch([ok('r3')], { issuerDid: holder.did })),
      400,
      'issuerDid_invalid',
      noKey,
    );

    // Prepared while the DID had an assertion key; the key is removed before the submit.
    const d = await registerDid(issuer);
    const early = await prepare('/contracts/vc/issue', issueBody('r4', { issuerDid: d.did }), issuerKey);
    const earlyBatch = await prepare('/contracts/vc/batch-issue', batch([ok('r5')], { issuerDid: d.did }), issuerKey);
    const p = await env.chain.registry.update({
      source: issuer.publicKey(),
      didId: d.didId,
      expectedVersion: 1,
      record: didRecord(issuer, 'holder'),
    });
    await env.chain.client.submit(env.sign(p.xdr, issuer));
    expectError(await submit('/contracts/vc/issue', early, issuer, issuerKey), 400, 'issuerDid_invalid', noKey);
    expectError(
      await submit('/contracts/vc/batch-issue', earlyBatch, issuer, issuerKey),
      400,
      'issuerDid_invalid',
      noKey,
    );
  });

  const batch = (vcs: unknown[], o: Record<string, unknown> = {}) => ({
    owner: owner.publicKey(),
    issuer: issuer.publicKey(),
    issuerDid,
    vcs,
    sourcePublicKey: issuer.publicKey(),
    ...o,
  });
  const ok = (vcId: string) => ({ vcId, vcData: vcData(owner.publicKey()) });
  const batchCases: { name: string; body: () => unknown; code: string; words?: RegExp }[] = [
    { name: 'six entries', body: () => batch(['a', 'b', 'c', 'd', 'e', 'f'].map(ok)), code: 'batch_too_large' },
    { name: 'no entry', body: () => batch([]), code: 'batch_too_large' },
    {
      name: 'entry 2 vcId too long',
      body: () => batch([ok('a'), ok('b'), ok('c'.repeat(65))]),
      code: 'vcs[2].vcId_too_long',
    },
    {
      name: 'entry 0 vcData too long',
      body: () => batch([{ vcId: 'a', vcData: 'x'.repeat(10_001) }]),
      code: 'vcs[0].vcData_too_long',
    },
    {
      name: 'entry 1 vcData invalid',
      body: () => batch([ok('a'), { vcId: 'b', vcData: '{}' }]),
      code: 'vcData_invalid',
      words: /^vcs\[1\]\.vcData/,
    },
    {
      name: 'other network DID',
      body: () => batch([ok('a')], { issuerDid: generateDid({ network: 'mainnet' }).did }),
      code: 'issuerDid_network_mismatch',
    },
    {
      name: "another controller's DID",
      body: () => batch([ok('a')], { issuerDid: otherDid }),
      code: 'issuerDid_controller_mismatch',
    },
  ];
  it.each(batchCases)('vc/batch-issue: $name → $code', async ({ body, code, words }) => {
    expectError(await call('/contracts/vc/batch-issue', issuerKey, body()), 400, code, words);
  });
});

describe('bindings', () => {
  it('issue: issuer and sourcePublicKey must be the key wallet; the owner is unrestricted; admin keys are exempt', async () => {
    expectError(
      await call('/contracts/vc/issue', otherKey, issueBody('b1')),
      403,
      'forbidden',
      /^issuer .*issuer binding/,
    );
    expectError(
      await call('/contracts/vc/issue', issuerKey, issueBody('b1', { sourcePublicKey: other.publicKey() })),
      403,
      'forbidden',
      /^sourcePublicKey/,
    );
    expectError(
      await call('/contracts/vc/batch-issue', otherKey, {
        owner: owner.publicKey(),
        issuer: issuer.publicKey(),
        issuerDid,
        vcs: [{ vcId: 'b1', vcData: vcData(owner.publicKey()) }],
        sourcePublicKey: issuer.publicKey(),
      }),
      403,
      'forbidden',
    );
    expect((await call('/contracts/vc/issue', adminKey, issueBody('b1'))).status).toBe(200);
    expect(
      (await call('/contracts/vc/issue', issuerKey, issueBody('b1', { owner: sponsor.publicKey() }))).status,
    ).not.toBe(403);
  });

  it('list-vc-ids and get-vc: owner must be the key wallet unless admin; verify-vc and GET reads are open', async () => {
    const o = owner.publicKey();
    expectError(
      await call('/contracts/vault/list-vc-ids', otherKey, { owner: o }),
      403,
      'forbidden',
      /^owner .*ownership binding/,
    );
    expectError(await call('/contracts/vault/get-vc', otherKey, { owner: o, vcId: 'vc-1' }), 403, 'forbidden');
    expect((await call('/contracts/vault/list-vc-ids', adminKey, { owner: o })).status).toBe(200);
    expect((await call('/contracts/vault/verify-vc', sponsorKey, { owner: o, vcId: 'vc-1' })).status).toBe(200);
    expect((await call(`/contracts/vault/issuers/denied/count?owner=${o}`, sponsorKey)).status).toBe(200);
  });
});

describe('safe submit', () => {
  it('a signed revoke posted to vc/issue → 400 tx_operation_mismatch', async () => {
    const v = await freshVault();
    await issueAll(v, ['vc-3']);
    const xdr = await prepare('/contracts/vc/revoke', { owner: v.pk, vcId: 'vc-3', sourcePublicKey: v.pk }, v.key);
    expectError(await submit('/contracts/vc/issue', xdr, v.kp, issuerKey), 400, 'tx_operation_mismatch');
    expectError(await submit('/contracts/vault/deny-issuer', xdr, v.kp, v.key), 400, 'tx_operation_mismatch');
  });

  it("an issue whose issuer is not the key's wallet → 403 forbidden", async () => {
    const xdr = await prepare(
      '/contracts/vc/issue',
      { ...issueBody('s1'), issuer: other.publicKey(), issuerDid: otherDid, sourcePublicKey: other.publicKey() },
      otherKey,
    );
    expectError(await submit('/contracts/vc/issue', xdr, other, issuerKey), 403, 'forbidden', /^issuer/);
  });

  // The issuer binding covers who authorizes, not only the arguments: an entry of any credential type for
  // another address (signed by that address for this very invocation) is refused before it is sent.
  it.each(['address', 'addressV2', 'addressWithDelegates'] as const)(
    "an issue carrying a %s authorization entry for an address other than the key's wallet → 403 forbidden",
    async (kind) => {
      const prepared = xdrLib.TransactionEnvelope.fromXdr(
        await prepare('/contracts/vc/issue', issueBody(`ae-${kind}`), issuerKey),
        'base64',
      );
      const [own] = authOf(prepared);
      const creds = new xdrLib.SorobanAddressCredentials({
        address: new Address(other.publicKey()).toScAddress(),
        nonce: 9n,
        signatureExpirationLedger: 0,
        signature: xdrLib.ScVal.scvVoid(),
      });
      const v2 = new xdrLib.SorobanAuthorizationEntry({
        credentials: xdrLib.SorobanCredentials.sorobanCredentialsAddressV2(creds),
        rootInvocation: own!.rootInvocation,
      });
      const unsigned =
        kind === 'address'
          ? new xdrLib.SorobanAuthorizationEntry({
              credentials: xdrLib.SorobanCredentials.sorobanCredentialsAddress(creds),
              rootInvocation: own!.rootInvocation,
            })
          : kind === 'addressV2'
            ? v2
            : buildWithDelegatesEntry({
                entry: v2,
                validUntilLedgerSeq: 0,
                delegates: [{ address: issuer.publicKey() }],
              });
      const foreign = await authorizeEntry(unsigned, other, 1_000_000, env.passphrase, other.publicKey());
      const x = withAuth(prepared, [...authOf(prepared), foreign]).toXdr('base64');
      const name = { address: 'ADDRESS', addressV2: 'ADDRESS_V2', addressWithDelegates: 'ADDRESS_WITH_DELEGATES' }[
        kind
      ];
      expectError(
        await submit('/contracts/vc/issue', x, issuer, issuerKey),
        403,
        'forbidden',
        new RegExp(`authorization entry \\(${name}\\) for ${other.publicKey()}.*issuer binding`),
      );
    },
  );

  it('an authorization signature moved to another address → 400 tx_invalid before the binding is even asked', async () => {
    const prepared = xdrLib.TransactionEnvelope.fromXdr(
      await prepare('/contracts/vc/issue', issueBody('ae-moved'), issuerKey),
      'base64',
    );
    const [own] = authOf(prepared);
    const forIssuer = await authorizeEntry(
      new xdrLib.SorobanAuthorizationEntry({
        credentials: xdrLib.SorobanCredentials.sorobanCredentialsAddressV2(
          new xdrLib.SorobanAddressCredentials({
            address: new Address(issuer.publicKey()).toScAddress(),
            nonce: 9n,
            signatureExpirationLedger: 0,
            signature: xdrLib.ScVal.scvVoid(),
          }),
        ),
        rootInvocation: own!.rootInvocation,
      }),
      issuer,
      1_000_000,
      env.passphrase,
    );
    const c = (forIssuer.credentials as xdrLib.SorobanCredentialsAddressV2).addressV2;
    const moved = new xdrLib.SorobanAuthorizationEntry({
      credentials: xdrLib.SorobanCredentials.sorobanCredentialsAddressV2(
        new xdrLib.SorobanAddressCredentials({
          address: new Address(other.publicKey()).toScAddress(),
          nonce: c.nonce,
          signatureExpirationLedger: c.signatureExpirationLedger,
          signature: c.signature,
        }),
      ),
      rootInvocation: own!.rootInvocation,
    });
    const x = withAuth(prepared, [...authOf(prepared), moved]).toXdr('base64');
    expectError(
      await submit('/contracts/vc/issue', x, issuer, issuerKey),
      400,
      'tx_invalid',
      new RegExp(`ADDRESS_V2 authorization entry for ${other.publicKey()}`),
    );
  });

  it('undecodable, unsigned and wrong-network transactions → 400 tx_invalid', async () => {
    const xdr = await prepare('/contracts/vc/issue', issueBody('s2'), issuerKey);
    expectError(await call('/contracts/vc/issue', issuerKey, { signedXdr: 'AAAA' }), 400, 'tx_invalid');
    expectError(await call('/contracts/vc/issue', issuerKey, { signedXdr: xdr }), 400, 'tx_invalid');
    const foreign = env.sign(xdr, issuer, 'Some Other Network ; 2026');
    expectError(await call('/contracts/vc/issue', issuerKey, { signedXdr: foreign }), 400, 'tx_invalid');
  });

  it('a vault function on a contract that is not a vault of this factory → 400 tx_operation_mismatch', async () => {
    const tx = new TransactionBuilder(new Account(owner.publicKey(), '1'), {
      fee: '100',
      networkPassphrase: env.passphrase,
    })
      .addOperation(
        new Contract(env.profile.registryId).call(
          'revoke',
          nativeToScVal('vc-1', { type: 'string' }),
          nativeToScVal('2026-01-01', { type: 'string' }),
        ),
      )
      .setTimeout(300)
      .build();
    expectError(
      await submit('/contracts/vc/revoke', tx.toXdr(), owner, ownerKey),
      400,
      'tx_operation_mismatch',
      /not a vault/,
    );
  });

  it('an issue transaction carrying a payload this service did not encrypt → 400 vcData_invalid', async () => {
    const vault = env.chain.vaultAddress(owner.publicKey());
    const plain = await env.chain.vault.issue({
      vault,
      source: issuer.publicKey(),
      vcId: 's3',
      vcData: vcData(owner.publicKey()),
      issuer: issuer.publicKey(),
      issuerDid,
    });
    expectError(
      await submit('/contracts/vc/issue', plain.xdr, issuer, issuerKey),
      400,
      'vcData_invalid',
      /not a payload this service encrypted/,
    );
  });

  it('an issue transaction carrying a payload sealed for another issuer → 400 vcData_invalid', async () => {
    const vault = env.chain.vaultAddress(owner.publicKey());
    const sealed = encryptVcData(env.deps.keyring, {
      owner: owner.publicKey(),
      vcId: 's4',
      plaintext: vcData(owner.publicKey()),
      issuer: other.publicKey(),
    });
    const tx = await env.chain.vault.issue({
      vault,
      source: issuer.publicKey(),
      vcId: 's4',
      vcData: sealed,
      issuer: issuer.publicKey(),
      issuerDid,
    });
    expectError(
      await submit('/contracts/vc/issue', tx.xdr, issuer, issuerKey),
      400,
      'vcData_invalid',
      new RegExp(`sealed for the issuer ${other.publicKey()}`),
    );
  });

  it('a deploy posted to sponsored-vault/create → 400 tx_operation_mismatch', async () => {
    const xdr = await prepare(
      '/contracts/vault/create',
      { owner: sponsor.publicKey(), didUri: 'did:ledger:testnet:s', sourcePublicKey: sponsor.publicKey() },
      sponsorKey,
    );
    expectError(
      await submit('/contracts/sponsored-vault/create', xdr, sponsor, sponsorKey),
      400,
      'tx_operation_mismatch',
    );
  });
});

describe('issuer access', () => {
  it('deny-issuer blocks issuance (403 issuer_denied); lists and counts; allow-issuer lifts it; aliases behave the same', async () => {
    const v = await freshVault();
    await write(
      '/contracts/vault/deny-issuer',
      { owner: v.pk, issuer: issuer.publicKey(), sourcePublicKey: v.pk },
      v.key,
      v.kp,
    );
    await write(
      '/contracts/vault/revoke-issuer',
      { owner: v.pk, issuer: other.publicKey(), sourcePublicKey: v.pk },
      v.key,
      v.kp,
    );
    expectError(await call('/contracts/vc/issue', issuerKey, issueBody('d1', {}, v.pk)), 403, 'issuer_denied');
    const list = await call(`/contracts/vault/issuers/denied?owner=${v.pk}`, otherKey);
    expect(list.body.offset).toBe(0);
    expect(list.body.limit).toBe(50);
    expect([...list.body.issuers].sort()).toEqual([issuer.publicKey(), other.publicKey()].sort());
    expect((await call(`/contracts/vault/issuers/denied/count?owner=${v.pk}`, otherKey)).body).toEqual({ count: 2 });
    expectError(
      await call(`/contracts/vault/issuers/denied?owner=${v.pk}&limit=500`, otherKey),
      400,
      'limit_too_large',
    );

    await write(
      '/contracts/vault/allow-issuer',
      { owner: v.pk, issuer: issuer.publicKey(), sourcePublicKey: v.pk },
      v.key,
      v.kp,
    );
    await write(
      '/contracts/vault/authorize-issuer',
      { owner: v.pk, issuer: other.publicKey(), sourcePublicKey: v.pk },
      v.key,
      v.kp,
    );
    expect((await call(`/contracts/vault/issuers/denied/count?owner=${v.pk}`, otherKey)).body).toEqual({ count: 0 });
    expect((await call('/contracts/vc/issue', issuerKey, issueBody('d1', {}, v.pk))).status).toBe(200);
  });
});

describe('vault administration', () => {
  it('set-vault-did replaces did_uri', async () => {
    const v = await freshVault();
    await write(
      '/contracts/vault/set-vault-did',
      { owner: v.pk, didUri: 'did:ledger:testnet:renamed', sourcePublicKey: v.pk },
      v.key,
      v.kp,
    );
    expect((await call(`/contracts/vault/${v.pk}`, otherKey)).body.did_uri).toBe('did:ledger:testnet:renamed');
  });

  it('version with owner (and a simulation source), without owner, and with an unknown source', async () => {
    expect(
      (await call(`/contracts/version?owner=${owner.publicKey()}&sourcePublicKey=${other.publicKey()}`, otherKey)).body,
    ).toEqual({ version: '0.4.0' });
    const f = await call('/contracts/version', otherKey);
    expect(f.body.factory_id).toBe(env.profile.factoryId);
    expect(typeof f.body.note).toBe('string');
    expectError(
      await call(
        `/contracts/version?owner=${owner.publicKey()}&sourcePublicKey=${Keypair.random().publicKey()}`,
        otherKey,
      ),
      400,
      'source_account_not_found',
    );
  });

  it('set-new-owner hands the vault over, revoke-vault blocks every later write (409 vault_revoked)', async () => {
    const o = owner.publicKey();
    await write(
      '/contracts/vault/create',
      { owner: o, didUri: 'did:ledger:testnet:b', userSalt: SALT_B, sourcePublicKey: o },
      ownerKey,
      owner,
    );
    await write(
      '/contracts/vault/set-new-owner',
      { owner: o, new_owner: other.publicKey(), userSalt: SALT_B, sourcePublicKey: o },
      ownerKey,
      owner,
    );
    // The new admin signs from now on.
    await write(
      '/contracts/vault/revoke-vault',
      { owner: o, userSalt: SALT_B, sourcePublicKey: other.publicKey() },
      otherKey,
      other,
    );
    expectError(
      await call('/contracts/vc/issue', issuerKey, issueBody('z1', { userSalt: SALT_B })),
      409,
      'vault_revoked',
    );
  });
});

describe('push', () => {
  it('moves a credential from a salted vault to the canonical one; it stays readable; the source says invalid', async () => {
    const v = await freshVault(SALT_A);
    const o = v.pk;
    const data = vcData(o, { pushed: true });
    await write('/contracts/vc/issue', issueBody('p1', { vcData: data, userSalt: SALT_A }, o), issuerKey, issuer);

    const body = { fromOwner: o, toOwner: o, vcId: 'p1', userSalt: SALT_A, sourcePublicKey: o };
    expectError(await call('/contracts/vault/push', otherKey, body), 403, 'forbidden', /^fromOwner/);
    expectError(
      await call('/contracts/vault/push', v.key, { ...body, sourcePublicKey: other.publicKey() }),
      403,
      'forbidden',
      /^sourcePublicKey/,
    );
    expectError(await call('/contracts/vault/push', v.key, { ...body, userSalt: undefined }), 400, 'invalid_request');
    const xdr = await prepare('/contracts/vault/push', body, v.key);
    expectError(await submit('/contracts/vault/push', xdr, v.kp, otherKey), 403, 'forbidden');
    const r = await submit('/contracts/vault/push', xdr, v.kp, v.key);
    expect(r.status, JSON.stringify(r.body)).toBe(200);

    expect((await call('/contracts/vault/get-vc', v.key, { owner: o, vcId: 'p1' })).body).toEqual({
      result: JSON.parse(data),
    });
    expect(
      (await call('/contracts/vault/verify-vc', otherKey, { owner: o, vcId: 'p1', userSalt: SALT_A })).body,
    ).toEqual({ status: 'invalid' });
    expect((await call('/contracts/vault/verify-vc', otherKey, { owner: o, vcId: 'p1' })).body).toEqual({
      status: 'valid',
    });
  });

  it("a push to another owner's vault fails with push_owner_mismatch; a missing destination is vault_not_found", async () => {
    const v = await freshVault(SALT_A);
    const o = v.pk;
    await issueAll(v, ['p2'], SALT_A);
    const w = await party();
    const missing = await call('/contracts/vault/push', v.key, {
      fromOwner: o,
      toOwner: w.pk,
      vcId: 'p2',
      userSalt: SALT_A,
      sourcePublicKey: o,
    });
    expectError(missing, 404, 'vault_not_found', /toOwner/);
    await createVault(w);
    const toOther = await call('/contracts/vault/push', v.key, {
      fromOwner: o,
      toOwner: w.pk,
      vcId: 'p2',
      userSalt: SALT_A,
      sourcePublicKey: o,
    });
    expectError(toOther, 400, 'push_owner_mismatch');
  });
});

describe('sponsored vaults', () => {
  it('the sponsor deploys and pays for an owner who does not sign', async () => {
    const newOwner = Keypair.random().publicKey();
    const body = {
      sponsor: sponsor.publicKey(),
      owner: newOwner,
      didUri: 'did:ledger:testnet:sp',
      sourcePublicKey: sponsor.publicKey(),
    };
    expectError(
      await call('/contracts/sponsored-vault/create', otherKey, body),
      403,
      'forbidden',
      /^sponsor .*sponsor binding/,
    );
    expectError(
      await call('/contracts/sponsored-vault/create', sponsorKey, { ...body, sourcePublicKey: other.publicKey() }),
      403,
      'forbidden',
      /^sourcePublicKey/,
    );
    const xdr = await prepare('/contracts/sponsored-vault/create', body, sponsorKey);
    expectError(await submit('/contracts/sponsored-vault/create', xdr, sponsor, otherKey), 403, 'forbidden');
    expect((await submit('/contracts/sponsored-vault/create', xdr, sponsor, sponsorKey)).status).toBe(200);
    const meta = await call(`/contracts/vault/${newOwner}`, otherKey);
    expect(meta.body.vault_address).toBe(env.chain.vaultAddress(newOwner));
    expect(meta.body.did_uri).toBe('did:ledger:testnet:sp');
    expectError(
      await call('/contracts/sponsored-vault/create', sponsorKey, body),
      409,
      'vault_already_deployed',
      /already (exists|deployed)/,
    );
  });
});

describe('issuer registry (factory custom fees)', () => {
  const admin = () => Keypair.fromSecret(env.info!.admin.secret);
  it('sets, changes and removes a custom fee that issuance then charges', async () => {
    const v = await freshVault();
    const i = issuer.publicKey();
    const quote = async () => (await call(`/contracts/issuer-registry/${i}`, otherKey)).body;
    expect(await quote()).toMatchObject({
      issuer: i,
      enabled: true,
      amount: String(5n * UNIT),
      token: env.info!.feeTokenId,
    });
    expectError(
      await call('/contracts/issuer-registry', issuerKey, { issuer: i, amount: '1', sourcePublicKey: i }),
      403,
      'admin_required',
    );
    expectError(
      await call('/contracts/issuer-registry', adminKey, { issuer: i, amount: '1', sourcePublicKey: i }),
      403,
      'forbidden',
      /factory admin/,
    );
    expectError(
      await call('/contracts/issuer-registry', adminKey, {
        issuer: i,
        amount: '1',
        expiresAt: '2020-01-01T00:00:00.000Z',
        sourcePublicKey: admin().publicKey(),
      }),
      400,
      'expiresAt_in_past',
    );

    const future = new Date(Date.now() + 86_400_000).toISOString();
    await write(
      '/contracts/issuer-registry',
      { issuer: i, amount: String(2n * UNIT), expiresAt: future, sourcePublicKey: admin().publicKey() },
      adminKey,
      admin(),
    );
    expect((await quote()).amount).toBe(String(2n * UNIT));
    const before = await feeBalance();
    await write('/contracts/vc/issue', issueBody('f1', {}, v.pk), issuerKey, issuer);
    expect((await feeBalance()) - before).toBe(2n * UNIT);

    const path = `/contracts/issuer-registry/${i}`;
    await write(path, { amount: String(3n * UNIT), sourcePublicKey: admin().publicKey() }, adminKey, admin(), 'PATCH');
    expect((await quote()).amount).toBe(String(3n * UNIT));
    // A signed change for another issuer does not pass through this issuer's path.
    const foreign = await prepare(
      `/contracts/issuer-registry/${other.publicKey()}`,
      { amount: '1', sourcePublicKey: admin().publicKey() },
      adminKey,
      'PATCH',
    );
    expectError(await submit(path, foreign, admin(), adminKey, 'PATCH'), 400, 'tx_operation_mismatch');

    await write(path, { sourcePublicKey: admin().publicKey() }, adminKey, admin(), 'DELETE');
    expect((await quote()).amount).toBe(String(5n * UNIT));
  });

  it('an amount below the factory minimum → 400 fee_invalid', async () => {
    const net = (env.simulator as unknown as RunningSimulator).sim.network('testnet');
    const setMin = (n: bigint) =>
      net.invoke({ source: admin(), contractId: env.profile.factoryId, fn: 'set_min_fee', args: [i128(n)] });
    expect(setMin(UNIT).status).toBe('SUCCESS');
    try {
      const r = await call('/contracts/issuer-registry', adminKey, {
        issuer: issuer.publicKey(),
        amount: '1',
        sourcePublicKey: admin().publicKey(),
      });
      expectError(r, 400, 'fee_invalid');
    } finally {
      expect(setMin(0n).status).toBe('SUCCESS');
    }
  });
});
