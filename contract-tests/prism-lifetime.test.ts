// What an API consumer mocking with Prism (`npm run mock:vault`) sees of state archival (docs/vault-api.md
// "Credential lifetime"): every read that can answer 409 state_archived has it as an example the mock serves
// (`Prefer: code=409, example=state_archived`), and extend-ttl answers its prepare examples.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPrismMock, type PrismMock } from './helpers/prism.ts';
import { deref, loadSpec, type Json } from './helpers/spec.ts';

const VAULT_SPEC = 'spec/vault-api.yaml';
const OWNER = 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR';
const API_KEY = '3b8f0c6d2a9e47f1b5c8d0e2a4f6b8c1d3e5f7a9b0c2d4e6f8a1b3c5d7e9f0a2';

/**
 * The reads that meet a credential's ledger state and refuse an archived one (src/chain/vault.ts `getVc`,
 * `verifyVc`, read from live state only): get-vc, verify-vc, and /credentials/verify by reference.
 */
const ARCHIVED_READS = [
  { path: '/contracts/vault/get-vc', body: { owner: OWNER, vcId: 'vc-2026-0001' } },
  { path: '/contracts/vault/verify-vc', body: { owner: OWNER, vcId: 'vc-2026-0001' } },
  { path: '/credentials/verify', body: { owner: OWNER, vcId: 'vc-2026-0001' } },
];

const spec = loadSpec(VAULT_SPEC);

/** Operations (path and method) whose 409 lists the state_archived example. */
function operationsWithArchived(): string[] {
  const out: string[] = [];
  for (const [path, item] of Object.entries<Json>(spec.paths)) {
    for (const [method, op] of Object.entries<Json>(item)) {
      const r409 = op?.responses?.['409'];
      if (!r409) continue;
      const examples = deref(spec, r409).content?.['application/json']?.examples ?? {};
      if ('state_archived' in examples) out.push(`${method.toUpperCase()} ${path}`);
    }
  }
  return out.sort();
}

async function post(mock: PrismMock, path: string, body: unknown, prefer?: string) {
  const res = await fetch(mock.url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-SVC-Key': API_KEY, ...(prefer ? { Prefer: prefer } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

describe('state archival in the Prism mock', () => {
  let mock: PrismMock;
  beforeAll(async () => {
    mock = await startPrismMock(VAULT_SPEC);
  }, 90_000);
  afterAll(async () => {
    await mock?.stop();
  });

  it('the reads that can answer state_archived, and only they, list it under 409', () => {
    expect(operationsWithArchived()).toEqual(ARCHIVED_READS.map((r) => `POST ${r.path}`).sort());
  });

  it.each(ARCHIVED_READS)('$path: the mock answers 409 state_archived when asked for it', async ({ path, body }) => {
    const res = await post(mock, path, body, 'code=409, example=state_archived');
    expect(res.status).toBe(409);
    expect(res.body.error).toBe('state_archived');
    expect(res.body.message).toMatch(/restore/);
  });

  it.each(['extend', 'restore'])('extend-ttl: the mock answers the %s prepare example', async (example) => {
    const request = deref(spec, spec.paths['/contracts/vault/extend-ttl'].post.requestBody);
    const body = deref(spec, request.content['application/json'].examples.prepare).value;
    const res = await post(mock, '/contracts/vault/extend-ttl', body, `example=${example}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const response = deref(spec, spec.components.responses.ExtendTtlResult);
    expect(res.body).toEqual(response.content['application/json'].examples[example].value);
    expect(res.body.operation).toBe(example === 'extend' ? 'extendFootprintTtl' : 'restoreFootprint');
  });
});
