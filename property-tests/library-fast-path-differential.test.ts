// The RDF cryptosuites' fast path (src/did/library-fast-path.ts: the Ed25519 signature check over Node's key
// made once) against the maintained path (digitalbazaar's objects as they come): for generated credentials
// signed by digitalbazaar's libraries in `eddsa-rdfc-2022` and `Ed25519Signature2020`, by two issuers whose
// keys share one cache, and for any one-byte change of them, both paths give the same verdict and the same
// problems. VC 1.1 credentials have no @vocab, so their generated claims also exercise JSON-LD safe mode.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Ed25519KeyCache, resolveDidKey, verifyDataIntegrity } from '../src/did/index.ts';
import type { LibraryPath } from '../src/did/library-fast-path.ts';
import { didKey, issueWith, type DidKey, type SuiteName } from '../test-support/digitalbazaar.ts';
import { runParams } from './harness.ts';

type Json = Record<string, unknown>;
const V2 = 'https://www.w3.org/ns/credentials/v2';
const V1 = 'https://www.w3.org/2018/credentials/v1';
// digitalbazaar's issue() dates its proof by the real clock.
const NOW = new Date(Date.now() + 60_000);

const RUNS = 40;

/**
 * Claims whose terms the credential's own context defines (JSON-LD safe mode refuses any other), under names
 * that the protected VC contexts do not define (`name`, `description`, … cannot be redefined).
 */
const claims = fc.dictionary(
  fc.stringMatching(/^[a-z]{1,8}$/).map((k) => `claim${k}`),
  fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.array(fc.string(), { maxLength: 3 })),
  { maxKeys: 4 },
);

function credentialOf(suite: SuiteName, subject: Json): Json {
  const v1 = suite === 'Ed25519Signature2020';
  const terms = Object.fromEntries(Object.keys(subject).map((k) => [k, `https://example.org/claims#${k}`]));
  return {
    '@context': [v1 ? V1 : V2, terms],
    id: 'urn:uuid:0b7d2f4e-5a1c-4d3e-8f6a-9b0c1d2e3f4a',
    type: ['VerifiableCredential'],
    ...(v1 ? { issuanceDate: '2025-01-01T00:00:00Z' } : { validFrom: '2025-01-01T00:00:00Z' }),
    credentialSubject: { id: 'did:example:subject', ...subject },
  };
}

/** The verdict and the problems' reasons on one path; the fast path's keys are kept across the whole test. */
async function verdict(document: unknown, path: LibraryPath, keyCache: Ed25519KeyCache) {
  const r = await verifyDataIntegrity({
    document,
    resolve: async (did) => resolveDidKey(did),
    now: NOW,
    libraryPath: path,
    keyCache,
  });
  return { verified: r.verified, reasons: r.errors.map((e) => `${e.type}/${e.reason}`) };
}

/** The signed credential's JSON text with one byte changed, when that still parses to a JSON object. */
function oneByteChanged(signed: Json, at: number, byte: number): unknown {
  const text = Buffer.from(JSON.stringify(signed), 'utf8');
  const i = at % text.length;
  if (text[i] === byte) return undefined;
  text[i] = byte;
  try {
    return JSON.parse(text.toString('utf8'));
  } catch {
    return undefined;
  }
}

describe('RDF cryptosuites: the fast path and the maintained path agree', () => {
  for (const suite of ['eddsa-rdfc-2022', 'Ed25519Signature2020'] as const) {
    it(`${suite}: same verdict and problems for signed credentials and any one-byte change`, async () => {
      const issuers: DidKey[] = [await didKey('Ed25519'), await didKey('Ed25519')];
      const keys = new Ed25519KeyCache();
      const seen = { verified: 0, failed: 0 };
      const params = runParams(`library fast path ${suite}`, RUNS);
      await fc.assert(
        fc.asyncProperty(
          claims,
          fc.nat(1),
          fc.nat(),
          fc.integer({ min: 0x20, max: 0x7e }),
          async (subject, who, at, byte) => {
            const issuer = issuers[who]!;
            const signed = await issueWith(suite, issuer, credentialOf(suite, subject));
            const fast = await verdict(signed, 'fast', keys);
            expect(fast).toEqual(await verdict(signed, 'maintained', new Ed25519KeyCache()));
            expect(fast.verified).toBe(true);
            const changed = oneByteChanged(signed, at, byte);
            if (changed === undefined) return;
            const after = await verdict(changed, 'fast', keys);
            expect(after).toEqual(await verdict(changed, 'maintained', new Ed25519KeyCache()));
            seen[after.verified ? 'verified' : 'failed']++;
          },
        ),
        params,
      );
      // Most changes are refused: the property is not carried by unchanged credentials alone.
      expect(seen.failed).toBeGreaterThan(Number(params.numRuns) / 4);
    }, 180_000);
  }

  it('a signature by another key fails on both paths, with the key of the claimed one cached', async () => {
    const [a, b] = [await didKey('Ed25519'), await didKey('Ed25519')];
    const keys = new Ed25519KeyCache();
    const byA = await issueWith('eddsa-rdfc-2022', a, credentialOf('eddsa-rdfc-2022', { n: 1 }));
    const byB = await issueWith('eddsa-rdfc-2022', b, credentialOf('eddsa-rdfc-2022', { n: 1 }));
    expect((await verdict(byA, 'fast', keys)).verified).toBe(true);
    // B's signature under A's verification method: the same document, A's key (now cached) must refuse it.
    const forged = { ...byA, proof: { ...(byA['proof'] as Json), proofValue: (byB['proof'] as Json)['proofValue'] } };
    const fast = await verdict(forged, 'fast', keys);
    expect(fast).toEqual(await verdict(forged, 'maintained', new Ed25519KeyCache()));
    expect(fast).toEqual({ verified: false, reasons: ['PROOF_VERIFICATION_ERROR/signature_invalid'] });
  });
});
