// Each spec served by Prism answers a valid request with its own example and rejects an invalid one.
// This is what `npm run mock:vault` / `npm run mock:resolver` give API consumers. Parity: the same invalid
// requests sent to the mock and to the service (in process) get the same status and error code, except
// the listed differences, each with its reason and each checked to still differ.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../test-support/resolver.ts';
import { startVaultTestEnv, stubChain, type VaultTestEnv } from '../test-support/vault-api.ts';
import { startPrismMock, type PrismMock } from './helpers/prism.ts';
import { deref, loadSpec, type Json } from './helpers/spec.ts';

const VAULT_SPEC = 'spec/vault-api.yaml';
const RESOLVER_SPEC = 'spec/did-resolver.yaml';

const OWNER = 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR';
const API_KEY = '3b8f0c6d2a9e47f1b5c8d0e2a4f6b8c1d3e5f7a9b0c2d4e6f8a1b3c5d7e9f0a2';
const DID = 'did:ledger:testnet:b4pc2pclljuxrb4wuw2mhuxb6a';

/** The example Prism serves for a media type: `example`, else the first of `examples`. */
function firstExample(spec: Json, media: Json): Json {
  if (media?.example !== undefined) return media.example;
  const examples = media?.examples ? Object.values(media.examples) : [];
  return examples.length > 0 ? deref(spec, examples[0]).value : undefined;
}

function responseExample(
  spec: Json,
  route: string,
  method: string,
  status: string,
  mediaType = 'application/json',
): Json {
  const response = deref(spec, spec.paths[route][method].responses[status]);
  return firstExample(spec, response.content?.[mediaType]);
}

function requestExample(spec: Json, route: string, method: string, name: string): Json {
  const body = deref(spec, spec.paths[route][method].requestBody);
  return deref(spec, body.content['application/json'].examples[name]).value;
}

async function call(
  mock: PrismMock,
  method: string,
  route: string,
  init: { headers?: Record<string, string>; body?: unknown } = {},
) {
  const response = await fetch(mock.url + route, {
    method,
    headers: { 'content-type': 'application/json', ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

/** One invalid request; `body` is sent as JSON unless it is a string (sent as is). */
interface ParityCase {
  readonly name: string;
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
  /** Why the mock cannot give the service's answer; the test checks that it still does not. */
  readonly differs?: string;
}

/** Status and stable code of an answer: `error` (vault API), `code` (resolver envelope) or the resolution error. */
async function answer(
  base: string,
  c: ParityCase,
  headers: Record<string, string>,
): Promise<{ status: number; code: unknown }> {
  const body = c.body === undefined ? undefined : typeof c.body === 'string' ? c.body : JSON.stringify(c.body);
  const res = await fetch(base + c.path, {
    method: c.method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers, ...c.headers },
    ...(body === undefined ? {} : { body }),
  });
  const text = await res.text();
  let parsed: Json;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = {};
  }
  return { status: res.status, code: parsed?.error ?? parsed?.code ?? parsed?.didResolutionMetadata?.error };
}

function checkParity(
  mock: () => string,
  service: () => string,
  headers: () => Record<string, string>,
  cases: readonly ParityCase[],
): void {
  it.each(cases.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    const [fromMock, fromService] = [await answer(mock(), c, headers()), await answer(service(), c, headers())];
    expect(fromService.status, 'the service refuses it').toBeGreaterThanOrEqual(400);
    if (c.differs === undefined) expect(fromMock).toEqual(fromService);
    else
      expect(fromMock, `listed as differing (${c.differs}), but the mock now answers as the service`).not.toEqual(
        fromService,
      );
  });
}

/** Accept headers a client of GET / sends, each answered with one media type by mock and service alike. */
const INDEX_ACCEPTS = [
  undefined,
  '*/*',
  'application/json',
  'application/json, text/html',
  'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
  'text/html',
];

/** GET / on the mock and on the service: the same media type for each Accept, and the same JSON members. */
async function indexParity(spec: Json, mockUrl: string, serviceUrl: string): Promise<void> {
  const typeOf = (r: Response) => (r.headers.get('content-type') ?? '').split(';')[0];
  for (const accept of INDEX_ACCEPTS) {
    const headers: Record<string, string> = accept === undefined ? {} : { accept };
    const [m, s] = await Promise.all([fetch(`${mockUrl}/`, { headers }), fetch(`${serviceUrl}/`, { headers })]);
    expect([m.status, typeOf(m)], `mock, Accept ${accept}`).toEqual([200, typeOf(s)]);
    expect(s.status, `service, Accept ${accept}`).toBe(200);
    if (typeOf(s) === 'application/json') {
      const [mb, sb] = (await Promise.all([m.json(), s.json()])) as Record<string, Json>[];
      expect(mb, 'the JSON example').toEqual(responseExample(spec, '/', 'get', '200'));
      expect(Object.keys(mb!).sort()).toEqual(Object.keys(sb!).sort());
      expect(Object.keys(mb!['links']).sort()).toEqual(Object.keys(sb!['links']).sort());
      expect(mb!['service']).toBe(sb!['service']);
    } else {
      expect(await m.text(), 'the HTML example').toBe(responseExample(spec, '/', 'get', '200', 'text/html'));
      expect(await s.text()).toMatch(/^<!DOCTYPE html>.*<a href="\/openapi\.json">/);
    }
  }
}

describe(`Prism mock of ${VAULT_SPEC}`, () => {
  let mock: PrismMock;
  const spec = loadSpec(VAULT_SPEC);
  beforeAll(async () => {
    mock = await startPrismMock(VAULT_SPEC);
  }, 90_000);
  afterAll(async () => {
    await mock?.stop();
  });

  it('answers a valid prepare request with the prepare example', async () => {
    const res = await call(mock, 'POST', '/contracts/vc/issue', {
      headers: { 'X-SVC-Key': API_KEY },
      body: requestExample(spec, '/contracts/vc/issue', 'post', 'prepare'),
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(responseExample(spec, '/contracts/vc/issue', 'post', '200'));
    expect(res.body).toHaveProperty('xdr', expect.stringMatching(/^AAAAAgAAAA/));
  });

  it.each<{ route: string; template: string; auth: Record<string, string> }>([
    {
      route: `/contracts/vault/vc-count?owner=${OWNER}`,
      template: '/contracts/vault/vc-count',
      auth: { 'x-api-key': API_KEY },
    },
    {
      route: `/contracts/vault/${OWNER}`,
      template: '/contracts/vault/{owner}',
      auth: { Authorization: `Bearer ${API_KEY}` },
    },
  ])('routes GET $route to $template (static path beside {owner})', async ({ route, template, auth }) => {
    const res = await call(mock, 'GET', route, { headers: auth });
    expect(res.status).toBe(200);
    expect(res.body).toEqual(responseExample(spec, template, 'get', '200'));
  });

  it('rejects a limit above 200 with a 400 validation error', async () => {
    const res = await call(mock, 'POST', '/contracts/vault/list-vc-ids', {
      headers: { 'X-SVC-Key': API_KEY },
      body: { owner: OWNER, limit: 500 },
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('sl-violations')).toContain('limit');
    expect(res.body).toEqual(responseExample(spec, '/contracts/vault/list-vc-ids', 'post', '400'));
  });

  it('rejects an {owner} that is not an account address', async () => {
    const res = await call(mock, 'GET', '/contracts/vault/not-an-address', { headers: { 'X-SVC-Key': API_KEY } });
    expect(res.status).toBe(400);
    expect(res.headers.get('sl-violations')).toContain('owner');
  });

  it('rejects a request without a key with 401', async () => {
    const res = await call(mock, 'GET', `/contracts/vault/vc-count?owner=${OWNER}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual(responseExample(spec, '/contracts/vault/vc-count', 'get', '401'));
  });

  it.each([
    { name: 'presented', headers: {} as Record<string, string>, prefer: 'proof-only' },
    { name: 'with-status-entry', headers: {} as Record<string, string>, prefer: 'verified' },
    { name: 'by-reference', headers: { 'X-SVC-Key': API_KEY }, prefer: 'verified' },
  ])(
    'answers POST /credentials/verify ($name request example, keyless when presented)',
    async ({ name, headers, prefer }) => {
      const res = await call(mock, 'POST', '/credentials/verify', {
        headers: { ...headers, Prefer: `example=${prefer}` },
        body: requestExample(spec, '/credentials/verify', 'post', name),
      });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const examples = deref(spec, spec.paths['/credentials/verify'].post.responses['200']).content['application/json']
        .examples;
      expect(res.body).toEqual(examples[prefer].value);
      expect(res.body.verified).toBe(true);
    },
  );

  it('answers a credential that does not verify with 400 and the VCALM result (Prefer: code=400)', async () => {
    const res = await call(mock, 'POST', '/credentials/verify', {
      headers: { Prefer: 'code=400, example=revoked' },
      body: requestExample(spec, '/credentials/verify', 'post', 'with-status-entry'),
    });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      verified: false,
      problemDetails: [{ title: 'CREDENTIAL_REVOKED', reason: 'revoked' }],
    });
  });

  it('answers POST /presentations/verify and POST /challenges, keyless', async () => {
    const challenge = await call(mock, 'POST', '/challenges', { body: {} });
    expect(challenge.status).toBe(200);
    expect(challenge.body.challenge).toMatch(/^cvc1_/);
    const body = deref(spec, spec.paths['/presentations/verify'].post.requestBody).content['application/json'].example;
    const res = await call(mock, 'POST', '/presentations/verify', { body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.results.presentation.holder).toEqual({ verified: true, input: body.verifiablePresentation.holder });
  });

  it('rejects a verification request with an unknown field', async () => {
    const res = await call(mock, 'POST', '/credentials/verify', { body: { verifiableCredential: {}, holder: 'x' } });
    expect(res.status).toBe(400);
    expect(res.headers.get('sl-violations')).toContain('holder');
  });

  it('rejects prepare fields mixed with signedXdr with 400 invalid_request, not the 422 of idempotency (scripts/mock-spec.ts)', async () => {
    const body = { ...requestExample(spec, '/contracts/vc/issue', 'post', 'prepare'), signedXdr: 'AAAAAgAAAA' };
    const res = await call(mock, 'POST', '/contracts/vc/issue', { headers: { 'X-SVC-Key': API_KEY }, body });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('invalid_request');
    expect(res.headers.get('sl-violations')).toBeTruthy();
  });
  describe('answers invalid requests as the service does', () => {
    let service: VaultTestEnv;
    let adminKey: string;
    beforeAll(async () => {
      service = await startVaultTestEnv({ chain: stubChain('testnet') });
      adminKey = (await service.mintKey({ wallet: null, role: 'admin' })).key;
    });
    afterAll(async () => {
      await service?.close();
    });
    it('answers GET / as the service does: JSON by default, HTML to a client that prefers it', () =>
      indexParity(spec, mock.url, service.url));
    const issue = () => requestExample(spec, '/contracts/vc/issue', 'post', 'prepare');
    const credential = { vcId: 'vc-1', vcData: '{}' };
    checkParity(
      () => mock.url,
      () => service.url,
      () => ({ 'X-SVC-Key': adminKey }),
      [
        {
          name: 'issue: a body without its fields',
          method: 'POST',
          path: '/contracts/vc/issue',
          body: { owner: OWNER },
        },
        {
          name: 'issue: an owner that is not an account',
          method: 'POST',
          path: '/contracts/vc/issue',
          get body() {
            return { ...issue(), owner: 'G123' };
          },
        },
        {
          name: 'issue: prepare fields and signedXdr together',
          method: 'POST',
          path: '/contracts/vc/issue',
          get body() {
            return { ...issue(), signedXdr: 'AAAAAgAAAA' };
          },
        },
        {
          name: 'issue: an unknown field',
          method: 'POST',
          path: '/contracts/vc/issue',
          get body() {
            return { ...issue(), colour: 'red' };
          },
        },
        { name: 'vault/create: a JSON array body', method: 'POST', path: '/contracts/vault/create', body: [] },
        {
          name: 'GET vault/{owner}: an owner that is not an account',
          method: 'GET',
          path: '/contracts/vault/not-an-address',
        },
        { name: 'GET vc-count: no owner', method: 'GET', path: '/contracts/vault/vc-count' },
        {
          name: 'GET vc-count: no key',
          method: 'GET',
          path: `/contracts/vault/vc-count?owner=${OWNER}`,
          headers: { 'X-SVC-Key': '' },
        },
        {
          name: 'batch-issue: six credentials',
          method: 'POST',
          path: '/contracts/vc/batch-issue',
          get body() {
            return {
              owner: OWNER,
              issuer: issue().issuer,
              issuerDid: issue().issuerDid,
              sourcePublicKey: OWNER,
              vcs: Array.from({ length: 6 }, (_, i) => ({ ...credential, vcId: `vc-${i}` })),
            };
          },
          differs:
            'the service names the rule (400 batch_too_large); Prism answers a schema failure with the first 400 example, invalid_request',
        },
        {
          name: 'list-vc-ids: a limit above 200',
          method: 'POST',
          path: '/contracts/vault/list-vc-ids',
          body: { owner: OWNER, limit: 500 },
          differs:
            'the service names the rule (400 limit_too_large); Prism answers with the first 400 example, invalid_request',
        },
        {
          name: 'issue: text that is not JSON',
          method: 'POST',
          path: '/contracts/vc/issue',
          body: '{"owner": ',
          differs: 'the service answers 400 invalid_json; Prism cannot parse the body and answers its own error',
        },
      ],
    );
  });
});

describe(`Prism mock of ${RESOLVER_SPEC}`, () => {
  let mock: PrismMock;
  const spec = loadSpec(RESOLVER_SPEC);
  const resolveRoute = Object.keys(spec.paths ?? {}).find((p) => /^\/1\.0\/identifiers\/\{[^}]+\}$/.test(p));
  beforeAll(async () => {
    mock = await startPrismMock(RESOLVER_SPEC);
  }, 90_000);
  afterAll(async () => {
    await mock?.stop();
  });

  // Asked for application/did+json: Prism 5.14 cannot serialize an object as application/did+ld+json
  // (its media-type parser rejects a subtype with two '+' and it answers 500 "Cannot find serializer").
  it('answers a resolution with the did+json example', async () => {
    expect(resolveRoute, 'GET /1.0/identifiers/{did} is in the spec').toBeDefined();
    const response = await fetch(`${mock.url}/1.0/identifiers/${DID}`, { headers: { Accept: 'application/did+json' } });
    const body = await response.json();
    expect(response.status).toBe(200);
    const expected = responseExample(spec, resolveRoute!, 'get', '200', 'application/did+json');
    if (expected !== undefined) expect(body).toEqual(expected);
    expect(body).toHaveProperty('didDocument');
  });

  // Only the ld+json form of the DID Resolution media types: Prism 5.14 has no serializer for
  // `application/did-resolution` (not JSON by its name) and answers 500, as for did+ld+json above.
  it.each([{ accept: 'application/ld+json;profile="https://w3id.org/did-resolution"', example: 'issuer' }])(
    'answers a resolution asked for as $accept with the full result',
    async ({ accept, example }) => {
      const response = await fetch(`${mock.url}/1.0/identifiers/${DID}`, {
        headers: { Accept: accept, Prefer: `example=${example}` },
      });
      const body = await response.json();
      expect(response.status).toBe(200);
      expect(body).toEqual(
        deref(spec, deref(spec, spec.paths[resolveRoute!].get.responses['200']).content[accept].examples[example])
          .value,
      );
      expect(body.didDocument['@context']).toBeDefined();
    },
  );

  it('answers a DID URL with a fragment with the dereferenced key', async () => {
    const response = await fetch(`${mock.url}/1.0/identifiers/${DID}%23assert-1`, {
      headers: { Accept: 'application/did+json', Prefer: 'example=assertion-key' },
    });
    const body = await response.json();
    expect(response.status).toBe(200);
    expect(body).toMatchObject({ type: 'Multikey', id: expect.stringMatching(/#assert-1$/) });
  });

  it('rejects a register request without its fields', async () => {
    const response = await fetch(`${mock.url}/v1/dids/stellar`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect([400, 422]).toContain(response.status);
    expect(response.headers.get('sl-violations')).toBeTruthy();
    expect(await response.json()).toHaveProperty('code');
  });
  it('serves the registrar: a create answers the action example, with its signing request', async () => {
    const create = spec.paths['/1.0/create'].post.requestBody.content['application/json'].examples.create.value;
    const response = await fetch(`${mock.url}/1.0/create?method=ledger`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', Prefer: 'example=action' },
      body: JSON.stringify(create),
    });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toEqual(deref(spec, spec.components.examples.RegistrarAction).value);
    expect(body.didState.signingRequest.signingRequest1.alg).toBe('EdDSA');
  });

  it('serves the reverse lookup of a controller', async () => {
    const response = await fetch(
      `${mock.url}/v1/dids/stellar?controller=GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR`,
    );
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toMatchObject({ network: 'testnet', index: { fromLedger: expect.any(Number) } });
  });

  it('answers GET /1.0/identifiers/garbage with 400 invalidDid, not a document (x-handler-pattern)', async () => {
    const response = await fetch(`${mock.url}/1.0/identifiers/garbage`, {
      headers: { Accept: 'application/did+json' },
    });
    expect(response.status).toBe(400);
    expect((await response.json()).didResolutionMetadata.error).toBe('invalidDid');
  });

  describe('answers invalid requests as the service does', () => {
    let service: Harness;
    beforeAll(async () => {
      service = await startHarness();
    }, 60_000);
    afterAll(async () => {
      await service?.close();
    });
    it('answers GET / as the service does: JSON by default, HTML to a client that prefers it', () =>
      indexParity(spec, mock.url, service.url));
    const resolve = (did: string, differs?: string): ParityCase => ({
      name: `resolve ${did}`,
      method: 'GET',
      path: `/1.0/identifiers/${did}`,
      headers: { Accept: 'application/did+json' },
      ...(differs ? { differs } : {}),
    });
    checkParity(
      () => mock.url,
      () => service.url,
      () => ({}),
      [
        resolve('garbage'),
        resolve('did:ledger:public:nohsyhu2pu7uaulcoocjljvxza'),
        resolve('did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxzb'),
        resolve('did:ledger:testnet:NOHSYHU2PU7UAULCOOCJLJVXZA'),
        resolve('did%3Aledger%3Atestnet%3Anohsyhu2pu7uaul'),
        resolve('did:web:example.com'),
        { name: 'register: an empty body', method: 'POST', path: '/v1/dids/stellar', body: {} },
        { name: 'register: a JSON array body', method: 'POST', path: '/v1/dids/stellar', body: [] },
        { name: 'proof challenge: an empty body', method: 'POST', path: '/v1/proof/challenge', body: {} },
        {
          name: 'resolve with an unknown resolution option',
          method: 'GET',
          path: `/1.0/identifiers/${DID}?colour=red`,
          headers: { Accept: 'application/did+json' },
          differs:
            'the service answers 400 invalidOptions; Prism ignores a query parameter the operation does not declare',
        },
      ],
    );
  });
});
