// Two instances of the vault API over one key store, each with its key cache on (as in production): a key
// revoked, replaced or expired through one is refused by the other. The bound itself (1 s) is proven with a
// test clock in src/stores/key-cache.backends.test.ts; here the whole request path is.
import { Keypair } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { dropSchema, pgUrl, tempDir, uniqueName } from '../../test-support/stores/backends.ts';
import { startVaultTestEnv, stubChain, stubContractRoutes, type VaultTestEnv } from '../../test-support/vault-api.ts';

const schema = uniqueName('cv_revoke');
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups.reverse()) await c();
  await dropSchema(schema);
});

const G = 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR';
const READ = `/contracts/vault/vc-count?owner=${G}`;

const eventually = (check: () => Promise<void>) => vi.waitFor(check, { timeout: 15_000, interval: 20 });

const backends = [
  { name: 'PostgreSQL (LISTEN/NOTIFY)', shared: async () => ({ databaseUrl: pgUrl(), databaseSchema: schema }) },
  {
    name: 'SQLite in one data directory (the change log)',
    shared: async () => {
      const { dir, remove } = await tempDir();
      cleanups.push(remove);
      return { dataDir: dir };
    },
  },
];

describe.each(backends)('$name', ({ shared }) => {
  let a: VaultTestEnv;
  let b: VaultTestEnv;
  let admin: string;
  const errorOn = async (env: VaultTestEnv, key: string) => {
    const res = await env.request(READ, { key });
    return res.status === 200 ? 'ok' : (res.body as { error: string }).error;
  };

  // Two instances over one store, started before every test of the backend: each test makes its own keys.
  beforeAll(async () => {
    const storesOptions = await shared();
    const start = async () => {
      const contractRoutes = stubContractRoutes().router;
      const env = await startVaultTestEnv({ chain: stubChain(), contractRoutes, storesOptions });
      cleanups.push(() => env.close());
      return env;
    };
    [a, b] = [await start(), await start()];
    admin = (await a.mintKey({ wallet: null, role: 'admin' })).key;
  });

  it('a key made through A works on B', async () => {
    const { key } = await a.mintKey();
    expect(await errorOn(b, key)).toBe('ok');
  });

  it('a key revoked through A (DELETE /admin/keys) is refused by B', async () => {
    const { key, record } = await a.mintKey();
    for (let i = 0; i < 3; i++) expect(await errorOn(b, key)).toBe('ok');
    expect((await a.request(`/admin/keys/${record.keyId}`, { method: 'DELETE', key: admin })).status).toBe(204);
    expect(await errorOn(a, key)).toBe('invalid_api_key');
    await eventually(async () => expect(await errorOn(b, key)).toBe('invalid_api_key'));
  });

  it('a key replaced through A (a new key of the same wallet) is refused by B; the new one works there', async () => {
    const wallet = Keypair.random();
    const old = await a.mintKey({ wallet });
    for (let i = 0; i < 3; i++) expect(await errorOn(b, old.key)).toBe('ok');
    const fresh = await a.mintKey({ wallet });
    await eventually(async () => expect(await errorOn(b, old.key)).toBe('invalid_api_key'));
    expect(await errorOn(b, fresh.key)).toBe('ok');
  });

  it('an expired key is refused by B at its expiry, though B answered it from memory a moment before', async () => {
    const { key } = await a.mintKey({ expiresAt: new Date(b.clock.now() + 60_000).toISOString() });
    for (let i = 0; i < 3; i++) expect(await errorOn(b, key)).toBe('ok');
    b.clock.advance(60_000);
    expect(await errorOn(b, key)).toBe('api_key_expired');
  });
});
