// Every route, error code, status and header the product's requirements name is present in the specs,
// so a spec cannot silently lose one. The tables below are transcribed from
// those requirements; extend them, never trim them.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { deref, loadSpec, type Json } from './helpers/spec.ts';

const VAULT_SPEC = 'spec/vault-api.yaml';
const RESOLVER_SPEC = 'spec/did-resolver.yaml';
const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface Route {
  readonly method: string;
  readonly path: string;
}
interface ErrorCode {
  readonly code: string;
  /** Exact status, or `4xx` where the document leaves the status open. */
  readonly status: number | '4xx';
}

// ---- the vault API ----------------------------------------------------------------------------
const VAULT_ROUTES: readonly Route[] = [
  // Public
  { method: 'get', path: '/' },
  { method: 'get', path: '/health' },
  { method: 'get', path: '/config' },
  { method: 'get', path: '/docs' },
  // Write endpoints (prepare / submit)
  { method: 'post', path: '/contracts/vc/issue' },
  { method: 'post', path: '/contracts/vc/batch-issue' },
  { method: 'post', path: '/contracts/vc/revoke' },
  { method: 'post', path: '/contracts/vault/create' },
  { method: 'post', path: '/contracts/vault/deny-issuer' },
  { method: 'post', path: '/contracts/vault/allow-issuer' },
  { method: 'post', path: '/contracts/vault/set-vault-did' },
  { method: 'post', path: '/contracts/vault/push' },
  { method: 'post', path: '/contracts/vault/revoke-vault' },
  { method: 'post', path: '/contracts/vault/set-new-owner' },
  { method: 'post', path: '/contracts/sponsored-vault/create' },
  // Back-compat aliases
  { method: 'post', path: '/contracts/vault/revoke-issuer' },
  { method: 'post', path: '/contracts/vault/authorize-issuer' },
  // Read endpoints
  { method: 'post', path: '/contracts/vault/list-vc-ids' },
  { method: 'get', path: '/contracts/vault/vc-count' },
  { method: 'post', path: '/contracts/vault/get-vc' },
  { method: 'post', path: '/contracts/vault/verify-vc' },
  { method: 'get', path: '/contracts/vault/{owner}' },
  { method: 'get', path: '/contracts/vault/issuers/denied' },
  { method: 'get', path: '/contracts/vault/issuers/denied/count' },
  { method: 'get', path: '/contracts/version' },
  // Issuer-registry mutations ("exist, admin key"; paths and payloads decided in the spec)
  { method: 'post', path: '/contracts/issuer-registry' },
  { method: 'patch', path: '/contracts/issuer-registry/{issuer}' },
  { method: 'delete', path: '/contracts/issuer-registry/{issuer}' },
];

/** Routes the document leaves "not shown" and the spec decides; kept here so they cannot vanish either. */
const VAULT_DECIDED_ROUTES: readonly Route[] = [
  { method: 'get', path: '/auth/challenge' },
  { method: 'post', path: '/auth/keys' },
  { method: 'get', path: '/admin/keys' },
  { method: 'post', path: '/admin/keys' },
  { method: 'delete', path: '/admin/keys/{keyId}' },
  { method: 'get', path: '/contracts/issuer-registry/{issuer}' },
  { method: 'get', path: '/openapi.json' },
  // The W3C VC API's verifier (VCALM 0.9) and the context of the status entry that travels in a credential.
  { method: 'post', path: '/credentials/verify' },
  { method: 'post', path: '/presentations/verify' },
  { method: 'post', path: '/challenges' },
  { method: 'get', path: '/contexts/ledger-vault/v1' },
];

const VAULT_WRITE_ROUTES = VAULT_ROUTES.filter((r) => r.path.startsWith('/contracts/') && !isVaultRead(r));
function isVaultRead(route: Route): boolean {
  return route.method === 'get' || ['list-vc-ids', 'get-vc', 'verify-vc'].some((s) => route.path.endsWith(s));
}
const VAULT_ALIASES = ['/contracts/vault/revoke-issuer', '/contracts/vault/authorize-issuer'];
const VAULT_PUBLIC = ['/', '/health', '/config', '/docs', '/openapi.json'];

const VAULT_CODES: readonly ErrorCode[] = [
  { code: 'batch_too_large', status: 400 },
  { code: 'vcs[i].vcId_too_long', status: 400 },
  { code: 'vcs[i].vcData_too_long', status: 400 },
  { code: 'limit_too_large', status: 400 },
  { code: 'issuerDid_controller_mismatch', status: '4xx' },
  { code: 'issuerDid_network_mismatch', status: '4xx' },
  { code: 'insufficient_scope', status: 403 },
  { code: 'rate_limit_exceeded', status: 429 },
  { code: 'write_rate_limit_exceeded', status: 429 },
  // On-chain failures the document names by their chain messages.
  { code: 'vault_already_deployed', status: '4xx' },
  { code: 'trustline_missing', status: '4xx' },
  { code: 'insufficient_balance', status: '4xx' },
  // "A missing or invalid key returns 401", "Mismatch returns 403", "/docs on mainnet returns 404".
  { code: 'missing_api_key', status: 401 },
  { code: 'invalid_api_key', status: 401 },
  { code: 'forbidden', status: 403 },
  { code: 'not_found', status: 404 },
  { code: 'internal_error', status: 500 },
];
const VAULT_STATUSES = ['200', '400', '401', '403', '404', '429', '500'];

/** Scope each route needs (the spec's decision; a key with no scopes is unrestricted). */
const VAULT_SCOPES: Readonly<Record<string, string>> = {
  'post /contracts/vc/issue': 'credentials:issue',
  'post /contracts/vc/batch-issue': 'credentials:issue',
  'post /contracts/vc/revoke': 'credentials:revoke',
  'post /contracts/vault/create': 'vault:write',
  'post /contracts/vault/set-vault-did': 'vault:write',
  'post /contracts/vault/set-new-owner': 'vault:write',
  'post /contracts/vault/revoke-vault': 'vault:write',
  'post /contracts/vault/push': 'vault:write',
  'post /contracts/vault/deny-issuer': 'vault:admin',
  'post /contracts/vault/allow-issuer': 'vault:admin',
  'post /contracts/vault/revoke-issuer': 'vault:admin',
  'post /contracts/vault/authorize-issuer': 'vault:admin',
  'post /contracts/sponsored-vault/create': 'sponsor',
  'post /contracts/vault/list-vc-ids': 'credentials:read',
  'get /contracts/vault/vc-count': 'credentials:read',
  'post /contracts/vault/get-vc': 'credentials:read',
  'post /contracts/vault/verify-vc': 'credentials:read',
  'get /contracts/vault/{owner}': 'credentials:read',
  'get /contracts/vault/issuers/denied': 'credentials:read',
  'get /contracts/vault/issuers/denied/count': 'credentials:read',
  'get /contracts/version': 'credentials:read',
  'post /credentials/verify': 'credentials:verify',
  'post /presentations/verify': 'credentials:verify',
  'post /challenges': 'credentials:verify',
};

/** Prepare fields per write route: R = required, O = optional (document's table). */
const VAULT_PREPARE_FIELDS: Readonly<Record<string, Readonly<Record<string, 'R' | 'O'>>>> = {
  '/contracts/vc/issue': {
    owner: 'R',
    vcId: 'R',
    vcData: 'R',
    issuer: 'R',
    issuerDid: 'R',
    userSalt: 'O',
    sourcePublicKey: 'R',
  },
  '/contracts/vc/batch-issue': {
    owner: 'R',
    issuer: 'R',
    issuerDid: 'R',
    vcs: 'R',
    userSalt: 'O',
    sourcePublicKey: 'R',
  },
  '/contracts/vc/revoke': { owner: 'R', vcId: 'R', date: 'O', userSalt: 'O', sourcePublicKey: 'R' },
  '/contracts/vault/create': { owner: 'R', didUri: 'R', userSalt: 'O', sourcePublicKey: 'R' },
  '/contracts/vault/deny-issuer': { owner: 'R', issuer: 'R', userSalt: 'O', sourcePublicKey: 'R' },
  '/contracts/vault/allow-issuer': { owner: 'R', issuer: 'R', userSalt: 'O', sourcePublicKey: 'R' },
  '/contracts/vault/set-vault-did': { owner: 'R', didUri: 'R', userSalt: 'O', sourcePublicKey: 'R' },
  '/contracts/vault/push': { fromOwner: 'R', toOwner: 'R', vcId: 'R', userSalt: 'O', sourcePublicKey: 'R' },
  '/contracts/vault/revoke-vault': { owner: 'R', userSalt: 'O', sourcePublicKey: 'R' },
  '/contracts/vault/set-new-owner': { owner: 'R', new_owner: 'R', userSalt: 'O', sourcePublicKey: 'R' },
  '/contracts/sponsored-vault/create': { sponsor: 'R', owner: 'R', didUri: 'R', userSalt: 'O', sourcePublicKey: 'R' },
};

// ---- the resolver ----------------------------------------------------------------------------
const RESOLVER_ROUTES: readonly Route[] = [
  { method: 'get', path: '/' },
  { method: 'get', path: '/health' },
  { method: 'get', path: '/docs' },
  { method: 'get', path: '/openapi.json' },
  { method: 'get', path: '/1.0/identifiers/{did}' },
  { method: 'get', path: '/v1/dids/stellar/{did}' },
  { method: 'post', path: '/v1/dids/stellar' },
  { method: 'post', path: '/v1/dids/stellar/{did}/update' },
  { method: 'post', path: '/v1/dids/stellar/{did}/transfer' },
  { method: 'post', path: '/v1/dids/stellar/{did}/deactivate' },
  { method: 'post', path: '/v1/dids/stellar/submit' },
];
const RESOLVER_CODES: readonly ErrorCode[] = [
  { code: 'did_invalid', status: '4xx' },
  { code: 'did_already_exists', status: '4xx' },
  { code: 'version_mismatch', status: 409 },
  { code: 'did_deactivated', status: '4xx' },
  { code: 'tx_submission_failed', status: '4xx' },
  { code: 'duplicate_key', status: '4xx' },
  { code: 'rate_limited', status: 429 },
];
const RESOLUTION_STATUSES = ['200', '400', '404', '410', '502'];

// ---- observability: both services ---------------------------------------------------------------
/** Keyless and outside every rate limit: Prometheus scrapes /metrics, load balancers poll /ready. */
const OBSERVABILITY_ROUTES: readonly Route[] = [
  { method: 'get', path: '/metrics' },
  { method: 'get', path: '/ready' },
];
const METRICS_MEDIA_TYPE = 'text/plain; version=0.0.4';
const RESOLUTION_MEDIA_TYPES = ['application/did+ld+json', 'application/did+json'];

// ---- helpers ------------------------------------------------------------------------------------
/** Path templates compare by shape: `/a/{x}` equals `/a/{y}`. */
const shape = (p: string): string => p.replace(/\{[^}]+\}/g, '{}');

function findOperation(spec: Json, route: Route): Json {
  const key = Object.keys(spec.paths ?? {}).find((p) => shape(p) === shape(route.path));
  return key === undefined ? undefined : spec.paths[key][route.method];
}

function operations(spec: Json): { method: string; path: string; op: Json; item: Json }[] {
  return Object.entries(spec.paths ?? {}).flatMap(([p, item]: [string, Json]) =>
    HTTP_METHODS.filter((m) => item[m]).map((m) => ({ method: m, path: p, op: item[m], item })),
  );
}

function errorCodes(spec: Json): { code: string; status: number; description: string; pattern?: string }[] {
  return spec.components?.['x-error-codes'] ?? [];
}

function hasExample(spec: Json, media: Json): boolean {
  if (media?.example !== undefined) return true;
  if (media?.examples && Object.keys(media.examples).length > 0) return true;
  const schema = deref(spec, media?.schema);
  return schema?.example !== undefined || (Array.isArray(schema?.examples) && schema.examples.length > 0);
}

function requiredFields(spec: Json, schema: Json): { required: string[]; properties: string[] } {
  const s = deref(spec, schema);
  return { required: [...(s.required ?? [])].sort(), properties: Object.keys(s.properties ?? {}).sort() };
}

function expectCodes(spec: Json, wanted: readonly ErrorCode[]): void {
  const listed = new Map(errorCodes(spec).map((e) => [e.code, e.status]));
  for (const { code, status } of wanted) {
    expect(listed.has(code), `error code ${code} is listed in components.x-error-codes`).toBe(true);
    const actual = listed.get(code)!;
    if (status === '4xx') expect(actual >= 400 && actual < 500, `${code} is a 4xx`).toBe(true);
    else expect(actual, `${code} status`).toBe(status);
  }
}

/** /metrics and /ready: no key, the text format 0.0.4, and the readiness report on 200 and on 503. */
function describeObservability(file: string, spec: Json): void {
  describe(`${file}: observability`, () => {
    it.each(OBSERVABILITY_ROUTES)('$method $path needs no key and answers no 429', (route) => {
      const op = findOperation(spec, route);
      expect(op.security).toEqual([]);
      expect(op.responses['429']).toBeUndefined();
    });

    it('serves /metrics in the Prometheus text format 0.0.4', () => {
      const ok = deref(spec, findOperation(spec, { method: 'get', path: '/metrics' }).responses['200']);
      expect(Object.keys(ok.content)).toEqual([METRICS_MEDIA_TYPE]);
      expect(ok.content[METRICS_MEDIA_TYPE].example).toMatch(/^# HELP /);
    });

    it('answers /ready with the readiness report on 200 and 503', () => {
      const op = findOperation(spec, { method: 'get', path: '/ready' });
      for (const status of ['200', '503']) {
        const schema = deref(spec, deref(spec, op.responses[status]).content['application/json'].schema);
        expect(schema, status).toBe(spec.components.schemas.Readiness);
      }
      const readiness = spec.components.schemas.Readiness;
      expect(readiness.required).toEqual(['status', 'checks']);
      expect(readiness.properties.status.enum).toEqual(['ready', 'not_ready']);
      expect(readiness.properties.checks.items.properties.reason.enum).toEqual([
        'failed',
        'error',
        'timeout',
        'shutting_down',
      ]);
    });
  });
}

/** Examples must be realistic enough for Prism: every request body and every 2xx body has one. */
function describeExamples(file: string, spec: Json): void {
  describe(`${file}: examples`, () => {
    it.each(operations(spec).map((o) => ({ ...o, name: `${o.method.toUpperCase()} ${o.path}` })))(
      '$name has examples for its request body and 2xx responses',
      ({ op }) => {
        const body = deref(spec, op.requestBody);
        for (const [mediaType, media] of Object.entries(body?.content ?? {})) {
          expect(hasExample(spec, media), `request ${mediaType}`).toBe(true);
        }
        const successes = Object.entries(op.responses ?? {}).filter(([status]) => /^2/.test(status));
        expect(successes.length, 'a 2xx response').toBeGreaterThan(0);
        for (const [status, ref] of successes) {
          for (const [mediaType, media] of Object.entries(deref(spec, ref).content ?? {})) {
            expect(hasExample(spec, media), `${status} ${mediaType}`).toBe(true);
          }
        }
      },
    );
  });
}

// ---- vault API ----------------------------------------------------------------------------------
describe(VAULT_SPEC, () => {
  const spec = loadSpec(VAULT_SPEC);

  // 2.0.0: the verification answers of the W3C VC API replace those of 1.1.1; 2.1.0: presentations without
  // holder, a 400 for one that does not verify, challenges bound to their client (packages/client/CHANGELOG.md).
  it('is OpenAPI 3.1 at API version 2.1.0', () => {
    expect(spec.openapi).toMatch(/^3\.1\./);
    expect(spec.info.version).toBe('2.1.0');
  });

  // The Prism mock served `info.version 1.1.1` from this example after the API became 2.0.0.
  it("GET /openapi.json's example names the API version", () => {
    const media = spec.paths['/openapi.json'].get.responses['200'].content['application/json'];
    expect(media.example.info.version).toBe(spec.info.version);
  });

  // A reason listed but never produced is a dead value in every generated client (`challenge_missing` was one).
  it('lists as verification reasons only those the verifier produces', () => {
    const reasons = spec.components.schemas.ProblemDetails.properties.reason.enum as string[];
    const sources = ['src/vault-api', 'src/did', 'src/chain'] // the vault's statuses are reasons too
      .flatMap((dir) =>
        readdirSync(dir)
          .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
          .map((f) => readFileSync(`${dir}/${f}`, 'utf8')),
      )
      .join('\n');
    const produced = (r: string) => sources.includes(`'${r}'`) || sources.includes(`"${r}"`);
    expect(reasons.filter((r) => !produced(r))).toEqual([]);
  });

  it.each([...VAULT_ROUTES, ...VAULT_DECIDED_ROUTES, ...OBSERVABILITY_ROUTES])('has $method $path', (route) => {
    expect(findOperation(spec, route)).toBeDefined();
  });

  it.each(VAULT_CODES)('lists error code $code ($status)', (code) => {
    expectCodes(spec, [code]);
  });

  it('lists every error code once, with a status and a description, and documents it in ErrorBody', () => {
    const codes = errorCodes(spec);
    expect(new Set(codes.map((c) => c.code)).size).toBe(codes.length);
    const table = spec.components.schemas.ErrorBody.description as string;
    for (const { code, status, description } of codes) {
      expect(status >= 400 && status < 600, code).toBe(true);
      expect(description, code).toBeTruthy();
      expect(table, `ErrorBody table names ${code}`).toContain(`| \`${code}\` | ${status} |`);
    }
  });

  it('uses only listed codes in its error examples', () => {
    const codes = errorCodes(spec);
    const known = (value: string): boolean =>
      codes.some((c) => c.code === value || (c.pattern !== undefined && new RegExp(c.pattern).test(value)));
    for (const response of Object.values(spec.components.responses) as Json[]) {
      const media = response.content?.['application/json'];
      const values = [media?.example, ...Object.values(media?.examples ?? {}).map((e: Json) => deref(spec, e).value)];
      for (const value of values) if (value?.error !== undefined) expect(known(value.error), value.error).toBe(true);
    }
  });

  // An operation's error codes are its responses' examples (one per code, named by it), not a paragraph.
  it.each(operations(spec).map((o) => ({ ...o, name: `${o.method.toUpperCase()} ${o.path}` })))(
    '$name: every error example names a listed code with its own status, and no description lists codes',
    ({ op }) => {
      const codes = errorCodes(spec);
      const named = (value: string) => (c: { code: string; pattern?: string }) =>
        c.code === value || (c.pattern !== undefined && new RegExp(c.pattern).test(value));
      const statusOf = (value: string) => codes.find(named(value))?.status;
      expect(op.description ?? '', 'a "Codes:" paragraph').not.toMatch(/(^|\n)\s*Codes:/);
      for (const [status, ref] of Object.entries<Json>(op.responses)) {
        if (!/^[45]/.test(status)) continue;
        const media = deref(spec, ref).content?.['application/json'];
        for (const [name, example] of Object.entries<Json>(media?.examples ?? {})) {
          const value = deref(spec, example).value;
          if (value?.error === undefined) continue;
          expect(statusOf(value.error), `${status} example ${name}: ${value.error}`).toBe(Number(status));
        }
      }
    },
  );

  it('names every status the document names', () => {
    const statuses = new Set(operations(spec).flatMap(({ op }) => Object.keys(op.responses)));
    for (const status of VAULT_STATUSES) expect(statuses.has(status), status).toBe(true);
  });

  it.each(VAULT_WRITE_ROUTES)('$path is prepare | {signedXdr} with Idempotency-Key', (route) => {
    const op = findOperation(spec, route);
    const body = deref(spec, op.requestBody);
    const media = body.content['application/json'];
    const branches = media.schema.oneOf.map((s: Json) => deref(spec, s));
    expect(branches).toHaveLength(2);
    const submit = deref(spec, spec.components.schemas.SubmitRequest);
    expect(branches).toContain(submit);
    expect(submit).toMatchObject({ required: ['signedXdr'], additionalProperties: false });
    expect(Object.keys(submit.properties)).toEqual(['signedXdr']);
    expect(Object.keys(media.examples)).toEqual(expect.arrayContaining(['prepare', 'submit']));
    const params = (op.parameters ?? []).map((p: Json) => deref(spec, p));
    expect(params).toContainEqual(expect.objectContaining({ name: 'Idempotency-Key', in: 'header' }));
    const ok = deref(spec, op.responses['200']);
    const result = ok.content['application/json'].schema;
    const shapes = deref(spec, result).oneOf.map((s: Json) => Object.keys(deref(spec, s).properties).sort().join(','));
    expect(shapes.sort()).toEqual(['network,networkPassphrase,xdr', 'txId,tx_id']);
    expect(Object.keys(ok.headers)).toEqual(
      expect.arrayContaining(['Idempotency-Replayed', 'X-WriteRateLimit-Limit', 'X-WriteRateLimit-Remaining']),
    );
  });

  it.each(Object.entries(VAULT_PREPARE_FIELDS).map(([p, fields]) => ({ path: p, fields })))(
    "$path prepare fields are exactly the document's",
    ({ path: p, fields }) => {
      const op = findOperation(spec, { method: 'post', path: p });
      const media = deref(spec, op.requestBody).content['application/json'];
      const prepare = media.schema.oneOf.map((s: Json) => deref(spec, s)).find((s: Json) => !s.properties.signedXdr);
      expect(prepare.additionalProperties).toBe(false);
      const { required, properties } = requiredFields(spec, prepare);
      expect(properties).toEqual(Object.keys(fields).sort());
      expect(required).toEqual(
        Object.keys(fields)
          .filter((f) => fields[f] === 'R')
          .sort(),
      );
    },
  );

  it('marks the two alias routes deprecated', () => {
    for (const p of VAULT_ALIASES) expect(findOperation(spec, { method: 'post', path: p }).deprecated).toBe(true);
  });

  it('opens /, /health, /config, /docs, /openapi.json and requires a key elsewhere (X-SVC-Key, x-api-key, Bearer)', () => {
    const schemes = spec.components.securitySchemes;
    expect(Object.values(schemes)).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-SVC-Key' }),
        expect.objectContaining({ type: 'apiKey', in: 'header', name: 'x-api-key' }),
        expect.objectContaining({ type: 'http', scheme: 'bearer' }),
      ]),
    );
    expect(spec.security).toHaveLength(3);
    for (const p of VAULT_PUBLIC) expect(findOperation(spec, { method: 'get', path: p }).security).toEqual([]);
    for (const route of VAULT_ROUTES.filter((r) => !VAULT_PUBLIC.includes(r.path))) {
      expect(findOperation(spec, route).security, `${route.method} ${route.path}`).toBeUndefined();
    }
  });

  it.each(Object.entries(VAULT_SCOPES).map(([key, scope]) => ({ key, scope })))(
    '$key needs scope $scope',
    ({ key, scope }) => {
      const [method, p] = key.split(' ') as [string, string];
      expect(findOperation(spec, { method, path: p })['x-required-scope']).toBe(scope);
    },
  );

  it('names a scope or a role on every operation that needs a key', () => {
    for (const { method, path: p, op } of operations(spec)) {
      if (Array.isArray(op.security) && op.security.length === 0) continue;
      expect(op['x-required-scope'] ?? op['x-required-role'], `${method} ${p}`).toBeTruthy();
    }
  });

  it('puts issuer-registry mutations behind the admin role', () => {
    for (const route of VAULT_ROUTES.filter((r) => r.path.startsWith('/contracts/issuer-registry'))) {
      expect(findOperation(spec, route)['x-required-role']).toBe('admin');
    }
  });

  it('carries the rate-limit headers, Retry-After on 429, and X-Request-ID', () => {
    const headers = spec.components.headers;
    for (const name of [
      'X-RateLimit-Limit',
      'X-RateLimit-Remaining',
      'X-WriteRateLimit-Limit',
      'X-WriteRateLimit-Remaining',
      'Retry-After',
      'Idempotency-Replayed',
      'X-Request-ID',
    ]) {
      expect(headers[name], name).toBeDefined();
    }
    expect(headers['Idempotency-Replayed'].schema.enum).toEqual(['true']);
    expect(Object.keys(spec.components.responses.TooManyRequests.headers)).toContain('Retry-After');
    expect(spec.components.parameters.IdempotencyKey.schema.maxLength).toBe(200);
    for (const { method, path: p, op } of operations(spec)) {
      if (op.responses['429'])
        expect(deref(spec, op.responses['429']).headers['Retry-After'], `${method} ${p}`).toBeDefined();
    }
  });

  it('keeps the limits of the document as schema constraints', () => {
    const s = spec.components.schemas;
    const batch = s.BatchIssuePrepare.properties.vcs;
    expect([batch.minItems, batch.maxItems]).toEqual([1, 5]);
    expect(s.VcId.maxLength).toBe(64);
    expect(s.VcData.maxLength).toBe(10_000);
    expect([s.Limit.maximum, s.Limit.default]).toEqual([200, 50]);
    expect([s.Offset.minimum, s.Offset.default]).toEqual([0, 0]);
    expect(s.Account.pattern).toBe('^G[A-Z2-7]{55}$');
    expect(s.ContractId.pattern).toBe('^C[A-Z2-7]{55}$');
    expect(s.UserSalt.pattern).toBe('^[0-9a-fA-F]{64}$');
    expect(s.IssuerDid.pattern).toBe('^did:ledger:(mainnet|testnet):[a-z2-7]{26}$');
    expect(s.RevokePrepare.properties.date.format).toBe('date-time');
    expect(deref(spec, spec.components.parameters.OwnerPath).schema).toEqual({ $ref: '#/components/schemas/Account' });
  });

  it('returns the documented read and configuration shapes', () => {
    const s = spec.components.schemas;
    expect(requiredFields(spec, s.Config).required).toEqual([
      'didStellarRegistryId',
      'factoryContractId',
      'networkPassphrase',
      'networkType',
      'protocolVersion',
      'rpcUrl',
      'svcContractId',
      'vaultWasmHash',
    ]);
    expect(requiredFields(spec, s.Health).required).toEqual(['node', 'service', 'status', 'timestamp']);
    expect(requiredFields(spec, s.ListVcIdsResponse).required).toEqual(['limit', 'offset', 'result']);
    expect(requiredFields(spec, s.DeniedIssuersResponse).required).toEqual(['issuers', 'limit', 'offset']);
    expect(requiredFields(spec, s.VaultMetadata).required).toEqual([
      'denied_issuer_count',
      'did_uri',
      'owner',
      'vault_address',
      'vc_count',
      'version',
    ]);
    expect(s.VerifyVcResponse.properties.status.enum).toEqual(['valid', 'revoked', 'invalid', 'unknown']);
    expect(requiredFields(spec, s.ErrorBody).required).toEqual(['error', 'message']);
  });

  describeExamples(VAULT_SPEC, spec);
  describeObservability(VAULT_SPEC, spec);
});

// ---- DID resolver -------------------------------------------------------------------------------
describe(RESOLVER_SPEC, () => {
  const spec = loadSpec(RESOLVER_SPEC);

  it('is OpenAPI 3.1', () => {
    expect(spec.openapi).toMatch(/^3\.1\./);
  });

  it.each([...RESOLVER_ROUTES, ...OBSERVABILITY_ROUTES])('has $method $path', (route) => {
    expect(findOperation(spec, route)).toBeDefined();
  });

  it.each(RESOLVER_CODES)('lists error code $code ($status)', (code) => {
    expectCodes(spec, [code]);
  });

  it('answers resolution with 200/400/404/410/502 in both DID media types', () => {
    const op = findOperation(spec, { method: 'get', path: '/1.0/identifiers/{did}' });
    for (const status of RESOLUTION_STATUSES) expect(op.responses[status], status).toBeDefined();
    const ok = deref(spec, op.responses['200']);
    expect(Object.keys(ok.content)).toEqual(expect.arrayContaining(RESOLUTION_MEDIA_TYPES));
  });

  it('declares X-Request-ID and the rate-limit headers', () => {
    const text = JSON.stringify(spec);
    for (const name of ['X-Request-ID', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'Retry-After']) {
      expect(text, name).toContain(name);
    }
  });

  describeExamples(RESOLVER_SPEC, spec);
  describeObservability(RESOLVER_SPEC, spec);
});

// ---- both specs, as a reader meets them ------------------------------------------------------------
describe.each([VAULT_SPEC, RESOLVER_SPEC])('%s reads as documentation', (file) => {
  const spec = loadSpec(file);
  const text = readFileSync(file, 'utf8');

  it('states decisions as what the service does, not as notes of a design discussion', () => {
    expect(text).not.toMatch(/\bdecision\b|source document|the document names/i);
  });

  it('keeps the long prose in docs/: a short API description, no section headings', () => {
    expect(spec.info.description.length).toBeLessThan(1_000);
    expect(spec.info.description).not.toMatch(/^#/m);
  });

  // An operation says what a caller needs; its error codes live in its responses' examples, the tables and
  // long explanations in docs/.
  it("keeps each operation's description short, without tables or lists of error codes", () => {
    const codes = new Set<string>();
    const collect = (v: unknown): void => {
      if (Array.isArray(v)) return v.forEach(collect);
      if (v === null || typeof v !== 'object') return;
      for (const [k, x] of Object.entries(v)) {
        if ((k === 'error' || k === 'code') && typeof x === 'string') codes.add(x);
        collect(x);
      }
    };
    collect(spec.paths);
    collect(spec.components);
    expect(codes.size).toBeGreaterThan(20);
    const wordy: string[] = [];
    for (const [p, item] of Object.entries<Json>(spec.paths)) {
      for (const [method, op] of Object.entries<Json>(item)) {
        if (typeof op?.description !== 'string') continue;
        const text: string = op.description;
        const named = new Set([...text.matchAll(/`([A-Za-z_]+)`/g)].map((m) => m[1]!).filter((c) => codes.has(c)));
        if (/^\s*\|/m.test(text)) wordy.push(`${method} ${p}: a table`);
        if (named.size > 3) wordy.push(`${method} ${p}: ${named.size} error codes (${[...named].join(', ')})`);
        if (text.length > 2_100) wordy.push(`${method} ${p}: ${text.length} characters`);
      }
    }
    expect(wordy).toEqual([]);
  });

  // Swagger UI's "Try it out" fills a header parameter with its example: a fixed Idempotency-Key makes the
  // second prepare from /docs a 422, a fixed X-Request-ID breaks log correlation.
  it('gives no fixed value to the Idempotency-Key and X-Request-ID parameters', () => {
    for (const param of Object.values<Json>(spec.components.parameters ?? {})) {
      if (!['Idempotency-Key', 'X-Request-ID'].includes(param.name)) continue;
      expect(param.example, param.name).toBeUndefined();
      expect(param.examples, param.name).toBeUndefined();
      expect(param.schema?.default, param.name).toBeUndefined();
      expect(param.schema?.example, param.name).toBeUndefined();
    }
  });

  it("uses the chain simulator's passphrase in its examples, not a public network's", () => {
    expect(text).not.toMatch(/Test SDF Network|Public Global Stellar Network/);
  });
});
