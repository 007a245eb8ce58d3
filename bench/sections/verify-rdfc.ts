// The verify section's eddsa-rdfc-2022 cases: one credential signed by digitalbazaar's libraries (a did:key
// issuer), verified by the service (POST /credentials/verify, checks proof) and, in the same run, by the peer:
// @digitalbazaar/vc's own verifyCredential of the same credential in this process, back to back for the same
// seconds (one core, as one service process). Both resolve the did:key offline and read only bundled contexts.
import { DataIntegrityProof } from '@digitalbazaar/data-integrity';
import { cryptosuite as eddsaRdfc2022 } from '@digitalbazaar/eddsa-rdfc-2022-cryptosuite';
import * as vc from '@digitalbazaar/vc';
import { didKey, issueWith, loaderFor, type DidKey } from '../../test-support/digitalbazaar.ts';
import type { HttpCase, HttpResult } from '../lib/http-load.ts';
import type { RunSettings } from '../lib/http-load.ts';

export interface RdfcFixture {
  issuer: DidKey;
  credential: Record<string, unknown>;
}

export async function rdfcFixture(): Promise<RdfcFixture> {
  const issuer = await didKey('Ed25519');
  const credential = await issueWith('eddsa-rdfc-2022', issuer, {
    '@context': ['https://www.w3.org/ns/credentials/v2', { degree: 'https://schema.org/credentialCategory' }],
    id: 'urn:uuid:4b1f0c2e-8a7d-4e3b-9c6f-1d2e3f4a5b6c',
    type: ['VerifiableCredential'],
    validFrom: '2026-01-01T00:00:00Z',
    credentialSubject: { id: 'did:example:holder', degree: 'Bachelor of Science in Mathematics' },
  });
  return { issuer, credential };
}

/** The service's case: the credential presented, its proof checked. */
export function rdfcCase(url: string, key: string, keyHeader: string, f: RdfcFixture): HttpCase {
  return {
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', [keyHeader]: key },
    body: JSON.stringify({ verifiableCredential: f.credential, options: { checks: ['proof'] } }),
  };
}

/** The peer: @digitalbazaar/vc verifyCredential, one after another for the warm-up then the measured seconds. */
export async function measurePeer(f: RdfcFixture, settings: RunSettings): Promise<HttpResult> {
  const documentLoader = loaderFor(f.issuer);
  const once = async () => {
    const r = await vc.verifyCredential({
      credential: f.credential,
      suite: new DataIntegrityProof({ cryptosuite: eddsaRdfc2022 }),
      documentLoader,
    });
    if (!r.verified) throw new Error(`@digitalbazaar/vc does not verify it: ${String(r.error)}`);
  };
  const until = (s: number) => performance.now() + s * 1000;
  for (const end = until(settings.warmup); performance.now() < end; ) await once();
  const times: number[] = [];
  const start = performance.now();
  for (const end = until(settings.duration); performance.now() < end; ) {
    const t = performance.now();
    await once();
    times.push(performance.now() - t);
  }
  const seconds = (performance.now() - start) / 1000;
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
  };
}
