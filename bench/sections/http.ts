// HTTP throughput side by side: bare node:http (physical ceiling), Express 5 + express-openapi-validator
// (framework ceiling), the Prism mocks of the two specs, and the real services, route by route.
import { startPrismMock, type PrismMock } from '../../contract-tests/helpers/prism.ts';
import { startHost } from '../lib/child.ts';
import { measureHttp, probe, type HttpCase, type HttpResult } from '../lib/http-load.ts';
import { fmtInt, fmtMs, fmtRatio, fmtRate, table, verdict } from '../lib/markdown.ts';
import { attempt, wanted, type Outcome, type SectionContext, type SectionResult } from '../lib/section.ts';
import { raisedLimitsNote, type Stack } from '../lib/stack.ts';
import { KEY_HEADER, failureText, issueBody, issueCycle, vaultClient, type IssuerIdentity } from '../lib/vault-client.ts';

type Server = 'bare node:http' | 'framework ceiling' | 'Prism mock' | 'real service';
type Route = 'config' | 'verify' | 'resolve' | 'prepare';

const ROUTE_LABEL: Record<Route, string> = {
  config: 'GET /config',
  verify: 'POST /contracts/vault/verify-vc',
  resolve: 'GET /1.0/identifiers/{did} (cached)',
  prepare: 'POST /contracts/vc/issue (prepare)',
};

interface Row {
  name: string;
  route: Route;
  server: Server;
  outcome: Outcome<HttpResult>;
  note?: string;
}

/** Example values of the specs, so that the Prism mocks validate the requests and answer 200. */
const EXAMPLE_OWNER = 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR';
const EXAMPLE_DID = 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza';
const EXAMPLE_KEY = 'a'.repeat(64);
/** Both resolvers answer the same representation (Prism cannot serialize did+ld+json). */
const DID_ACCEPT = 'application/did+json';


function postCase(url: string, key: string, body: unknown): HttpCase {
  return { url, method: 'POST', headers: { 'content-type': 'application/json', [KEY_HEADER]: key }, body: JSON.stringify(body) };
}

export async function runHttpSection(ctx: SectionContext): Promise<SectionResult> {
  const rows: Row[] = [];
  const measure = async (name: string, route: Route, server: Server, c: () => Promise<HttpCase> | HttpCase, note?: string) => {
    if (!wanted(ctx, name)) return;
    const outcome = await attempt(ctx, name, async () => {
      const hc = await c();
      await probe(hc);
      const r = await measureHttp(hc, ctx.settings);
      ctx.log(`    ${fmtRate(r.rps)} req/s, p50 ${fmtMs(r.p50)} ms, p99 ${fmtMs(r.p99)} ms, non-2xx ${r.non2xx}, errors ${r.errors}`);
      return r;
    });
    rows.push({ name, route, server, outcome, ...(note ? { note } : {}) });
  };

  // Baselines, each in its own process.
  for (const [name, kind, server] of [['bare', 'bare', 'bare node:http'], ['ceiling', 'express', 'framework ceiling']] as const) {
    if (!wanted(ctx, name)) continue;
    const host = await startHost<{ url: string }>({ kind }).catch((e: Error) => e);
    if (host instanceof Error) {
      rows.push({ name, route: 'config', server, outcome: { ok: false, error: host.message } });
      continue;
    }
    try {
      await measure(name, 'config', server, () => ({ url: `${host.ready.url}/config` }));
    } finally {
      await host.stop();
    }
  }

  // What a consumer would otherwise run: the Prism mocks of both specs.
  const prismCases = ['prism-config', 'prism-verify', 'prism-prepare'];
  if (prismCases.some((n) => wanted(ctx, n))) {
    await withPrism(ctx, 'spec/vault-api.yaml', rows, prismCases, async (mock) => {
      await measure('prism-config', 'config', 'Prism mock', () => ({ url: `${mock.url}/config` }));
      await measure('prism-verify', 'verify', 'Prism mock', () =>
        postCase(`${mock.url}/contracts/vault/verify-vc`, EXAMPLE_KEY, { owner: EXAMPLE_OWNER, vcId: 'vc-2026-0001' }),
      );
      await measure('prism-prepare', 'prepare', 'Prism mock', () =>
        postCase(`${mock.url}/contracts/vc/issue`, EXAMPLE_KEY, {
          owner: EXAMPLE_OWNER,
          vcId: 'vc-2026-0001',
          vcData: '{"@context":["https://www.w3.org/ns/credentials/v2"],"type":["VerifiableCredential"],"credentialSubject":{"id":"did:ledger:testnet:ugzmhvhf6ydrqkj2jnog27upsa"}}',
          issuer: EXAMPLE_OWNER,
          issuerDid: 'did:ledger:testnet:b4pc2pclljuxrb4wuw2mhuxb6a',
          sourcePublicKey: EXAMPLE_OWNER,
        }),
      );
    });
  }
  if (wanted(ctx, 'prism-resolve')) {
    await withPrism(ctx, 'spec/did-resolver.yaml', rows, ['prism-resolve'], async (mock) => {
      await measure('prism-resolve', 'resolve', 'Prism mock', () => ({ url: `${mock.url}/1.0/identifiers/${EXAMPLE_DID}`, headers: { accept: DID_ACCEPT } }));
    });
  }

  // The real services.
  const realCases = ['service-config', 'service-verify', 'service-resolve', 'service-prepare'];
  if (realCases.some((n) => wanted(ctx, n))) await realService(ctx, rows, measure);

  return render(ctx, rows);
}

async function withPrism(ctx: SectionContext, spec: string, rows: Row[], names: string[], fn: (mock: PrismMock) => Promise<void>): Promise<void> {
  let mock: PrismMock;
  try {
    mock = await startPrismMock(spec, { readyTimeoutMs: 120_000 });
  } catch (e) {
    const error = `Prism did not start: ${(e as Error).message.split('\n')[0]}`;
    ctx.log(`    ✗ ${error}`);
    for (const name of names.filter((n) => wanted(ctx, n))) {
      rows.push({ name, route: name.replace('prism-', '') as Route, server: 'Prism mock', outcome: { ok: false, error } });
    }
    return;
  }
  try {
    await fn(mock);
  } finally {
    await mock.stop();
  }
}

type Measure = (name: string, route: Route, server: Server, c: () => Promise<HttpCase> | HttpCase, note?: string) => Promise<void>;

async function realService(ctx: SectionContext, rows: Row[], measure: Measure): Promise<void> {
  let stack: Stack;
  try {
    stack = await ctx.stack();
  } catch (e) {
    for (const [name, route] of [['service-config', 'config'], ['service-verify', 'verify'], ['service-resolve', 'resolve'], ['service-prepare', 'prepare']] as const) {
      if (wanted(ctx, name)) rows.push({ name, route, server: 'real service', outcome: { ok: false, error: `services not running: ${(e as Error).message}` } });
    }
    return;
  }
  await measure('service-config', 'config', 'real service', () => ({ url: `${stack.vaultUrl()}/config` }));

  // verify-vc: a real key, a credential issued through the API (prepare → sign → submit), a chain read per request.
  let issuer: IssuerIdentity | undefined;
  const fixtures = async () => {
    issuer ??= await stack.issuer();
    return issuer;
  };
  let verifyNote: string | undefined;
  const verifyCase = async (): Promise<HttpCase> => {
    const iss = await fixtures();
    const owner = await stack.owner();
    const vcId = 'bench-verify-000001';
    try {
      await issueCycle(vaultClient(stack.vaultUrl(), iss.key), iss, owner.keypair.publicKey(), vcId);
    } catch (e) {
      // The route under test is verify-vc: when issuing through the API fails, put the credential on chain directly.
      verifyNote = `credential issued in-process (the issue route failed: ${failureText(e).slice(0, 120)})`;
      ctx.log(`    ! ${verifyNote}`);
      await stack.fill({ vault: owner.vault, issuer: iss, count: 1, prefix: 'bench-verify' });
      return postCase(`${stack.vaultUrl()}/contracts/vault/verify-vc`, iss.key, { owner: owner.keypair.publicKey(), vcId: 'bench-verify-000000' });
    }
    return postCase(`${stack.vaultUrl()}/contracts/vault/verify-vc`, iss.key, { owner: owner.keypair.publicKey(), vcId });
  };
  if (wanted(ctx, 'service-verify')) {
    await measure('service-verify', 'verify', 'real service', verifyCase);
    const row = rows[rows.length - 1];
    if (row && verifyNote) row.note = verifyNote;
  }

  await measure('service-resolve', 'resolve', 'real service', async () => {
    // Only a registered DID is needed here (no key): the resolver is measured even when the vault API is down.
    const did = issuer?.did ?? (await stack.sim.call<{ did: string }>('issuer')).did;
    const c: HttpCase = { url: `${stack.resolverUrl()}/1.0/identifiers/${did}`, headers: { accept: DID_ACCEPT } };
    await probe(c); // warms the cache
    return c;
  });

  await measure('service-prepare', 'prepare', 'real service', async () => {
    const iss = await fixtures();
    const owner = await stack.owner();
    return postCase(`${stack.vaultUrl()}/contracts/vc/issue`, iss.key, issueBody(iss, owner.keypair.publicKey(), 'bench-prepare-000001'));
  });
}

function render(ctx: SectionContext, rows: Row[]): SectionResult {
  const rps = (name: string) => {
    const r = rows.find((x) => x.name === name);
    return r?.outcome.ok ? r.outcome.value.rps : undefined;
  };
  const bare = rps('bare');
  const ceiling = rps('ceiling');
  const ratio = (v: number | undefined, base: number | undefined) => (v !== undefined && base ? v / base : undefined);

  const body = rows.map((r) => {
    const label = [ROUTE_LABEL[r.route], r.server];
    if (!r.outcome.ok) return [...label, '—', '—', '—', '—', '—', '—', '—', `not measured: ${r.outcome.error}`];
    const v = r.outcome.value;
    const statuses = Object.entries(v.statuses).filter(([s]) => !s.startsWith('2')).map(([s, n]) => `${s}×${n}`).join(' ');
    return [
      ...label,
      fmtRate(v.rps),
      fmtMs(v.p50),
      fmtMs(v.p99),
      `${fmtInt(v.non2xx)}${statuses ? ` (${statuses})` : ''}`,
      fmtInt(v.errors),
      fmtRatio(ratio(v.rps, ceiling)),
      fmtRatio(ratio(v.rps, bare)),
      r.note ?? '',
    ];
  });

  const real = (route: Route) => rps(`service-${route}`);
  const prism = (route: Route) => rps(`prism-${route}`);
  const atLeast = (v: number | undefined, base: number | undefined, k: number) => (v === undefined || !base ? undefined : v >= k * base);
  const targets: [string, string, boolean | undefined][] = [
    ['GET /config ≥ 0.9× framework ceiling', fmtRatio(ratio(real('config'), ceiling)), atLeast(real('config'), ceiling, 0.9)],
    ['cached resolution ≥ 0.9× framework ceiling', fmtRatio(ratio(real('resolve'), ceiling)), atLeast(real('resolve'), ceiling, 0.9)],
    ['verify-vc ≥ 0.5× framework ceiling', fmtRatio(ratio(real('verify'), ceiling)), atLeast(real('verify'), ceiling, 0.5)],
    ...(['config', 'verify', 'resolve', 'prepare'] as const).map(
      (route): [string, string, boolean | undefined] => [`real service ahead of Prism: ${ROUTE_LABEL[route]}`, fmtRatio(ratio(real(route), prism(route))), atLeast(real(route), prism(route), 1)],
    ),
  ];

  const s = ctx.settings;
  const markdown = [
    '## HTTP throughput, side by side',
    '',
    `autocannon, ${s.connections} connections, ${s.warmup} s warm-up (discarded) then ${s.duration} s measured per case; every server in its own process, the load generator in another. ` +
      'Latency in whole milliseconds (autocannon\'s histogram; "<1" is under a millisecond). The ratios are to the framework ceiling and to bare node:http measured in this same run.',
    '',
    '- bare node:http: fixed JSON of the size of a real `/config` answer.',
    '- framework ceiling: Express 5 + express-openapi-validator (request validation on, response validation off, as the services run), one validated `GET /config` route of an inline OpenAPI 3.1 document, the same fixed JSON.',
    '- Prism mock: `prism mock` of `spec/vault-api.yaml` / `spec/did-resolver.yaml` with the specs\' example values.',
    `- real service: the vault API (testnet) and the resolver started as \`serve\` / \`resolver\` do, against the chain simulator over JSON-RPC in a separate process. verify-vc uses a standard key bound to a wallet and a credential issued through the API (auth, rate limit, chain read included); the resolution is of a registered DID with the cache warmed; prepare builds and simulates an issue transaction. Both resolvers are asked for \`${DID_ACCEPT}\`.`,
    `- ${raisedLimitsNote()}`,
    '',
    table(['route', 'server', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', '× framework', '× bare', 'note'], body, ['l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l']),
    '',
    '### Targets',
    '',
    table(['target', 'measured', 'verdict'], targets.map(([t, m, ok]) => [t, m, verdict(ok)])),
  ].join('\n');
  const summary = targets.map(([t, m, ok]) => `${t}: ${m} → ${ok === undefined ? 'not measured' : ok ? 'pass' : 'FAIL'}`);
  return { markdown, summary };
}
