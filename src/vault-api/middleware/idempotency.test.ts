// Idempotency-Key over HTTP (vault-api.yaml "Idempotency").
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHash, randomUUID } from 'node:crypto';
import express from 'express';
import { canonicalize } from '../../did/jcs.ts';
import { ApiError } from '../context.ts';
import { IDEMPOTENCY_TTL_MS } from '../../stores/index.ts';
import {
  startVaultTestEnv,
  storeFaults,
  stubChain,
  stubContractRoutes,
  type StubContractRoutes,
  type VaultTestEnv,
} from '../../../test-support/vault-api.ts';

const G = 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR';
const H = 'GDWUSKGGFDI4FRXK5EBTRECZSVQSSWJHHJOGH6JWG3AUMFFMQ435DIAG';
const PREPARE = '/contracts/vault/revoke-vault';
const REVOKE = '/contracts/vc/revoke';

const faults = storeFaults();
let env: VaultTestEnv;
let stub: StubContractRoutes;
let key: string;

const post = (path: string, body: unknown, idem?: string, apiKey = key) =>
  env.request(path, { key: apiKey, body, headers: idem === undefined ? {} : { 'idempotency-key': idem } });
const calls = (path: string) => stub.calls.get(path) ?? 0;

beforeAll(async () => {
  stub = stubContractRoutes();
  env = await startVaultTestEnv({
    chain: stubChain(),
    contractRoutes: stub.router,
    stores: faults.wrap,
    limits: {
      rateLimits: {
        standard: { read: 1000, write: 1000 },
        early: { read: 1000, write: 1000 },
        admin: { read: 1000, write: 1000 },
      },
    },
  });
  key = (await env.mintKey()).key;
});
afterEach(() => {
  stub.failWith = undefined;
  stub.hold = undefined;
  faults.down.idempotency = false;
});
afterAll(async () => {
  await env?.close();
});

describe('replay', () => {
  it('the same key and body → the first answer again, with Idempotency-Replayed: true, executed once', async () => {
    const idem = randomUUID();
    const before = calls(PREPARE);
    const first = await post(PREPARE, { owner: G, sourcePublicKey: G }, idem);
    expect(first.status).toBe(200);
    expect(first.headers.get('idempotency-replayed')).toBeNull();
    const again = await post(PREPARE, { sourcePublicKey: G, owner: G }, idem); // key order does not matter
    expect(again.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotency-replayed')).toBe('true');
    expect(again.headers.get('x-writeratelimit-limit')).toBe('1000');
    expect(calls(PREPARE) - before).toBe(1);
  });

  it('without the header every request executes', async () => {
    const before = calls(PREPARE);
    const a = await post(PREPARE, { owner: G, sourcePublicKey: G });
    const b = await post(PREPARE, { owner: G, sourcePublicKey: G });
    expect(a.body).not.toEqual(b.body);
    expect(calls(PREPARE) - before).toBe(2);
  });

  it('keys are scoped per API key: another key may use the same value', async () => {
    const idem = randomUUID();
    const other = (await env.mintKey()).key;
    const before = calls(PREPARE);
    expect((await post(PREPARE, { owner: G, sourcePublicKey: G }, idem)).status).toBe(200);
    const res = await post(PREPARE, { owner: H, sourcePublicKey: H }, idem, other);
    expect([res.status, res.headers.get('idempotency-replayed')]).toEqual([200, null]);
    expect(calls(PREPARE) - before).toBe(2);
  });

  it('a stored answer is replayed for 24 hours, then the key is free again', async () => {
    const idem = randomUUID();
    const before = calls(PREPARE);
    await post(PREPARE, { owner: G, sourcePublicKey: G }, idem);
    env.clock.advance(IDEMPOTENCY_TTL_MS - 60_000);
    expect((await post(PREPARE, { owner: G, sourcePublicKey: G }, idem)).headers.get('idempotency-replayed')).toBe(
      'true',
    );
    env.clock.advance(120_000);
    expect(
      (await post(PREPARE, { owner: G, sourcePublicKey: G }, idem)).headers.get('idempotency-replayed'),
    ).toBeNull();
    expect(calls(PREPARE) - before).toBe(2);
  });

  it('reads ignore the header', async () => {
    const idem = randomUUID();
    const before = calls('/contracts/vault/verify-vc');
    for (let i = 0; i < 2; i++) {
      const res = await post('/contracts/vault/verify-vc', { owner: G, vcId: 'vc-1' }, idem);
      expect(res.headers.get('idempotency-replayed')).toBeNull();
    }
    expect(calls('/contracts/vault/verify-vc') - before).toBe(2);
  });
});

describe('misuse', () => {
  it('the same key with another body → 422 idempotency_key_reused', async () => {
    const idem = randomUUID();
    await post(PREPARE, { owner: G, sourcePublicKey: G }, idem);
    const res = await post(PREPARE, { owner: H, sourcePublicKey: H }, idem);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ error: 'idempotency_key_reused', message: expect.any(String) });
  });

  it('the same key on another route → 422', async () => {
    const idem = randomUUID();
    await post(PREPARE, { owner: G, sourcePublicKey: G }, idem);
    const res = await post(
      '/contracts/vault/create',
      { owner: G, didUri: 'did:web:example.org', sourcePublicKey: G },
      idem,
    );
    expect([res.status, res.body.error]).toEqual([422, 'idempotency_key_reused']);
  });
});

describe('errors are not stored', () => {
  it('a 4xx answer releases the key: a corrected retry executes', async () => {
    const idem = randomUUID();
    const before = calls(REVOKE);
    stub.failWith = new ApiError('vc_not_found', 'the vault holds no credential vc-1');
    const first = await post(REVOKE, { owner: G, vcId: 'vc-1', sourcePublicKey: G }, idem);
    expect([first.status, first.body.error]).toEqual([404, 'vc_not_found']);
    stub.failWith = undefined;
    const retry = await post(REVOKE, { owner: G, vcId: 'vc-1', sourcePublicKey: G }, idem);
    expect([retry.status, retry.headers.get('idempotency-replayed')]).toEqual([200, null]);
    expect(calls(REVOKE) - before).toBe(2);
    expect(
      (await post(REVOKE, { owner: G, vcId: 'vc-1', sourcePublicKey: G }, idem)).headers.get('idempotency-replayed'),
    ).toBe('true');
  });

  it('a 5xx answer releases the key', async () => {
    const idem = randomUUID();
    stub.failWith = new Error('boom');
    expect((await post(REVOKE, { owner: G, vcId: 'vc-2', sourcePublicKey: G }, idem)).status).toBe(500);
    stub.failWith = undefined;
    expect((await post(REVOKE, { owner: G, vcId: 'vc-2', sourcePublicKey: G }, idem)).status).toBe(200);
  });

  it('a request that fails validation never takes the key', async () => {
    const idem = randomUUID();
    expect((await post(PREPARE, { owner: 'nope', sourcePublicKey: G }, idem)).status).toBe(400);
    expect((await post(PREPARE, { owner: G, sourcePublicKey: G }, idem)).status).toBe(200);
  });
});

describe('concurrency', () => {
  it('a duplicate while the first still runs → 409 idempotency_in_progress; executed once', async () => {
    const idem = randomUUID();
    let open!: () => void;
    stub.hold = new Promise<void>((r) => (open = r));
    const before = calls(PREPARE);
    const first = post(PREPARE, { owner: G, sourcePublicKey: G }, idem);
    await vi.waitFor(() => expect(calls(PREPARE)).toBeGreaterThan(before), { timeout: 20_000 });
    const second = await post(PREPARE, { owner: G, sourcePublicKey: G }, idem);
    expect(second.status).toBe(409);
    expect(second.body).toEqual({ error: 'idempotency_in_progress', message: expect.any(String) });
    open();
    expect((await first).status).toBe(200);
    expect(calls(PREPARE) - before).toBe(1);
  });

  it('identical requests arriving together execute exactly once; the others get 409 or the replay', async () => {
    const idem = randomUUID();
    let open!: () => void;
    stub.hold = new Promise<void>((r) => (open = r));
    const before = calls(PREPARE);
    let settled = 0;
    const all = Array.from({ length: 8 }, () => post(PREPARE, { owner: G, sourcePublicKey: G }, idem));
    for (const a of all) void a.then(() => settled++);
    // The other seven are answered while the first is held.
    await vi.waitFor(() => expect(settled).toBe(7), { timeout: 10_000 });
    open();
    const answers = await Promise.all(all);
    expect(calls(PREPARE) - before).toBe(1);
    const executed = answers.filter((a) => a.status === 200 && a.headers.get('idempotency-replayed') === null);
    expect(executed).toHaveLength(1);
    for (const a of answers) {
      if (a === executed[0]) continue;
      expect(a.status === 409 ? a.body.error : a.headers.get('idempotency-replayed')).toMatch(
        /^(idempotency_in_progress|true)$/,
      );
    }
    const later = await post(PREPARE, { owner: G, sourcePublicKey: G }, idem);
    expect([later.headers.get('idempotency-replayed'), later.body]).toEqual(['true', executed[0]!.body]);
  });
});

describe('idempotency store down', () => {
  it('→ 503 store_unavailable without executing; requests without the header still run', async () => {
    const before = calls(PREPARE);
    faults.down.idempotency = true;
    const res = await post(PREPARE, { owner: G, sourcePublicKey: G }, randomUUID());
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: 'store_unavailable', message: 'the idempotency store is unavailable' });
    expect(calls(PREPARE)).toBe(before);
    expect((await post(PREPARE, { owner: G, sourcePublicKey: G })).status).toBe(200);
  });
});

it('replays the same way without response validation (production)', async () => {
  const own = stubContractRoutes();
  const prod = await startVaultTestEnv({ chain: stubChain(), contractRoutes: own.router, validateResponses: false });
  try {
    const { key: k } = await prod.mintKey();
    const send = () =>
      prod.request(PREPARE, {
        key: k,
        body: { owner: G, sourcePublicKey: G },
        headers: { 'idempotency-key': 'prod-1' },
      });
    const first = await send();
    const again = await send();
    expect([first.status, again.status, again.headers.get('idempotency-replayed')]).toEqual([200, 200, 'true']);
    expect(again.body).toEqual(first.body);
    expect(own.calls.get(PREPARE)).toBe(1);
  } finally {
    await prod.close();
  }
});

describe('a replay repeats the headers that describe the first answer, and no per-request ones', () => {
  const modes = [{ validateResponses: true }, { validateResponses: false }];
  it.each(modes)('validateResponses: $validateResponses', async (o) => {
    // A write route that also answers a Location and a cookie, different each time it runs.
    const router = express.Router();
    let runs = 0;
    router.post(PREPARE, (_req, res) => {
      runs++;
      res.set('Location', `/contracts/vault/vc-count?owner=${G}&run=${runs}`);
      res.set('Set-Cookie', `run=${runs}`);
      const xdr = Buffer.from(`prepared ${runs}`).toString('base64');
      const passphrase = 'Credential Vault Stub Testnet ; 2026';
      res.json({ xdr, network: passphrase, networkPassphrase: passphrase });
    });
    const own = await startVaultTestEnv({ chain: stubChain(), contractRoutes: router, ...o });
    try {
      const { key: k } = await own.mintKey();
      const body = { owner: G, sourcePublicKey: G };
      const send = () => own.request(PREPARE, { key: k, body, headers: { 'idempotency-key': 'h-1' } });
      const first = await send();
      const again = await send();
      const replayed = again.headers.get('idempotency-replayed');
      expect([first.status, again.status, runs, replayed]).toEqual([200, 200, 1, 'true']);
      const same = ['content-type', 'location', 'x-writeratelimit-limit', 'x-writeratelimit-remaining'];
      expect(Object.fromEntries(same.map((h) => [h, again.headers.get(h)]))).toEqual(
        Object.fromEntries(same.map((h) => [h, first.headers.get(h)])),
      );
      // The budget as the first answer reported it (the replay itself was counted: the store knows better).
      expect(first.headers.get('x-writeratelimit-remaining')).toBe('19');
      expect(first.headers.get('location')).toMatch(/run=1$/);
      expect(first.headers.get('set-cookie')).toBe('run=1');
      expect(again.headers.get('set-cookie')).toBeNull();
      expect(again.headers.get('x-request-id')).not.toBe(first.headers.get('x-request-id'));
      expect(again.body).toEqual(first.body);
    } finally {
      await own.close();
    }
  });

  it('a stored header outside the list is never replayed, whatever a record holds', async () => {
    const env2 = await startVaultTestEnv({ chain: stubChain(), contractRoutes: stubContractRoutes().router });
    try {
      const { key: k, record } = await env2.mintKey();
      const body = { owner: G, sourcePublicKey: G };
      // A completed record of exactly this request, written to the store directly.
      const hash = createHash('sha256')
        .update(`POST\n${PREPARE}\n${canonicalize(body)}`)
        .digest('hex');
      const begun = await env2.stores.idempotency.begin({ scope: record.keyId, key: 'planted', requestHash: hash });
      const headers = {
        'Content-Type': 'application/json; charset=utf-8',
        'X-WriteRateLimit-Remaining': '7',
        'Set-Cookie': 'a=b',
        'X-Other': 'c',
      };
      const passphrase = 'Credential Vault Stub Testnet ; 2026';
      const stored = { xdr: 'cGxhbnRlZA==', network: passphrase, networkPassphrase: passphrase };
      const token = (begun as { token: string }).token;
      await env2.stores.idempotency.complete(record.keyId, 'planted', token, { status: 200, headers, body: stored });
      const res = await env2.request(PREPARE, { key: k, body, headers: { 'idempotency-key': 'planted' } });
      expect([res.status, res.headers.get('idempotency-replayed'), res.body]).toEqual([200, 'true', stored]);
      expect(res.headers.get('x-writeratelimit-remaining')).toBe('7');
      expect([res.headers.get('set-cookie'), res.headers.get('x-other')]).toEqual([null, null]);
    } finally {
      await env2.close();
    }
  });
});
