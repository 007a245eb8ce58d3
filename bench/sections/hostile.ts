// The cost of a keyless verification of a hostile document: the service's CPU time (utime + stime of its
// process, from /proc) per request, for the worst bodies a caller without a key may send (vault-api.yaml
// KeylessPayloadTooLarge: 64 KiB decompressed). Every keyless request within the limits must cost at most 50 ms.
// The corpus: many short members (the adversarial review's 62,000-member credential, as many as fit), the same
// inside a presentation, deep nesting, a full proof set, strings of escapes, ten credentials in a presentation.
// Each is a correct eddsa-jcs-2022 document by a did:key, so every request runs the whole verification. The
// review's own 499 KiB credential is measured with a key beside them, for the record. Keyless callers are
// limited to 30 requests a minute per address: each case is sent from its own loopback address.
// The RDF rows (hostile-rdfc.ts) are filled to the keyless RDF limit; one of them (hostile-status.ts) also makes the
// service read and verify an RDF-proved status list at that limit, on a second vault API that reads the web.
import { request } from 'node:http';
import { readFile } from 'node:fs/promises';
import { Keypair } from '@stellar/stellar-sdk';
import { ed25519KeyPair, signCredential, signPresentation } from '../../src/client/index.ts';
import { addProof } from '../../src/did/index.ts';
import { fmtInt, table, verdict } from '../lib/markdown.ts';
import { KEYLESS_RDF_BODY_LIMIT_BYTES } from '../../src/vault-api/keyless-rdf.ts';
import { largest, rdfcHostileCases, type RdfcHostileCase } from './hostile-rdfc.ts';
import { rdfcStatusListCase, STATUS_CASE_NAME } from './hostile-status.ts';
import { attempt, wanted, type Outcome, type SectionContext, type SectionResult } from '../lib/section.ts';
import { ms, summarize, type Summary } from '../lib/stats.ts';

/** The most service CPU a keyless request may cost. */
export const HOSTILE_TARGET_MS = 50;
const KEYLESS_LIMIT = 64 * 1024;
const KEYED_LIMIT = 512 * 1024;
const WARMUP = 2;
const KEYED_WARMUP = 10;
const SAMPLES = 12;
const V2 = 'https://www.w3.org/ns/credentials/v2';

type Json = Record<string, unknown>;
interface HostileCase {
  name: string;
  path: '/credentials/verify' | '/presentations/verify';
  keyed: boolean;
  body: string;
  /** The answer it must get (default 200 verified): the poison graph is refused. */
  expect?: RdfcHostileCase['expect'];
  /** Its credentialStatus must be read and found valid. */
  statusRead?: boolean;
}
interface Measured {
  latency: Summary;
  cpuMs: number;
  status: number;
  verified: unknown;
}

function didKey() {
  const kp = Keypair.random();
  const multibase = ed25519KeyPair(kp.rawSecretKey()).publicKeyMultibase;
  return { did: `did:key:${multibase}`, vm: `did:key:${multibase}#${multibase}`, secretKey: kp.rawSecretKey() };
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
/** Distinct names of three characters: `"abc":1,` is 8 bytes a member. */
const shortName = (i: number) =>
  ALPHABET[i % 62]! + ALPHABET[Math.floor(i / 62) % 62]! + ALPHABET[Math.floor(i / 3844) % 62]!;

async function hostileCases(now: number): Promise<HostileCase[]> {
  const issuer = didKey();
  const holder = didKey();
  const created = new Date(now - 60_000);
  const credential = (subject: Json): Promise<Json> =>
    signCredential({
      credential: { '@context': [V2], type: ['VerifiableCredential'], issuer: issuer.did, credentialSubject: subject },
      verificationMethod: issuer.vm,
      secretKey: issuer.secretKey,
      created,
    });
  const presentation = (vcs: Json[]) =>
    signPresentation({
      presentation: { holder: holder.did, verifiableCredential: vcs },
      verificationMethod: holder.vm,
      challenge: 'bench-hostile',
      secretKey: holder.secretKey,
      created,
    });
  const members = (n: number): Json => {
    const s: Json = { id: holder.did };
    for (let i = 0; i < n; i++) s[shortName(i)] = i % 10;
    return s;
  };
  const vcBody = (vc: Json) => JSON.stringify({ verifiableCredential: vc });
  const vpBody = (vp: Json) => JSON.stringify({ verifiablePresentation: vp, options: { challenge: 'bench-hostile' } });
  /** Nested `depth` objects deep, the members spread over the levels. */
  const nested = (n: number, depth: number): Json => {
    const root: Json = { id: holder.did };
    let at = root;
    for (let d = 0; d < depth; d++) {
      for (let i = 0; i < n / depth; i++) at[shortName(d * 100_000 + i)] = i % 10;
      const next: Json = {};
      at['n'] = next;
      at = next;
    }
    return root;
  };
  const proofSet = async (n: number) => {
    let vc = await credential(members(n));
    // Each proof of the set its own `created`: Ed25519 is deterministic, and a set may not hold one proof twice.
    for (let i = 1; i < 8; i++) {
      const at = new Date(created.getTime() - i * 1000);
      vc = await addProof(vc, { verificationMethod: issuer.vm, created: at }, { secretKey: issuer.secretKey });
    }
    return vc;
  };
  const escapes = (n: number): Json => ({ id: holder.did, text: '\u00e9\u2028\u0001"\\'.repeat(n) });
  const cases: HostileCase[] = [
    {
      name: 'credential: short members in credentialSubject',
      path: '/credentials/verify',
      keyed: false,
      body: await largest(KEYLESS_LIMIT, async (n) => vcBody(await credential(members(n)))),
    },
    {
      name: 'presentation of that credential',
      path: '/presentations/verify',
      keyed: false,
      body: await largest(KEYLESS_LIMIT, async (n) => vpBody(await presentation([await credential(members(n))]))),
    },
    {
      name: 'credential: members nested 60 objects deep',
      path: '/credentials/verify',
      keyed: false,
      body: await largest(KEYLESS_LIMIT, async (n) => vcBody(await credential(nested(n, 60)))),
    },
    {
      name: 'credential: 8 proofs (a full proof set) over short members',
      path: '/credentials/verify',
      keyed: false,
      body: await largest(KEYLESS_LIMIT, async (n) => vcBody(await proofSet(n))),
    },
    {
      name: 'credential: one string of characters JCS escapes',
      path: '/credentials/verify',
      keyed: false,
      body: await largest(KEYLESS_LIMIT, async (n) => vcBody(await credential(escapes(n)))),
    },
    {
      name: 'presentation of 10 credentials of short members',
      path: '/presentations/verify',
      keyed: false,
      body: await largest(KEYLESS_LIMIT, async (n) => {
        const vc = await credential(members(n));
        return vpBody(await presentation(Array.from({ length: 10 }, () => vc)));
      }),
    },
    ...(await rdfcHostileCases(KEYLESS_RDF_BODY_LIMIT_BYTES, holder.did)).map((c) => ({
      ...c,
      path: '/credentials/verify' as const,
      keyed: false,
    })),
    {
      name: "with a key: the review's credential of short members (512 KiB)",
      path: '/credentials/verify',
      keyed: true,
      body: await largest(KEYED_LIMIT, async (n) => vcBody(await credential(members(n)))),
    },
  ];
  return cases;
}

/** User + system CPU time of a process so far, in ms (Linux /proc; USER_HZ is 100). */
async function cpuTimeMs(pid: number): Promise<number | undefined> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => undefined);
  if (stat === undefined) return undefined;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** One POST from `localAddress`: keyless callers are told apart by their address. */
function post(url: string, c: HostileCase, localAddress: string, key: string) {
  const t0 = performance.now();
  return new Promise<{ ms: number; status: number; text: string }>((resolve, reject) => {
    const req = request(
      url + c.path,
      {
        method: 'POST',
        localAddress,
        headers: { 'content-type': 'application/json', ...(c.keyed ? { 'x-svc-key': key } : {}) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ ms: performance.now() - t0, status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(c.body);
  });
}

/** Where a case is measured: the stack's vault API, or a second one started with other flags. */
interface Target {
  url: string;
  key: string;
  /** CPU time of the process that serves `url` so far, in ms. */
  cpuMs(): Promise<number | undefined>;
}
type Row = { c: HostileCase; outcome: Outcome<Measured> };

/** Warm-up, then SAMPLES keyless requests one after another, and the service CPU they cost. */
async function measure(ctx: SectionContext, c: HostileCase, address: string, t: Target): Promise<Measured> {
  // Warm with a key (no keyless window spent; the same verification): the first case measured after the
  // services start otherwise pays their JIT.
  for (let w = 0; w < KEYED_WARMUP; w++) await post(t.url, { ...c, keyed: true }, address, t.key);
  for (let w = 0; w < WARMUP; w++) await post(t.url, c, address, t.key);
  const samples: number[] = [];
  let last = { ms: 0, status: 0, text: '' };
  const before = await t.cpuMs();
  for (let s = 0; s < SAMPLES; s++) {
    last = await post(t.url, c, address, t.key);
    samples.push(last.ms);
  }
  const after = await t.cpuMs();
  if (before === undefined || after === undefined) throw new Error('no /proc: service CPU is not measurable');
  const m = {
    latency: summarize(samples),
    cpuMs: (after - before) / SAMPLES,
    status: last.status,
    verified: (JSON.parse(last.text) as { verified?: unknown }).verified,
  };
  const want = c.expect ?? { verified: true };
  const as = want.verified
    ? m.status === 200 && m.verified === true
    : m.status === 400 && m.verified === false && last.text.includes(`"${want.reason}"`);
  if (!as) throw new Error(`answered ${m.status}: ${last.text.slice(0, 300)}`);
  if (c.statusRead && !last.text.includes('"status":"valid"'))
    throw new Error(`the status list was not read: ${last.text.slice(0, 300)}`);
  ctx.log(`    ${m.status}, p50 ${ms(m.latency.p50)} ms, service CPU ${ms(m.cpuMs)} ms/request`);
  return m;
}

/** The combined case, on a vault API that reads the web (the list's host as its test host). */
async function statusRow(ctx: SectionContext, address: string): Promise<Row & { listBytes?: number }> {
  const built = await rdfcStatusListCase(KEYLESS_RDF_BODY_LIMIT_BYTES, didKey().did);
  const c: HostileCase = { ...built.case, path: '/credentials/verify', keyed: false, statusRead: true };
  try {
    const outcome = await attempt(ctx, c.name, async () => {
      const v = await (await ctx.stack()).variant(['--web-fetch', 'true', '--web-fetch-test-hosts', built.host]);
      const key = await v.key(Keypair.random().publicKey());
      return measure(ctx, c, address, { url: v.url, key, cpuMs: async () => (await v.cpuUs()) / 1000 });
    });
    return { c, outcome, listBytes: built.listBytes };
  } finally {
    await built.close();
  }
}

/** What the combined row measures, when it ran. */
const statusNote = (listBytes: number | undefined): string =>
  listBytes === undefined
    ? ''
    : ` The row "${STATUS_CASE_NAME}" (bench/sections/hostile-status.ts) is such a credential whose BitstringStatusListEntry makes the service read a status list credential of ${fmtInt(listBytes)} B as compact JSON with an eddsa-rdfc-2022 proof, filling what the credential left of the same keyless limit (body and list share it: src/vault-api/verification-bitstring.ts), and verify it: two RDF canonicalizations in one keyless request, the list filled with distinct values of one term. It is measured on a second vault API started with \`--web-fetch true\` and the list's local host as its test host; its CPU is that process's own (\`process.cpuUsage\`, µs resolution), and the list is fetched once, then kept by the web-fetch cache for a resolution's TTL.`;

export async function runHostileSection(ctx: SectionContext): Promise<SectionResult> {
  const stack = await ctx.stack();
  const main: Target = {
    url: stack.vaultUrl(),
    key: await stack.key(Keypair.random().publicKey()),
    cpuMs: () => cpuTimeMs(stack.services.pid),
  };
  const rows: Row[] = [];
  const cases = await hostileCases(Date.now());
  for (const [i, c] of cases.entries()) {
    if (!wanted(ctx, c.name)) continue;
    rows.push({ c, outcome: await attempt(ctx, c.name, () => measure(ctx, c, `127.0.0.${30 + i}`, main)) });
  }
  let listBytes: number | undefined;
  if (wanted(ctx, STATUS_CASE_NAME)) {
    const row = await statusRow(ctx, `127.0.0.${30 + cases.length}`);
    listBytes = row.listBytes;
    rows.push(row);
  }
  rows.sort((a, b) => Number(a.c.keyed) - Number(b.c.keyed)); // the keyed reference last
  const body = rows.map(({ c, outcome }) => {
    const size = `${fmtInt(Buffer.byteLength(c.body))} B`;
    const who = c.keyed ? 'key' : 'keyless';
    if (!outcome.ok) return [c.name, c.path, who, size, '—', '—', '—', `not measured: ${outcome.error}`];
    const v = outcome.value;
    return [
      c.name,
      c.path,
      who,
      size,
      ms(v.latency.p50),
      ms(v.latency.max),
      ms(v.cpuMs),
      c.keyed ? '(reference)' : verdict(v.cpuMs <= HOSTILE_TARGET_MS),
    ];
  });
  const markdown = [
    '## Hostile bodies: service CPU per keyless verification',
    '',
    `Every keyless request within the limits must cost the service at most ${HOSTILE_TARGET_MS} ms of CPU. The corpus is the worst a caller without a key may send: bodies filled to the keyless limit (${fmtInt(KEYLESS_LIMIT)} B decompressed; 512 KiB with a key) with many short members (the adversarial review's 62,000-member credential cost 97 ms, 108 ms inside a presentation, at 499 KiB keyless), the same inside a presentation, members nested 60 objects deep, a full proof set (8 proofs), one string of characters JCS must escape, and a presentation of 10 credentials. Each is a correct eddsa-jcs-2022 document by a did:key, answered 200 \`verified: true\`, so the whole verification runs: I-JSON scan, JSON parse, request validation, JCS, SHA-256, Ed25519 per proof. Each case is sent ${KEYED_WARMUP} times with a key and ${WARMUP} times without to warm up, then ${SAMPLES} times one after another, from its own loopback address (keyless callers get 30 requests a minute per address). "service CPU" is the services' process CPU time (user + system, /proc, 10 ms resolution over ${SAMPLES} requests) per request: what an answer costs whatever else runs on the machine. The eddsa-rdfc-2022 rows are filled to the smaller keyless limit of a body that carries an RDF proof (${fmtInt(KEYLESS_RDF_BODY_LIMIT_BYTES)} B as compact JSON; src/vault-api/keyless-rdf.ts): distinct values of one term, many small objects, nesting 50 deep, and a poison graph refused by the keyless work bound (64 deep iterations).${statusNote(listBytes)} The last row, with a key, is the review's body for the record; it is not held to the keyless bound.`,
    '',
    table(
      ['case', 'route', 'caller', 'request', 'p50 ms', 'max ms', 'service CPU ms', `≤ ${HOSTILE_TARGET_MS} ms`],
      body,
      ['l', 'l', 'l', 'r', 'r', 'r', 'r', 'l'],
    ),
  ].join('\n');
  const summary = rows.map(
    ({ c, outcome }) => `${c.name}: ${outcome.ok ? `CPU ${ms(outcome.value.cpuMs)} ms/request` : outcome.error}`,
  );
  return { markdown, summary };
}
