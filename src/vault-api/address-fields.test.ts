// Account addresses and contract ids with a bad StrKey checksum: they pass the pattern,
// and the SDK threw on them inside the handlers (500). Every address field of spec/vault-api.yaml — path,
// query, body — is sent with a bad checksum to the real app over the simulator: 400 `invalid_request`
// naming the field. Response validation is on, so the answer is also checked against the spec.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressFieldCases, BAD_CHECKSUMS } from '../../test-support/address-fields.ts';
import { vaultModel } from '../platform/vault-model.ts';
import { startVaultTestEnv, type VaultTestEnv } from '../../test-support/vault-api.ts';

const many = { read: 10_000, write: 10_000 };
let env: VaultTestEnv;
let admin: string;

beforeAll(async () => {
  env = await startVaultTestEnv({ limits: { rateLimits: { standard: many, early: many, admin: many } } });
  admin = (await env.mintKey({ wallet: null, role: 'admin' })).key;
}, 60_000);
afterAll(async () => {
  await env?.close();
});

const spec = vaultModel.document;
const cases = BAD_CHECKSUMS.flatMap((bad, i) =>
  addressFieldCases(spec, bad).map((c) => ({ ...c, name: `${c.name} (bad checksum ${i + 1})` })),
);

describe('every address field of the description, with a bad checksum → 400 naming the field', () => {
  it('finds the fields the review named, on every kind of route', () => {
    const names = new Set(cases.map((c) => `${c.method} ${c.url.split('?')[0]} ${c.field}`));
    expect(cases.length).toBeGreaterThan(80);
    for (const want of [
      'GET /auth/challenge account',
      'POST /contracts/vc/issue owner',
      'POST /contracts/vc/issue issuer',
      'POST /contracts/vault/push toOwner',
      'POST /contracts/sponsored-vault/create sponsor',
      'POST /contracts/vault/verify-vc vaultContract',
      'POST /admin/keys wallet_address',
    ]) {
      expect(names, want).toContain(want);
    }
    expect(cases.some((c) => c.where === 'path' && c.field === 'owner')).toBe(true);
    expect(cases.some((c) => c.where === 'path' && c.field === 'issuer')).toBe(true);
  });

  it.each(cases)('$name', async (c) => {
    const res = await env.request(c.url, {
      method: c.method,
      key: admin,
      ...(c.body !== undefined ? { body: c.body } : {}),
    });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error).toBe('invalid_request');
    const where = c.where === 'path' ? 'params' : c.where;
    const words = c.kind === 'account' ? 'an account address' : 'a contract id';
    expect(res.body.message).toContain(`${where}/${c.field.replaceAll('.', '/')} is not ${words}`);
    expect(res.body.message).toMatch(/valid checksum/);
  });
});

describe('valid addresses still pass', () => {
  it('GET /auth/challenge with a real account → 200', async () => {
    const res = await env.request('/auth/challenge?account=GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
  });

  it('a pattern failure still says so (and is not a 500)', async () => {
    const res = await env.request('/auth/challenge?account=nope');
    expect([res.status, res.body.error]).toEqual([400, 'invalid_request']);
    expect(res.body.message).toMatch(/query\/account must match pattern/);
  });
});
