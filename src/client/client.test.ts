// The typed clients' helpers against a fake fetch: error mapping (unwrap), the API key header, the
// prepare → sign → submit flows, the wallet-proof key flow and resolution results as data.
import { describe, expect, it } from 'vitest';
import {
  ApiError,
  UNEXPECTED_RESPONSE,
  createResolverClient,
  createVaultClient,
  isApiError,
  mutateDid,
  obtainApiKey,
  prepareAndSubmit,
  registerDid,
  resolveDid,
  unwrap,
  type VaultWritePath,
} from './index.ts';

const BASE = 'http://vault.test';
const OWNER = 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR';
const DID = 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza';
const TX = 'f7d362c66eb9749e2f834f195957d7cc319994d0dc1c00deac725f285c8d4a30';

interface Seen {
  method: string;
  path: string;
  headers: Headers;
  body: unknown;
}

type Reply = { status: number; body?: unknown; text?: string; headers?: Record<string, string> };

/** A fetch that answers from a queue and records every request. */
function fakeFetch(replies: Reply[]) {
  const seen: Seen[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    const raw = await request.text();
    seen.push({
      method: request.method,
      path: decodeURIComponent(url.pathname) + url.search,
      headers: request.headers,
      body: raw ? JSON.parse(raw) : undefined,
    });
    const reply = replies.shift();
    if (!reply) throw new Error(`unexpected request ${request.method} ${url.pathname}`);
    const text = reply.text ?? (reply.body === undefined ? '' : JSON.stringify(reply.body));
    return new Response(reply.status === 204 ? null : text, {
      status: reply.status,
      headers: { 'content-type': reply.text !== undefined ? 'text/html' : 'application/json', ...reply.headers },
    });
  };
  return { fetch, seen };
}

describe('unwrap', () => {
  const cases: {
    name: string;
    given: Reply;
    want: { data: unknown } | { status: number; code: string; message: RegExp; details?: unknown; requestId?: string };
  }[] = [
    {
      name: 'success gives the data',
      given: { status: 200, body: { status: 'ok' } },
      want: { data: { status: 'ok' } },
    },
    {
      name: 'vault API {error, message}',
      given: {
        status: 403,
        body: { error: 'issuer_denied', message: 'the vault owner denies this issuer' },
        headers: { 'x-request-id': 'req-1' },
      },
      want: { status: 403, code: 'issuer_denied', message: /denies this issuer/, requestId: 'req-1' },
    },
    {
      name: 'resolver {code, message, details}',
      given: {
        status: 409,
        body: { code: 'version_mismatch', message: 'stale', details: { expectedVersion: 1, currentVersion: 2 } },
      },
      want: {
        status: 409,
        code: 'version_mismatch',
        message: /stale/,
        details: { expectedVersion: 1, currentVersion: 2 },
      },
    },
    {
      name: 'an HTML page from a proxy',
      given: { status: 502, text: '<html>Bad Gateway</html>' },
      want: { status: 502, code: UNEXPECTED_RESPONSE, message: /HTTP 502.*Bad Gateway/ },
    },
    {
      name: 'an empty body',
      given: { status: 500 },
      want: { status: 500, code: UNEXPECTED_RESPONSE, message: /HTTP 500 without an error envelope$/ },
    },
    {
      name: 'JSON that is not an envelope',
      given: { status: 400, body: { oops: true } },
      want: { status: 400, code: UNEXPECTED_RESPONSE, message: /\{"oops":true\}/ },
    },
    {
      name: 'a code without a message is not an envelope',
      given: { status: 400, body: { error: 'invalid_request' } },
      want: { status: 400, code: UNEXPECTED_RESPONSE, message: /invalid_request/ },
    },
  ];

  it.each(cases)('$name', async ({ given, want }) => {
    const { fetch } = fakeFetch([given]);
    const vault = createVaultClient({ baseUrl: BASE, fetch });
    const result = await vault.GET('/health');
    if ('data' in want) {
      expect(unwrap(result)).toEqual(want.data);
      return;
    }
    let thrown: unknown;
    try {
      unwrap(result);
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    const err = thrown as ApiError;
    expect({ status: err.status, code: err.code }).toEqual({ status: want.status, code: want.code });
    expect(err.message).toMatch(want.message);
    expect(err.details).toEqual(want.details);
    expect(err.requestId).toBe(want.requestId);
    expect(String(err)).toBe(`${want.status} ${want.code}: ${err.message}`);
  });
});

describe('isApiError', () => {
  const err = new ApiError({ status: 409, code: 'vault_revoked', message: 'revoked' });
  it.each([
    { given: err, code: undefined, want: true },
    { given: err, code: 'vault_revoked', want: true },
    { given: err, code: 'issuer_denied', want: false },
    { given: new Error('x'), code: undefined, want: false },
    { given: { status: 409, code: 'vault_revoked' }, code: 'vault_revoked', want: false },
  ])('$given.code / $code → $want', ({ given, code, want }) => {
    expect(isApiError(given, code)).toBe(want);
  });
});

describe('createVaultClient', () => {
  it.each([
    { name: 'with a key sends X-SVC-Key', apiKey: 'a'.repeat(64), want: 'a'.repeat(64) },
    { name: 'without a key sends none', apiKey: undefined, want: null },
  ])('$name', async ({ apiKey, want }) => {
    const { fetch, seen } = fakeFetch([{ status: 200, body: { count: 0 } }]);
    const vault = createVaultClient({ baseUrl: BASE, fetch, ...(apiKey ? { apiKey } : {}) });
    await vault.GET('/contracts/vault/vc-count', { params: { query: { owner: OWNER } } });
    expect(seen[0]!.headers.get('x-svc-key')).toBe(want);
    expect(seen[0]!.path).toBe(`/contracts/vault/vc-count?owner=${OWNER}`);
  });
});

describe('prepareAndSubmit', () => {
  const path: VaultWritePath = '/contracts/vault/create';
  const body = { owner: OWNER, didUri: DID, sourcePublicKey: OWNER };

  it('prepares, signs with the passphrase of the answer, submits {signedXdr} with the idempotency key', async () => {
    const { fetch, seen } = fakeFetch([
      { status: 200, body: { xdr: 'AAAA', network: 'Test Passphrase' } },
      { status: 200, body: { tx_id: TX } },
    ]);
    const vault = createVaultClient({ baseUrl: BASE, apiKey: 'k', fetch });
    const signed: [string, string][] = [];
    const result = await prepareAndSubmit(
      vault,
      path,
      body,
      (xdr, passphrase) => {
        signed.push([xdr, passphrase]);
        return `${xdr}SIGNED`;
      },
      { idempotencyKey: 'idem-1' },
    );
    expect(result).toEqual({ txId: TX, prepared: { xdr: 'AAAA', network: 'Test Passphrase' } });
    expect(signed).toEqual([['AAAA', 'Test Passphrase']]);
    expect(seen.map((s) => [s.method, s.path, s.body, s.headers.get('idempotency-key')])).toEqual([
      ['POST', path, body, null],
      ['POST', path, { signedXdr: 'AAAASIGNED' }, 'idem-1'],
    ]);
  });

  it.each([
    {
      name: 'a prepare error',
      replies: [{ status: 404, body: { error: 'vault_not_found', message: 'none' } }],
      code: 'vault_not_found',
      requests: 1,
    },
    {
      name: 'a submit error',
      replies: [
        { status: 200, body: { xdr: 'AAAA', network: 'P' } },
        { status: 409, body: { error: 'vault_revoked', message: 'revoked' } },
      ],
      code: 'vault_revoked',
      requests: 2,
    },
  ])('throws ApiError for $name', async ({ replies, code, requests }) => {
    const { fetch, seen } = fakeFetch(replies);
    const vault = createVaultClient({ baseUrl: BASE, fetch });
    await expect(prepareAndSubmit(vault, path, body, (x) => x)).rejects.toMatchObject({ name: 'ApiError', code });
    expect(seen).toHaveLength(requests);
  });

  it('types the prepare body of each route', () => {
    const vault = createVaultClient({ baseUrl: BASE });
    const never = () => expect.fail('not called');
    // Type-level only: the calls below are never made.
    if (Date.now() < 0) {
      // @ts-expect-error a create body needs didUri
      void prepareAndSubmit(vault, path, { owner: OWNER, sourcePublicKey: OWNER }, never);
      // @ts-expect-error the submit form is not a prepare body
      void prepareAndSubmit(vault, path, { signedXdr: 'AAAA' }, never);
      // @ts-expect-error a read route is not a write route
      void prepareAndSubmit(vault, '/contracts/vault/get-vc', { owner: OWNER, vcId: 'x' }, never);
    }
  });

  it('refuses a prepare answer without a transaction', async () => {
    const { fetch } = fakeFetch([{ status: 200, body: { tx_id: TX } }]);
    const vault = createVaultClient({ baseUrl: BASE, fetch });
    await expect(prepareAndSubmit(vault, path, body, (x) => x)).rejects.toThrow(/without an unsigned transaction/);
  });
});

describe('obtainApiKey', () => {
  it('signs the challenge with its passphrase and posts it with the scopes and origin', async () => {
    const created = {
      key: 'b'.repeat(64),
      key_id: '7c4a8d09ca3762af',
      wallet_address: OWNER,
      role: 'standard',
      scopes: [],
      network: 'testnet',
      created_at: '2026-07-01T12:00:00.000Z',
      expires_at: '2026-12-28T12:00:00.000Z',
    };
    const { fetch, seen } = fakeFetch([
      { status: 200, body: { transaction: 'CHAL', network_passphrase: 'Test Passphrase' } },
      { status: 201, body: created },
    ]);
    const vault = createVaultClient({ baseUrl: BASE, fetch });
    const key = await obtainApiKey(vault, {
      account: OWNER,
      sign: (x, p) => `${x}|${p}`,
      scopes: ['credentials:read'],
      origin: 'https://app.example.org',
    });
    expect(key).toEqual(created);
    expect(seen.map((s) => [s.method, s.path, s.body, s.headers.get('origin')])).toEqual([
      ['GET', `/auth/challenge?account=${OWNER}`, undefined, 'https://app.example.org'],
      [
        'POST',
        '/auth/keys',
        { transaction: 'CHAL|Test Passphrase', scopes: ['credentials:read'] },
        'https://app.example.org',
      ],
    ]);
  });

  it('throws ApiError when the proof is refused', async () => {
    const { fetch } = fakeFetch([
      { status: 200, body: { transaction: 'CHAL', network_passphrase: 'P' } },
      { status: 400, body: { error: 'challenge_invalid', message: 'replayed' } },
    ]);
    const vault = createVaultClient({ baseUrl: BASE, fetch });
    await expect(obtainApiKey(vault, { account: OWNER, sign: (x) => x })).rejects.toMatchObject({
      status: 400,
      code: 'challenge_invalid',
    });
  });
});

describe('resolveDid', () => {
  const failure = (error: string) => ({ didDocument: null, didDocumentMetadata: {}, didResolutionMetadata: { error } });
  const resolved = {
    didDocument: { id: DID },
    didDocumentMetadata: { versionId: '1', deactivated: false, method: {} },
    didResolutionMetadata: { contentType: 'application/did+json' },
  };
  it.each([
    { name: 'resolved', given: { status: 200, body: resolved }, want: 200 },
    { name: 'not found is data', given: { status: 404, body: failure('notFound') }, want: 404 },
    { name: 'invalid is data', given: { status: 400, body: failure('invalidDid') }, want: 400 },
    {
      name: 'tombstone is data',
      given: {
        status: 410,
        body: { ...resolved, didDocumentMetadata: { ...resolved.didDocumentMetadata, deactivated: true } },
      },
      want: 410,
    },
  ])('$name', async ({ given, want }) => {
    const { fetch, seen } = fakeFetch([given]);
    const resolver = createResolverClient({ baseUrl: BASE, fetch });
    const r = await resolveDid(resolver, DID, { accept: 'application/did+json' });
    expect(r).toEqual({ status: want, result: given.body });
    expect(seen[0]!.path).toBe(`/1.0/identifiers/${DID}`);
    expect(seen[0]!.headers.get('accept')).toBe('application/did+json');
  });

  it('throws ApiError for the rate-limit envelope', async () => {
    const { fetch } = fakeFetch([
      { status: 429, body: { code: 'rate_limited', message: 'slow down' }, headers: { 'retry-after': '3' } },
    ]);
    const resolver = createResolverClient({ baseUrl: BASE, fetch });
    await expect(resolveDid(resolver, DID)).rejects.toMatchObject({ status: 429, code: 'rate_limited' });
  });
});

describe('registry mutations', () => {
  const prepared = { xdr: 'XDR', network: 'testnet', networkPassphrase: 'Test Passphrase' };
  const record = {
    controller: OWNER,
    authentication: [{ publicKeyMultibase: 'z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp' }],
    assertionMethod: [],
    keyAgreement: [],
    services: [],
  };
  it.each([
    {
      name: 'register',
      run: (c: ReturnType<typeof createResolverClient>) =>
        registerDid(c, { did: DID, sourcePublicKey: OWNER, record }, (x, p) => `${x}@${p}`),
      path: '/v1/dids/stellar',
    },
    {
      name: 'update',
      run: (c: ReturnType<typeof createResolverClient>) =>
        mutateDid(c, 'update', DID, { expectedVersion: 1, sourcePublicKey: OWNER, record }, (x, p) => `${x}@${p}`),
      path: `/v1/dids/stellar/${DID}/update`,
    },
    {
      name: 'deactivate',
      run: (c: ReturnType<typeof createResolverClient>) =>
        mutateDid(c, 'deactivate', DID, { expectedVersion: 2, sourcePublicKey: OWNER }, (x, p) => `${x}@${p}`),
      path: `/v1/dids/stellar/${DID}/deactivate`,
    },
  ])('$name: prepare → sign with networkPassphrase → submit', async ({ run, path }) => {
    const { fetch, seen } = fakeFetch([
      { status: 200, body: prepared },
      { status: 200, body: { txId: TX } },
    ]);
    const result = await run(createResolverClient({ baseUrl: BASE, fetch }));
    expect(result).toEqual({ txId: TX, prepared });
    expect(seen.map((s) => s.path)).toEqual([path, path]);
    expect(seen[1]!.body).toEqual({ signedXdr: 'XDR@Test Passphrase' });
  });

  it('throws ApiError with details for a record-rule violation', async () => {
    const details = { field: 'authentication[0].publicKeyMultibase', violations: [] };
    const { fetch } = fakeFetch([{ status: 400, body: { code: 'key_invalid', message: 'bad key', details } }]);
    const c = createResolverClient({ baseUrl: BASE, fetch });
    await expect(registerDid(c, { did: DID, sourcePublicKey: OWNER, record }, (x) => x)).rejects.toMatchObject({
      code: 'key_invalid',
      details,
    });
  });
});
