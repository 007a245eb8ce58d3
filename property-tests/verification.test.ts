// Verification against random change (POST /credentials/verify and POST /presentations/verify of the real
// app): a signed credential or presentation changed anywhere — a value replaced, a member removed or added, a
// string edited, array items swapped — never verifies, unless the change leaves the same JSON (or only extends
// the document's @context after the proof's, which Data Integrity allows). And whatever the service verifies
// also verifies with the independent check of ./independent-eddsa.ts (no code of src/did). Issuers and holders
// are did:key DIDs, so no ledger is involved (a stub chain that any read would fail).
import fc from 'fast-check';
import { Keypair } from '@stellar/stellar-sdk';
import serialize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ed25519KeyPair, signCredential, signPresentation } from '../src/did/index.ts';
import { startVaultTestEnv, stubChain, type VaultTestEnv } from '../test-support/vault-api.ts';
import { independentlyVerified } from './independent-eddsa.ts';
import { runParams } from './http/params.ts';

type Json = Record<string, unknown>;
type Path = (string | number)[];
const V2 = 'https://www.w3.org/ns/credentials/v2';
const CHALLENGE = 'property-nonce-1';

let env: VaultTestEnv;
let key: string;
const issuer = Keypair.random();
const holder = Keypair.random();
const didOf = (kp: Keypair) => {
  const mb = ed25519KeyPair(kp.rawSecretKey()).publicKeyMultibase;
  return { did: `did:key:${mb}`, vm: `did:key:${mb}#${mb}` };
};
const ISSUER = didOf(issuer);
const HOLDER = didOf(holder);

async function signedCredential(
  subject: Json = { id: HOLDER.did, degree: { type: 'BachelorDegree', name: 'Mathematics' } },
): Promise<Json> {
  return signCredential({
    credential: {
      '@context': [V2],
      id: 'urn:uuid:7d1e1c4a-4d5b-4a7e-9a1f-2c3d4e5f6a7b',
      type: ['VerifiableCredential', 'DegreeCredential'],
      issuer: ISSUER.did,
      validFrom: '2026-01-01T00:00:00Z',
      credentialSubject: subject,
    },
    verificationMethod: ISSUER.vm,
    secretKey: issuer.rawSecretKey(),
    created: new Date(env.clock.now() - 60_000),
  });
}

async function signedPresentation(): Promise<Json> {
  return signPresentation({
    presentation: { holder: HOLDER.did, verifiableCredential: [await signedCredential()] },
    verificationMethod: HOLDER.vm,
    challenge: CHALLENGE,
    secretKey: holder.rawSecretKey(),
    created: new Date(env.clock.now() - 60_000),
  });
}

/** Every path into a JSON value, the root excluded. */
function pathsOf(v: unknown, at: Path = []): Path[] {
  if (Array.isArray(v)) return v.flatMap((x, i) => [[...at, i], ...pathsOf(x, [...at, i])]);
  if (typeof v === 'object' && v !== null)
    return Object.entries(v).flatMap(([k, x]) => [[...at, k], ...pathsOf(x, [...at, k])]);
  return [];
}

type Mutation =
  | { op: 'replace'; pick: number; value: unknown }
  | { op: 'remove'; pick: number }
  | { op: 'addMember'; pick: number; name: string; value: unknown }
  | { op: 'editString'; pick: number; suffix: string }
  | { op: 'swap'; pick: number };

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('replace' as const), pick: fc.nat(), value: fc.jsonValue({ maxDepth: 2 }) }),
  fc.record({ op: fc.constant('remove' as const), pick: fc.nat() }),
  fc.record({
    op: fc.constant('addMember' as const),
    pick: fc.nat(),
    name: fc.string({ minLength: 1, maxLength: 12 }),
    value: fc.jsonValue({ maxDepth: 1 }),
  }),
  fc.record({
    op: fc.constant('editString' as const),
    pick: fc.nat(),
    suffix: fc.string({ minLength: 1, maxLength: 3 }),
  }),
  fc.record({ op: fc.constant('swap' as const), pick: fc.nat() }),
);

/** The document after one mutation (a deep copy). */
function mutate(doc: Json, m: Mutation): Json {
  const copy = structuredClone(doc);
  const paths = pathsOf(copy);
  const parentOf = (p: Path) => p.slice(0, -1).reduce<any>((node, k) => node[k], copy);
  const path = paths[m.pick % paths.length]!;
  const parent = parentOf(path);
  const last = path.at(-1)!;
  switch (m.op) {
    case 'replace':
      parent[last] = m.value;
      break;
    case 'remove':
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
      break;
    case 'addMember': {
      const target = parent[last];
      if (typeof target === 'object' && target !== null && !Array.isArray(target)) target[m.name] = m.value;
      else if (Array.isArray(target)) target.push(m.value);
      else parent[last] = { [m.name]: m.value };
      break;
    }
    case 'editString':
      parent[last] = typeof parent[last] === 'string' ? parent[last] + m.suffix : m.suffix;
      break;
    case 'swap': {
      const arr = Array.isArray(parent[last]) ? parent[last] : Array.isArray(parent) ? parent : undefined;
      if (arr && arr.length > 1) [arr[0], arr[arr.length - 1]] = [arr[arr.length - 1], arr[0]];
      else parent[last] = [parent[last], parent[last]];
      break;
    }
  }
  return copy;
}

/**
 * The document with its proofs as a verifier counts them: a proof the set holds twice counts once (the W3C
 * vc-di-eddsa suite's proof-set vectors), and a set of one proof is that proof.
 */
function withProofSet(doc: Json): Json {
  if (!Array.isArray(doc.proof)) return doc;
  const seen = new Map<string, unknown>();
  for (const p of doc.proof as unknown[]) seen.set(serialize(p) ?? '', p);
  const proofs = [...seen.values()];
  return { ...doc, proof: proofs.length === 1 ? proofs[0] : proofs };
}

/**
 * The same document to a Data Integrity verifier: the same JSON, or the same with the document's @context
 * extended after the original one (the proof's @context stays a prefix; eddsa-jcs-2022 §3.3.2).
 * Its proofs are counted as a set (withProofSet).
 */
function sameToVerifier(original: Json, mutated: Json): boolean {
  const { '@context': a, ...restA } = withProofSet(original);
  const { '@context': b, ...restB } = withProofSet(mutated);
  if (serialize(restA) !== serialize(restB)) return false;
  if (!Array.isArray(a) || !Array.isArray(b) || b.length < a.length) return serialize(a) === serialize(b);
  return a.every((c, i) => serialize(c) === serialize(b[i]));
}

beforeAll(async () => {
  const unlimited = { read: 1e9, write: 1e9 };
  env = await startVaultTestEnv({
    chain: stubChain('testnet'),
    limits: { rateLimits: { standard: unlimited, early: unlimited, admin: unlimited } },
  });
  key = (await env.mintKey()).key;
}, 60_000);
afterAll(async () => {
  await env?.close();
});

const post = async (path: string, body: unknown) => {
  const r = await env.request(path, { key, body });
  expect(r.status, JSON.stringify(r.body)).toBeLessThan(500);
  return r;
};

describe('credentials', () => {
  it('the signed credential verifies, by the service and independently (the positive control)', async () => {
    const vc = await signedCredential();
    expect((await post('/credentials/verify', { verifiableCredential: vc })).body.verified).toBe(true);
    expect(
      independentlyVerified(vc, { controller: ISSUER.did, purpose: 'assertionMethod', now: env.clock.now() }),
    ).toBe(true);
  });

  it('random subjects: the service verifies exactly what the independent check verifies', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
        async (claims) => {
          const vc = await signedCredential({ id: HOLDER.did, ...claims });
          const r = await post('/credentials/verify', { verifiableCredential: vc, options: { checks: ['proof'] } });
          expect(r.body.verified).toBe(true);
          expect(
            independentlyVerified(JSON.parse(JSON.stringify(vc)), {
              controller: ISSUER.did,
              purpose: 'assertionMethod',
              now: env.clock.now(),
            }),
          ).toBe(true);
        },
      ),
      runParams('verification: random signed credentials', 100),
    );
  });

  it('a mutated credential never verifies unless it is the same to a verifier; what verifies, verifies independently', async () => {
    const original = await signedCredential();
    let verifiedMutations = 0;
    await fc.assert(
      fc.asyncProperty(mutationArb, async (m) => {
        const mutated = mutate(original, m);
        const text = JSON.stringify({ verifiableCredential: mutated });
        const r = await post('/credentials/verify', text);
        if (r.body.error !== undefined) return; // the request itself refused (not an object, …): nothing verified
        const sent = (JSON.parse(text) as { verifiableCredential: Json }).verifiableCredential;
        if (r.body.verified) {
          verifiedMutations++;
          expect(sameToVerifier(original, sent), `verified a changed credential: ${JSON.stringify(m)}`).toBe(true);
          expect(
            independentlyVerified(sent, { controller: ISSUER.did, purpose: 'assertionMethod', now: env.clock.now() }),
          ).toBe(true);
        } else if (sameToVerifier(original, sent)) {
          expect.fail(
            `refused a credential that is the same to a verifier: ${JSON.stringify(m)} → ${JSON.stringify(r.body.problemDetails)}`,
          );
        }
      }),
      runParams('verification: mutated credentials', 500),
    );
    console.log(
      `[coverage] mutated credentials: ${verifiedMutations} mutations left the credential the same to a verifier`,
    );
  });
});

describe('presentations', () => {
  it('a mutated presentation never verifies unless it is the same to a verifier; what verifies, verifies independently', async () => {
    const original = await signedPresentation();
    const first = await post('/presentations/verify', {
      verifiablePresentation: original,
      options: { challenge: CHALLENGE },
    });
    expect(first.body.verified, JSON.stringify(first.body)).toBe(true);
    await fc.assert(
      fc.asyncProperty(mutationArb, async (m) => {
        const mutated = mutate(original, m);
        const text = JSON.stringify({ verifiablePresentation: mutated, options: { challenge: CHALLENGE } });
        const r = await post('/presentations/verify', text);
        if (r.body.error !== undefined) return;
        const sent = (JSON.parse(text) as { verifiablePresentation: Json }).verifiablePresentation;
        if (r.body.verified) {
          expect(sameToVerifier(original, sent), `verified a changed presentation: ${JSON.stringify(m)}`).toBe(true);
          const now = env.clock.now();
          expect(
            independentlyVerified(sent, {
              controller: HOLDER.did,
              purpose: 'authentication',
              challenge: CHALLENGE,
              now,
            }),
          ).toBe(true);
          for (const vc of sent['verifiableCredential'] as Json[]) {
            expect(independentlyVerified(vc, { controller: ISSUER.did, purpose: 'assertionMethod', now })).toBe(true);
          }
        } else if (sameToVerifier(original, sent)) {
          expect.fail(
            `refused a presentation that is the same to a verifier: ${JSON.stringify(m)} → ${JSON.stringify(r.body.problemDetails)}`,
          );
        }
      }),
      runParams('verification: mutated presentations', 400),
    );
  });
});
