// The resolver's DIF Universal Registrar and its reverse lookup, beside the resolution rows of the http section:
// GET /v1/dids/stellar?controller= under load (the index caught up with the registry's events before each answer:
// one getEvents, then one indexed read), and whole registrar creates one after another (POST /1.0/create → the
// signing request → the controller's Ed25519 signature of the transaction hash → POST with the jobId → `wait`
// → ask again until `finished`), against the real resolver and the chain simulator over JSON-RPC.
import { Keypair } from '@stellar/stellar-sdk';
import { encodeMultikey } from '../../src/did/index.ts';
import type { components } from '../../src/generated/did-resolver.ts';
import { measureHttp, type HttpResult } from '../lib/http-load.ts';
import { fmtInt, table } from '../lib/markdown.ts';
import { attempt, wanted, type Outcome, type SectionContext, type SectionResult } from '../lib/section.ts';
import { ms, sleep, timedAsync, type Rate } from '../lib/stats.ts';
import { raisedLimitsNote } from '../lib/stack.ts';

type RegistrarState = components['schemas']['RegistrarState'];

async function post(url: string, body: unknown): Promise<{ status: number; body: RegistrarState }> {
  const r = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: (await r.json()) as RegistrarState };
}

/** One whole create; true when it finished. */
async function createOnce(base: string, controller: Keypair): Promise<boolean> {
  const url = `${base}/1.0/create?method=ledger`;
  const didDocument = {
    verificationMethod: [
      {
        id: '#auth-1',
        type: 'Multikey',
        publicKeyMultibase: encodeMultikey('Ed25519', Keypair.random().rawPublicKey()),
      },
    ],
    authentication: ['#auth-1'],
  };
  const action = await post(url, {
    options: { clientSecretMode: true, controller: controller.publicKey() },
    didDocument,
  });
  if (action.body?.didState?.state !== 'action') return false;
  const request = action.body.didState.signingRequest?.signingRequest1;
  if (!request) return false;
  const payload = Buffer.from(request.serializedPayload, 'base64');
  const signature = Buffer.from(controller.sign(payload)).toString('base64');
  const jobId = action.body.jobId;
  let state = await post(url, { jobId, secret: { signingResponse: { signingRequest1: { signature, alg: 'EdDSA' } } } });
  while (state.body?.didState?.state === 'wait') {
    await sleep(5);
    state = await post(url, { jobId });
  }
  return state.status === 201;
}

export async function runRegistrarSection(ctx: SectionContext): Promise<SectionResult> {
  const stack = await ctx.stack();
  const base = stack.resolverUrl();
  const issuer = await stack.issuer();
  let lookup: Outcome<HttpResult> | undefined;
  let create: Outcome<Rate & { rpcPerCycle: number }> | undefined;
  if (wanted(ctx, 'registrar-create')) {
    create = await attempt(ctx, 'registrar-create', async () => {
      if (!(await createOnce(base, issuer.keypair))) throw new Error('a registrar create did not finish');
      const before = await stack.rpcCalls();
      const rate = await timedAsync(ctx.settings.duration, () => createOnce(base, issuer.keypair));
      const after = await stack.rpcCalls();
      const calls = Object.entries(after).reduce((n, [m, c]) => n + c - (before[m] ?? 0), 0);
      return { ...rate, rpcPerCycle: calls / Math.max(1, rate.latency.count) };
    });
  }
  if (wanted(ctx, 'reverse-lookup')) {
    // After the creates: the wallet controls its registered DID and every DID created above.
    lookup = await attempt(ctx, 'reverse-lookup', () =>
      measureHttp({ url: `${base}/v1/dids/stellar?controller=${issuer.keypair.publicKey()}` }, ctx.settings, () =>
        stack.cpuUs(),
      ),
    );
  }
  return render(ctx, lookup, create);
}

function render(
  ctx: SectionContext,
  lookup: Outcome<HttpResult> | undefined,
  create: Outcome<Rate & { rpcPerCycle: number }> | undefined,
): SectionResult {
  const rows: string[][] = [];
  const summary: string[] = [];
  if (lookup) {
    const v = lookup.ok ? lookup.value : undefined;
    rows.push([
      'GET /v1/dids/stellar?controller= (reverse lookup)',
      v ? `${fmtInt(v.rps)} req/s` : `not measured: ${lookup.ok ? '' : lookup.error}`,
      v ? `${v.p50} / ${v.p99} ms` : '—',
      v?.cpuUsPerRequest !== undefined ? `${fmtInt(v.cpuUsPerRequest)} µs` : '—',
      v ? `${v.non2xx} non-2xx, ${v.errors} errors` : '—',
    ]);
    if (v) summary.push(`reverse lookup: ${fmtInt(v.rps)} req/s, p50 ${v.p50} ms`);
  }
  if (create) {
    const v = create.ok ? create.value : undefined;
    rows.push([
      'POST /1.0/create, whole job (action → sign → wait → finished), one at a time',
      v ? `${v.perSecond.toFixed(1)} creates/s` : `not measured: ${create.ok ? '' : create.error}`,
      v ? `${ms(v.latency.p50)} / ${ms(v.latency.p99)} ms` : '—',
      '—',
      v ? `${v.failures} failed, ${v.rpcPerCycle.toFixed(1)} RPC calls per create` : '—',
    ]);
    if (v) summary.push(`registrar create: ${v.perSecond.toFixed(1)}/s, p50 ${ms(v.latency.p50)} ms`);
  }
  const markdown = [
    '## Registrar and reverse lookup (resolver)',
    '',
    `Beside the resolution rows above, measured ${new Date().toISOString().slice(0, 10)} on the same stack: the resolver started as \`resolver\` does, against the chain simulator (ledgers at once) over JSON-RPC. The reverse lookup asks for the DIDs of a wallet that controls a handful (its own and those the creates made): ${ctx.settings.connections} connections, ${ctx.settings.warmup} s warm-up, ${ctx.settings.duration} s measured; each answer first catches the index up with the registry's events (one \`getEvents\` from the stored cursor), then reads one page from the SQLite index. A create is the whole client-managed job, sequential for ${ctx.settings.duration} s: prepare (simulate) and the job stored, the signature checked and attached, the transaction sent in the background, the client asking every 5 ms until \`finished\` (the document read back from the ledger). CPU is the services' process per request.`,
    '',
    table(['case', 'throughput', 'p50 / p99', 'CPU', 'notes'], rows, ['l', 'r', 'r', 'r', 'l']),
    '',
    `- ${raisedLimitsNote()}`,
  ].join('\n');
  return { markdown, summary };
}
