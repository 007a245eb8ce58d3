// Compressed request bodies on both apps: every operation with a body, sent a body that
// does not decode as its Content-Encoding says, answered 400 `invalid_body_encoding` (it was a 500); an
// unsupported coding 415 `unsupported_content_encoding`; a body that inflates past the limit 413 without
// being inflated whole; valid compressed bodies read as if sent plain. Real apps over HTTP, with response
// validation on (every answer is one the spec declares).
import http from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startHarness, type Harness } from '../../test-support/resolver.ts';
import { serve } from '../../test-support/observability.ts';
import { testServiceApp } from '../../test-support/platform-app.ts';
import { jsonBody } from './body.ts';
import { buildModel, type OpenApiDocument } from './operations.ts';
import { resolverModel } from './resolver-model.ts';
import { vaultModel } from './vault-model.ts';
import { startVaultTestEnv, stubChain, stubContractRoutes, type VaultTestEnv } from '../../test-support/vault-api.ts';

const G = 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR';
const DID = 'did:ledger:testnet:b4pc2pclljuxrb4wuw2mhuxb6a';
const many = { read: 100_000, write: 100_000 };

let vault: VaultTestEnv;
let resolver: Harness;
let admin: string;
beforeAll(async () => {
  vault = await startVaultTestEnv({
    chain: stubChain(),
    contractRoutes: stubContractRoutes().router,
    limits: { rateLimits: { standard: many, early: many, admin: many } },
  });
  admin = (await vault.mintKey({ wallet: null, role: 'admin' })).key;
  resolver = await startHarness();
}, 60_000);
afterAll(async () => {
  await vault?.close();
  await resolver?.close();
});

async function send(
  base: string,
  method: string,
  path: string,
  body: Uint8Array | string,
  headers: Record<string, string>,
) {
  const res = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json', ...headers },
    body: body as BodyInit,
  });
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as Record<string, unknown> };
}

const fill = (template: string) =>
  template
    .replace(/\{(owner|issuer)\}/, G)
    .replace('{keyId}', 'k-1')
    .replace('{did}', DID);
const withBodies = (ops: Iterable<{ body?: unknown; method: string; template: string }>) =>
  [...ops].filter((op) => op.body !== undefined).map((op) => ({ method: op.method.toUpperCase(), path: op.template }));
const vaultOps = withBodies(vaultModel.operations.values());
const resolverOps = withBodies(resolverModel.operations.values());

const apps = [
  {
    app: 'vault API',
    ops: vaultOps,
    base: () => vault.url,
    key: () => ({ 'x-svc-key': admin }),
    codeOf: (b: Record<string, unknown>) => b['error'],
    notIJson: 'invalid_json',
  },
  {
    app: 'resolver',
    ops: resolverOps,
    base: () => resolver.url,
    key: () => ({}),
    codeOf: (b: Record<string, unknown>) => b['code'],
    notIJson: 'invalid_request',
  },
];

// Text that is not what the coding says; `notgzip` is the review's reproduction.
const corrupt: [string, string | Uint8Array][] = [
  ['gzip', 'notgzip'],
  ['GZip', gzipSync('{"a":1}').subarray(0, 12)],
  ['deflate', 'notdeflate'],
  ['br', new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff])],
];

describe.each(apps)('$app', ({ ops, base, key, codeOf, notIJson }) => {
  it('has operations with a body', () => {
    expect(ops.length).toBeGreaterThan(5);
  });

  describe.each(ops.map((op) => [op.method, op.path] as const))('%s %s', (method, template) => {
    const path = fill(template);

    it.each(corrupt)(
      'Content-Encoding %s with a body that does not decode → 400 invalid_body_encoding',
      async (coding, body) => {
        const res = await send(base(), method, path, body, { ...key(), 'content-encoding': coding });
        expect([res.status, codeOf(res.body)], JSON.stringify(res.body)).toEqual([400, 'invalid_body_encoding']);
        expect(res.body['message']).toMatch(new RegExp(`not valid ${coding.toLowerCase()} data`));
      },
    );

    // A lone surrogate reached the idempotency hash (JCS) as a 500; every route refuses it as not I-JSON.
    it.each([
      ['without Idempotency-Key', {}],
      ['with Idempotency-Key', { 'idempotency-key': 'lone-surrogate-1' }],
    ])('a string with a lone surrogate, %s → 400', async (_name, extra) => {
      const res = await send(base(), method, path, '{"owner":"G\\ud800","x":["ok","\\udfff"]}', { ...key(), ...extra });
      expect([res.status, codeOf(res.body)], JSON.stringify(res.body)).toEqual([400, notIJson]);
      expect(res.body['message']).toMatch(/not I-JSON.*lone surrogate/);
      expect(res.body['message']).toContain('"/owner"');
    });

    it.each(['bogus', 'compress', 'zstd', 'gzip, br', 'x-gzip'])(
      'Content-Encoding %s → 415 unsupported_content_encoding',
      async (coding) => {
        const res = await send(base(), method, path, '{}', { ...key(), 'content-encoding': coding });
        expect([res.status, codeOf(res.body)], JSON.stringify(res.body)).toEqual([415, 'unsupported_content_encoding']);
        expect(res.body['message']).toContain(JSON.stringify(coding));
      },
    );
  });

  const [first] = ops;
  it.each([
    ['identity', (t: string) => t],
    ['gzip', (t: string) => gzipSync(t)],
    ['deflate', (t: string) => deflateSync(t)],
    ['br', (t: string) => brotliCompressSync(t)],
  ] as const)('a valid %s body reads as the plain one', async (coding, encode) => {
    const text = JSON.stringify({ unknownField: 1 });
    const plain = await send(base(), first!.method, fill(first!.path), text, key());
    const res = await send(base(), first!.method, fill(first!.path), encode(text), {
      ...key(),
      'content-encoding': coding,
    });
    expect(plain.status).toBe(400);
    expect(res).toEqual(plain);
  });

  // One gzip member of 16 MiB of zeros, repeated: 1 GiB once inflated, about 1 MiB sent.
  it('a body that inflates to 1 GiB → 413 payload_too_large, quickly', async () => {
    const member = gzipSync(Buffer.alloc(16 * 1024 * 1024));
    const bomb = Buffer.concat(Array.from({ length: 64 }, () => member));
    const started = performance.now();
    const res = await send(base(), first!.method, fill(first!.path), bomb, { ...key(), 'content-encoding': 'gzip' });
    const ms = performance.now() - started;
    expect([res.status, codeOf(res.body)]).toEqual([413, 'payload_too_large']);
    expect(ms).toBeLessThan(2_000);
  });
});

/** A request fetch cannot send: a GET with a body. */
function rawGet(base: string, path: string, headers: Record<string, string>, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      base + path,
      { method: 'GET', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('a body where the operation takes none is not read', () => {
  it.each(['gzip', 'bogus'])(
    'vault API: GET with a %s body that is no such thing → answered as the GET',
    async (coding) => {
      const headers = { 'x-svc-key': admin, 'content-type': 'application/json', 'content-encoding': coding };
      expect(await rawGet(vault.url, `/contracts/vault/vc-count?owner=${G}`, headers, 'notgzip')).toBe(200);
    },
  );

  it.each(['gzip', 'bogus'])(
    'resolver: GET with a %s body that is no such thing → answered as the GET',
    async (coding) => {
      expect(
        await rawGet(
          resolver.url,
          '/health',
          { 'content-type': 'application/json', 'content-encoding': coding },
          'notgzip',
        ),
      ).toBe(200);
    },
  );
});

/** Two operations with a JSON body, one required (`requestBody.required: true`), one optional. */
const BODIES: OpenApiDocument = {
  openapi: '3.1.0',
  info: { title: 'bodies', version: '1' },
  paths: Object.fromEntries(
    (['required', 'optional'] as const).map((kind) => [
      `/${kind}`,
      {
        post: {
          operationId: kind,
          requestBody: {
            required: kind === 'required',
            content: { 'application/json': { schema: { type: 'object' } } },
          },
          responses: { '200': { description: 'ok' } },
        },
      },
    ]),
  ),
  components: { headers: { 'X-Request-ID': { schema: { type: 'string', maxLength: 64 } } } },
};

describe('a request without a body', () => {
  it.each([
    { given: '/required', want: 400 },
    { given: '/optional', want: 200 },
  ])(
    'POST $given → $want (the reader refuses it only where the operation requires a body)',
    async ({ given, want }) => {
      const reader = jsonBody(
        { limit: 1000 },
        {
          missing: () => Object.assign(new Error('the request needs a JSON body'), { status: 400 }),
          unsupported: () => new Error('unsupported'),
          corrupt: () => new Error('corrupt'),
          loneSurrogate: () => new Error('lone surrogate'),
        },
      );
      const ok = (_req: unknown, res: { json(b: unknown): void }) => res.json({ ok: true });
      const served = await serve(
        testServiceApp({
          model: buildModel(BODIES),
          handlers: { required: ok as never, optional: ok as never },
          layers: (_op, validate) => [reader, ...validate],
        }),
      );
      try {
        const res = await fetch(`http://127.0.0.1:${served.port}${given}`, { method: 'POST' });
        expect(res.status).toBe(want);
      } finally {
        await served.close();
      }
    },
  );
});
