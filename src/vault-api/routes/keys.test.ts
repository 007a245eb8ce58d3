// API keys over HTTP: the wallet-proof flow (GET /auth/challenge → sign → POST /auth/keys), its refusals,
// the origin allow-list, and the operator routes under /admin/keys (vault-api.yaml tag Keys).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Account, Keypair, Operation, TransactionBuilder, WebAuth } from '@stellar/stellar-sdk';
import { randomBytes } from 'node:crypto';
import {
  storeFaults,
  startVaultTestEnv,
  stubChain,
  stubContractRoutes,
  type VaultTestEnv,
} from '../../../test-support/vault-api.ts';
import { webAuthKeypair, WEB_AUTH_DOMAIN } from './keys.ts';

const DAY = 24 * 60 * 60 * 1000;
const G = 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR';

const faults = storeFaults();
let env: VaultTestEnv;
let admin: string;

beforeAll(async () => {
  env = await startVaultTestEnv({
    chain: stubChain(),
    contractRoutes: stubContractRoutes().router,
    stores: faults.wrap,
  });
  admin = (await env.mintKey({ role: 'admin', wallet: null })).key;
});
afterAll(async () => {
  await env?.close();
});
// /auth/* is limited per client IP (60 per minute): start every test in a fresh window.
beforeEach(() => {
  env.clock.advance(61_000);
});

async function challenge(on: VaultTestEnv, account: string, headers: Record<string, string> = {}) {
  const res = await on.request(`/auth/challenge?account=${account}`, { headers });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { transaction: string; network_passphrase: string };
}

/** Proves `wallet` on `on`: challenge, sign with the returned passphrase, POST /auth/keys. */
async function prove(
  on: VaultTestEnv,
  wallet: Keypair,
  body: Record<string, unknown> = {},
  signers: Keypair[] = [wallet],
) {
  const c = await challenge(on, wallet.publicKey());
  return on.request('/auth/keys', {
    body: { transaction: on.sign(c.transaction, signers, c.network_passphrase), ...body },
  });
}

const vcCount = (on: VaultTestEnv, key: string) => on.request(`/contracts/vault/vc-count?owner=${G}`, { key });

describe('wallet proof', () => {
  it('the challenge: server-signed, sequence 0, a manage_data op of the account, 5 minutes', async () => {
    const wallet = Keypair.random();
    const c = await challenge(env, wallet.publicKey());
    expect(c.network_passphrase).toBe(env.passphrase);
    expect((c as { networkPassphrase?: string }).networkPassphrase).toBe(env.passphrase);
    const tx = TransactionBuilder.fromXdr(c.transaction, env.passphrase) as import('@stellar/stellar-sdk').Transaction;
    expect(tx.source).toBe(webAuthKeypair(env.deps).publicKey());
    expect(tx.sequence).toBe('0');
    expect(tx.operations[0]).toMatchObject({
      type: 'manageData',
      source: wallet.publicKey(),
      name: `${WEB_AUTH_DOMAIN} auth`,
    });
    expect(Number(tx.timeBounds!.maxTime) - Number(tx.timeBounds!.minTime)).toBe(300);
    expect(tx.signatures).toHaveLength(1);
  });

  it('challenge → sign → a standard key with the requested scopes, expiring in 180 days, that works', async () => {
    const wallet = Keypair.random();
    const res = await prove(env, wallet, { scopes: ['credentials:read'] });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({
      key: expect.stringMatching(/^[0-9a-f]{64}$/),
      key_id: expect.stringMatching(/^[0-9a-f]{16}$/),
      wallet_address: wallet.publicKey(),
      role: 'standard',
      scopes: ['credentials:read'],
      network: 'testnet',
      created_at: expect.any(String),
      expires_at: expect.any(String),
    });
    // created_at comes from the store's clock and expires_at from the route's, read a moment apart.
    const lifetime = Date.parse(res.body.expires_at) - Date.parse(res.body.created_at);
    expect(lifetime).toBeGreaterThan(180 * DAY - 60_000);
    expect(lifetime).toBeLessThanOrEqual(180 * DAY);
    expect((await vcCount(env, res.body.key)).status).toBe(200);
    const write = await env.request('/contracts/vault/revoke-vault', {
      key: res.body.key,
      body: { owner: G, sourcePublicKey: G },
    });
    expect(write.body.error).toBe('insufficient_scope');
  });

  it('no scopes → an unrestricted key', async () => {
    const res = await prove(env, Keypair.random());
    expect([res.status, res.body.scopes]).toEqual([201, []]);
  });

  it('proving the wallet again replaces its key', async () => {
    const wallet = Keypair.random();
    const first = await prove(env, wallet);
    const second = await prove(env, wallet);
    expect(second.status).toBe(201);
    expect((await vcCount(env, first.body.key)).body.error).toBe('invalid_api_key');
    expect((await vcCount(env, second.body.key)).status).toBe(200);
  });

  it('a signed challenge works once', async () => {
    const wallet = Keypair.random();
    const c = await challenge(env, wallet.publicKey());
    const signed = env.sign(c.transaction, wallet);
    expect((await env.request('/auth/keys', { body: { transaction: signed } })).status).toBe(201);
    const replay = await env.request('/auth/keys', { body: { transaction: signed } });
    expect(replay.status).toBe(400);
    expect(replay.body).toEqual({ error: 'challenge_invalid', message: expect.stringMatching(/already used/) });
  });

  describe('refusals → 400 challenge_invalid', () => {
    const refused = async (transaction: string) => {
      const res = await env.request('/auth/keys', { body: { transaction } });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error).toBe('challenge_invalid');
      return res.body.message as string;
    };

    it('not signed by the account', async () => {
      const wallet = Keypair.random();
      const c = await challenge(env, wallet.publicKey());
      await refused(c.transaction);
      await refused(env.sign(c.transaction, Keypair.random()));
      await refused(env.sign(c.transaction, [wallet, Keypair.random()]));
    });

    it('signed with another network passphrase', async () => {
      const wallet = Keypair.random();
      const c = await challenge(env, wallet.publicKey());
      await refused(env.sign(c.transaction, wallet, 'Public Global Stellar Network ; September 2015'));
    });

    it('not issued by this service', async () => {
      const wallet = Keypair.random();
      const forged = WebAuth.buildChallengeTx(
        Keypair.random(),
        wallet.publicKey(),
        WEB_AUTH_DOMAIN,
        300,
        env.passphrase,
        WEB_AUTH_DOMAIN,
      );
      expect(await refused(env.sign(forged, wallet))).toMatch(/not a challenge of this service/);
    });

    // The SDK's readChallengeTx adds 5 minutes of grace; the challenge's own bounds rule.
    it('posted after its 5 minutes (on the service clock) → expired; at 300 s it still counts', async () => {
      const late = Keypair.random();
      const c = await challenge(env, late.publicKey());
      env.clock.advance(330_000);
      // The test clock follows the wall clock (shifted), so a second may tick between issue and check.
      expect(await refused(env.sign(c.transaction, late))).toMatch(
        /^the challenge is not valid: it expired 3[0-2] s ago .*request a new one$/,
      );

      const onTime = Keypair.random();
      const d = await challenge(env, onTime.publicKey());
      env.clock.advance(299_000);
      expect((await env.request('/auth/keys', { body: { transaction: env.sign(d.transaction, onTime) } })).status).toBe(
        201,
      );
    });

    it('not valid yet (issued ahead of the service clock)', async () => {
      const wallet = Keypair.random();
      const c = await challenge(env, wallet.publicKey());
      env.clock.advance(-60_000);
      try {
        expect(await refused(env.sign(c.transaction, wallet))).toMatch(/not valid yet/);
      } finally {
        env.clock.advance(60_000);
      }
    });

    it('expired', async () => {
      const wallet = Keypair.random();
      const server = webAuthKeypair(env.deps);
      const past = Math.floor(Date.now() / 1000) - 3600;
      const tx = new TransactionBuilder(new Account(server.publicKey(), '-1'), {
        fee: '100',
        networkPassphrase: env.passphrase,
        timebounds: { minTime: past, maxTime: past + 300 },
      })
        .addOperation(
          Operation.manageData({
            name: `${WEB_AUTH_DOMAIN} auth`,
            value: randomBytes(48).toString('base64'),
            source: wallet.publicKey(),
          }),
        )
        .addOperation(
          Operation.manageData({ name: 'web_auth_domain', value: WEB_AUTH_DOMAIN, source: server.publicKey() }),
        )
        .build();
      tx.sign(server, wallet);
      expect(await refused(tx.toXdr())).toMatch(/expired/);
    });

    it('not a transaction', async () => {
      await refused('AAAA');
    });

    it('a challenge of the mainnet service', async () => {
      const main = await startVaultTestEnv({ network: 'mainnet', chain: stubChain('mainnet') });
      try {
        const wallet = Keypair.random();
        const c = await challenge(main, wallet.publicKey());
        await refused(main.sign(c.transaction, wallet, c.network_passphrase));
      } finally {
        await main.close();
      }
    });
  });

  it('a role field is not accepted; unknown scopes are refused', async () => {
    expect((await prove(env, Keypair.random(), { role: 'admin' })).body.error).toBe('invalid_request');
    expect((await prove(env, Keypair.random(), { scopes: ['everything'] })).body.error).toBe('invalid_request');
  });

  it('a bad account → 400 invalid_request', async () => {
    const res = await env.request('/auth/challenge?account=not-an-account');
    expect([res.status, res.body.error]).toEqual([400, 'invalid_request']);
  });

  it('key store down → 503 store_unavailable, and the challenge stays usable', async () => {
    const wallet = Keypair.random();
    const c = await challenge(env, wallet.publicKey());
    const signed = env.sign(c.transaction, wallet);
    faults.down.keys = true;
    try {
      const res = await env.request('/auth/keys', { body: { transaction: signed } });
      expect(res.status).toBe(503);
      expect(res.body).toEqual({ error: 'store_unavailable', message: 'the key store is unavailable' });
    } finally {
      faults.down.keys = false;
    }
    expect((await env.request('/auth/keys', { body: { transaction: signed } })).status).toBe(201);
  });
});

describe('origin allow-list', () => {
  let strict: VaultTestEnv;
  beforeAll(async () => {
    strict = await startVaultTestEnv({ chain: stubChain(), limits: { authOrigins: ['https://app.example.org'] } });
  });
  afterAll(async () => {
    await strict?.close();
  });

  it('an allowed origin and no origin at all are served', async () => {
    const wallet = Keypair.random();
    await challenge(strict, wallet.publicKey(), { origin: 'https://app.example.org' });
    await challenge(strict, wallet.publicKey());
    const c = await challenge(strict, wallet.publicKey(), { origin: 'https://APP.example.org/' });
    const res = await strict.request('/auth/keys', {
      headers: { origin: 'https://app.example.org' },
      body: { transaction: strict.sign(c.transaction, wallet) },
    });
    expect(res.status).toBe(201);
  });

  it('another origin → 403 origin_not_allowed on both routes', async () => {
    const wallet = Keypair.random();
    const headers = { origin: 'https://evil.example.com' };
    const c1 = await strict.request(`/auth/challenge?account=${wallet.publicKey()}`, { headers });
    expect([c1.status, c1.body.error]).toEqual([403, 'origin_not_allowed']);
    const c = await challenge(strict, wallet.publicKey());
    const res = await strict.request('/auth/keys', {
      headers,
      body: { transaction: strict.sign(c.transaction, wallet) },
    });
    expect(res.status).toBe(403);
    expect(res.body).toEqual({ error: 'origin_not_allowed', message: 'this origin may not request API keys' });
  });
});

describe('/admin/keys', () => {
  it('creates a key of any role for a wallet; the key is shown once and works', async () => {
    const wallet = Keypair.random().publicKey();
    const expires = new Date(env.clock.now() + 30 * DAY).toISOString();
    const res = await env.request('/admin/keys', {
      key: admin,
      body: { wallet_address: wallet, role: 'early', scopes: ['credentials:read'], expires_at: expires },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      wallet_address: wallet,
      role: 'early',
      scopes: ['credentials:read'],
      network: 'testnet',
      expires_at: expires,
    });
    const listed = await env.request('/admin/keys', { key: admin });
    const row = listed.body.keys.find((k: { key_id: string }) => k.key_id === res.body.key_id);
    expect(row).toEqual({
      key_id: res.body.key_id,
      wallet_address: wallet,
      role: 'early',
      scopes: ['credentials:read'],
      network: 'testnet',
      created_at: res.body.created_at,
      expires_at: expires,
    });
    expect(JSON.stringify(listed.body)).not.toContain(res.body.key);
    const works = await env.request(`/contracts/vault/vc-count?owner=${G}`, { key: res.body.key });
    expect([works.status, works.headers.get('x-ratelimit-limit')]).toEqual([200, '300']);
  });

  it('defaults: role standard, no scopes, no expiry', async () => {
    const res = await env.request('/admin/keys', {
      key: admin,
      body: { wallet_address: Keypair.random().publicKey() },
    });
    expect(res.body).toMatchObject({ role: 'standard', scopes: [], expires_at: null });
  });

  it('a wallet that holds a key → 409 key_exists; after DELETE it may get one again', async () => {
    const wallet = Keypair.random().publicKey();
    const first = await env.request('/admin/keys', { key: admin, body: { wallet_address: wallet } });
    const again = await env.request('/admin/keys', { key: admin, body: { wallet_address: wallet } });
    expect([again.status, again.body.error]).toEqual([409, 'key_exists']);
    const del = await env.request(`/admin/keys/${first.body.key_id}`, { method: 'DELETE', key: admin });
    expect([del.status, del.body]).toEqual([204, '']);
    expect((await vcCount(env, first.body.key)).body.error).toBe('invalid_api_key');
    expect((await env.request('/admin/keys', { key: admin, body: { wallet_address: wallet } })).status).toBe(201);
  });

  it('10 concurrent creates for one wallet → exactly one 201, the rest 409 key_exists', async () => {
    const wallet = Keypair.random().publicKey();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => env.request('/admin/keys', { key: admin, body: { wallet_address: wallet } })),
    );
    expect(answers.filter((a) => a.status === 201)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 409 && a.body.error === 'key_exists')).toHaveLength(9);
    const held = (await env.request('/admin/keys', { key: admin })).body.keys.filter(
      (k: { wallet_address: string }) => k.wallet_address === wallet,
    );
    expect(held.map((k: { key_id: string }) => k.key_id)).toEqual([answers.find((a) => a.status === 201)!.body.key_id]);
  });

  it('a wallet whose key expired may get a new one', async () => {
    const wallet = Keypair.random().publicKey();
    const first = await env.request('/admin/keys', {
      key: admin,
      body: { wallet_address: wallet, expires_at: new Date(env.clock.now() + 1000).toISOString() },
    });
    env.clock.advance(2000);
    const second = await env.request('/admin/keys', { key: admin, body: { wallet_address: wallet } });
    expect([first.status, second.status]).toEqual([201, 201]);
    expect((await vcCount(env, second.body.key)).status).toBe(200);
  });

  it('DELETE of an unknown, already revoked, or other-network key → 404 key_not_found', async () => {
    const other = await env.stores.keys.create({
      walletAddress: G,
      network: 'mainnet',
      role: 'standard',
      scopes: [],
      expiresAt: null,
    });
    const revoked = await env.mintKey();
    await env.stores.keys.revoke(revoked.record.keyId);
    for (const id of ['0123456789abcdef', other.record.keyId, revoked.record.keyId]) {
      const res = await env.request(`/admin/keys/${id}`, { method: 'DELETE', key: admin });
      expect([res.status, res.body.error]).toEqual([404, 'key_not_found']);
    }
    expect(
      (await env.request('/admin/keys', { key: admin })).body.keys.map((k: { network: string }) => k.network),
    ).not.toContain('mainnet');
  });

  it('expires_at in the past → 400; a key past its expiry → api_key_expired', async () => {
    const past = await env.request('/admin/keys', {
      key: admin,
      body: {
        wallet_address: Keypair.random().publicKey(),
        expires_at: new Date(env.clock.now() - 1000).toISOString(),
      },
    });
    expect([past.status, past.body.error]).toEqual([400, 'invalid_request']);
    const soon = await env.request('/admin/keys', {
      key: admin,
      body: {
        wallet_address: Keypair.random().publicKey(),
        expires_at: new Date(env.clock.now() + 1000).toISOString(),
      },
    });
    env.clock.advance(2000);
    expect((await vcCount(env, soon.body.key)).body.error).toBe('api_key_expired');
  });

  it('a malformed key id → 400 invalid_request', async () => {
    const res = await env.request('/admin/keys/not-a-key-id', { method: 'DELETE', key: admin });
    expect([res.status, res.body.error]).toEqual([400, 'invalid_request']);
  });
});

describe('wallet proof against the RPC simulator', () => {
  let live: VaultTestEnv;
  beforeAll(async () => {
    live = await startVaultTestEnv();
  }, 60_000);
  afterAll(async () => {
    await live?.close();
  });

  const version = (key: string) => live.request('/contracts/version', { key });

  it('a funded account (its on-chain signers and threshold): the key works on a contract route', async () => {
    const wallet = await live.fund();
    const res = await prove(live, wallet);
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    const got = await version(res.body.key);
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect(got.body.factory_id).toBe(live.info!.factoryId);
  });

  it('a funded account signed by another key → challenge_invalid', async () => {
    const wallet = await live.fund();
    const res = await prove(live, wallet, {}, [Keypair.random()]);
    expect([res.status, res.body.error]).toEqual([400, 'challenge_invalid']);
  });

  // Against key farming (docs/vault-api.md "Authentication"): only an existing account gets a key. The refusal does
  // not use up the challenge: fund the account, then send the same signed challenge again.
  it('an account not on chain → 403 account_not_found; once funded, the same challenge gets the key', async () => {
    const wallet = Keypair.random();
    const c = await challenge(live, wallet.publicKey());
    const signed = live.sign(c.transaction, wallet);
    const refused = await live.request('/auth/keys', { body: { transaction: signed } });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      error: 'account_not_found',
      message: expect.stringMatching(
        new RegExp(`^the account ${wallet.publicKey()} does not exist on testnet: .*fund it`),
      ),
    });
    await live.fund(wallet);
    const res = await live.request('/auth/keys', { body: { transaction: signed } });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect((await version(res.body.key)).status).toBe(200);
  });
});
