// Bad input, for every route of both specs (read from the YAML, so a new route is covered without touching
// this file): generated invalid bodies, queries, path parameters and headers never give a 5xx and always
// give the spec's error body — `{error, message}` with a listed `error` (vault API), `{code, message,
// details?}` with a listed `code` (resolver), a resolution result with `didResolutionMetadata.error` on
// /1.0/identifiers — with the status `x-error-codes` gives the code, and the specific code where the spec
// names one (vcId_too_long, vcs[i].vcData_too_long, invalid_json, payload_too_large, missing_api_key, …).
//
// Two tests per API: every route × every way to break it once (coverage that does not depend on sampling),
// then a property over random routes and mutations. Both services run with response validation on, so an
// answer that breaks its own spec also surfaces as a 5xx here.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../../test-support/resolver.ts';
import { startVaultTestEnv, type VaultTestEnv } from '../../test-support/vault-api.ts';
import { hostileKinds } from './hostile-mutations.ts';
import { mutationKinds, type Keys, type Mutation, type MutationKind } from './mutations.ts';
import { runParams } from './params.ts';
import {
  loadSpec,
  resolutionFailureProblems,
  resolverErrorProblems,
  send,
  statusOfCode,
  vaultErrorProblems,
  type Answer,
  type SpecDoc,
  type SpecOperation,
} from './spec.ts';

const UNLIMITED = { read: 1e9, write: 1e9 };

/** The largest error body any bad request may get (a count and the first failures, not all of them). */
const ERROR_BODY_MAX_BYTES = 8 * 1024;

/** Generated bad requests per route in `every route: … bad requests each` (FC_RUNS overrides). */
const RUNS_PER_ROUTE = 1000;

/**
 * Time allowed for those: about 2 ms of CPU per request (35,000 on the vault API), and several times that
 * in wall time on 2 cores shared with other work (207 s measured at load average 10).
 */
const PER_ROUTE_TIMEOUT_MS = 900_000;

/** Every way to break `op`: the spec-derived kinds and the hostile ones (http/hostile-mutations.ts). */
const allKinds = (spec: SpecDoc, op: SpecOperation, keys?: Keys): MutationKind[] => [
  ...mutationKinds(spec, op, keys),
  ...hostileKinds(spec, op, keys),
];

/** What is wrong with `a` as the answer to mutation `m` of `op`; empty when nothing is. */
function judge(spec: SpecDoc, op: SpecOperation, m: Mutation, a: Answer): string[] {
  const problems: string[] = [];
  if (a.status >= 500) problems.push(`answered ${a.status}: bad input must never give a 5xx`);
  if (a.status >= 400 && Buffer.byteLength(a.text) > ERROR_BODY_MAX_BYTES) {
    problems.push(`an error body of ${Buffer.byteLength(a.text)} bytes: at most ${ERROR_BODY_MAX_BYTES}`);
  }
  // HEAD answers carry no body to check.
  if (m.req.method === 'HEAD') return problems;
  const resolution =
    spec.api === 'resolver' && op.path.startsWith('/1.0/identifiers/') && m.req.method === 'GET' && a.status !== 429;
  const body = a.body as Record<string, any> | undefined;
  // The Universal Registrar answers a refusal as a DID Registration state (did-resolver.yaml RegistrarFailed):
  // `didState.state: failed` with the code in `didState.error`, not the error envelope.
  const registrarFailure = op.operationId.startsWith('registrar') && body?.['didState']?.['state'] === 'failed';
  const code: unknown =
    spec.api === 'vault'
      ? body?.['error']
      : resolution
        ? body?.['didResolutionMetadata']?.['error']
        : registrarFailure
          ? body?.['didState']?.['error']
          : body?.['code'];
  const e = m.expect;
  if (e.kind === 'error') {
    if (e.status !== 0 && a.status !== e.status) problems.push(`status ${a.status}, expected ${e.status}`);
    if (!e.codes.includes('*') && !e.codes.includes(String(code)))
      problems.push(`code ${String(code)}, expected ${e.codes.join(' | ')}`);
  } else if (e.kind === 'clientError' && (a.status < 400 || a.status >= 500)) {
    problems.push(`status ${a.status}, expected a 4xx`);
  }
  // POST /credentials/verify answers a credential that does not verify with 400 and the VC API result, not the
  // error envelope (vault-api.yaml verifyCredential); so does POST /presentations/verify for a presentation that
  // cannot be verified at all (verifyPresentation).
  if (
    a.status === 400 &&
    (op.operationId === 'verifyCredential' || op.operationId === 'verifyPresentation') &&
    typeof body?.['verified'] === 'boolean'
  ) {
    if (body['verified'] !== false || !Array.isArray(body['problemDetails']))
      problems.push('a 400 result must be verified: false with its problemDetails');
    return problems;
  }
  if (registrarFailure && a.status === 400) {
    // A failed job is 400 whatever the code (did_not_found too): the code only has to be one the spec lists.
    if (typeof code !== 'string' || statusOfCode(spec.errorCodes, code) === undefined)
      problems.push(`didState.error ${String(code)} is not in components.x-error-codes`);
    return problems;
  }
  if (a.status >= 400) {
    const bodyProblems =
      spec.api === 'vault'
        ? vaultErrorProblems(spec.errorCodes, a)
        : resolution
          ? resolutionFailureProblems(a)
          : resolverErrorProblems(spec.errorCodes, a);
    problems.push(...bodyProblems);
  }
  return problems;
}

function report(op: SpecOperation, m: Mutation, a: Answer, problems: string[]): string {
  const body =
    m.req.body === undefined ? '' : typeof m.req.body === 'string' ? m.req.body : new TextDecoder().decode(m.req.body);
  const excerpt = (s: string, n = 300) => (s.length > n ? `${s.slice(0, n)}… (${s.length} chars)` : s);
  return [
    `${op.method.toUpperCase()} ${op.path} [${m.kind}] ${m.note}`,
    `  request: ${m.req.method} ${excerpt(m.req.path, 200)} headers=${excerpt(JSON.stringify(m.req.headers), 200)} body=${excerpt(body, 200)}`,
    `  answer:  ${a.status} ${a.contentType} ${excerpt(a.text)}`,
    ...problems.map((p) => `  - ${p}`),
  ].join('\n');
}

interface Target {
  spec: SpecDoc;
  url: string;
  kinds: Map<SpecOperation, MutationKind[]>;
  /** Runs before each request (the vault API moves its clock past the per-IP window of /auth/*). */
  before?: (op: SpecOperation) => void;
}

async function attempt(t: Target, op: SpecOperation, m: Mutation): Promise<string | undefined> {
  t.before?.(op);
  const a = await send(t.url, m.req);
  const problems = judge(t.spec, op, m, a);
  return problems.length ? report(op, m, a, problems) : undefined;
}

/** Every operation × every mutation kind, one sample each (a fixed seed per pair). */
async function everyRouteOnce(t: Target): Promise<{ failures: string[]; tried: number }> {
  const failures: string[] = [];
  let tried = 0;
  let seed = 1;
  for (const [op, kinds] of t.kinds) {
    for (const k of kinds) {
      const [m] = fc.sample(k.arb, { seed: seed++, numRuns: 1 });
      tried++;
      const f = await attempt(t, op, m!);
      if (f) failures.push(f);
    }
  }
  return { failures, tried };
}

async function randomProperty(t: Target, name: string, runs: number): Promise<void> {
  const ops = [...t.kinds.keys()];
  const arb = fc.constantFrom(...ops).chain((op) =>
    fc.oneof(...t.kinds.get(op)!.map((k) => k.arb)).map((m) => ({
      op,
      m,
      // A counterexample reads as the request, not as the whole operation object.
      [fc.toStringMethod]: () => `${m.req.method} ${m.req.path} [${m.kind}] ${m.note}`,
    })),
  );
  await fc.assert(
    fc.asyncProperty(arb, async ({ op, m }) => {
      const f = await attempt(t, op, m);
      if (f) throw new Error(f);
    }),
    runParams(name, runs),
  );
}

/**
 * Draw weights of the per-route properties (10 for every other kind). Kinds that cost the most per request
 * (bodies of hundreds of KB; a Content-Type the validator compiles a validator for; random strings to
 * generate) are drawn less often; the floods a little more than the rest of those.
 */
const WEIGHT: Record<string, number> = {
  hugeBody: 1,
  deepJson: 1,
  wrongContentType: 1,
  oddStrings: 1,
  oversizedArray: 4,
  unknownFieldFlood: 3,
};

/**
 * `runs` generated bad requests for every route, each route its own property (so no route goes short),
 * heavy kinds drawn less often (WEIGHT). Prints the total and the draws per kind for the CI log.
 */
async function everyRouteMany(t: Target, name: string, runs: number): Promise<void> {
  const started = performance.now();
  let sent = 0;
  let perRoute = runs;
  const byKind = new Map<string, number>();
  for (const [op, all] of t.kinds) {
    // `baseline` is the valid request: not a bad one (and every one reaches the chain).
    const kinds = all.filter((k) => k.kind !== 'baseline');
    const arb = fc.oneof(...kinds.map((k) => ({ arbitrary: k.arb, weight: WEIGHT[k.kind] ?? 10 }))).map((m) => ({
      m,
      [fc.toStringMethod]: () => `${m.req.method} ${m.req.path} [${m.kind}] ${m.note}`,
    }));
    const params = runParams(`bad input, ${name}, ${op.method.toUpperCase()} ${op.path}`, runs);
    perRoute = params.numRuns ?? runs;
    await fc.assert(
      fc.asyncProperty(arb, async ({ m }) => {
        sent++;
        byKind.set(m.kind, (byKind.get(m.kind) ?? 0) + 1);
        const f = await attempt(t, op, m);
        if (f) throw new Error(f);
      }),
      params,
    );
  }
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `[bad-input] ${name}: ${sent} generated bad requests over ${t.kinds.size} routes (${perRoute} per route) in ${seconds.toFixed(1)} s`,
  );
  console.log(
    `[coverage] ${name}: ${[...byKind]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([k, n]) => `${k} ${n}`)
      .join(', ')}`,
  );
  expect(sent).toBeGreaterThanOrEqual(t.kinds.size * perRoute);
}

describe('bad input: vault API (spec/vault-api.yaml)', () => {
  let env: VaultTestEnv;
  let target: Target;
  let keys: Keys;
  beforeAll(async () => {
    env = await startVaultTestEnv({
      limits: { rateLimits: { standard: UNLIMITED, early: UNLIMITED, admin: UNLIMITED } },
    });
    keys = { standard: (await env.mintKey()).key, admin: (await env.mintKey({ role: 'admin' })).key };
    const spec = loadSpec('vault');
    target = {
      spec,
      url: env.url,
      kinds: new Map(spec.operations.map((op) => [op, allKinds(spec, op, keys)])),
      // /auth/* and keyless verification are limited per client IP and every request here comes from 127.0.0.1.
      before: (op) => {
        if (op.path.startsWith('/auth/') || op.auth === 'optional') env.clock.advance(61_000);
      },
    };
  }, 60_000);
  afterAll(async () => {
    await env?.close();
  });

  it('runs with response validation on', () => {
    expect(env.deps.validateResponses).toBe(true);
  });

  it('every route × every way to break it: no 5xx, the spec error body', async () => {
    const { failures, tried } = await everyRouteOnce(target);
    console.log(`[bad-input] vault: ${target.kinds.size} operations, ${tried} route × mutation pairs`);
    expect(failures, failures.join('\n\n')).toEqual([]);
  });

  it('property: random routes and invalid requests', async () => {
    await randomProperty(target, 'bad input, vault API', 1000);
  });

  it(
    `every route: ${RUNS_PER_ROUTE} generated bad requests each`,
    async () => {
      await everyRouteMany(target, 'vault API', RUNS_PER_ROUTE);
    },
    PER_ROUTE_TIMEOUT_MS,
  );

  // The codes vault-api.yaml names for request-validation failures, each at its boundary.
  const issue = () =>
    structuredClone(loadSpec('vault').operations.find((o) => o.operationId === 'issueVc')!.body!.example);
  const batch = () =>
    structuredClone(loadSpec('vault').operations.find((o) => o.operationId === 'batchIssueVc')!.body!.example) as {
      vcs: Record<string, string>[];
    };
  const vcsOf = (n: number) => Array.from({ length: n }, (_, i) => ({ ...batch().vcs[0]!, vcId: `vc-${i}` }));
  it.each([
    {
      given: 'vcId of 65 characters',
      path: '/contracts/vc/issue',
      body: () => ({ ...issue(), vcId: 'v'.repeat(65) }),
      want: [400, 'vcId_too_long'],
    },
    {
      given: 'vcId of 64 characters (the limit: not a length error)',
      path: '/contracts/vc/issue',
      body: () => ({ ...issue(), vcId: 'v'.repeat(64) }),
      want: [403, 'forbidden'],
    },
    {
      given: 'vcData of 10,001 characters',
      path: '/contracts/vc/issue',
      body: () => ({ ...issue(), vcData: ' '.repeat(10_001) }),
      want: [400, 'vcData_too_long'],
    },
    {
      given: 'vcs[2].vcId of 65 characters',
      path: '/contracts/vc/batch-issue',
      body: () => ({ ...batch(), vcs: vcsOf(3).map((v, i) => (i === 2 ? { ...v, vcId: 'v'.repeat(65) } : v)) }),
      want: [400, 'vcs[2].vcId_too_long'],
    },
    {
      given: 'vcs[0].vcData of 10,001 characters',
      path: '/contracts/vc/batch-issue',
      body: () => ({ ...batch(), vcs: vcsOf(2).map((v, i) => (i === 0 ? { ...v, vcData: ' '.repeat(10_001) } : v)) }),
      want: [400, 'vcs[0].vcData_too_long'],
    },
    {
      given: '6 credentials in a batch',
      path: '/contracts/vc/batch-issue',
      body: () => ({ ...batch(), vcs: vcsOf(6) }),
      want: [400, 'batch_too_large'],
    },
    {
      given: 'no credentials in a batch',
      path: '/contracts/vc/batch-issue',
      body: () => ({ ...batch(), vcs: [] }),
      want: [400, 'batch_too_large'],
    },
    {
      given: 'a did:pkh issuerDid',
      path: '/contracts/vc/issue',
      body: () => ({ ...issue(), issuerDid: 'did:pkh:eip155:1:0xab' }),
      want: [400, 'issuerDid_invalid'],
    },
    {
      given: 'the removed holder field',
      path: '/contracts/vc/issue',
      body: () => ({ ...issue(), holder: 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR' }),
      want: [400, 'invalid_request'],
    },
    {
      given: 'a lowercase owner address',
      path: '/contracts/vc/issue',
      body: () => ({ ...issue(), owner: 'gcfiry65oqe7dfp5klns2pf2lvzmuzyjx4ozieq36n2iqanub5xvyojr' }),
      want: [400, 'invalid_request'],
    },
    {
      given: 'a userSalt of 63 hex characters',
      path: '/contracts/vc/issue',
      body: () => ({ ...issue(), userSalt: 'a'.repeat(63) }),
      want: [400, 'invalid_request'],
    },
    {
      given: 'list limit 201',
      path: '/contracts/vault/list-vc-ids',
      body: () => ({ owner: 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR', limit: 201 }),
      want: [400, 'limit_too_large'],
    },
    {
      given: 'a didUri of 257 characters',
      path: '/contracts/vault/create',
      body: () => ({
        owner: 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR',
        didUri: `did:x:${'a'.repeat(251)}`,
        sourcePublicKey: 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR',
      }),
      want: [400, 'input_too_long'],
    },
    {
      given: 'prepare fields and signedXdr together',
      path: '/contracts/vc/revoke',
      body: () => ({
        owner: 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR',
        vcId: 'x',
        sourcePublicKey: 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR',
        signedXdr: 'AAAA',
      }),
      want: [400, 'invalid_request'],
    },
  ])('$given → $want', async ({ path, body, want }) => {
    const a = await send(env.url, {
      method: 'POST',
      path,
      headers: { 'content-type': 'application/json', 'x-svc-key': keys.standard },
      body: JSON.stringify(body()),
    });
    expect([a.status, (a.body as { error?: string })?.error]).toEqual(want);
    expect(vaultErrorProblems(target.spec.errorCodes, a)).toEqual([]);
  });

  it.each<{ given: string; headers: Record<string, string>; body: string; want: [number, string] }>([
    {
      given: 'an Idempotency-Key of 201 characters',
      headers: { 'idempotency-key': 'k'.repeat(201) },
      body: '{}',
      want: [400, 'invalid_request'],
    },
    {
      given: 'an Idempotency-Key of 200 characters (the limit)',
      headers: { 'idempotency-key': 'k'.repeat(200) },
      body: '{"signedXdr":"AAAA"}',
      want: [400, 'tx_invalid'],
    },
    {
      given: 'a body of 512 KiB + 1',
      headers: {},
      body: JSON.stringify({ signedXdr: 'A'.repeat(512 * 1024) }),
      want: [413, 'payload_too_large'],
    },
    { given: 'text that is not JSON', headers: {}, body: '{"signedXdr": ', want: [400, 'invalid_json'] },
  ])('$given → $want', async ({ headers, body, want }) => {
    const a = await send(env.url, {
      method: 'POST',
      path: '/contracts/vc/revoke',
      headers: { 'content-type': 'application/json', 'x-svc-key': keys.standard, ...headers },
      body,
    });
    expect([a.status, (a.body as { error?: string })?.error]).toEqual(want);
  });
});

/** Every integer query parameter of the vault API (read from the spec), with values that are not integers. */
const NOT_INTEGERS = ['abc', '1.5', '0x10', '1e1', '0b11', ' 5', '5 ', '+5', 'Infinity', ''];

describe('bad input: integer query parameters of the vault API', () => {
  let env: VaultTestEnv;
  let key: string;
  beforeAll(async () => {
    env = await startVaultTestEnv({
      limits: { rateLimits: { standard: UNLIMITED, early: UNLIMITED, admin: UNLIMITED } },
    });
    key = (await env.mintKey()).key;
  }, 60_000);
  afterAll(async () => {
    await env?.close();
  });

  const spec = loadSpec('vault');
  const cases = spec.operations.flatMap((op) =>
    op.params
      .filter((p) => p.in === 'query' && p.schema['type'] === 'integer')
      .flatMap((p) =>
        NOT_INTEGERS.map((value) => ({ route: `${op.method.toUpperCase()} ${op.path}`, op, name: p.name, value })),
      ),
  );
  it.each(cases)('$route ?$name=$value → 400 invalid_request', async ({ op, name, value }) => {
    const required = Object.fromEntries(
      op.params.filter((p) => p.in === 'query' && p.required).map((p) => [p.name, String(p.example)]),
    );
    const qs = new URLSearchParams({ ...required, [name]: value }).toString();
    const a = await send(env.url, {
      method: op.method.toUpperCase(),
      path: `${op.path}?${qs}`,
      headers: { 'x-svc-key': key },
    });
    expect([a.status, (a.body as { error?: string })?.error], a.text).toEqual([400, 'invalid_request']);
  });
});

describe('bad input: DID resolver (spec/did-resolver.yaml)', () => {
  let h: Harness;
  let target: Target;
  beforeAll(async () => {
    h = await startHarness();
    const spec = loadSpec('resolver');
    target = { spec, url: h.url, kinds: new Map(spec.operations.map((op) => [op, allKinds(spec, op)])) };
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('runs with response validation on', () => {
    expect(h.deps.validateResponses).toBe(true);
  });

  it('every route × every way to break it: no 5xx, the spec error body', async () => {
    const { failures, tried } = await everyRouteOnce(target);
    console.log(`[bad-input] resolver: ${target.kinds.size} operations, ${tried} route × mutation pairs`);
    expect(failures, failures.join('\n\n')).toEqual([]);
  });

  it('property: random routes and invalid requests', async () => {
    await randomProperty(target, 'bad input, resolver', 1000);
  });

  it(
    `every route: ${RUNS_PER_ROUTE} generated bad requests each`,
    async () => {
      await everyRouteMany(target, 'resolver', RUNS_PER_ROUTE);
    },
    PER_ROUTE_TIMEOUT_MS,
  );
});
