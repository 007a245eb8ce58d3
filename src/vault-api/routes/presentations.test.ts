// POST /presentations/verify and POST /challenges end to end over HTTP against the RPC simulator: holder
// binding (the proof's key belongs to `holder`; without a holder, a warning), challenge and domain, a challenge
// of this service accepted once, for 5 minutes, from the client it was issued to, shared by two instances
// through Redis, and every credential inside verified. A presentation that does not verify is a 400. The
// adversarial review's findings 2 (a challenge spent by another client), 3 (challenges evicted by a fast client)
// and 4 (a holder presenting someone else's credential) each have a test here.
import { request as httpRequest } from 'node:http';
import { Keypair } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createRedisStores } from '../../stores/redis.ts';
import { dropRedisPrefix, redisUrl, uniqueName } from '../../../test-support/stores/backends.ts';
import { didKeyOf, startVerificationEnv, type VerificationEnv } from '../../../test-support/verification.ts';
import { startVaultTestEnv, type VaultTestEnv } from '../../../test-support/vault-api.ts';
import { addProof } from '../../did/index.ts';
import { CHALLENGES_PER_CLIENT } from '../verification-presentation.ts';

let t: VerificationEnv;
let vc1: Record<string, unknown>;

const challenge = async (env: VaultTestEnv = t.env): Promise<string> => {
  const r = await env.request('/challenges', { body: {} });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body.challenge;
};
const verify = (body: unknown, env: VaultTestEnv = t.env) => env.request('/presentations/verify', { body });
const errors = (body: { problemDetails?: { reason: string; level: string }[] }) =>
  (body.problemDetails ?? []).filter((p) => p.level === 'error').map((p) => p.reason);

beforeAll(async () => {
  t = await startVerificationEnv();
  vc1 = await t.sign();
}, 120_000);
afterAll(async () => {
  await t?.close();
});
// Each test starts a new keyless window (30 per minute per client IP).
beforeEach(() => {
  t?.env.clock.advance(61_000);
});

describe('POST /challenges', () => {
  it('answers a fresh challenge of the documented form, keyless, with or without {}', async () => {
    const a = await challenge();
    const b = await t.env.request('/challenges', { method: 'POST' });
    expect(a).toMatch(/^cvc1_[A-Za-z0-9_-]{22}$/);
    expect(b.status).toBe(200);
    expect(b.body.challenge).not.toBe(a);
  });

  it('refuses a body with members', async () => {
    const r = await t.env.request('/challenges', { body: { domain: 'x' } });
    expect([r.status, r.body.error]).toEqual([400, 'invalid_request']);
  });
});

describe('POST /presentations/verify', () => {
  it("the holder's authentication key over the service's challenge: verified once, then the replay fails", async () => {
    const c = await challenge();
    const vp = await t.present({ credentials: [vc1], challenge: c, domain: 'verifier.example' });
    const body = { verifiablePresentation: vp, options: { challenge: c, domain: 'verifier.example' } };
    const first = await verify(body);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.verified).toBe(true);
    expect(first.body.results.presentation).toMatchObject({
      challenge: { verified: true, input: c },
      domain: { verified: true, input: 'verifier.example' },
      holder: { verified: true, input: t.holder.did },
    });
    expect(first.body.results.credentials).toEqual([expect.objectContaining({ verified: true })]);

    const replay = await verify(body);
    expect(replay.status).toBe(400);
    expect(replay.body.verified).toBe(false);
    expect(errors(replay.body)).toEqual(['challenge_unknown']);
    expect(replay.body.results.presentation.challenge.verified).toBe(false);
  });

  it.each([
    [
      'another challenge',
      async (c: string) => ({
        vp: await t.present({ credentials: [vc1], challenge: c }),
        options: { challenge: `${c}-other` },
      }),
      ['challenge_mismatch'],
    ],
    [
      'another domain',
      async (c: string) => ({
        vp: await t.present({ credentials: [vc1], challenge: c, domain: 'a.example' }),
        options: { challenge: c, domain: 'b.example' },
      }),
      ['domain_mismatch'],
    ],
    [
      "another key, named as the holder's",
      async (c: string) => ({
        vp: await t.present({ credentials: [vc1], challenge: c, key: Keypair.random() }),
        options: { challenge: c },
      }),
      ['signature_invalid'],
    ],
    [
      'a key of another DID (holder binding)',
      async (c: string) => ({
        vp: await t.present({
          credentials: [vc1],
          challenge: c,
          vm: `${t.issuer.did}#assert-1`,
          key: t.issuer.signing,
        }),
        options: { challenge: c },
      }),
      ['not_proof_signer'],
    ],
    [
      "the holder's key that is not under authentication",
      async (c: string) => {
        const d = await t.registerDid(t.holder.wallet, { assert: t.holder.signing });
        return {
          vp: await t.present({ credentials: [vc1], challenge: c, holder: d.did, vm: `${d.did}#assert-1` }),
          options: { challenge: c },
        };
      },
      ['verification_method_not_authorized'],
    ],
  ])('%s → 400, verified false (%j)', async (_name, make, want) => {
    const { vp, options } = await make(await challenge());
    const r = await verify({ verifiablePresentation: vp, options });
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.verified).toBe(false);
    expect(errors(r.body)).toEqual(want);
  });

  it('a failed attempt does not spend the challenge: the holder can still answer it', async () => {
    const c = await challenge();
    const forged = await t.present({ credentials: [vc1], challenge: c, key: Keypair.random() });
    expect((await verify({ verifiablePresentation: forged, options: { challenge: c } })).body.verified).toBe(false);
    const real = await t.present({ credentials: [vc1], challenge: c });
    expect((await verify({ verifiablePresentation: real, options: { challenge: c } })).body.verified).toBe(true);
  });

  it('a challenge expires after 5 minutes', async () => {
    const c = await challenge();
    const vp = await t.present({ credentials: [], challenge: c });
    t.env.clock.advance(5 * 60 * 1000 + 1000);
    const r = await verify({ verifiablePresentation: vp, options: { challenge: c } });
    expect(errors(r.body)).toEqual(['challenge_unknown']);
  });

  it("a caller's own challenge is only compared: no store, no single use", async () => {
    const vp = await t.present({ credentials: [vc1], challenge: 'verifier-own-nonce-1' });
    for (let i = 0; i < 2; i++)
      expect(
        (await verify({ verifiablePresentation: vp, options: { challenge: 'verifier-own-nonce-1' } })).body.verified,
      ).toBe(true);
  });

  it('a did:key holder binds with its own key', async () => {
    const k = didKeyOf(Keypair.random());
    const c = await challenge();
    const vp = await t.present({ credentials: [vc1], challenge: c, holder: k.did, vm: k.vm, key: k.key });
    const r = await verify({ verifiablePresentation: vp, options: { challenge: c } });
    expect(r.body.verified, JSON.stringify(r.body)).toBe(true);
  });

  it('a presentation with a tampered credential: 400, verified false, the credential says why', async () => {
    const c = await challenge();
    const vp = await t.present({
      credentials: [vc1, { ...vc1, credentialSubject: { id: t.holder.did, role: 'admin' } }],
      challenge: c,
    });
    const r = await verify({ verifiablePresentation: vp, options: { challenge: c } });
    expect(r.status).toBe(400);
    expect(r.body.verified).toBe(false);
    expect(errors(r.body)).toEqual([]);
    expect(r.body.results.credentials.map((x: { verified: boolean }) => x.verified)).toEqual([true, false]);
    expect(errors(r.body.results.credentials[1])).toEqual(['signature_invalid']);
  });

  it('a presentation whose JSON repeats a member name cannot be verified at all: 400, PARSING_ERROR', async () => {
    const c = await challenge();
    const vp = await t.present({ credentials: [vc1], challenge: c });
    const text = JSON.stringify({ verifiablePresentation: vp, options: { challenge: c } }).replace(
      '"holder":',
      '"holder":"did:key:z6MkOther","holder":',
    );
    const r = await verify(text);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      verified: false,
      problemDetails: [expect.objectContaining({ title: 'PARSING_ERROR', reason: 'duplicate_member' })],
    });
  });

  it.each([
    ['no options.challenge', (vp: object) => ({ verifiablePresentation: vp, options: {} })],
    ['no options', (vp: object) => ({ verifiablePresentation: vp })],
    [
      'an unknown option',
      (vp: object) => ({ verifiablePresentation: vp, options: { challenge: 'x', checks: ['proof'] } }),
    ],
    ['a presentation that is not an object', () => ({ verifiablePresentation: 'eyJ…', options: { challenge: 'x' } })],
  ])('400 invalid_request for %s', async (_name, make) => {
    const r = await verify(make(await t.present({ credentials: [], challenge: 'x' })));
    expect([r.status, r.body.error], JSON.stringify(r.body)).toEqual([400, 'invalid_request']);
  });

  it('a presentation nested deeper than 64 levels: 400 invalid_json, also when asked back (it was a 500)', async () => {
    const vp = await t.present({ credentials: [vc1], challenge: 'x' });
    const deep = '['.repeat(5_000) + ']'.repeat(5_000);
    const r = await verify(
      `{"verifiablePresentation":${JSON.stringify(vp).replace('"auditor"', deep)},"options":{"challenge":"x","returnPresentation":true}}`,
    );
    expect([r.status, r.body.error], JSON.stringify(r.body).slice(0, 300)).toEqual([400, 'invalid_json']);
  });

  it.each([
    [
      'a holder that is not a DID',
      (vp: Record<string, unknown>) => ({ ...vp, holder: 'https://holder.example' }),
      'holder_invalid',
    ],
    [
      'a wrong @context',
      (vp: Record<string, unknown>) => ({ ...vp, '@context': ['https://example.com/v1'] }),
      'context_invalid',
    ],
    [
      'a type without VerifiablePresentation',
      (vp: Record<string, unknown>) => ({ ...vp, type: ['Presentation'] }),
      'type_invalid',
    ],
    [
      'a credential that is not an object',
      (vp: Record<string, unknown>) => ({ ...vp, verifiableCredential: ['eyJhbGciOi…'] }),
      'credentials_invalid',
    ],
  ])('a presentation with %s cannot be verified at all: 400 with the result (%s)', async (_name, spoil, reason) => {
    const r = await verify({
      verifiablePresentation: spoil(await t.present({ credentials: [vc1], challenge: 'x' })),
      options: { challenge: 'x' },
    });
    expect([r.status, r.body.verified, errors(r.body)], JSON.stringify(r.body)).toEqual([400, false, [reason]]);
    expect(r.body.problemDetails[0].title).toBe('MALFORMED_VALUE_ERROR');
  });

  it('a presentation of more than 10 credentials or proofs is answered without verifying them', async () => {
    const many = await t.present({ credentials: Array.from({ length: 11 }, () => vc1), challenge: 'x' });
    const tooMany = await verify({ verifiablePresentation: many, options: { challenge: 'x' } });
    expect([tooMany.status, errors(tooMany.body)]).toEqual([400, ['credentials_invalid']]);
    let vp: Record<string, unknown> = await t.present({ credentials: [], challenge: 'x' });
    for (let i = 0; i < 8; i++)
      vp = await addProof(
        vp,
        { verificationMethod: `${t.holder.did}#auth-1`, proofPurpose: 'authentication', challenge: 'x' },
        { secretKey: t.holder.signing.rawSecretKey() },
      );
    expect(errors((await verify({ verifiablePresentation: vp, options: { challenge: 'x' } })).body)).toEqual([
      'too_many_proofs',
    ]);
  });
});

describe('challenges shared by instances through Redis', () => {
  const prefix = `${uniqueName('cv_challenges')}:`;
  let redis: ReturnType<typeof createRedisStores>;
  let other: VaultTestEnv;
  beforeAll(async () => {
    redis = createRedisStores({ url: redisUrl(), keyPrefix: prefix, now: t.env.clock.now });
    // The first instance gets the shared store too: a fresh env on the same simulator, and a second one.
    other = await startVaultTestEnv({
      simulator: t.env.simulator!,
      clock: t.env.clock,
      stores: (s) => ({ ...s, challenges: redis.challenges }),
    });
  }, 60_000);
  afterAll(async () => {
    await other?.close();
    await redis?.close();
    await dropRedisPrefix(prefix);
  });

  it('a challenge issued by one instance is accepted once by another, and then by neither', async () => {
    const first = await startVaultTestEnv({
      simulator: t.env.simulator!,
      clock: t.env.clock,
      stores: (s) => ({ ...s, challenges: redis.challenges }),
    });
    try {
      const c = await challenge(first);
      const vp = await t.present({ credentials: [], challenge: c });
      const ok = await verify({ verifiablePresentation: vp, options: { challenge: c } }, other);
      expect(ok.body.verified, JSON.stringify(ok.body)).toBe(true);
      for (const env of [first, other])
        expect(errors((await verify({ verifiablePresentation: vp, options: { challenge: c } }, env)).body)).toEqual([
          'challenge_unknown',
        ]);
      // An instance with only its own memory never saw it.
      const c2 = await challenge(first);
      const vp2 = await t.present({ credentials: [], challenge: c2 });
      expect(errors((await verify({ verifiablePresentation: vp2, options: { challenge: c2 } })).body)).toEqual([
        'challenge_unknown',
      ]);
    } finally {
      await first.close();
    }
  });
});

/** A keyless POST from another loopback address: to the service, another client. */
function fromAddress(env: VaultTestEnv, address: string, path: string, body: unknown) {
  const url = new URL(path, env.url);
  const text = JSON.stringify(body);
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const req = httpRequest(
      url,
      { method: 'POST', localAddress: address, headers: { 'content-type': 'application/json' } },
      (res) => {
        let data = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (data += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(data) }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

describe('holder (VC Data Model 2.0 §4.13: optional)', () => {
  it('without a holder the proof still verifies over the challenge and domain, with a warning', async () => {
    const c = await challenge();
    const vp = await t.present({ credentials: [vc1], challenge: c, domain: 'v.example', holder: null });
    expect(vp).not.toHaveProperty('holder');
    const r = await verify({ verifiablePresentation: vp, options: { challenge: c, domain: 'v.example' } });
    expect([r.status, r.body.verified], JSON.stringify(r.body)).toEqual([200, true]);
    expect(r.body.problemDetails).toEqual([
      expect.objectContaining({ title: 'HOLDER_BINDING_NOT_CHECKED', level: 'warning', reason: 'no_holder' }),
    ]);
    expect(r.body.results.presentation).not.toHaveProperty('holder');
    expect(r.body.results.presentation.challenge).toEqual({ verified: true, input: c });
  });

  it.each([
    ['another challenge', { challenge: 'other' }, 'challenge_mismatch'],
    ['another domain', { domain: 'b.example' }, 'domain_mismatch'],
  ])('without a holder, %s → 400 (%s)', async (_name, change, reason) => {
    const vp = await t.present({ credentials: [vc1], challenge: 'own-1', domain: 'a.example', holder: null });
    const r = await verify({
      verifiablePresentation: vp,
      options: { challenge: 'own-1', domain: 'a.example', ...change },
    });
    expect([r.status, r.body.verified, errors(r.body)]).toEqual([400, false, [reason]]);
  });

  it('without a holder, a tampered presentation → 400 signature_invalid', async () => {
    const vp = await t.present({ credentials: [], challenge: 'own-2', holder: null });
    const r = await verify({
      verifiablePresentation: { ...vp, id: 'urn:uuid:changed' },
      options: { challenge: 'own-2' },
    });
    expect([r.status, errors(r.body)]).toEqual([400, ['signature_invalid']]);
  });

  it('finding 4: a holder presenting a credential about someone else verifies, with a warning naming it', async () => {
    const other = await t.sign({
      credential: t.credential({ credentialSubject: { id: 'did:key:z6MkSomeoneElse', role: 'auditor' } }),
    });
    const vp = await t.present({ credentials: [vc1, other], challenge: 'own-3' });
    const r = await verify({ verifiablePresentation: vp, options: { challenge: 'own-3' } });
    expect([r.status, r.body.verified], JSON.stringify(r.body)).toEqual([200, true]);
    const warnings = r.body.problemDetails.filter((p: { level: string }) => p.level === 'warning');
    expect(warnings).toEqual([
      expect.objectContaining({ title: 'HOLDER_NOT_SUBJECT', check: 'holder', reason: 'holder_not_subject' }),
    ]);
    expect(warnings[0].detail).toContain('verifiableCredential[1]');
  });
});

describe('challenges are bound to the client that asked for them (finding 2)', () => {
  it("another key, or a keyless caller, cannot spend a key's challenge; its own key then can", async () => {
    const [a, b] = [await t.env.mintKey(), await t.env.mintKey()];
    const r = await t.env.request('/challenges', { key: a.key, body: {} });
    const c: string = r.body.challenge;
    const vp = await t.present({ credentials: [vc1], challenge: c });
    const body = { verifiablePresentation: vp, options: { challenge: c } };
    const stolen = await t.env.request('/presentations/verify', { key: b.key, body });
    expect([stolen.status, errors(stolen.body)]).toEqual([400, ['challenge_unknown']]);
    expect(errors((await verify(body)).body)).toEqual(['challenge_unknown']);
    const own = await t.env.request('/presentations/verify', { key: a.key, body });
    expect([own.status, own.body.verified], JSON.stringify(own.body)).toEqual([200, true]);
  });

  it("a keyless caller at another address cannot spend a keyless caller's challenge", async () => {
    const c = await challenge();
    const vp = await t.present({ credentials: [], challenge: c });
    const body = { verifiablePresentation: vp, options: { challenge: c } };
    const stolen = await fromAddress(t.env, '127.0.0.2', '/presentations/verify', body);
    expect([stolen.status, errors(stolen.body)]).toEqual([400, ['challenge_unknown']]);
    const own = await verify(body);
    expect([own.status, own.body.verified], JSON.stringify(own.body)).toEqual([200, true]);
  });
});

describe('the challenge store never evicts a live challenge (finding 3)', () => {
  it(`past ${CHALLENGES_PER_CLIENT} live challenges a client is refused 429; others' challenges stay`, async () => {
    const victim = await challenge();
    const flood = await t.env.mintKey();
    for (let i = 0; i < CHALLENGES_PER_CLIENT; i++)
      expect((await t.env.request('/challenges', { key: flood.key, body: {} })).status).toBe(200);
    const refused = await t.env.request('/challenges', { key: flood.key, body: {} });
    expect([refused.status, refused.body.error]).toEqual([429, 'challenge_quota_exceeded']);
    expect(refused.headers.get('retry-after')).toBe('300');
    // Others still get challenges, and the victim's challenge is still there.
    expect((await t.env.request('/challenges', { key: (await t.env.mintKey()).key, body: {} })).status).toBe(200);
    const vp = await t.present({ credentials: [], challenge: victim });
    expect((await verify({ verifiablePresentation: vp, options: { challenge: victim } })).body.verified).toBe(true);
    // Expired challenges do not count.
    t.env.clock.advance(5 * 60 * 1000 + 1000);
    expect((await t.env.request('/challenges', { key: flood.key, body: {} })).status).toBe(200);
  });
});

describe('the per-client challenge quota is a setting (CV_CHALLENGES_PER_CLIENT)', () => {
  it('a service configured for 2 live challenges per client refuses the third', async () => {
    const env = await startVaultTestEnv({ limits: { challengesPerClient: 2 } });
    try {
      const key = (await env.mintKey()).key;
      for (let i = 0; i < 2; i++) expect((await env.request('/challenges', { key, body: {} })).status).toBe(200);
      const refused = await env.request('/challenges', { key, body: {} });
      expect([refused.status, refused.body.error]).toEqual([429, 'challenge_quota_exceeded']);
      expect(refused.body.message).toContain('already holds 2 live challenges');
    } finally {
      await env.close();
    }
  });
});

describe('keyless bodies are bounded (vault-api.yaml KeylessPayloadTooLarge)', () => {
  it('a keyless verification over 64 KiB is 413; the same body with a key is read', async () => {
    const big = { ...vc1, credentialSubject: { id: t.holder.did, notes: 'x'.repeat(70 * 1024) } };
    for (const path of ['/credentials/verify', '/presentations/verify']) {
      const body =
        path === '/credentials/verify'
          ? { verifiableCredential: big }
          : {
              verifiablePresentation: await t.present({ credentials: [big], challenge: 'c' }),
              options: { challenge: 'c' },
            };
      const keyless = await t.env.request(path, { body });
      expect([keyless.status, keyless.body.error]).toEqual([413, 'payload_too_large']);
      expect(keyless.body.message).toContain('65536 bytes, the limit without an API key');
      const keyed = await t.env.request(path, { key: (await t.env.mintKey()).key, body });
      expect([keyed.status, keyed.body.verified], JSON.stringify(keyed.body).slice(0, 300)).toEqual([400, false]);
    }
  });
});
