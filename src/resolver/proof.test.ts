// Proof of control (docs/did-resolver.md "Proof of control"; spec tag "proof"): challenge,
// verification in order (window, domain, nonce once, signature against every authentication key),
// replay, expiry, wrong domain, wrong key, and the DID's state.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Keypair } from '@stellar/stellar-sdk';
import { createChain } from '../chain/index.ts';
import { canonicalizeToBytes, generateDid, type ProofChallenge } from '../did/index.ts';
import { createMemoryCache } from '../stores/memory.ts';
import {
  closedPort,
  multikey,
  sign,
  startHarness,
  type Harness,
  type RegisteredDid,
} from '../../test-support/resolver.ts';
import { createRedisStores, type RedisStores } from '../stores/redis.ts';
import { dropRedisPrefix, redisUrl, uniqueName } from '../../test-support/stores/backends.ts';

let h: Harness;
let d: RegisteredDid;
const DOMAIN = 'vault.example.org';

beforeAll(async () => {
  h = await startHarness();
  d = await h.registerDid({ authKeys: [Keypair.random(), Keypair.random()] });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

function signChallenge(challenge: ProofChallenge, key: Keypair): string {
  return Buffer.from(key.sign(Buffer.from(canonicalizeToBytes(challenge)))).toString('base64url');
}

async function challenge(did = d.did, domain = DOMAIN): Promise<ProofChallenge> {
  const r = await h.post('/v1/proof/challenge', { did, domain });
  expect(r.status, r.text).toBe(200);
  return r.body as ProofChallenge;
}

describe('POST /v1/proof/challenge', () => {
  it('issues {did, domain, nonce, timestamp} at the server clock, not cached', async () => {
    h.clock.advance(0);
    const r = await h.post('/v1/proof/challenge', { did: d.did, domain: DOMAIN });
    expect(r.status).toBe(200);
    expect(r.headers.get('cache-control')).toBe('no-store');
    expect(Object.keys(r.body).sort()).toEqual(['did', 'domain', 'nonce', 'timestamp']);
    expect(r.body).toMatchObject({ did: d.did, domain: DOMAIN, nonce: expect.stringMatching(/^[A-Za-z0-9_-]{22}$/) });
    expect(Math.abs(Date.parse(r.body.timestamp) - h.clock.now())).toBeLessThan(5_000);
  });

  it.each([
    ['an invalid DID', { did: 'did:ledger:public:nohsyhu2pu7uaulcoocjljvxza', domain: DOMAIN }, 'did_invalid'],
    ['a non-canonical didId', { did: 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxzb', domain: DOMAIN }, 'did_invalid'],
    ['no domain', { did: 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza' }, 'invalid_request'],
    [
      'a domain with a space',
      { did: 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza', domain: 'a b' },
      'invalid_request',
    ],
  ])('%s → 400 %s', async (_n, body, code) => {
    const r = await h.post('/v1/proof/challenge', body);
    expect(r.status).toBe(400);
    expect(r.body.code).toBe(code);
  });
});

describe('POST /v1/proof/verify', () => {
  it('verifies a signature by the first authentication key', async () => {
    const c = await challenge();
    const r = await h.post('/v1/proof/verify', {
      challenge: c,
      signature: signChallenge(c, d.authKeys[0]!),
      domain: DOMAIN,
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({ verified: true, did: d.did, verificationMethod: `${d.did}#auth-1` });
  });

  it('tries every authentication key: the second one verifies too (domain defaults to the challenge’s)', async () => {
    const c = await challenge();
    const r = await h.post('/v1/proof/verify', { challenge: c, signature: signChallenge(c, d.authKeys[1]!) });
    expect(r.status, r.text).toBe(200);
    expect(r.body.verificationMethod).toBe(`${d.did}#auth-2`);
  });

  it('a nonce verifies once: the replay is nonce_invalid', async () => {
    const c = await challenge();
    const signature = signChallenge(c, d.authKeys[0]!);
    expect((await h.post('/v1/proof/verify', { challenge: c, signature, domain: DOMAIN })).status).toBe(200);
    const replay = await h.post('/v1/proof/verify', { challenge: c, signature, domain: DOMAIN });
    expect(replay.status).toBe(401);
    expect(replay.body.code).toBe('nonce_invalid');
  });

  it('a challenge older than 5 minutes is challenge_expired (checked first)', async () => {
    const c = await challenge();
    h.clock.advance(5 * 60 * 1000 + 1_000);
    const r = await h.post('/v1/proof/verify', {
      challenge: c,
      signature: signChallenge(c, d.authKeys[0]!),
      domain: 'elsewhere.example',
    });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('challenge_expired');
  });

  it('another expected domain is domain_mismatch, and spends nothing', async () => {
    const c = await challenge();
    const signature = signChallenge(c, d.authKeys[0]!);
    const r = await h.post('/v1/proof/verify', { challenge: c, signature, domain: 'evil.example' });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('domain_mismatch');
    expect((await h.post('/v1/proof/verify', { challenge: c, signature, domain: DOMAIN })).status).toBe(200);
  });

  it('a challenge altered after issue (domain rewritten) is nonce_invalid', async () => {
    const c = await challenge();
    const altered = { ...c, domain: 'evil.example' };
    const r = await h.post('/v1/proof/verify', {
      challenge: altered,
      signature: signChallenge(altered, d.authKeys[0]!),
      domain: 'evil.example',
    });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('nonce_invalid');
  });

  it('an unknown nonce is nonce_invalid', async () => {
    const c = { ...(await challenge()), nonce: 'AAAAAAAAAAAAAAAAAAAAAA' };
    const r = await h.post('/v1/proof/verify', { challenge: c, signature: signChallenge(c, d.authKeys[0]!) });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('nonce_invalid');
  });

  it('a signature by a key that is not an authentication key is signature_invalid, and spends the nonce', async () => {
    const c = await challenge();
    const r = await h.post('/v1/proof/verify', {
      challenge: c,
      signature: signChallenge(c, Keypair.random()),
      domain: DOMAIN,
    });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('signature_invalid');
    const retry = await h.post('/v1/proof/verify', {
      challenge: c,
      signature: signChallenge(c, d.authKeys[0]!),
      domain: DOMAIN,
    });
    expect(retry.body.code).toBe('nonce_invalid');
  });

  it('the controller wallet is not an authentication key: its signature is signature_invalid', async () => {
    const c = await challenge();
    const r = await h.post('/v1/proof/verify', { challenge: c, signature: signChallenge(c, d.controller) });
    expect(r.body.code).toBe('signature_invalid');
  });

  it('a signature that is not 64 bytes of base64url is signature_invalid', async () => {
    const c = await challenge();
    const r = await h.post('/v1/proof/verify', { challenge: c, signature: 'not-a-signature' });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('signature_invalid');
  });

  it('an unregistered DID is did_not_found 404; a deactivated one did_deactivated 409', async () => {
    const { did } = generateDid({ network: 'testnet' });
    const c = await challenge(did);
    const r = await h.post('/v1/proof/verify', { challenge: c, signature: signChallenge(c, Keypair.random()) });
    expect(r.status).toBe(404);
    expect(r.body.code).toBe('did_not_found');

    const x = await h.registerDid();
    const cx = await challenge(x.did);
    const off = await h.prepareSignSubmit(
      `/v1/dids/stellar/${x.did}/deactivate`,
      { expectedVersion: 1, sourcePublicKey: x.controller.publicKey() },
      [x.controller],
    );
    expect(off.status).toBe(200);
    const gone = await h.post('/v1/proof/verify', { challenge: cx, signature: signChallenge(cx, x.authKeys[0]!) });
    expect(gone.status).toBe(409);
    expect(gone.body.code).toBe('did_deactivated');
  });

  it('reads the document fresh: a key removed seconds ago no longer verifies', async () => {
    const x = await h.registerDid();
    expect((await h.get(`/1.0/identifiers/${x.did}`)).status).toBe(200);
    const fresh = Keypair.random();
    // Rotated through another instance (this one's cache still holds the old document).
    const other = await h.startApp({ cache: createMemoryCache({ now: h.clock.now }) });
    const prep = await fetch(`${other.url}/v1/dids/stellar/${x.did}/update`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        expectedVersion: 1,
        sourcePublicKey: x.controller.publicKey(),
        record: { ...x.record, authentication: [{ publicKeyMultibase: multikey(fresh) }] },
      }),
    }).then((r) => r.json() as Promise<{ xdr: string; networkPassphrase: string }>);
    const sub = await fetch(`${other.url}/v1/dids/stellar/${x.did}/update`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ signedXdr: sign(prep.xdr, prep.networkPassphrase, [x.controller]) }),
    });
    expect(sub.status).toBe(200);
    const c = await challenge(x.did);
    const old = await h.post('/v1/proof/verify', { challenge: c, signature: signChallenge(c, x.authKeys[0]!) });
    expect(old.body.code).toBe('signature_invalid');
    const c2 = await challenge(x.did);
    expect((await h.post('/v1/proof/verify', { challenge: c2, signature: signChallenge(c2, fresh) })).status).toBe(200);
  });

  it('malformed bodies are invalid_request; an invalid challenge DID is did_invalid', async () => {
    const c = await challenge();
    const extra = await h.post('/v1/proof/verify', { challenge: { ...c, extra: 'x' }, signature: 'x' });
    expect(extra.status).toBe(400);
    expect(extra.body.code).toBe('invalid_request');
    const missing = await h.post('/v1/proof/verify', { challenge: c });
    expect(missing.body.code).toBe('invalid_request');
    const bad = await h.post('/v1/proof/verify', {
      challenge: { ...c, did: 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxzb' },
      signature: 'x',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('did_invalid');
  });

  it('ledger_unavailable 502 when the RPC is down at verification', async () => {
    const port = await closedPort();
    const rpcUrl = `http://127.0.0.1:${port}/testnet/rpc`;
    const i = h.info.testnet;
    const chain = createChain({
      rpcUrl,
      networkPassphrase: i.passphrase,
      network: 'testnet',
      simulationAccount: i.admin.publicKey,
      factoryId: i.factoryId,
      registryId: i.registryId,
      allowHttp: true,
      timeouts: { rpcMs: 2_000 },
    });
    const testnet = { chain, networkPassphrase: i.passphrase, registryId: i.registryId };
    const down = await h.startApp({ networks: { testnet } });
    const post = (path: string, body: unknown) =>
      fetch(down.url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const c = (await (await post('/v1/proof/challenge', { did: d.did, domain: DOMAIN })).json()) as ProofChallenge;
    const r = await post('/v1/proof/verify', { challenge: c, signature: signChallenge(c, d.authKeys[0]!) });
    expect(r.status).toBe(502);
    expect(await r.json()).toMatchObject({ code: 'ledger_unavailable' });
  });
});

describe('nonces shared by several instances (Redis)', () => {
  const prefix = `${uniqueName('cvproof')}:`;
  const stores: RedisStores[] = [];
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await dropRedisPrefix(prefix);
  });

  /**
   * A resolver instance with its own connection to the shared nonce store. A reachable Redis gets a generous
   * command timeout: on a loaded machine a first command can take over the default second, which would answer 503.
   */
  async function instance(url = redisUrl(), timeoutMs?: number) {
    const redis = createRedisStores({ url, keyPrefix: prefix, now: h.clock.now, ...(timeoutMs ? { timeoutMs } : {}) });
    stores.push(redis);
    const app = await h.startApp({ nonceStore: redis.nonces });
    return (path: string, body: unknown) =>
      fetch(app.url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
  }

  it('a challenge issued by one instance verifies on another, once across all of them', async () => {
    const [a, b] = [await instance(redisUrl(), 30_000), await instance(redisUrl(), 30_000)];
    const issued = await a('/v1/proof/challenge', { did: d.did, domain: DOMAIN });
    expect(issued.status, await issued.clone().text()).toBe(200);
    const c = (await issued.json()) as ProofChallenge;
    const signature = signChallenge(c, d.authKeys[0]!);
    const first = await b('/v1/proof/verify', { challenge: c, signature });
    expect(first.status, await first.clone().text()).toBe(200);
    for (const replay of [
      await a('/v1/proof/verify', { challenge: c, signature }),
      await b('/v1/proof/verify', { challenge: c, signature }),
    ]) {
      expect(replay.status).toBe(401);
      expect(await replay.json()).toMatchObject({ code: 'nonce_invalid' });
    }
  });

  it('503 nonce_store_unavailable on both routes when the store is unreachable, never a pass', async () => {
    const down = await instance(redisUrl(await closedPort()));
    const issued = await down('/v1/proof/challenge', { did: d.did, domain: DOMAIN });
    expect(issued.status).toBe(503);
    expect(await issued.json()).toMatchObject({ code: 'nonce_store_unavailable' });
    const c = await challenge();
    const verified = await down('/v1/proof/verify', { challenge: c, signature: signChallenge(c, d.authKeys[0]!) });
    expect(verified.status).toBe(503);
    expect(await verified.json()).toMatchObject({ code: 'nonce_store_unavailable' });
  });
});
