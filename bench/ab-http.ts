// Before/after in one process: the vault API and the resolver of this tree and of another checkout (`--before
// <dir>`, npm ci done or its node_modules linked), each route measured on both, alternately, for `--rounds`
// rounds, so that the machine's load falls on both alike. Reports requests per second and this process's
// CPU time per request (both apps run in it; the load generator too, equally for both).
//   node bench/ab-http.ts --before /path/to/checkout [--rounds 4] [--duration 3]
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import autocannon, { type Options, type Result } from 'autocannon';
import { parseFlags } from './lib/args.ts';

const flags = parseFlags(process.argv.slice(2), [
  { name: 'before', kind: 'string', doc: 'checkout of the tree to compare with' },
  { name: 'rounds', kind: 'number', default: 4, doc: 'alternating rounds per route' },
  { name: 'duration', kind: 'number', default: 3, doc: 'seconds per measurement' },
]);
const HERE = path.resolve(import.meta.dirname, '..');

const G = 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR';
const many = { read: 1e9, write: 1e9 };

interface Target {
  vault: string;
  resolver: string;
  key: string;
  close(): Promise<void>;
}

async function start(root: string): Promise<Target> {
  const v = await import(pathToFileURL(path.join(root, 'test-support/vault-api.ts')).href);
  const r = await import(pathToFileURL(path.join(root, 'test-support/resolver.ts')).href);
  const vault = await v.startVaultTestEnv({
    chain: v.stubChain(),
    contractRoutes: v.stubContractRoutes().router,
    limits: { rateLimits: { standard: many, early: many, admin: many } },
    validateResponses: false,
  });
  const key = (await vault.mintKey({ wallet: null, role: 'admin' })).key;
  const resolver = await r.startHarness({ validateResponses: false, limits: { rateLimit: 1e9 } });
  return {
    vault: vault.url,
    resolver: resolver.url,
    key,
    close: async () => {
      await vault.close();
      await resolver.close();
    },
  };
}

/** The routes measured: each a request on a target (both trees must answer it with the same status). */
const ROUTES: { name: string; req: (t: Target) => Options }[] = [
  { name: 'vault GET /health', req: (t) => ({ url: `${t.vault}/health` }) },
  { name: 'vault GET /config', req: (t) => ({ url: `${t.vault}/config` }) },
  {
    name: 'vault GET /contracts/vault/vc-count (keyed, stub)',
    req: (t) => ({ url: `${t.vault}/contracts/vault/vc-count?owner=${G}`, headers: { 'x-svc-key': t.key } }),
  },
  {
    name: 'vault POST /contracts/vc/issue without a key (401)',
    req: (t) => post(`${t.vault}/contracts/vc/issue`, {}),
  },
  {
    name: 'vault POST /contracts/vc/issue, bad body (400)',
    req: (t) => post(`${t.vault}/contracts/vc/issue`, { owner: 'x' }, { 'x-svc-key': t.key }),
  },
  { name: 'vault DELETE /health (405)', req: (t) => ({ url: `${t.vault}/health`, method: 'DELETE' }) },
  { name: 'resolver GET /health', req: (t) => ({ url: `${t.resolver}/health` }) },
  {
    name: 'resolver POST /v1/dids/stellar, bad body (400)',
    req: (t) => post(`${t.resolver}/v1/dids/stellar`, { did: 'nope' }),
  },
];

function post(url: string, body: unknown, headers: Record<string, string> = {}): Options {
  return {
    url,
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'content-type': 'application/json', ...headers },
  };
}

const run = (o: Options) =>
  new Promise<Result>((resolve, reject) =>
    autocannon({ ...o, connections: 10, duration: Number(flags.duration) }, (err, r) =>
      err ? reject(err) : resolve(r),
    ),
  );

/** One measurement: requests per second, this process's CPU per request, and the one status every answer had. */
async function measure(o: Options) {
  const cpu = process.cpuUsage();
  const r = await run(o);
  const used = process.cpuUsage(cpu);
  const statuses = Object.keys(r.statusCodeStats);
  if (r.errors > 0 || statuses.length !== 1) throw new Error(`${o.url}: errors ${r.errors}, statuses ${statuses}`);
  return { rps: r.requests.average, cpuUs: (used.user + used.system) / r.requests.total, status: statuses[0] ?? '' };
}

const before = await start(path.resolve(String(flags.before)));
const after = await start(HERE);
const rows: string[] = [];
for (const route of ROUTES) {
  // Warm-up, not counted: a validator compiles a route's schemas on its first request.
  for (const t of [before, after]) await run({ ...route.req(t), duration: 1 });
  const sums = { before: { rps: 0, cpu: 0, status: '' }, after: { rps: 0, cpu: 0, status: '' } };
  for (let i = 0; i < Number(flags.rounds); i++) {
    for (const [label, t] of (i % 2 === 0
      ? [
          ['before', before],
          ['after', after],
        ]
      : [
          ['after', after],
          ['before', before],
        ]) as ['before' | 'after', Target][]) {
      const m = await measure(route.req(t));
      sums[label].status = m.status;
      sums[label].rps += m.rps;
      sums[label].cpu += m.cpuUs;
    }
  }
  if (sums.before.status !== sums.after.status)
    throw new Error(`${route.name}: ${sums.before.status} ≠ ${sums.after.status}`);
  const n = Number(flags.rounds);
  const [b, a] = [sums.before, sums.after].map((s) => ({ rps: s.rps / n, cpu: s.cpu / n }));
  const row = `| ${route.name} → ${sums.after.status} | ${b!.rps.toFixed(0)} req/s, ${b!.cpu.toFixed(0)} µs | ${a!.rps.toFixed(0)} req/s, ${a!.cpu.toFixed(0)} µs | ${(a!.rps / b!.rps).toFixed(2)}× |`;
  console.log(row);
  rows.push(row);
}
await before.close();
await after.close();
console.log(['| route | before | after | after/before req/s |', '|---|---|---|---|', ...rows].join('\n'));
process.exit(0);
