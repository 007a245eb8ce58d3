// The embedded idempotency store's own speed: sequential begin + complete pairs (what one idempotent write
// request costs the store) on the SQLite database holding 0, 10,000 and 100,000 live records, and the
// memory store as reference. In process, one store, no HTTP. The existing records are written as a former
// idempotency.json that a first store imports (untimed); the measured store then opens that database: its
// first operation (open, migrations check, first statement) is shown apart.
// Then the API key lookup that authenticates every keyed request: the SQLite store read, and the same store
// behind the key cache (src/stores/key-cache.ts) as the services run it.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LRUCache } from 'lru-cache';
import { createStores } from '../../src/stores/index.ts';
import { DB_FILE, FORMER_IDEMPOTENCY_FILE, createSqliteStores } from '../../src/stores/sqlite.ts';
import { createMemoryIdempotencyStore } from '../../src/stores/memory.ts';
import type { IdempotencyRecord } from '../../src/stores/records.ts';
import {
  IDEMPOTENCY_TTL_MS,
  type ApiKeyRecord,
  type CreateKeyInput,
  type IdempotencyStore,
  type StoredResponse,
} from '../../src/stores/types.ts';
import { fmtInt, fmtRate, table } from '../lib/markdown.ts';
import { attempt, wanted, type Outcome, type SectionContext, type SectionResult } from '../lib/section.ts';
import { ms, timedAsync, type Rate } from '../lib/stats.ts';

export const STORE_SIZES = [0, 10_000, 100_000];

interface StoreRow {
  name: string;
  backend: 'sqlite' | 'memory';
  existing: number;
  /** Database size (with its WAL) before the run, bytes. */
  fileBytes?: number;
  /** The measured store's first operation: opening the database. */
  loadMs?: number;
  outcome: Outcome<Rate>;
}

/** A response the size of a typical vault write answer (a transaction hash and a few fields). */
function response(i: number): StoredResponse {
  return {
    status: 200,
    headers: { 'content-type': 'application/json; charset=utf-8', 'x-request-id': randomBytes(8).toString('hex') },
    body: {
      txHash: randomBytes(32).toString('hex'),
      status: 'SUCCESS',
      ledger: 1_000 + i,
      vcId: `vc-${i}`,
      fee: '100',
    },
  };
}

/** begin + complete of fresh keys back to back for `seconds`. */
async function pairs(store: IdempotencyStore, seconds: number, prefix: string): Promise<Rate> {
  return timedAsync(seconds, async (i) => {
    const key = `${prefix}-${i}`;
    const begun = await store.begin({ scope: 'bench', key, requestHash: 'h' });
    return begun.state === 'started' && (await store.complete('bench', key, begun.token, response(i)));
  });
}

/** The former whole-file document with `count` completed records, live for 24 hours. */
async function writeLegacy(dir: string, count: number): Promise<void> {
  const now = Date.now();
  const records: IdempotencyRecord[] = Array.from({ length: count }, (_, i) => ({
    scope: `key-${i % 100}`,
    key: `existing-${i}-${randomBytes(6).toString('hex')}`,
    requestHash: randomBytes(32).toString('hex'),
    token: randomBytes(16).toString('hex'),
    state: 'completed',
    response: JSON.stringify(response(i)),
    createdAtMs: now,
    expiresAtMs: now + IDEMPOTENCY_TTL_MS,
  }));
  await writeFile(path.join(dir, FORMER_IDEMPOTENCY_FILE), JSON.stringify({ version: 1, records }));
}

const dbBytes = async (dir: string): Promise<number> => {
  const size = (f: string) =>
    stat(path.join(dir, f)).then(
      (s) => s.size,
      () => 0,
    );
  return (await size(DB_FILE)) + (await size(`${DB_FILE}-wal`));
};

async function sqliteCase(ctx: SectionContext, existing: number, row: StoreRow): Promise<Rate> {
  const dir = await mkdtemp(path.join(tmpdir(), 'cv-bench-stores-'));
  try {
    if (existing > 0) {
      await writeLegacy(dir, existing);
      const importing = createSqliteStores({ dataDir: dir });
      await importing.idempotency.begin({ scope: 'bench', key: 'import', requestHash: 'h' });
      await importing.close();
    }
    const store = createSqliteStores({ dataDir: dir });
    try {
      const t = performance.now();
      await store.idempotency.begin({ scope: 'bench', key: 'first', requestHash: 'h' });
      row.loadMs = performance.now() - t;
      row.fileBytes = await dbBytes(dir);
      ctx.log(`    database ${fmtInt(row.fileBytes / 1024)} KiB, first operation (open) ${ms(row.loadMs)} ms`);
      await pairs(store.idempotency, ctx.settings.warmup, 'warm');
      return await pairs(store.idempotency, ctx.settings.duration, 'run');
    } finally {
      await store.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

async function memoryCase(ctx: SectionContext): Promise<Rate> {
  const store = createMemoryIdempotencyStore();
  await pairs(store, ctx.settings.warmup, 'warm');
  return pairs(store, ctx.settings.duration, 'run');
}

/** Keys looked up in turn by the key-lookup cases (as many callers, each with its own key). */
const LOOKUP_KEYS = 1_000;

interface KeyRow {
  name: string;
  cached: boolean;
  outcome: Outcome<Rate>;
}

/** Lookups of LOOKUP_KEYS known keys in turn, one at a time, with the embedded store (and the key cache). */
async function keyLookupCase(ctx: SectionContext, cached: boolean): Promise<Rate> {
  const dir = await mkdtemp(path.join(tmpdir(), 'cv-bench-keys-'));
  const keyCache = cached ? { keyCache: new LRUCache<string, ApiKeyRecord>({ max: 10_000 }) } : {};
  const stores = createStores({ dataDir: dir, ...keyCache });
  try {
    const keys: string[] = [];
    for (let i = 0; i < LOOKUP_KEYS; i++) {
      const input: CreateKeyInput = {
        walletAddress: `GBENCH${i}`,
        network: 'testnet',
        role: 'standard',
        scopes: [],
        expiresAt: null,
      };
      keys.push((await stores.keys.create(input)).key);
    }
    const lookup = async (i: number) => (await stores.keys.lookup(keys[i % LOOKUP_KEYS]!))?.state === 'active';
    await timedAsync(ctx.settings.warmup, lookup);
    return await timedAsync(ctx.settings.duration, lookup);
  } finally {
    await stores.close();
    await rm(dir, { recursive: true, force: true });
  }
}

export async function runStoresSection(ctx: SectionContext, sizes: number[] = STORE_SIZES): Promise<SectionResult> {
  const rows: StoreRow[] = [];
  const run = async (row: Omit<StoreRow, 'outcome'>, fn: (row: StoreRow) => Promise<Rate>) => {
    if (!wanted(ctx, row.name)) return;
    const full: StoreRow = { ...row, outcome: { ok: false, error: 'not run' } };
    full.outcome = await attempt(ctx, row.name, async () => {
      const r = await fn(full);
      ctx.log(
        `    ${fmtRate(r.perSecond)} pairs/s, p50 ${ms(r.latency.p50)} ms, p99 ${ms(r.latency.p99)} ms, failures ${r.failures}`,
      );
      return r;
    });
    rows.push(full);
  };
  await run({ name: 'stores-memory', backend: 'memory', existing: 0 }, () => memoryCase(ctx));
  for (const existing of sizes) {
    await run({ name: `stores-sqlite-${existing}`, backend: 'sqlite', existing }, (row) =>
      sqliteCase(ctx, existing, row),
    );
  }

  const body = rows.map((r) => {
    const what = r.backend === 'memory' ? 'memory (reference; not shared, not durable)' : 'SQLite (embedded default)';
    const size = r.fileBytes === undefined ? '—' : `${(r.fileBytes / (1024 * 1024)).toFixed(1)} MiB`;
    const load = r.loadMs === undefined ? '—' : ms(r.loadMs);
    if (!r.outcome.ok) return [what, fmtInt(r.existing), size, load, '—', '—', '—', `not measured: ${r.outcome.error}`];
    const v = r.outcome.value;
    return [
      what,
      fmtInt(r.existing),
      size,
      load,
      `${fmtRate(v.perSecond)}/s`,
      ms(v.latency.p50),
      ms(v.latency.p99),
      String(v.failures),
    ];
  });
  const markdown = [
    '## Idempotency store',
    '',
    `Sequential \`begin\` + \`complete\` pairs of fresh keys (what one idempotent write request costs the store), in process, one store, ${ctx.settings.warmup} s of warm-up then ${ctx.settings.duration} s. The SQLite store (WAL, synchronous=FULL) commits each call in ${tmpdir()} and fsyncs the WAL before returning; its cost should not grow with the records already held. "first operation" is the measured store opening the database.`,
    '',
    table(
      ['store', 'existing records', 'database', 'first operation ms', 'pairs', 'p50 ms', 'p99 ms', 'failures'],
      body,
      ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
  ].join('\n');
  const keyRows: KeyRow[] = [];
  for (const cached of [false, true]) {
    const name = cached ? 'stores-keys-cached' : 'stores-keys-sqlite';
    if (!wanted(ctx, name)) continue;
    const outcome = await attempt(ctx, name, async () => {
      const r = await keyLookupCase(ctx, cached);
      const { p50, p99 } = r.latency;
      ctx.log(`    ${fmtRate(r.perSecond)} lookups/s, p50 ${ms(p50)} ms, p99 ${ms(p99)} ms, failures ${r.failures}`);
      return r;
    });
    keyRows.push({ name, cached, outcome });
  }
  const keyBody = keyRows.map((r) => {
    const what = r.cached ? 'SQLite behind the key cache (CV_KEY_CACHE_SIZE 10,000)' : 'SQLite (the store read alone)';
    if (!r.outcome.ok) return [what, '—', '—', '—', `not measured: ${r.outcome.error}`];
    const v = r.outcome.value;
    return [what, `${fmtRate(v.perSecond)}/s`, ms(v.latency.p50), ms(v.latency.p99), String(v.failures)];
  });
  const keyMarkdown =
    keyRows.length === 0
      ? []
      : [
          '',
          '### API key lookup',
          '',
          `\`keys.lookup\` of ${fmtInt(LOOKUP_KEYS)} known keys in turn, one at a time, in process (what authenticating a ` +
            `keyed request costs the store), ${ctx.settings.warmup} s of warm-up then ${ctx.settings.duration} s.`,
          '',
          table(['store', 'lookups', 'p50 ms', 'p99 ms', 'failures'], keyBody, ['l', 'r', 'r', 'r', 'r']),
        ];
  const said = (o: Outcome<Rate>, unit: string) => (o.ok ? `${fmtRate(o.value.perSecond)} ${unit}/s` : o.error);
  const summary = [
    ...rows.map((r) => `${r.name}: ${said(r.outcome, 'pairs')}`),
    ...keyRows.map((r) => `${r.name}: ${said(r.outcome, 'lookups')}`),
  ];
  return { markdown: [markdown, ...keyMarkdown].join('\n'), summary };
}
