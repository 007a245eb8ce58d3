// The verify section's eddsa-rdfc-2022 cases: RDFC_CREDENTIALS distinct credentials signed by digitalbazaar's
// libraries (one did:key issuer; each its own id, subject, claim and signature, the same contexts, as one issuer's
// credentials are), verified in turn by the service (POST /credentials/verify, checks proof) and, in the same
// run, by the peer: @digitalbazaar/vc's own verifyCredential of the same credentials in this process, back to back
// for the same seconds (one core, as one service process). Distinct, so that no cache of a request's content
// could make the service's figure (there is none). Both resolve the did:key offline and read only bundled contexts.
// Beside them, this verifier's own verifyDataIntegrity in this process on both paths of library-fast-path.ts
// (`fast`, the service's default, and `maintained`), so the fast path's gain is measured apart from HTTP.
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { cryptosuite as eddsaRdfc2022 } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import * as vc from '@digitalbazaar/vc';
import { Ed25519KeyCache, resolveDidKey, verifyDataIntegrity } from '../../src/did/index.ts';
import type { LibraryPath } from '../../src/did/library-fast-path.ts';
import { didKey, issueWith, loaderFor, type DidKey } from '../../test-support/digitalbazaar.ts';
import type { HttpCase, HttpResult } from '../lib/http-load.ts';
import type { RunSettings } from '../lib/http-load.ts';

export interface RdfcFixture {
  issuer: DidKey;
  credentials: Record<string, unknown>[];
}

/** Distinct credentials of the rdfc cases, verified in turn. */
export const RDFC_CREDENTIALS = 64;

export async function rdfcFixture(count = RDFC_CREDENTIALS): Promise<RdfcFixture> {
  const issuer = await didKey('Ed25519');
  const subjects = ['Mathematics', 'Physics', 'Chemistry', 'Biology', 'History', 'Economics', 'Law', 'Music'];
  const credentials: Record<string, unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const n = i.toString(16).padStart(12, '0');
    credentials.push(
      await issueWith('eddsa-rdfc-2022', issuer, {
        '@context': ['https://www.w3.org/ns/credentials/v2', { degree: 'https://schema.org/credentialCategory' }],
        id: `urn:uuid:4b1f0c2e-8a7d-4e3b-9c6f-${n}`,
        type: ['VerifiableCredential'],
        validFrom: '2026-01-01T00:00:00Z',
        credentialSubject: {
          id: `did:example:holder-${i}`,
          degree: `Bachelor of Science in ${subjects[i % subjects.length]} (${i})`,
        },
      }),
    );
  }
  return { issuer, credentials };
}

/** The service's case: each credential presented in turn, its proof checked. */
export function rdfcCase(url: string, key: string, keyHeader: string, f: RdfcFixture): HttpCase {
  return {
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', [keyHeader]: key },
    bodies: f.credentials.map((vc) => JSON.stringify({ verifiableCredential: vc, options: { checks: ['proof'] } })),
  };
}

/** Requests of the service's case before any is measured: its validator and JIT warm, as the other cases' do. */
export const RDFC_PRIME_REQUESTS = 200;

export type InProcessPath = 'peer' | LibraryPath;

/**
 * One verification in this process, of the next credential in turn: the peer (@digitalbazaar/vc
 * verifyCredential), or this verifier's own verifyDataIntegrity on either path of library-fast-path.ts (Node's
 * keys kept across calls, as the service keeps them). Throws when it does not verify.
 */
export function inProcessVerifier(f: RdfcFixture, path: InProcessPath): () => Promise<void> {
  let turn = 0;
  const next = () => f.credentials[turn++ % f.credentials.length]!;
  if (path === 'peer') {
    const documentLoader = loaderFor(f.issuer);
    return async () => {
      const r = await vc.verifyCredential({
        credential: next(),
        suite: new DataIntegrityProof({ cryptosuite: eddsaRdfc2022 }),
        documentLoader,
      });
      if (!r.verified) throw new Error(`@digitalbazaar/vc does not verify it: ${String(r.error)}`);
    };
  }
  const keyCache = new Ed25519KeyCache();
  return async () => {
    const r = await verifyDataIntegrity({
      document: next(),
      resolve: async (did) => resolveDidKey(did),
      now: new Date(),
      expectedController: f.issuer.did,
      keyCache,
      libraryPath: path,
    });
    if (!r.verified) throw new Error(`verifyDataIntegrity (${path}) does not verify it: ${JSON.stringify(r.errors)}`);
  };
}

/**
 * One verification after another for the warm-up then the measured seconds; `cpuUsPerRequest` is this
 * process's CPU time over the measured seconds per verification (the bench process does nothing else then).
 */
export async function measureInProcess(once: () => Promise<void>, settings: RunSettings): Promise<HttpResult> {
  const until = (s: number) => performance.now() + s * 1000;
  for (const end = until(settings.warmup); performance.now() < end; ) await once();
  const times: number[] = [];
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (const end = until(settings.duration); performance.now() < end; ) {
    const t = performance.now();
    await once();
    times.push(performance.now() - t);
  }
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  times.sort((a, b) => a - b);
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))] ?? 0;
  return {
    rps: times.length / seconds,
    requests: times.length,
    p50: at(0.5),
    p99: at(0.99),
    non2xx: 0,
    errors: 0,
    statuses: {},
    seconds,
    cpuUsPerRequest: (used.user + used.system) / Math.max(1, times.length),
  };
}
