// Verification throughput (POST /credentials/verify, POST /presentations/verify), beside the framework ceiling
// measured in the same run: a presented credential whose issuer DID the service has cached (the chain client's
// read cache keeps the registry entry), a credential looked up in the owner's vault by owner + vcId (decrypt,
// status, issuer access), and a presentation of one credential by a did:ledger holder. Every credential
// carries an eddsa-jcs-2022 proof by the issuer DID's assertion key, so every request runs the whole
// verification: JCS, two SHA-256, one Ed25519 verification per proof.
import {
  prepareAndSubmit,
  signCredential,
  signPresentation,
  verifyCredential,
  verifyPresentation,
} from '../../src/client/index.ts';
import { startHost } from '../lib/child.ts';
import { median } from '../lib/stats.ts';
import { measureHttp, probe, type HttpCase, type HttpResult } from '../lib/http-load.ts';
import { fmtMs, fmtRatio, fmtRate, fmtInt, table, verdict } from '../lib/markdown.ts';
import { attempt, wanted, type Outcome, type SectionContext, type SectionResult } from '../lib/section.ts';
import { raisedLimitsNote } from '../lib/stack.ts';
import { KEY_HEADER, keypairSigner, vaultClient, type IssuerIdentity } from '../lib/vault-client.ts';
import {
  type InProcessPath,
  inProcessVerifier,
  measureInProcess,
  RDFC_CREDENTIALS,
  RDFC_PRIME_REQUESTS,
  rdfcCase,
  rdfcFixture,
} from './verify-rdfc.ts';

/** Unmeasured requests of each case before any is measured. */
const PRIME_REQUESTS = 300;

interface Row {
  name: string;
  label: string;
  outcome: Outcome<HttpResult>;
}

async function signedCredential(issuer: IssuerIdentity, holder: string): Promise<Record<string, unknown>> {
  return signCredential({
    credential: {
      '@context': ['https://www.w3.org/ns/credentials/v2'],
      id: 'urn:uuid:1d3c0b7e-2f4a-4c1e-9b8d-5a6f7e8d9c0b',
      type: ['VerifiableCredential', 'UniversityDegreeCredential'],
      issuer: issuer.did,
      validFrom: '2026-01-01T00:00:00Z',
      credentialSubject: { id: holder, degree: { type: 'BachelorDegree', name: 'Bachelor of Science in Mathematics' } },
    },
    verificationMethod: `${issuer.did}#assert-1`,
    secretKey: issuer.keypair.rawSecretKey(),
    created: new Date(Date.now() - 60_000),
  });
}

export async function runVerifySection(ctx: SectionContext): Promise<SectionResult> {
  const rows: Row[] = [];
  const measure = async (
    name: string,
    label: string,
    c: () => Promise<HttpCase> | HttpCase,
    check?: (body: unknown) => void,
    serverCpuUs?: () => Promise<number>,
  ) => {
    if (!wanted(ctx, name)) return;
    const outcome = await attempt(ctx, name, async () => {
      const hc = await c();
      const body = await probe(hc);
      check?.(body);
      const r = await measureHttp(hc, ctx.settings, serverCpuUs);
      ctx.log(
        `    ${fmtRate(r.rps)} req/s, ${fmtInt(r.cpuUsPerRequest ?? 0)} µs CPU/request, p50 ${fmtMs(r.p50)} ms, p99 ${fmtMs(r.p99)} ms, non-2xx ${r.non2xx}, errors ${r.errors}`,
      );
      return r;
    });
    rows.push({ name, label, outcome });
  };
  const mustVerify = (body: unknown) => {
    const r = body as { verified?: boolean; problemDetails?: unknown };
    if (r?.verified !== true) throw new Error(`it does not verify: ${JSON.stringify(r?.problemDetails ?? body)}`);
  };

  if (wanted(ctx, 'verify-ceiling')) {
    const host = await startHost<{ url: string }>({ kind: 'express' }).catch((e: Error) => e);
    if (host instanceof Error)
      rows.push({
        name: 'verify-ceiling',
        label: 'framework ceiling (GET /config)',
        outcome: { ok: false, error: host.message },
      });
    else {
      try {
        await measure(
          'verify-ceiling',
          'framework ceiling (GET /config)',
          () => ({ url: `${host.ready.url}/config` }),
          undefined,
          async () => (await host.call<{ us: number }>('cpu')).us,
        );
      } finally {
        await host.stop();
      }
    }
  }

  const real = ['verify-presented', 'verify-reference', 'verify-presentation'];
  if (real.some((n) => wanted(ctx, n))) {
    const fixture = (async () => {
      const stack = await ctx.stack();
      const [issuer, owner, holderDid] = [await stack.issuer(), await stack.owner(), await stack.issuer()];
      const holder = owner.keypair.publicKey();
      const ownerKey = await stack.key(holder);
      const vc = await signedCredential(issuer, holderDid.did);
      const vcId = `bench-signed-${Date.now().toString(36)}`;
      const client = vaultClient(stack.vaultUrl(), issuer.key);
      const asOwner = vaultClient(stack.vaultUrl(), ownerKey);
      // The verifier's own challenge (compared, not single-use), so one presentation can be sent again and again.
      const challenge = 'bench-verifier-nonce';
      const vp = await signPresentation({
        presentation: { holder: holderDid.did, verifiableCredential: [vc] },
        verificationMethod: `${holderDid.did}#auth-1`,
        challenge,
        secretKey: holderDid.keypair.rawSecretKey(),
        created: new Date(Date.now() - 60_000),
      });
      await prepareAndSubmit(
        client,
        '/contracts/vc/issue',
        {
          owner: holder,
          vcId,
          vcData: JSON.stringify(vc),
          issuer: issuer.keypair.publicKey(),
          issuerDid: issuer.did,
          sourcePublicKey: issuer.keypair.publicKey(),
        },
        keypairSigner(issuer.keypair),
      );
      // Both paths warm before either is measured: the first case measured after the services start
      // otherwise pays their JIT (measured: the same case 4x slower when first).
      for (let i = 0; i < PRIME_REQUESTS; i++) {
        mustVerify(await verifyCredential(asOwner, { owner: holder, vcId }));
        mustVerify(await verifyCredential(client, { verifiableCredential: vc }));
        mustVerify(await verifyPresentation(client, { verifiablePresentation: vp, options: { challenge } }));
      }
      return {
        cpuUs: () => stack.cpuUs(),
        url: `${stack.vaultUrl()}/credentials/verify`,
        vpUrl: `${stack.vaultUrl()}/presentations/verify`,
        key: issuer.key,
        ownerKey,
        vc,
        vp,
        challenge,
        holder,
        vcId,
      };
    })();
    fixture.catch(() => {}); // reported by the cases below
    const post = (key: string, body: unknown): HttpCase => ({
      url: '',
      method: 'POST',
      headers: { 'content-type': 'application/json', [KEY_HEADER]: key },
      body: JSON.stringify(body),
    });
    await measure(
      'verify-presented',
      'presented credential, issuer DID cached',
      async () => {
        const f = await fixture;
        return { ...post(f.key, { verifiableCredential: f.vc }), url: f.url };
      },
      mustVerify,
      async () => (await fixture).cpuUs(),
    );
    await measure(
      'verify-reference',
      "by reference (owner + vcId, the owner's key)",
      async () => {
        const f = await fixture;
        return { ...post(f.ownerKey, { owner: f.holder, vcId: f.vcId }), url: f.url };
      },
      mustVerify,
      async () => (await fixture).cpuUs(),
    );
    await measure(
      'verify-presentation',
      'presentation of one credential (holder did:ledger, both DIDs cached)',
      async () => {
        const f = await fixture;
        return { ...post(f.key, { verifiablePresentation: f.vp, options: { challenge: f.challenge } }), url: f.vpUrl };
      },
      mustVerify,
      async () => (await fixture).cpuUs(),
    );
  }
  await measureRdfc(ctx, rows);
  return render(ctx, rows);
}

/** Rounds of the eddsa-rdfc-2022 comparison: the machine is shared, so each is measured a few times, interleaved. */
const RDFC_ROUNDS = 3;

const IN_PROCESS: { path: InProcessPath; name: string; label: string }[] = [
  {
    path: 'peer',
    name: 'verify-rdfc-peer',
    label: 'the peer: @digitalbazaar/vc verifyCredential of the same credential, in-process, one at a time',
  },
  {
    path: 'fast',
    name: 'verify-rdfc-own-fast',
    label: "this verifier's verifyDataIntegrity, in-process, fast path (the service's default)",
  },
  {
    path: 'maintained',
    name: 'verify-rdfc-own-maintained',
    label: "this verifier's verifyDataIntegrity, in-process, maintained path (library-fast-path.ts off)",
  },
];

/**
 * eddsa-rdfc-2022: the service and @digitalbazaar/vc verify the same credential, in this run (verify-rdfc.ts),
 * in RDFC_ROUNDS interleaved rounds, beside this verifier's own two paths in-process.
 */
async function measureRdfc(ctx: SectionContext, rows: Row[]): Promise<void> {
  if (!wanted(ctx, 'verify-rdfc')) return;
  const fixture = rdfcFixture();
  fixture.catch(() => {}); // reported by the cases below
  const service = async (): Promise<HttpResult> => {
    const stack = await ctx.stack();
    const issuer = await stack.issuer();
    const hc = rdfcCase(`${stack.vaultUrl()}/credentials/verify`, issuer.key, KEY_HEADER, await fixture);
    const bodies = hc.bodies ?? [];
    for (let i = 0; i < RDFC_PRIME_REQUESTS; i++) {
      const body = (await probe({ ...hc, body: bodies[i % bodies.length]! })) as { verified?: boolean };
      if (body?.verified !== true) throw new Error(`not verified: ${JSON.stringify(body)}`);
    }
    const r = await measureHttp(hc, ctx.settings, () => stack.cpuUs());
    ctx.log(`    ${fmtRate(r.rps)} req/s, ${fmtInt(r.cpuUsPerRequest ?? 0)} µs CPU/request, p50 ${fmtMs(r.p50)} ms`);
    return r;
  };
  for (let round = 1; round <= RDFC_ROUNDS; round++) {
    const suffix = ` (round ${round})`;
    rows.push({
      name: 'verify-rdfc',
      label: `presented eddsa-rdfc-2022 credential (did:key issuer, digitalbazaar-signed), checks proof${suffix}`,
      outcome: await attempt(ctx, `verify-rdfc${suffix}`, service),
    });
    for (const p of IN_PROCESS) {
      if (!wanted(ctx, p.name)) continue;
      const outcome = await attempt(ctx, `${p.name}${suffix}`, async () => {
        const r = await measureInProcess(inProcessVerifier(await fixture, p.path), ctx.settings);
        ctx.log(`    ${fmtRate(r.rps)} /s, ${fmtInt(r.cpuUsPerRequest ?? 0)} µs CPU/verification`);
        return r;
      });
      rows.push({ name: p.name, label: `${p.label}${suffix}`, outcome });
    }
  }
}

/** Per round: the service's req/s over the peer's, and the peer's CPU per verification over the service's. */
function rdfcRounds(rows: Row[]): { rps: number[]; cpu: number[] } {
  const service = rows.filter((r) => r.name === 'verify-rdfc');
  const peer = rows.filter((r) => r.name === 'verify-rdfc-peer');
  const out = { rps: [] as number[], cpu: [] as number[] };
  service.forEach((s, i) => {
    const p = peer[i];
    if (!s.outcome.ok || !p?.outcome.ok) return;
    out.rps.push(s.outcome.value.rps / p.outcome.value.rps);
    const [sc, pc] = [s.outcome.value.cpuUsPerRequest, p.outcome.value.cpuUsPerRequest];
    if (sc && pc) out.cpu.push(pc / sc);
  });
  return out;
}

function render(ctx: SectionContext, rows: Row[]): SectionResult {
  const rps = (name: string) => {
    const r = rows.find((x) => x.name === name);
    return r?.outcome.ok ? r.outcome.value.rps : undefined;
  };
  const ceiling = rps('verify-ceiling');
  const ratio = (v: number | undefined) => (v !== undefined && ceiling ? v / ceiling : undefined);
  const body = rows.map((r) => {
    if (!r.outcome.ok) return [r.label, '—', '—', '—', '—', '—', '—', `not measured: ${r.outcome.error}`];
    const v = r.outcome.value;
    const cpu = v.cpuUsPerRequest === undefined ? '—' : fmtInt(v.cpuUsPerRequest);
    return [r.label, fmtRate(v.rps), cpu, fmtMs(v.p50), fmtMs(v.p99), fmtInt(v.non2xx), fmtRatio(ratio(v.rps)), ''];
  });
  const rdfc = rdfcRounds(rows);
  const presented = rps('verify-presented');
  const presentation = rps('verify-presentation');
  const targets: [string, string, boolean | undefined][] = [
    [
      'presented credential, cached DID ≥ 0.5× framework ceiling',
      fmtRatio(ratio(presented)),
      presented === undefined || !ceiling ? undefined : presented >= 0.5 * ceiling,
    ],
    [
      'presentation with one credential ≥ 0.3× framework ceiling',
      fmtRatio(ratio(presentation)),
      presentation === undefined || !ceiling ? undefined : presentation >= 0.3 * ceiling,
    ],
    [
      'eddsa-rdfc-2022 through the service ahead of @digitalbazaar/vc in-process (req/s, median of the rounds)',
      rdfc.rps.length === 0 ? '—' : `${fmtRatio(median(rdfc.rps))} (rounds: ${rdfc.rps.map(fmtRatio).join(', ')})`,
      rdfc.rps.length === 0 ? undefined : median(rdfc.rps) > 1,
    ],
    [
      "eddsa-rdfc-2022: the service's CPU per request below the peer's per verification (peer ÷ service, median)",
      rdfc.cpu.length === 0 ? '—' : `${fmtRatio(median(rdfc.cpu))} (rounds: ${rdfc.cpu.map(fmtRatio).join(', ')})`,
      rdfc.cpu.length === 0 ? undefined : median(rdfc.cpu) > 1,
    ],
  ];
  const s = ctx.settings;
  const markdown = [
    '## Credential verification',
    '',
    `\`POST /credentials/verify\` and \`POST /presentations/verify\` of the vault API (testnet) against the chain simulator, autocannon with ${s.connections} connections, ${s.warmup} s warm-up then ${s.duration} s measured per case, beside the framework ceiling (Express 5 + express-openapi-validator, one validated route) measured in this run. ` +
      "The credential carries an `eddsa-jcs-2022` proof by its issuer DID's `#assert-1` key; every answer is checked to be `verified: true` before measuring. " +
      "Presented: the credential in the body, its issuer DID resolved through the chain client's read cache. By reference: `owner` + `vcId` with the owner's key, so the credential is read from the vault and decrypted, and its on-chain status and the issuer's access are read too. " +
      "Presentation: that credential inside a presentation signed by a did:ledger holder's `#auth-1` key over the verifier's own challenge (compared, not single-use, so the same request can be repeated), two proofs verified. " +
      `eddsa-rdfc-2022: ${RDFC_CREDENTIALS} distinct credentials (each its own id, subject, claim and signature; the same contexts) signed by digitalbazaar's libraries for one did:key issuer, sent in turn, verified by the service (RDF canonicalization by jsonld and rdf-canonize, contexts bundled) and by the peer, @digitalbazaar/vc \`verifyCredential\` of the same credentials in turn in the bench process,` +
      " one verification after another for the same seconds (its req/s are verifications per second on one core, its p50/p99 per verification), and this verifier's own verifyDataIntegrity in-process on both paths of src/did/library-fast-path.ts (fast, the default; maintained: digitalbazaar's objects as they come). " +
      `The service's case is primed with ${RDFC_PRIME_REQUESTS} requests first; the four are measured in ${RDFC_ROUNDS} interleaved rounds.` +
      " CPU µs/req: the services' process CPU time per answered request, or the bench process's per in-process verification.",
    `- ${raisedLimitsNote()} The requests carry a standard key (keyless callers are limited to 30 per minute per IP).`,
    '',
    table(['case', 'req/s', 'CPU µs/req', 'p50 ms', 'p99 ms', 'non-2xx', '× framework', 'note'], body, [
      'l',
      'r',
      'r',
      'r',
      'r',
      'r',
      'r',
      'l',
    ]),
    '',
    '### Targets',
    '',
    table(
      ['target', 'measured', 'verdict'],
      targets.map((t) => [t[0], t[1], verdict(t[2])]),
    ),
  ].join('\n');
  const summary = [
    ...rows.map(
      (r) =>
        `${r.label}: ${r.outcome.ok ? `${fmtRate(r.outcome.value.rps)} req/s` : `not measured (${r.outcome.error})`}`,
    ),
    ...targets.map((t) => `${t[0]}: ${t[1]} → ${t[2] === undefined ? 'not measured' : t[2] ? 'pass' : 'FAIL'}`),
  ];
  return { markdown, summary };
}
