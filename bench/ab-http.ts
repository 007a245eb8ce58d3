// Before/after in one run: the vault API and the resolver of this tree and of another checkout (`--before
// <dir>`, npm ci done or its node_modules linked). Each tree's apps run in a process of their own (in one process
// the app started second was the slower, whichever it was), a fresh pair each round, started and measured in
// alternating order (each route's warm-up too, so neither tree is measured fresher off its warm-up), so that the
// machine's load falls on both alike; an even number of rounds, so each order counts as often. Reports, per route,
// the median and range of the rounds' after/before ratios of requests per second and of the tree's CPU time per
// request (the load generator runs here, equally for both). `--before .` measures the method's own noise (A/A).
//   node bench/ab-http.ts --before /path/to/checkout [--rounds 6] [--duration 3] [--only <route name part>]
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import autocannon, { type Options, type Result } from 'autocannon';
import { parseFlags } from './lib/args.ts';
import { median } from './lib/stats.ts';

const flags = parseFlags(process.argv.slice(2), [
  { name: 'before', kind: 'string', doc: 'checkout of the tree to compare with' },
  { name: 'rounds', kind: 'number', default: 6, doc: 'rounds, each a fresh pair of processes (even)' },
  { name: 'duration', kind: 'number', default: 3, doc: 'seconds per measurement' },
  { name: 'only', kind: 'string', default: '', doc: 'measure only the routes whose name contains this' },
]);
const HERE = path.resolve(import.meta.dirname, '..');
const n = Number(flags.rounds);
// Half the rounds measure `before` first, half `after` first: an odd count would give one order one more round.
if (!(n > 0 && n % 2 === 0)) throw new Error(`--rounds must be an even number above 0, not ${flags.rounds}`);

const G = 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR';

interface Target {
  vault: string;
  resolver: string;
  key: string;
  /** The process's CPU time so far, in microseconds. */
  cpu(): Promise<number>;
  close(): void;
}

/** Its stdout is dropped (request logs would cost this process); stderr passes through. */
async function start(root: string): Promise<Target> {
  const child: ChildProcess = fork(path.join(HERE, 'bench/lib/ab-target.ts'), [root], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const ready = await new Promise<{ vault: string; resolver: string; key: string }>((resolve, reject) => {
    child.once('message', resolve as (m: unknown) => void);
    child.once('exit', (code) => reject(new Error(`${root}: the apps' process exited (${code}) before it was ready`)));
  });
  return {
    ...ready,
    cpu: () =>
      new Promise((resolve) => {
        child.once('message', (m) => resolve((m as { cpu: number }).cpu));
        child.send('cpu');
      }),
    close: () => child.disconnect(),
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

const run = (o: Options, seconds = Number(flags.duration)) =>
  new Promise<Result>((resolve, reject) =>
    autocannon({ ...o, connections: 10, duration: seconds }, (err, r) => (err ? reject(err) : resolve(r))),
  );

/** One measurement: requests per second, the tree's CPU per request, and the one status every answer had. */
async function measure(t: Target, o: Options) {
  const cpu = await t.cpu();
  const r = await run(o);
  const used = (await t.cpu()) - cpu;
  const statuses = Object.keys(r.statusCodeStats);
  if (r.errors > 0 || statuses.length !== 1) throw new Error(`${o.url}: errors ${r.errors}, statuses ${statuses}`);
  return { rps: r.requests.average, cpuUs: used / r.requests.total, status: statuses[0] ?? '' };
}

/** Both, `before` first or `after` first; answered as [before, after]. */
async function inOrder<T>(beforeFirst: boolean, before: () => Promise<T>, after: () => Promise<T>): Promise<[T, T]> {
  if (beforeFirst) {
    const b = await before();
    return [b, await after()];
  }
  const a = await after();
  return [await before(), a];
}

const routes = ROUTES.filter((r) => r.name.includes(String(flags.only)));
/** Per route, each round's after/before ratios of requests per second and of CPU per request. */
const ratios = routes.map(() => ({ rps: [] as number[], cpu: [] as number[], status: '', cpuUs: [0, 0] }));
for (let round = 0; round < n; round++) {
  // A fresh pair of processes each round: one process's JIT and heap differ from another's by up to ~20 % on a
  // route, so the rounds sample processes, not only time. Started and measured in alternating order.
  const first = round % 2 === 0;
  const [before, after] = await inOrder(
    first,
    () => start(path.resolve(String(flags.before))),
    () => start(HERE),
  );
  for (const [i, route] of routes.entries()) {
    // Warm-up, not counted: a validator compiles a route's schemas on its first request. In the order of the
    // measurements, so that each tree waits as long between its warm-up and its measurement over the rounds.
    await inOrder(
      first,
      () => run(route.req(before), 1),
      () => run(route.req(after), 1),
    );
    const [bm, a] = await inOrder(
      first,
      () => measure(before, route.req(before)),
      () => measure(after, route.req(after)),
    );
    if (bm.status !== a.status) throw new Error(`${route.name}: ${bm.status} ≠ ${a.status}`);
    const r = ratios[i]!;
    r.status = a.status;
    r.rps.push(a.rps / bm.rps);
    r.cpu.push(a.cpuUs / bm.cpuUs);
    r.cpuUs = [r.cpuUs[0]! + bm.cpuUs, r.cpuUs[1]! + a.cpuUs];
  }
  before.close();
  after.close();
}
const range = (xs: number[]) => `${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}`;
const rows = routes.map((route, i) => {
  const r = ratios[i]!;
  const [b, a] = r.cpuUs.map((c) => (c / n).toFixed(0));
  return `| ${route.name} → ${r.status} | ${median(r.rps).toFixed(2)}× (${range(r.rps)}) | ${b} → ${a} µs, ${median(r.cpu).toFixed(2)}× (${range(r.cpu)}) |`;
});
console.log(
  [
    `${n} rounds, each a fresh pair of processes; after/before, median of the rounds (range):`,
    '| route → status | requests per second | CPU per request (mean before → after) |',
    '|---|---|---|',
    ...rows,
  ].join('\n'),
);
process.exit(0);
