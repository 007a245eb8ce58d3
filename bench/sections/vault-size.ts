// Latency against vault size: vaults of 10, 1,000 and 10,000 credentials (filled through the simulator's
// in-process API with batch_issue), then verify-vc and list-vc-ids over HTTP on the real vault API.
import { measureHttp, probe, type HttpCase, type HttpResult } from '../lib/http-load.ts';
import { fmtInt, fmtMs, fmtRate, fmtRatio, table, verdict } from '../lib/markdown.ts';
import { attempt, wanted, type Outcome, type SectionContext, type SectionResult } from '../lib/section.ts';
import { raisedLimitsNote } from '../lib/stack.ts';
import { KEY_HEADER } from '../lib/vault-client.ts';

export const DEFAULT_SIZES = [10, 1_000, 10_000];
/** Flat: throughput at the largest vault at least this share of the smallest's. */
const FLAT_SHARE = 0.8;
const PAGE = 10;

interface SizeRow {
  size: number;
  fillMs?: number;
  verify: Outcome<HttpResult>;
  list: Outcome<HttpResult>;
}

const vcIdAt = (prefix: string, i: number) => `${prefix}-${String(i).padStart(6, '0')}`;

export async function runVaultSizeSection(
  ctx: SectionContext,
  sizes: number[] = DEFAULT_SIZES,
): Promise<SectionResult> {
  const rows: SizeRow[] = [];
  for (const size of sizes) {
    const name = `size-${size}`;
    if (!wanted(ctx, name) && !wanted(ctx, 'size')) continue;
    const row: SizeRow = { size, verify: { ok: false, error: 'not run' }, list: { ok: false, error: 'not run' } };
    const setup = await attempt(ctx, `${name} (fill)`, async () => {
      const stack = await ctx.stack();
      const issuer = await stack.issuer();
      const owner = await stack.owner();
      const prefix = `size${size}`;
      const filled = await stack.fill({ vault: owner.vault, issuer, count: size, prefix });
      ctx.log(`    filled ${fmtInt(filled.count)} credentials in ${fmtInt(filled.ms)} ms`);
      const ownerKey = await stack.key(owner.keypair.publicKey());
      const headers = { 'content-type': 'application/json', [KEY_HEADER]: ownerKey };
      const base = stack.vaultUrl();
      const mid = Math.floor(size / 2);
      const verify: HttpCase = {
        url: `${base}/contracts/vault/verify-vc`,
        method: 'POST',
        headers,
        body: JSON.stringify({ owner: owner.keypair.publicKey(), vcId: vcIdAt(prefix, mid) }),
      };
      const offset = Math.max(0, Math.min(mid, size - PAGE));
      const list: HttpCase = {
        url: `${base}/contracts/vault/list-vc-ids`,
        method: 'POST',
        headers,
        body: JSON.stringify({ owner: owner.keypair.publicKey(), offset, limit: PAGE }),
      };
      return { fillMs: filled.ms, verify, list };
    });
    if (!setup.ok) {
      row.verify = row.list = setup;
      rows.push(row);
      continue;
    }
    row.fillMs = setup.value.fillMs;
    const load = (c: HttpCase) => async () => {
      await probe(c);
      const r = await measureHttp(c, ctx.settings);
      ctx.log(`    ${fmtRate(r.rps)} req/s, p50 ${fmtMs(r.p50)} ms, p99 ${fmtMs(r.p99)} ms, non-2xx ${r.non2xx}`);
      return r;
    };
    row.verify = await attempt(ctx, `${name} verify-vc`, load(setup.value.verify));
    row.list = await attempt(ctx, `${name} list-vc-ids`, load(setup.value.list));
    rows.push(row);
  }

  const cells = (o: Outcome<HttpResult>) =>
    o.ok
      ? [fmtRate(o.value.rps), fmtMs(o.value.p50), fmtMs(o.value.p99), fmtInt(o.value.non2xx + o.value.errors)]
      : ['—', '—', '—', o.error];
  const body = rows.map((r) => [
    fmtInt(r.size),
    r.fillMs === undefined ? '—' : r.fillMs < 1000 ? `${fmtInt(r.fillMs)} ms` : `${(r.fillMs / 1000).toFixed(1)} s`,
    ...cells(r.verify),
    ...cells(r.list),
  ]);

  const flat = (pick: (r: SizeRow) => Outcome<HttpResult>) => {
    const measured = rows.filter((r) => pick(r).ok);
    if (measured.length < 2) return { ratio: undefined, ok: undefined };
    const small = pick(measured[0]!) as { ok: true; value: HttpResult };
    const large = pick(measured[measured.length - 1]!) as { ok: true; value: HttpResult };
    const ratio = large.value.rps / small.value.rps;
    return { ratio, ok: ratio >= FLAT_SHARE, from: measured[0]!.size, to: measured[measured.length - 1]!.size };
  };
  const fv = flat((r) => r.verify);
  const fl = flat((r) => r.list);
  const markdown = [
    '## Latency against vault size',
    '',
    `Each vault is filled straight through the simulator (batch_issue, 5 credentials a signed transaction; the fill time is shown), then loaded over HTTP with autocannon (${ctx.settings.connections} connections, ${ctx.settings.warmup} s warm-up, ${ctx.settings.duration} s measured) with the owner's standard key: ` +
      `verify-vc of the credential in the middle of the vault, list-vc-ids of a page of ${PAGE} from the middle.`,
    '',
    `- ${raisedLimitsNote()}`,
    '',
    table(
      [
        'credentials',
        'fill',
        'verify-vc req/s',
        'p50 ms',
        'p99 ms',
        'failed',
        'list-vc-ids req/s',
        'p50 ms',
        'p99 ms',
        'failed',
      ],
      body,
      ['r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
    ),
    '',
    `Target: latency flat in vault size — read here as throughput at the largest vault ≥ ${FLAT_SHARE}× the smallest's.`,
    '',
    table(
      ['route', 'largest ÷ smallest (req/s)', 'verdict'],
      [
        ['verify-vc', fmtRatio(fv.ratio), verdict(fv.ok)],
        ['list-vc-ids', fmtRatio(fl.ratio), verdict(fl.ok)],
      ],
    ),
  ].join('\n');
  const summary = [
    `verify-vc flat: ${fmtRatio(fv.ratio)} → ${verdict(fv.ok)}`,
    `list-vc-ids flat: ${fmtRatio(fl.ratio)} → ${verdict(fl.ok)}`,
  ];
  return { markdown, summary };
}
