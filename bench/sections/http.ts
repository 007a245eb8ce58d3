// HTTP throughput side by side: bare node:http (physical ceiling), Express 5 + express-openapi-validator
// (framework ceiling), the Prism mocks of the two specs, and the real services, route by route; on this
// Node and, with --node20-tree, on Node 20 with the product of before the migration (bench/lib/runtimes.ts).
// The two runtimes are measured alternately, case by case, so a change of the machine's load hits both.
import { startPrismMock, type PrismMock } from '../../contract-tests/helpers/prism.ts';
import { startHost } from '../lib/child.ts';
import { measureHttp, probe, type HttpCase, type HttpResult } from '../lib/http-load.ts';
import { fmtInt, fmtMs, fmtRatio, fmtRate, table, verdict } from '../lib/markdown.ts';
import type { Runtime } from '../lib/runtimes.ts';
import { attempt, wanted, type Outcome, type SectionContext, type SectionResult } from '../lib/section.ts';
import { FIXED_CONFIG } from '../lib/servers.ts';
import { raisedLimitsNote, startStack, type Stack } from '../lib/stack.ts';
import {
  KEY_HEADER,
  failureText,
  issueBody,
  issueCycle,
  vaultClient,
  type IssuerIdentity,
} from '../lib/vault-client.ts';

type Server =
  | 'bare node:http'
  | 'framework ceiling'
  | 'Prism mock'
  | 'real service'
  | 'real service, SDK assembly'
  | 'real service, SDK transport';

/** The setting that switches prepare's fast assembly off (src/chain/fast-assemble.ts), for the row beside it. */
const SDK_ASSEMBLY_FLAGS = ['--fast-assemble', 'false'] as const;
/** The setting that puts the SDK's own HTTP client under the RPC calls (src/chain/transport.ts off). */
const SDK_TRANSPORT_FLAGS = ['--rpc-transport', 'sdk'] as const;

/** The prepare rows of a vault API with one workaround switched off, each measured right after the real service's. */
const WORKAROUND_ROWS = [
  {
    name: 'service-prepare-sdk',
    server: 'real service, SDK assembly',
    flags: SDK_ASSEMBLY_FLAGS,
    vcId: 'bench-prepare-000002',
    note: `\`${SDK_ASSEMBLY_FLAGS.join(' ')}\` (CV_FAST_ASSEMBLE=false): the SDK's TransactionBuilder and assembleTransaction`,
  },
  {
    name: 'service-prepare-sdk-transport',
    server: 'real service, SDK transport',
    flags: SDK_TRANSPORT_FLAGS,
    vcId: 'bench-prepare-000003',
    note: `\`${SDK_TRANSPORT_FLAGS.join(' ')}\` (CV_RPC_TRANSPORT=sdk): the SDK's fetch-based HTTP client under every RPC call`,
  },
] as const;
type Route = 'config' | 'verify' | 'resolve' | 'prepare';

const ROUTE_LABEL: Record<Route, string> = {
  config: 'GET /config',
  verify: 'POST /contracts/vault/verify-vc',
  resolve: 'GET /1.0/identifiers/{did} (cached)',
  prepare: 'POST /contracts/vc/issue (prepare)',
};

interface Row {
  name: string;
  /** Runtime label (`Node 24`, `Node 20`). */
  runtime: string;
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
  return {
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', [KEY_HEADER]: key },
    body: JSON.stringify(body),
  };
}

/** A case, and what its row should say about how it was set up. */
type Case = HttpCase & { note?: string };
type Measure = (
  name: string,
  rt: Runtime,
  route: Route,
  server: Server,
  c: () => Promise<Case> | Case,
  inspect?: (body: unknown) => string,
  serverCpuUs?: () => Promise<number>,
) => Promise<void>;

export interface HttpRuntimes {
  /** This Node first, then Node 20 when it is measured. */
  runtimes: Runtime[];
  /** Why there are no Node 20 rows, when there are none. */
  node20Missing?: string;
}

const ROUTES: readonly Route[] = ['config', 'verify', 'resolve', 'prepare'];

/** The real /config answer against the baselines' fixed body: same fields, same size? */
function configShape(body: unknown): string {
  const fixed = JSON.stringify(FIXED_CONFIG).length;
  const real = JSON.stringify(body).length;
  const keys = body && typeof body === 'object' ? Object.keys(body) : [];
  const diff = [
    ...keys.filter((k) => !(k in FIXED_CONFIG)).map((k) => `+${k}`),
    ...Object.keys(FIXED_CONFIG)
      .filter((k) => !keys.includes(k))
      .map((k) => `−${k}`),
  ];
  return `answer ${real} B, the baselines' fixed body ${fixed} B; ${diff.length ? `fields differ: ${diff.join(' ')}` : 'same fields'}`;
}

export async function runHttpSection(ctx: SectionContext, rts: HttpRuntimes): Promise<SectionResult> {
  const rows: Row[] = [];
  const current = rts.runtimes[0]!;
  const measure: Measure = async (name, rt, route, server, c, inspect, serverCpuUs) => {
    if (!wanted(ctx, name)) return;
    let note: string | undefined;
    const outcome = await attempt(ctx, name, async () => {
      const hc = await c();
      note = hc.note;
      const body = await probe(hc);
      if (inspect) note = [note, inspect(body)].filter(Boolean).join('; ');
      const r = await measureHttp(hc, ctx.settings, serverCpuUs);
      const cpu = r.cpuUsPerRequest === undefined ? '' : `service CPU ${fmtInt(r.cpuUsPerRequest)} µs per request`;
      if (cpu) note = [note, cpu].filter(Boolean).join('; ');
      ctx.log(
        `    ${fmtRate(r.rps)} req/s, p50 ${fmtMs(r.p50)} ms, p99 ${fmtMs(r.p99)} ms, non-2xx ${r.non2xx}, errors ${r.errors}${cpu ? `, ${cpu}` : ''}`,
      );
      return r;
    });
    rows.push({ name, runtime: rt.label, route, server, outcome, ...(note ? { note } : {}) });
  };

  // Baselines, each in its own process, one runtime after the other.
  for (const [base, kind, server] of [
    ['bare', 'bare', 'bare node:http'],
    ['ceiling', 'express', 'framework ceiling'],
  ] as const) {
    for (const rt of rts.runtimes) {
      const name = `${rt.prefix}${base}`;
      if (!wanted(ctx, name)) continue;
      const host = await startHost<{ url: string }>({ kind }, undefined, rt.baseline).catch((e: Error) => e);
      if (host instanceof Error) {
        rows.push({ name, runtime: rt.label, route: 'config', server, outcome: { ok: false, error: host.message } });
        continue;
      }
      try {
        await measure(name, rt, 'config', server, () => ({ url: `${host.ready.url}/config` }));
      } finally {
        await host.stop();
      }
    }
  }

  // What a consumer would otherwise run: the Prism mocks of both specs (on this Node only).
  const prismCases = ['prism-config', 'prism-verify', 'prism-prepare'];
  if (prismCases.some((n) => wanted(ctx, n))) {
    await withPrism(ctx, current, 'spec/vault-api.yaml', rows, prismCases, async (mock) => {
      await measure('prism-config', current, 'config', 'Prism mock', () => ({ url: `${mock.url}/config` }));
      await measure('prism-verify', current, 'verify', 'Prism mock', () =>
        postCase(`${mock.url}/contracts/vault/verify-vc`, EXAMPLE_KEY, { owner: EXAMPLE_OWNER, vcId: 'vc-2026-0001' }),
      );
      await measure('prism-prepare', current, 'prepare', 'Prism mock', () =>
        postCase(`${mock.url}/contracts/vc/issue`, EXAMPLE_KEY, {
          owner: EXAMPLE_OWNER,
          vcId: 'vc-2026-0001',
          vcData:
            '{"@context":["https://www.w3.org/ns/credentials/v2"],"type":["VerifiableCredential"],"credentialSubject":{"id":"did:ledger:testnet:ugzmhvhf6ydrqkj2jnog27upsa"}}',
          issuer: EXAMPLE_OWNER,
          issuerDid: 'did:ledger:testnet:b4pc2pclljuxrb4wuw2mhuxb6a',
          sourcePublicKey: EXAMPLE_OWNER,
        }),
      );
    });
  }
  if (wanted(ctx, 'prism-resolve')) {
    await withPrism(ctx, current, 'spec/did-resolver.yaml', rows, ['prism-resolve'], async (mock) => {
      await measure('prism-resolve', current, 'resolve', 'Prism mock', () => ({
        url: `${mock.url}/1.0/identifiers/${EXAMPLE_DID}`,
        headers: { accept: DID_ACCEPT },
      }));
    });
  }

  // The real services: this Node's are the ones the other sections share; Node 20's live for this section only.
  const active = rts.runtimes.filter(
    (rt) =>
      ROUTES.some((r) => wanted(ctx, `${rt.prefix}service-${r}`)) ||
      (rt === current && WORKAROUND_ROWS.some((w) => wanted(ctx, w.name))),
  );
  const stacks = new Map<Runtime, Promise<Stack>>(
    active.map((rt) => [rt, rt === current ? ctx.stack() : startStack(ctx.log, rt.product)]),
  );
  for (const p of stacks.values()) p.catch(() => {}); // reported per case below
  try {
    const cases = new Map<Runtime, Record<Route, () => Promise<Case>> | Error>();
    for (const [rt, p] of stacks)
      cases.set(
        rt,
        await p.then(
          (st) => serviceCases(ctx, st),
          (e: Error) => e,
        ),
      );
    // Route by route, alternating the runtimes, so that a change of the machine's load hits both.
    for (const route of ROUTES) {
      for (const rt of active) {
        const name = `${rt.prefix}service-${route}`;
        const c = cases.get(rt)!;
        if (wanted(ctx, name)) {
          if (c instanceof Error) {
            rows.push({
              name,
              runtime: rt.label,
              route,
              server: 'real service',
              outcome: { ok: false, error: `services not running: ${c.message}` },
            });
            continue;
          }
          // prepare's rows also read the vault API process's CPU time: less exposed to the machine's load than req/s
          const cpu = route === 'prepare' && rt === current ? async () => (await stacks.get(rt)!).cpuUs() : undefined;
          await measure(name, rt, route, 'real service', c[route], route === 'config' ? configShape : undefined, cpu);
        }
        // What each workaround buys: the same prepare, right after, on a vault API with it switched off.
        for (const w of WORKAROUND_ROWS) {
          if (route !== 'prepare' || rt !== current || !wanted(ctx, w.name) || c instanceof Error) continue;
          const st = await stacks.get(rt)!;
          const cpu = async () => (await st.variant(w.flags)).cpuUs();
          await measure(w.name, rt, 'prepare', w.server, () => workaroundCase(st, w), undefined, cpu);
        }
      }
    }
  } finally {
    for (const [rt, p] of stacks) if (rt !== current) await (await p.catch(() => undefined))?.close();
  }

  return render(ctx, rts, rows);
}

async function withPrism(
  ctx: SectionContext,
  rt: Runtime,
  spec: string,
  rows: Row[],
  names: string[],
  fn: (mock: PrismMock) => Promise<void>,
): Promise<void> {
  let mock: PrismMock;
  try {
    mock = await startPrismMock(spec, { readyTimeoutMs: 120_000 });
  } catch (e) {
    const error = `Prism did not start: ${(e as Error).message.split('\n')[0]}`;
    ctx.log(`    ✗ ${error}`);
    for (const name of names.filter((n) => wanted(ctx, n))) {
      rows.push({
        name,
        runtime: rt.label,
        route: name.replace('prism-', '') as Route,
        server: 'Prism mock',
        outcome: { ok: false, error },
      });
    }
    return;
  }
  try {
    await fn(mock);
  } finally {
    await mock.stop();
  }
}

/** The four routes of one stack, each set up when its case runs. */
function serviceCases(ctx: SectionContext, stack: Stack): Record<Route, () => Promise<Case>> {
  // verify-vc: a real key, a credential issued through the API (prepare → sign → submit), a chain read per request.
  let issuer: IssuerIdentity | undefined;
  const fixtures = async () => {
    issuer ??= await stack.issuer();
    return issuer;
  };
  return {
    config: async () => ({ url: `${stack.vaultUrl()}/config` }),
    verify: async () => {
      const iss = await fixtures();
      const owner = await stack.owner();
      const vcId = 'bench-verify-000001';
      try {
        await issueCycle(vaultClient(stack.vaultUrl(), iss.key), iss, owner.keypair.publicKey(), vcId);
      } catch (e) {
        // The route under test is verify-vc: when issuing through the API fails, put the credential on chain directly.
        const note = `credential issued in-process (the issue route failed: ${failureText(e).slice(0, 120)})`;
        ctx.log(`    ! ${note}`);
        await stack.fill({ vault: owner.vault, issuer: iss, count: 1, prefix: 'bench-verify' });
        return {
          ...postCase(`${stack.vaultUrl()}/contracts/vault/verify-vc`, iss.key, {
            owner: owner.keypair.publicKey(),
            vcId: 'bench-verify-000000',
          }),
          note,
        };
      }
      return postCase(`${stack.vaultUrl()}/contracts/vault/verify-vc`, iss.key, {
        owner: owner.keypair.publicKey(),
        vcId,
      });
    },
    resolve: async () => {
      // Only a registered DID is needed here (no key): the resolver is measured even when the vault API is down.
      const did = issuer?.did ?? (await stack.sim.call<{ did: string }>('issuer')).did;
      const c: HttpCase = { url: `${stack.resolverUrl()}/1.0/identifiers/${did}`, headers: { accept: DID_ACCEPT } };
      await probe(c); // warms the cache
      return c;
    },
    prepare: async () => {
      const iss = await fixtures();
      const owner = await stack.owner();
      return postCase(
        `${stack.vaultUrl()}/contracts/vc/issue`,
        iss.key,
        issueBody(iss, owner.keypair.publicKey(), 'bench-prepare-000001'),
      );
    },
  };
}

/** Prepare as in serviceCases, on a second vault API started with a workaround switched off (same simulator). */
async function workaroundCase(stack: Stack, w: (typeof WORKAROUND_ROWS)[number]): Promise<Case> {
  const v = await stack.variant(w.flags);
  const iss = await stack.issuer();
  const owner = await stack.owner();
  const key = await v.key(iss.keypair.publicKey());
  return {
    ...postCase(`${v.url}/contracts/vc/issue`, key, issueBody({ ...iss, key }, owner.keypair.publicKey(), w.vcId)),
    note: w.note,
  };
}

type Target = [string, string, boolean | undefined, string];

function render(ctx: SectionContext, rts: HttpRuntimes, rows: Row[]): SectionResult {
  const [current, node20] = rts.runtimes;
  const rps = (name: string) => {
    const r = rows.find((x) => x.name === name);
    return r?.outcome.ok ? r.outcome.value.rps : undefined;
  };
  const ratio = (v: number | undefined, base: number | undefined) => (v !== undefined && base ? v / base : undefined);
  const prefixOf = (label: string) => rts.runtimes.find((rt) => rt.label === label)?.prefix ?? '';

  const body = rows.map((r) => {
    const label = [ROUTE_LABEL[r.route], r.server, r.runtime];
    if (!r.outcome.ok) return [...label, '—', '—', '—', '—', '—', '—', '—', `not measured: ${r.outcome.error}`];
    const v = r.outcome.value;
    const p = prefixOf(r.runtime);
    const statuses = Object.entries(v.statuses)
      .filter(([s]) => !s.startsWith('2'))
      .map(([s, n]) => `${s}×${n}`)
      .join(' ');
    return [
      ...label,
      fmtRate(v.rps),
      fmtMs(v.p50),
      fmtMs(v.p99),
      `${fmtInt(v.non2xx)}${statuses ? ` (${statuses})` : ''}`,
      fmtInt(v.errors),
      fmtRatio(ratio(v.rps, rps(`${p}ceiling`))),
      fmtRatio(ratio(v.rps, rps(`${p}bare`))),
      r.note ?? '',
    ];
  });

  // The same case on both runtimes, one line each.
  const pairs: (readonly string[])[] = [];
  if (node20) {
    for (const [base, route, server] of [
      ['bare', 'config', 'bare node:http'],
      ['ceiling', 'config', 'framework ceiling'],
      ...ROUTES.map((r) => [`service-${r}`, r, 'real service'] as const),
    ] as const) {
      const a = rps(`${node20.prefix}${base}`);
      const b = rps(`${current!.prefix}${base}`);
      if (a === undefined && b === undefined) continue;
      pairs.push([
        ROUTE_LABEL[route],
        server,
        a === undefined ? '—' : fmtRate(a),
        b === undefined ? '—' : fmtRate(b),
        fmtRatio(ratio(b, a)),
      ]);
    }
  }

  const ceiling = rps('ceiling');
  const real = (route: Route) => rps(`service-${route}`);
  const prism = (route: Route) => rps(`prism-${route}`);
  const old = (route: Route) =>
    node20 ? fmtRatio(ratio(rps(`${node20.prefix}service-${route}`), rps(`${node20.prefix}ceiling`))) : '—';
  const atLeast = (v: number | undefined, base: number | undefined, k: number) =>
    v === undefined || !base ? undefined : v >= k * base;
  const ceilingTarget = (label: string, route: Route, k: number): Target => [
    `${label} ≥ ${k}× framework ceiling`,
    fmtRatio(ratio(real(route), ceiling)),
    atLeast(real(route), ceiling, k),
    old(route),
  ];
  const targets: Target[] = [
    ceilingTarget('GET /config', 'config', 0.9),
    ceilingTarget('cached resolution', 'resolve', 0.9),
    ceilingTarget('verify-vc', 'verify', 0.6),
    ...(['prepare', 'config', 'verify', 'resolve'] as const).map(
      (route): Target => [
        `real service ahead of Prism: ${ROUTE_LABEL[route]}`,
        fmtRatio(ratio(real(route), prism(route))),
        atLeast(real(route), prism(route), 1),
        '—',
      ],
    ),
    [
      "the same, prepare with CV_FAST_ASSEMBLE=false (the SDK's assembly)",
      fmtRatio(ratio(rps('service-prepare-sdk'), prism('prepare'))),
      atLeast(rps('service-prepare-sdk'), prism('prepare'), 1),
      '—',
    ],
    [
      "the same, prepare with CV_RPC_TRANSPORT=sdk (the SDK's HTTP client)",
      fmtRatio(ratio(rps('service-prepare-sdk-transport'), prism('prepare'))),
      atLeast(rps('service-prepare-sdk-transport'), prism('prepare'), 1),
      '—',
    ],
  ];

  const s = ctx.settings;
  const node20Line = node20
    ? `- ${node20.label} rows: ${node20.description}. The current tree cannot run on Node 20 at all (it needs \`node:sqlite\` and Node's own type stripping), so these rows are of the product before the migration, with its own chain simulator on Node 20. The two baselines are the same code and packages on both Nodes: this tree's \`bench/lib/servers.ts\`, loaded on Node 20 through that tree's tsx.`
    : `- Node 20 rows: not measured in this run (${rts.node20Missing ?? 'no --node20-tree given'}). \`npm run bench -- --node20-tree <checkout of the pre-migration product, npm ci done>\` adds them; the current tree cannot run on Node 20 itself (it needs \`node:sqlite\` and Node's own type stripping).`;
  const markdown = [
    '## HTTP throughput, side by side',
    '',
    `autocannon, ${s.connections} connections, ${s.warmup} s warm-up (discarded) then ${s.duration} s measured per case; every server in its own process, the load generator (on ${current!.label}) in another. ` +
      'Latency in whole milliseconds (autocannon\'s histogram; "<1" is under a millisecond). The ratios are to the framework ceiling and to bare node:http of the same runtime, measured in this same run; each case runs on one runtime, then the same case on the other.',
    '',
    `- ${current!.label} rows: ${current!.description}.`,
    node20Line,
    '- bare node:http: the fixed JSON of a real `/config` answer (same fields and size; the real `/config` rows say how their answer compares).',
    '- framework ceiling: Express 5 + express-openapi-validator (request validation on, response validation off, as the services run), one validated `GET /config` route of an inline OpenAPI 3.1 document, the same fixed JSON.',
    `- Prism mock (${current!.label} only): \`prism mock\` of \`spec/vault-api.yaml\` / \`spec/did-resolver.yaml\` with the specs' example values.`,
    `- real service: the vault API (testnet) and the resolver started as \`serve\` / \`resolver\` do, against the chain simulator over JSON-RPC in a separate process. verify-vc uses a standard key bound to a wallet and a credential issued through the API (auth, rate limit, chain read included); the resolution is of a registered DID with the cache warmed; prepare builds and simulates an issue transaction. Both resolvers are asked for \`${DID_ACCEPT}\`.`,
    `- real service, SDK assembly (${current!.label} only): prepare, measured right after the real service's, on a second vault API against the same simulator started with \`${SDK_ASSEMBLY_FLAGS.join(' ')}\`: the SDK's TransactionBuilder and rpc.assembleTransaction instead of the XDR written once (src/chain/fast-assemble.ts). The two prepare rows side by side are what that workaround buys; their notes give the vault API process's CPU time per request over the measured run, less exposed to other work on the machine than req/s.`,
    `- real service, SDK transport (${current!.label} only): the same, on a third vault API started with \`${SDK_TRANSPORT_FLAGS.join(' ')}\`: the SDK's own fetch-based HTTP client under every RPC call instead of src/chain/transport.ts; beside the real service's prepare row it is what that workaround buys.`,
    `- ${raisedLimitsNote()}`,
    '',
    table(
      ['route', 'server', 'runtime', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx', 'errors', '× framework', '× bare', 'note'],
      body,
      ['l', 'l', 'l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'l'],
    ),
    ...(pairs.length
      ? [
          '',
          `### ${node20!.label} and ${current!.label}, case by case`,
          '',
          table(
            [
              'route',
              'server',
              `${node20!.label} req/s`,
              `${current!.label} req/s`,
              `${current!.label} ÷ ${node20!.label}`,
            ],
            pairs,
            ['l', 'l', 'r', 'r', 'r'],
          ),
        ]
      : []),
    '',
    '### Targets',
    '',
    `Of the product on ${current!.label}; the last column is the same ratio for the product on Node 20 before the migration, against its own ceiling, for comparison only.`,
    '',
    table(
      ['target', 'measured', 'verdict', 'Node 20 (before)'],
      targets.map(([t, m, ok, o]) => [t, m, verdict(ok), o]),
    ),
  ].join('\n');
  const summary = [
    ...pairs.map((p) => `${p[0]} ${p[1]}: ${node20!.label} ${p[2]} req/s, ${current!.label} ${p[3]} req/s (${p[4]})`),
    ...targets.map(([t, m, ok]) => `${t}: ${m} → ${ok === undefined ? 'not measured' : ok ? 'pass' : 'FAIL'}`),
  ];
  return { markdown, summary };
}
