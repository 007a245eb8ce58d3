// OPTIONS on every path of both descriptions (one rule, src/platform/app.ts): 204 with `Allow` naming the
// path's methods, OPTIONS included, without a key and without a body; the CORS headers only where CORS is on
// (the wallet-proof routes of the vault API, vault-api.yaml "Browsers (CORS)"). Real apps over HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test-support/resolver.ts';
import { startVaultTestEnv, stubChain, stubContractRoutes, type VaultTestEnv } from '../../test-support/vault-api.ts';
import { resolverModel } from './resolver-model.ts';
import { vaultModel } from './vault-model.ts';

const G = 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR';
const DID = 'did:ledger:testnet:b4pc2pclljuxrb4wuw2mhuxb6a';
const ORIGIN = 'https://wallet.example';

let vault: VaultTestEnv;
let resolver: Harness;
beforeAll(async () => {
  vault = await startVaultTestEnv({
    chain: stubChain(),
    contractRoutes: stubContractRoutes().router,
    limits: { authOrigins: [ORIGIN] },
  });
  resolver = await startHarness();
}, 60_000);
afterAll(async () => {
  await vault?.close();
  await resolver?.close();
});

const fill = (template: string) =>
  template
    .replace(/\{(owner|issuer)\}/, G)
    .replace('{keyId}', '7c4a8d09ca3762af')
    .replace('{did}', encodeURIComponent(DID));

/** The methods a path declares, HEAD wherever GET, then OPTIONS. */
function allowOf(route: { operations: readonly { method: string }[] }): string {
  const methods = route.operations.map((o) => o.method.toUpperCase()).filter((m) => m !== 'OPTIONS');
  if (methods.includes('GET')) methods.splice(methods.indexOf('GET') + 1, 0, 'HEAD');
  return [...methods, 'OPTIONS'].join(', ');
}

const services = [
  { service: 'vault API', model: vaultModel, base: () => vault.url },
  { service: 'resolver', model: resolverModel, base: () => resolver.url },
];

describe.each(services)('$service', ({ model, base }) => {
  it('has paths', () => {
    expect(model.routes.length).toBeGreaterThan(5);
  });

  it.each(model.routes.map((r) => [r.template, r] as const))('OPTIONS %s → 204 with Allow', async (template, route) => {
    const res = await fetch(base() + fill(template), { method: 'OPTIONS', headers: { origin: ORIGIN } });
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    // The same methods as the 405 of the path names, OPTIONS added.
    expect(res.headers.get('allow')).toBe(allowOf(route));
    const cors = res.headers.get('access-control-allow-origin');
    if (['/auth/challenge', '/auth/keys'].includes(template) && base() === vault.url) expect(cors).toBe(ORIGIN);
    else expect(cors).toBeNull();
  });

  it('a method the path does not declare is 405 with the same Allow, OPTIONS aside', async () => {
    const route = model.routes.find((r) => r.template === '/health')!;
    const res = await fetch(`${base()}/health`, { method: 'DELETE' });
    expect([res.status, res.headers.get('allow')]).toEqual([405, route.allow]);
  });
});
