// The worst request bodies within each service's size limit: one huge collection,
// filled right up to the limit. They froze the vault API for 33-47 s and answered up to 32 MB before the
// pre-check (src/platform/bounds.ts); now each is a 400 of a few KB. Shared by the HTTP test
// (oversized-bodies.test.ts: status, code and size) and the benchmark (bench/sections/oversized.ts: latency).
// The verification cases are the worst documents a keyless caller may send: as many proofs as may be
// verified, each chained to all the others, over a document that fills the body (once 260 proofs naming each
// other took 2.7 s of CPU); they answer the verification result, its first problem as the code.
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import { RESOLVER_BODY_LIMIT, VAULT_BODY_LIMIT } from './mutations.ts';

/** The most an error body may take, whatever the request ("a few KB"). */
export const ERROR_BODY_MAX_BYTES = 4096;

export interface OversizedCase {
  name: string;
  /** `verification`: the answer is a verification result (its first problem's reason as the code), not an error. */
  answer?: 'error' | 'verification';
  service: 'vault' | 'resolver';
  path: string;
  /** Needs a vault API key (X-SVC-Key). */
  keyed: boolean;
  body: string;
  want: { status: number; code: string };
}

const OWNER = 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR';
const DID = 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza';
const KEY = 'z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp';

/** Bounds of src/did/data-integrity.ts and src/vault-api/verification-structure.ts, restated: what the cases fill. */
const MAX_PROOFS = 8;
const MAX_PRESENTED_CREDENTIALS = 10;
/**
 * The most a verification answer of these cases may take: a credential's result holds at most 8 proof
 * summaries (strings cut to 256 characters) and their problems; a presentation's, that for each of its 10
 * credentials and its own.
 */
export const VERIFICATION_ANSWER_MAX_BYTES = { credential: 16 * 1024, presentation: 128 * 1024 } as const;

/** The code of an answer: the error envelope's, or the first problem of a verification result. */
export function answerCode(body: unknown): string | undefined {
  const b = body as { error?: string; code?: string; problemDetails?: { reason: string }[] } | undefined;
  return b?.error ?? b?.code ?? b?.problemDetails?.[0]?.reason;
}

/** A did:key of a fixed key (its key is never used: the proofs carry random signatures of the right length). */
const DID_KEY = `did:key:z${base58.encode(Buffer.concat([Buffer.from([0xed, 0x01]), Buffer.alloc(32, 7)]))}`;
const VM = `${DID_KEY}#${DID_KEY.slice('did:key:'.length)}`;

/** `n` proofs by the issuer's key, each naming all the others in previousProof: every one reaches its signature check. */
function chainedProofs(n: number, purpose = 'assertionMethod'): unknown[] {
  const ids = Array.from({ length: n }, (_, i) => `p${i}`);
  return ids.map((id, i) => ({
    id,
    type: 'DataIntegrityProof',
    cryptosuite: 'eddsa-jcs-2022',
    created: '2026-01-01T00:00:00Z',
    verificationMethod: VM,
    proofPurpose: purpose,
    ...(purpose === 'authentication' ? { challenge: 'bench-nonce' } : {}),
    previousProof: ids.filter((_, j) => j !== i),
    proofValue: SIGNATURES[i % SIGNATURES.length],
  }));
}

/** Signatures of the right length that verify nothing, fixed per process so a body's size is too. */
const SIGNATURES = Array.from({ length: 8 }, () => `z${base58.encode(randomBytes(64))}`);

/** A credential of `claims` members in its subject (the costly shape for JCS) or one `blob` string, and `n` chained proofs. */
function credential(fill: { claims?: number; blob?: number }, n = MAX_PROOFS): Record<string, unknown> {
  const subject: Record<string, unknown> = { id: 'did:example:holder' };
  if (fill.claims) for (let i = 0; i < fill.claims; i++) subject[`c${i}`] = i;
  if (fill.blob) subject['blob'] = 'x'.repeat(fill.blob);
  return {
    '@context': ['https://www.w3.org/ns/credentials/v2'],
    type: ['VerifiableCredential'],
    issuer: DID_KEY,
    credentialSubject: subject,
    proof: chainedProofs(n),
  };
}

/** The largest `fill` whose body stays within `limit` (bisection on the fill size). */
function largest(make: (size: number) => string, limit: number, hi: number): string {
  let lo = 1;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (Buffer.byteLength(make(mid)) <= limit) lo = mid;
    else hi = mid - 1;
  }
  return make(lo);
}

function verificationCases(limit: number): OversizedCase[] {
  const vc = (fill: { claims?: number; blob?: number }) => JSON.stringify({ verifiableCredential: credential(fill) });
  // The review's body: as many proofs as fit (the review's had 260), each naming all the others.
  const reviewProofs = (n: number) => JSON.stringify({ verifiableCredential: credential({}, n) });
  const presentation = (claims: number) => {
    const vcs = Array.from({ length: MAX_PRESENTED_CREDENTIALS }, () => credential({ claims }));
    const vp = {
      '@context': ['https://www.w3.org/ns/credentials/v2'],
      type: ['VerifiablePresentation'],
      holder: DID_KEY,
      verifiableCredential: vcs,
      proof: chainedProofs(MAX_PROOFS, 'authentication'),
    };
    return JSON.stringify({ verifiablePresentation: vp, options: { challenge: 'bench-nonce' } });
  };
  return [
    {
      name: 'vault POST /credentials/verify: hundreds of proofs, each naming all the others (the review)',
      service: 'vault',
      path: '/credentials/verify',
      keyed: true,
      answer: 'verification',
      body: largest(reviewProofs, limit, 400),
      want: { status: 400, code: 'too_many_proofs' },
    },
    {
      name: `vault POST /credentials/verify: ${MAX_PROOFS} proofs chained to each other, a subject of small members`,
      service: 'vault',
      path: '/credentials/verify',
      keyed: true,
      answer: 'verification',
      body: largest((n) => vc({ claims: n }), limit, 60_000),
      want: { status: 400, code: 'signature_invalid' },
    },
    {
      name: `vault POST /credentials/verify: ${MAX_PROOFS} proofs chained to each other, one long string`,
      service: 'vault',
      path: '/credentials/verify',
      keyed: true,
      answer: 'verification',
      body: largest((n) => vc({ blob: n }), limit, limit),
      want: { status: 400, code: 'signature_invalid' },
    },
    {
      name: `vault POST /presentations/verify: ${MAX_PRESENTED_CREDENTIALS} credentials and the holder, ${MAX_PROOFS} chained proofs each`,
      service: 'vault',
      path: '/presentations/verify',
      keyed: true,
      answer: 'verification',
      body: largest(presentation, limit, 6_000),
      // A presentation that does not verify answers 400 with its result, as a credential does.
      want: { status: 400, code: 'signature_invalid' },
    },
  ];
}

/** `head` + as many `item(i)` as fit (comma-separated) + `tail`, within `limit` bytes. */
function fill(head: string, item: (i: number) => string, tail: string, limit: number): string {
  const parts: string[] = [];
  let size = Buffer.byteLength(head) + Buffer.byteLength(tail);
  for (let i = 0; ; i++) {
    const p = item(i);
    const add = Buffer.byteLength(p) + (i > 0 ? 1 : 0);
    if (size + add > limit) break;
    parts.push(p);
    size += add;
  }
  return head + parts.join(',') + tail;
}

const record = (inner: string) =>
  `{"did":"${DID}","sourcePublicKey":"${OWNER}","record":{"controller":"${OWNER}",${inner}}}`;

export function oversizedCases(): OversizedCase[] {
  const vault = VAULT_BODY_LIMIT;
  const resolver = RESOLVER_BODY_LIMIT;
  return [
    ...verificationCases(vault),
    {
      name: 'vault POST /auth/keys: scopes of objects (no key)',
      service: 'vault',
      path: '/auth/keys',
      keyed: false,
      body: fill('{"transaction":"AAAA","scopes":[', (i) => `{"a":${i}}`, ']}', vault),
      want: { status: 400, code: 'invalid_request' },
    },
    {
      name: 'vault POST /auth/keys: scopes of zeros (no key)',
      service: 'vault',
      path: '/auth/keys',
      keyed: false,
      body: fill('{"transaction":"AAAA","scopes":[', () => '0', ']}', vault),
      want: { status: 400, code: 'invalid_request' },
    },
    {
      name: 'vault POST /auth/keys: unknown fields (no key)',
      service: 'vault',
      path: '/auth/keys',
      keyed: false,
      body: fill('{"transaction":"AAAA",', (i) => `"k${i}":0`, '}', vault),
      want: { status: 400, code: 'invalid_request' },
    },
    {
      name: 'vault POST /contracts/vc/batch-issue: vcs of {}',
      service: 'vault',
      path: '/contracts/vc/batch-issue',
      keyed: true,
      body: fill('{"vcs":[', () => '{}', ']}', vault),
      want: { status: 400, code: 'batch_too_large' },
    },
    {
      name: 'resolver POST /v1/dids/stellar: authentication of keys',
      service: 'resolver',
      path: '/v1/dids/stellar',
      keyed: false,
      body: fill(
        record('"assertionMethod":[],"keyAgreement":[],"services":[],"authentication":[').slice(0, -2),
        () => `{"publicKeyMultibase":"${KEY}"}`,
        ']}}',
        resolver,
      ),
      want: { status: 400, code: 'key_count_invalid' },
    },
    {
      name: 'resolver POST /v1/dids/stellar: authentication of {}',
      service: 'resolver',
      path: '/v1/dids/stellar',
      keyed: false,
      body: fill(
        record('"assertionMethod":[],"keyAgreement":[],"services":[],"authentication":[').slice(0, -2),
        () => '{}',
        ']}}',
        resolver,
      ),
      want: { status: 400, code: 'key_count_invalid' },
    },
    {
      name: 'resolver POST /v1/dids/stellar: unknown fields of the record',
      service: 'resolver',
      path: '/v1/dids/stellar',
      keyed: false,
      body: fill(
        record(
          `"authentication":[{"publicKeyMultibase":"${KEY}"}],"assertionMethod":[],"keyAgreement":[],"services":[],`,
        ).slice(0, -2),
        (i) => `"k${i}":0`,
        '}}',
        resolver,
      ),
      want: { status: 400, code: 'invalid_request' },
    },
  ];
}
