// Removed routes (docs/vault-api.md "Removed routes"; vault-api.yaml
// "Removed routes"): every one answers 410 route_removed naming its replacement, on any method, with or
// without a key, under the legacy base paths too; `GET /contracts/vault/get-vc-parent` no longer reaches
// the metadata route `/contracts/vault/{owner}` (it answered 400).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startVaultTestEnv,
  stubChain,
  stubContractRoutes,
  type VaultTestEnv,
} from '../../../test-support/vault-api.ts';
import { vaultModel } from '../../platform/vault-model.ts';
import { removedRoutesOf } from './removed-routes.ts';

let env: VaultTestEnv;
let key: string;
beforeAll(async () => {
  env = await startVaultTestEnv({ chain: stubChain(), contractRoutes: stubContractRoutes().router });
  key = (await env.mintKey({ wallet: null, role: 'admin' })).key;
});
afterAll(async () => {
  await env?.close();
});

// The document's list, by kind, with the route each kind had and what replaces it.
const DOCUMENT: { kind: string; method: string; path: string; replacement: RegExp }[] = [
  {
    kind: 'POST /contracts/vc/issue-linked',
    method: 'POST',
    path: '/contracts/vc/issue-linked',
    replacement: /use POST \/contracts\/vc\/issue$/,
  },
  {
    kind: 'GET /contracts/vault/get-vc-parent',
    method: 'GET',
    path: '/contracts/vault/get-vc-parent',
    replacement: /use POST \/contracts\/vault\/get-vc$/,
  },
  {
    kind: 'batch authorize-issuers',
    method: 'POST',
    path: '/contracts/vault/batch-authorize-issuers',
    replacement: /use POST \/contracts\/vault\/allow-issuer/,
  },
  {
    kind: 'batch authorize-issuers',
    method: 'POST',
    path: '/contracts/vault/authorize-issuers',
    replacement: /use POST \/contracts\/vault\/allow-issuer/,
  },
  {
    kind: 'authorized-issuer list read',
    method: 'GET',
    path: '/contracts/vault/authorized-issuers',
    replacement: /use GET \/contracts\/vault\/issuers\/denied$/,
  },
  {
    kind: 'authorized-issuer list read',
    method: 'GET',
    path: '/contracts/vault/issuers/authorized',
    replacement: /use GET \/contracts\/vault\/issuers\/denied$/,
  },
  {
    kind: 'authorized-issuer count read',
    method: 'GET',
    path: '/contracts/vault/authorized-issuers/count',
    replacement: /use GET \/contracts\/vault\/issuers\/denied\/count$/,
  },
  {
    kind: 'authorized-issuer count read',
    method: 'GET',
    path: '/contracts/vault/issuers/authorized/count',
    replacement: /use GET \/contracts\/vault\/issuers\/denied\/count$/,
  },
  {
    kind: 'role-based fee-tier endpoints',
    method: 'GET',
    path: '/contracts/fee-tiers',
    replacement: /use GET \/contracts\/issuer-registry\/\{issuer\}$/,
  },
  {
    kind: 'role-based fee-tier endpoints',
    method: 'POST',
    path: '/contracts/fee-tier',
    replacement: /use GET \/contracts\/issuer-registry\/\{issuer\}$/,
  },
  ...['open-to-all', 'add-sponsor', 'remove-sponsor'].flatMap((name) =>
    ['/contracts/sponsored-vault', '/contracts/vault'].map((base) => ({
      kind: `sponsor whitelist: ${name}`,
      method: 'POST',
      path: `${base}/${name}`,
      replacement: /use POST \/contracts\/sponsored-vault\/create$/,
    })),
  ),
];

describe('the removed routes of the document', () => {
  it("are exactly the description's x-removed-routes", () => {
    expect(
      removedRoutesOf(vaultModel)
        .map((r) => r.path)
        .sort(),
    ).toEqual(DOCUMENT.map((d) => d.path).sort());
  });

  it.each(DOCUMENT)(
    '$method $path ($kind) → 410 route_removed naming the replacement',
    async ({ method, path, replacement }) => {
      const res = await env.request(path, { method, key, ...(method === 'POST' ? { body: {} } : {}) });
      expect(res.status, JSON.stringify(res.body)).toBe(410);
      expect(res.body).toEqual({ error: 'route_removed', message: expect.stringMatching(replacement) });
      expect(res.body.message).toContain(`${method} ${path} was removed (`);
    },
  );

  it.each(['GET', 'POST', 'DELETE', 'PATCH', 'OPTIONS'])(
    'any method: %s /contracts/vault/get-vc-parent → 410',
    async (method) => {
      const res = await env.request('/contracts/vault/get-vc-parent', { method, key });
      expect([res.status, res.body.error]).toEqual([410, 'route_removed']);
    },
  );

  it('without a key, with a query string or a trailing slash, under a legacy base path → 410', async () => {
    for (const path of [
      '/contracts/vault/get-vc-parent?owner=G&vcId=a',
      '/contracts/vault/get-vc-parent/',
      '/api/v1/contracts/vault/get-vc-parent',
    ]) {
      const res = await env.request(path);
      expect([res.status, res.body.error], path).toEqual([410, 'route_removed']);
    }
    const legacy = await env.request('/api/contracts/vc/issue-linked', { method: 'POST', body: {} });
    expect(legacy.headers.get('deprecation')).toBe('@1795305600');
    expect(legacy.headers.get('link')).toBeNull();
  });

  it('HEAD → 410 without a body', async () => {
    const res = await env.request('/contracts/vault/get-vc-parent', { method: 'HEAD' });
    expect([res.status, res.body]).toEqual([410, '']);
  });

  it('a real account in the same place still reaches the metadata route', async () => {
    const res = await env.request('/contracts/vault/GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR', { key });
    expect(res.status).not.toBe(410);
  });
});
