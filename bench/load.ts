// npm run load: sustained mixed traffic against ONE and then TWO `credential-vault serve` processes sharing
// PostgreSQL (a fresh schema) and Redis, pointed at one chain simulator started here; writes the `load`
// section of docs/benchmarks.md. Bounded: --duration seconds per phase, 127.0.0.1 only.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Keypair } from '@stellar/stellar-sdk';
import pg from 'pg';
import { freePort } from '../contract-tests/helpers/prism.ts';
import { createStores, type Stores } from '../src/stores/index.ts';
import { listFlag, parseFlags, UsageError, type FlagSpec } from './lib/args.ts';
import { ROOT, rssOf, startHost, startProcess, type Host, type Proc } from './lib/child.ts';
import { machineInfo, machineSummary } from './lib/machine.ts';
import { fmtInt, fmtRate, table, updateDoc } from './lib/markdown.ts';
import {
  OPS,
  OP_LABEL,
  parseMix,
  runMixedTraffic,
  type ReadVault,
  type TrafficResult,
  type Worker,
} from './lib/mixed-traffic.ts';
import { RAISED_LIMIT_FLAGS, profileFlags, raisedLimitsNote, type SimReady } from './lib/stack.ts';
import { ms } from './lib/stats.ts';

const FLAGS: FlagSpec[] = [
  { name: 'duration', kind: 'number', default: 30, doc: 'seconds of traffic per phase' },
  { name: 'instances', kind: 'string', default: '1,2', doc: 'phases: numbers of vault API processes' },
  { name: 'concurrency', kind: 'number', default: 16, doc: 'concurrent clients (each its own issuer account)' },
  { name: 'mix', kind: 'string', default: 'verify:40,count:20,list:20,prepare:15,cycle:5', doc: 'operation weights' },
  { name: 'read-vaults', kind: 'number', default: 4, doc: 'vaults the reads go to' },
  { name: 'read-vault-size', kind: 'number', default: 200, doc: 'credentials in each of them' },
  {
    name: 'database-url',
    kind: 'string',
    default: 'postgres://postgres@127.0.0.1:5432/test',
    doc: 'PostgreSQL; a fresh schema is created in it and dropped at the end',
  },
  {
    name: 'redis-url',
    kind: 'string',
    default: 'redis://127.0.0.1:6379/9',
    doc: "Redis (its own database number: the service's key prefix is fixed)",
  },
  {
    name: 'out',
    kind: 'string',
    default: 'docs/benchmarks.md',
    doc: 'markdown file (only the load section is replaced)',
  },
];

interface Phase {
  instances: number;
  traffic: TrafficResult;
  memory: { pid: number; startMiB?: number; endMiB?: number }[];
}

const mib = (b: number | undefined) => (b === undefined ? undefined : Math.round((b / 2 ** 20) * 10) / 10);

function loopbackOnly(url: string): void {
  const host = new URL(url).hostname;
  if (host !== '127.0.0.1' && host !== 'localhost')
    throw new UsageError(`${url}: the load test talks to 127.0.0.1 only`);
}

async function main(): Promise<number> {
  let flags;
  try {
    flags = parseFlags(process.argv.slice(2), FLAGS);
    loopbackOnly(String(flags['database-url']));
    loopbackOnly(String(flags['redis-url']));
  } catch (e) {
    if (e instanceof UsageError) {
      console.error(e.message);
      return 2;
    }
    throw e;
  }
  const seconds = Number(flags.duration);
  const phases = [...(listFlag(flags.instances) ?? [])].map(Number);
  if (phases.some((n) => !Number.isInteger(n) || n < 1 || n > 4)) {
    console.error('--instances: a comma list of 1 to 4');
    return 2;
  }
  const mix = parseMix(String(flags.mix));
  const concurrency = Math.min(64, Math.floor(Number(flags.concurrency)));
  const machine = machineInfo();
  console.log(`credential-vault load — ${machineSummary(machine)}`);
  console.log(`rate limits raised for the load test: ${RAISED_LIMIT_FLAGS.join(' ')}`);

  const schema = `cv_load_${process.pid}_${randomBytes(3).toString('hex')}`;
  const baseDb = String(flags['database-url']);
  const databaseUrl = `${baseDb}${baseDb.includes('?') ? '&' : '?'}options=${encodeURIComponent(`-c search_path=${schema}`)}`;
  const redisUrl = String(flags['redis-url']);
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'cv-load-'));
  const encryptionKeys = `load:${randomBytes(32).toString('base64')}`;
  const cleanups: (() => Promise<unknown>)[] = [() => rm(tmp, { recursive: true, force: true })];
  const results: Phase[] = [];
  try {
    await adminQuery(baseDb, `CREATE SCHEMA ${schema}`);
    cleanups.push(() => adminQuery(baseDb, `DROP SCHEMA IF EXISTS ${schema} CASCADE`));
    console.log(`PostgreSQL schema ${schema}; Redis ${redisUrl}`);

    const sim = await startHost<SimReady>({ kind: 'simulator' });
    cleanups.push(() => sim.stop());
    const stores = createStores({ dataDir: path.join(tmp, 'keys'), databaseUrl });
    cleanups.push(() => stores.close());
    const { workers, reads } = await fixtures(
      sim,
      stores,
      concurrency,
      Number(flags['read-vaults']),
      Number(flags['read-vault-size']),
    );

    for (const n of phases) {
      console.log(`\n== ${n} instance${n > 1 ? 's' : ''}: ${seconds} s of mixed traffic, ${concurrency} clients`);
      const procs: Proc[] = [];
      try {
        for (let i = 0; i < n; i++)
          procs.push(
            await startServe(sim.ready, {
              databaseUrl,
              redisUrl,
              encryptionKeys,
              dataDir: path.join(tmp, `p${n}-i${i}`),
            }),
          );
        const urls = procs.map((p) => urlOf(p));
        const startRss = await Promise.all(procs.map((p) => rssOf(p.pid)));
        const traffic = await runMixedTraffic({
          urls,
          workers,
          reads,
          mix,
          seconds,
          tag: `load${n}-${Date.now().toString(36)}`,
        });
        const endRss = await Promise.all(procs.map((p) => rssOf(p.pid)));
        const phase: Phase = {
          instances: n,
          traffic,
          memory: procs.map((p, i) => ({
            pid: p.pid,
            ...opt('startMiB', mib(startRss[i])),
            ...opt('endMiB', mib(endRss[i])),
          })),
        };
        results.push(phase);
        console.log(
          `   ${fmtRate(traffic.requests / traffic.seconds)} req/s, ${fmtInt(traffic.operations)} operations, outcomes ${JSON.stringify(traffic.outcomes)}`,
        );
        console.log(`   RSS MiB: ${phase.memory.map((m) => `${m.startMiB} → ${m.endMiB}`).join(', ')}`);
      } finally {
        for (const p of procs) await p.stop();
      }
    }
  } finally {
    for (const c of cleanups.reverse())
      await c().catch((e: unknown) => console.error(`cleanup: ${(e as Error).message}`));
  }
  const out = path.resolve(ROOT, String(flags.out));
  await updateDoc(out, {
    load: render(results, {
      seconds,
      concurrency,
      mix: String(flags.mix),
      machine: machineSummary(machine),
      busy: machine.load1 > machine.cores,
    }),
  });
  console.log(`\nwrote the load section of ${path.relative(ROOT, out)}`);
  return 0;
}

const opt = <K extends string, V>(k: K, v: V | undefined) => (v === undefined ? {} : ({ [k]: v } as Record<K, V>));

async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

async function fixtures(
  sim: Host<SimReady>,
  stores: Stores,
  workersN: number,
  readVaults: number,
  readSize: number,
): Promise<{ workers: Worker[]; reads: ReadVault[] }> {
  const key = async (wallet: string) =>
    (
      await stores.keys.create({
        walletAddress: wallet,
        network: 'testnet',
        role: 'standard',
        scopes: [],
        expiresAt: null,
      })
    ).key;
  const t0 = performance.now();
  const reads: ReadVault[] = [];
  const filler = await sim.call<{ publicKey: string; did: string }>('issuer');
  for (let v = 0; v < readVaults; v++) {
    const owner = await sim.call<{ publicKey: string; vault: string }>('owner');
    await sim.call('fill', { vault: owner.vault, issuer: filler.publicKey, count: readSize, prefix: `read${v}` });
    reads.push({
      owner: owner.publicKey,
      key: await key(owner.publicKey),
      vcIds: Array.from({ length: readSize }, (_, i) => `read${v}-${String(i).padStart(6, '0')}`),
    });
  }
  const workers: Worker[] = [];
  for (let w = 0; w < workersN; w++) {
    const i = await sim.call<{ secret: string; publicKey: string; did: string }>('issuer');
    const owner = await sim.call<{ publicKey: string }>('owner');
    workers.push({
      issuer: { keypair: Keypair.fromSecret(i.secret), did: i.did, key: await key(i.publicKey) },
      owner: owner.publicKey,
    });
  }
  console.log(
    `fixtures: ${readVaults} vaults of ${readSize} credentials, ${workersN} issuers with keys and DIDs (${fmtInt(performance.now() - t0)} ms)`,
  );
  return { workers, reads };
}

async function startServe(
  sim: SimReady,
  o: { databaseUrl: string; redisUrl: string; encryptionKeys: string; dataDir: string },
): Promise<Proc> {
  const port = await freePort();
  const args = [
    path.join(ROOT, 'bin', 'credential-vault.js'),
    'serve',
    '--network',
    'testnet',
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--simulator',
    'false',
    ...profileFlags(sim, ['testnet']),
    '--database-url',
    o.databaseUrl,
    '--redis-url',
    o.redisUrl,
    '--encryption-keys',
    o.encryptionKeys,
    '--data-dir',
    o.dataDir,
    ...RAISED_LIMIT_FLAGS,
  ];
  return startProcess(args, { readyWhen: /vault API testnet\s+http:\/\/\S+/, timeoutMs: 60_000 });
}

function urlOf(p: Proc): string {
  const m = /vault API testnet\s+(http:\/\/\S+)/.exec(p.output());
  if (!m) throw new Error(`no URL in the serve output: ${p.output()}`);
  return m[1]!;
}

function render(
  phases: Phase[],
  o: { seconds: number; concurrency: number; mix: string; machine: string; busy: boolean },
): string {
  const lines = [
    '## Load: mixed traffic, one and two instances',
    '',
    `\`npm run load\`: ${o.concurrency} concurrent clients for ${o.seconds} s per phase, operation weights \`${o.mix}\` (reads spread over pre-filled vaults; each client is its own issuer issuing into its own owner's vault; a full cycle is prepared on one instance and submitted on the next). ` +
      'Each phase starts fresh `credential-vault serve` processes (`--simulator false`, pointed at one chain simulator process started by the script) sharing PostgreSQL (a fresh schema, dropped afterwards) for keys and idempotency records and Redis for the rate-limit windows; requests go round-robin to the instances. Latency is per operation (a cycle is two requests and a signature).',
    '',
    `- ${raisedLimitsNote().replace('embedded stores', 'PostgreSQL + Redis')}`,
    `- ${o.machine}`,
    ...(o.busy || o.seconds < 30
      ? [
          '',
          `> **Indicative only:** ${[o.seconds < 30 ? `a short run (${o.seconds} s per phase)` : '', o.busy ? 'a busy machine (load average above the core count at the start)' : ''].filter(Boolean).join(' on ')}. Re-run \`npm run load\` on a quiet machine for figures to quote.`,
        ]
      : []),
  ];
  for (const ph of phases) {
    const t = ph.traffic;
    lines.push('', `### ${ph.instances} instance${ph.instances > 1 ? 's' : ''}`, '');
    lines.push(
      `${fmtInt(t.requests)} HTTP requests in ${t.seconds.toFixed(1)} s = **${fmtRate(t.requests / t.seconds)} req/s** (${fmtRate(t.operations / t.seconds)} operations/s).`,
      '',
    );
    const rows = OPS.filter((op) => t.perOp[op].latency.count > 0).map((op) => {
      const s = t.perOp[op];
      const errors =
        Object.entries(s.outcomes)
          .filter(([k]) => k !== '200')
          .map(([k, n]) => `${k} ×${n}`)
          .join(', ') || '0';
      return [
        OP_LABEL[op],
        fmtInt(s.latency.count),
        fmtRate(s.latency.count / t.seconds),
        ms(s.latency.p50),
        ms(s.latency.p99),
        errors,
      ];
    });
    const allErrors =
      Object.entries(t.outcomes)
        .filter(([k]) => k !== '200')
        .map(([k, n]) => `${k} ×${n}`)
        .join(', ') || '0';
    rows.push([
      '**all operations**',
      fmtInt(t.overall.count),
      fmtRate(t.overall.count / t.seconds),
      ms(t.overall.p50),
      ms(t.overall.p99),
      allErrors,
    ]);
    lines.push(
      table(['operation', 'count', 'per s', 'p50 ms', 'p99 ms', 'errors by status'], rows, [
        'l',
        'r',
        'r',
        'r',
        'r',
        'l',
      ]),
      '',
    );
    lines.push(
      table(
        ['process', 'RSS at start (MiB)', 'RSS at end (MiB)'],
        ph.memory.map((m, i) => [`serve #${i + 1}`, String(m.startMiB ?? '—'), String(m.endMiB ?? '—')]),
        ['l', 'r', 'r'],
      ),
    );
  }
  return lines.join('\n');
}

process.exitCode = await main();
setTimeout(() => process.exit(), 2_000).unref();
