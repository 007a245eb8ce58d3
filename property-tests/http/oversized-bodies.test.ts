// Oversized collections over HTTP: the worst body within each service's size limit (one
// collection with tens of thousands of items or keys) answers its 400 in the spec's error envelope, in at
// most a few KB. Not timed here (a shared CI machine makes timings flaky): bench/sections/oversized.ts
// measures the latency.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test-support/resolver.ts';
import { startVaultTestEnv, type VaultTestEnv } from '../../test-support/vault-api.ts';
import { ERROR_BODY_MAX_BYTES, VERIFICATION_ANSWER_MAX_BYTES, answerCode, oversizedCases } from './oversized-bodies.ts';
import { loadSpec, resolverErrorProblems, send, vaultErrorProblems } from './spec.ts';

const UNLIMITED = { read: 1e9, write: 1e9 };

describe('the worst bodies within the size limits', () => {
  let vault: VaultTestEnv;
  let resolver: Harness;
  let key: string;
  beforeAll(async () => {
    vault = await startVaultTestEnv({
      limits: { rateLimits: { standard: UNLIMITED, early: UNLIMITED, admin: UNLIMITED } },
    });
    resolver = await startHarness();
    key = (await vault.mintKey()).key;
  }, 60_000);
  afterAll(async () => {
    await vault?.close();
    await resolver?.close();
  });

  const cases = oversizedCases();
  it.each(cases)('$name → $want.status $want.code, at most a few KB', async (c) => {
    // Each body really is a flood: tens of thousands of entries, yet within the limit.
    expect(c.body.length).toBeGreaterThan(100_000);
    if (c.path.startsWith('/auth/')) vault.clock.advance(61_000); // the per-IP window of /auth/*
    const url = c.service === 'vault' ? vault.url : resolver.url;
    const a = await send(url, {
      method: 'POST',
      path: c.path,
      headers: { 'content-type': 'application/json', ...(c.keyed ? { 'x-svc-key': key } : {}) },
      body: c.body,
    });
    expect([a.status, answerCode(a.body)], a.text.slice(0, 300)).toEqual([c.want.status, c.want.code]);
    if (c.answer === 'verification') {
      // A verification result, not an error: bounded by what may be verified, whatever the body.
      const max = VERIFICATION_ANSWER_MAX_BYTES[c.path === '/presentations/verify' ? 'presentation' : 'credential'];
      expect(Buffer.byteLength(a.text)).toBeLessThanOrEqual(max);
      expect((a.body as { verified?: boolean }).verified).toBe(false);
      return;
    }
    expect(Buffer.byteLength(a.text)).toBeLessThanOrEqual(ERROR_BODY_MAX_BYTES);
    const spec = loadSpec(c.service);
    expect(
      c.service === 'vault' ? vaultErrorProblems(spec.errorCodes, a) : resolverErrorProblems(spec.errorCodes, a),
    ).toEqual([]);
  });

  it('the resolver says how many failures it found and lists at most 10', async () => {
    const c = cases.find((x) => x.name.includes('unknown fields of the record'))!;
    const a = await send(resolver.url, {
      method: 'POST',
      path: c.path,
      headers: { 'content-type': 'application/json' },
      body: c.body,
    });
    const details = (a.body as { details: { errors: unknown[]; count: number } }).details;
    expect(details.errors.length).toBeLessThanOrEqual(10);
    expect(details.count).toBeGreaterThanOrEqual(details.errors.length);
  });

  it('the vault API names the first 5 failures and how many more', async () => {
    vault.clock.advance(61_000);
    const body = JSON.stringify({
      transaction: 'AAAA',
      ...Object.fromEntries(Array.from({ length: 9 }, (_, i) => [`x${i}`, 0])),
    });
    const a = await send(vault.url, {
      method: 'POST',
      path: '/auth/keys',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(a.status).toBe(400);
    const message = (a.body as { message: string }).message;
    expect(message.match(/unknown field/g)).toHaveLength(5);
    expect(message).toMatch(/… and 4 more failures$/);
  });
});
