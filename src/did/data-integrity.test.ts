import { createHash, createPrivateKey, sign as cryptoSign } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  MAX_PREVIOUS_PROOFS,
  MAX_PROOFS,
  addProof,
  createProof,
  signCredential,
  signPresentation,
  verifyDataIntegrity,
  type DataIntegrityProof,
  type ProofProblemReason,
  type VerifyDataIntegrityOptions,
} from './data-integrity.ts';
import { ed25519KeyPair, hashData, proofConfiguration, transform } from './eddsa-jcs-2022.ts';
import { buildResolutionResult, resolutionError } from './document.ts';
import { canonicalize } from './jcs.ts';
import type { DidDocument, DidRecord, DidResolutionResult } from './types.ts';

// ---------------------------------------------------------------------------------------------------------
// vc-di-eddsa (Data Integrity EdDSA Cryptosuites v1.0), Appendix "Representation: eddsa-jcs-2022": the
// published key pair, credential, proof configuration and results (w3c/vc-di-eddsa TestVectors/).
const VECTOR_PUBLIC = 'z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2';
const VECTOR_SECRET = 'z3u2en7t5LR2WtQH5PfFqMqwVHBeXouLzo6haApm8XHqvjxq';
const CONTEXT = ['https://www.w3.org/ns/credentials/v2', 'https://www.w3.org/ns/credentials/examples/v2'];
const ALUMNI = {
  '@context': CONTEXT,
  id: 'urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33',
  type: ['VerifiableCredential', 'AlumniCredential'],
  name: 'Alumni Credential',
  description: 'A minimum viable example of an Alumni Credential.',
  issuer: 'https://vc.example/issuers/5678',
  validFrom: '2023-01-01T00:00:00Z',
  credentialSubject: { id: 'did:example:abcdefgh', alumniOf: 'The School of Examples' },
};
const DID_KEY = `did:key:${VECTOR_PUBLIC}`;
const VECTOR_CONFIG = {
  type: 'DataIntegrityProof',
  cryptosuite: 'eddsa-jcs-2022',
  created: '2023-02-24T23:36:38Z',
  verificationMethod: `${DID_KEY}#${VECTOR_PUBLIC}`,
  proofPurpose: 'assertionMethod',
  '@context': CONTEXT,
};
const CANON_DOC =
  '{"@context":["https://www.w3.org/ns/credentials/v2","https://www.w3.org/ns/credentials/examples/v2"],"credentialSubject":{"alumniOf":"The School of Examples","id":"did:example:abcdefgh"},"description":"A minimum viable example of an Alumni Credential.","id":"urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33","issuer":"https://vc.example/issuers/5678","name":"Alumni Credential","type":["VerifiableCredential","AlumniCredential"],"validFrom":"2023-01-01T00:00:00Z"}';
const DOC_HASH = '59b7cb6251b8991add1ce0bc83107e3db9dbbab5bd2c28f687db1a03abc92f19';
const CANON_PROOF_CONFIG =
  '{"@context":["https://www.w3.org/ns/credentials/v2","https://www.w3.org/ns/credentials/examples/v2"],"created":"2023-02-24T23:36:38Z","cryptosuite":"eddsa-jcs-2022","proofPurpose":"assertionMethod","type":"DataIntegrityProof","verificationMethod":"did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2#z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2"}';
const PROOF_HASH = '66ab154f5c2890a140cb8388a22a160454f80575f6eae09e5a097cabe539a1db';
const SIGNATURE_HEX =
  '407cd12654b33d718ecbb99179a1506daaa849450bf3fc523cce3e1c96f8b80351da3f253d725c6f00b07c9e5448d50b3ef78012b9ab54255116d069c6dd2808';
const PROOF_VALUE = 'z2HnFSSPPBzR36zdDgK8PbEHeXbR56YF24jwMpt3R1eHXQzJDMWS93FCzpvJpwTWd3GAVFuUfjoJdcnTMuVor51aX';

const sha256Hex = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

/** did:key of the vector's key, as a did:key resolver would answer (the key authorizes every purpose). */
async function resolveDidKey(did: string): Promise<DidResolutionResult> {
  if (did !== DID_KEY) return resolutionError('notFound');
  const vm = {
    id: `${DID_KEY}#${VECTOR_PUBLIC}`,
    type: 'Multikey' as const,
    controller: DID_KEY,
    publicKeyMultibase: VECTOR_PUBLIC,
  };
  const didDocument: DidDocument = {
    id: DID_KEY,
    verificationMethod: [vm],
    authentication: [vm.id],
    assertionMethod: [vm.id],
  };
  return { didDocument, didDocumentMetadata: {}, didResolutionMetadata: { contentType: 'application/did+json' } };
}

describe('eddsa-jcs-2022: the specification test vectors', () => {
  it('derives the vector public key from the vector secret key', () => {
    expect(ed25519KeyPair(VECTOR_SECRET).publicKeyMultibase).toBe(VECTOR_PUBLIC);
  });

  it('reproduces the canonical document, the canonical proof configuration and both hashes', () => {
    const canonDoc = transform(ALUMNI, VECTOR_CONFIG);
    const canonConfig = proofConfiguration(VECTOR_CONFIG);
    expect(canonDoc).toBe(CANON_DOC);
    expect(sha256Hex(canonDoc)).toBe(DOC_HASH);
    expect(canonConfig).toBe(CANON_PROOF_CONFIG);
    expect(sha256Hex(canonConfig)).toBe(PROOF_HASH);
    expect(Buffer.from(hashData(canonDoc, canonConfig)).toString('hex')).toBe(PROOF_HASH + DOC_HASH);
  });

  it('reproduces the signature and the proofValue byte for byte', async () => {
    const { '@context': _ctx, ...options } = VECTOR_CONFIG;
    const proof = await createProof(
      ALUMNI,
      { ...options, proofPurpose: 'assertionMethod' },
      { secretKey: VECTOR_SECRET },
    );
    expect(proof).toEqual({ ...VECTOR_CONFIG, proofValue: PROOF_VALUE });
    const signature = await ed25519KeyPair(VECTOR_SECRET).sign(hashData(CANON_DOC, CANON_PROOF_CONFIG));
    expect(Buffer.from(signature).toString('hex')).toBe(SIGNATURE_HEX);
  });

  it('verifies the published secured credential', async () => {
    const secured = { ...ALUMNI, proof: { ...VECTOR_CONFIG, proofValue: PROOF_VALUE } };
    const result = await verifyDataIntegrity({
      document: secured,
      resolve: resolveDidKey,
      now: new Date('2024-01-01T00:00:00Z'),
    });
    expect(result.errors).toEqual([]);
    expect(result.verified).toBe(true);
    expect(result.verifiedDocument).toEqual(ALUMNI);
    expect(result.results[0]!.verificationMethod).toBe(VECTOR_CONFIG.verificationMethod);
  });

  it('reproduces the earlier vector signed for an https verification method', async () => {
    const config = { ...VECTOR_CONFIG, verificationMethod: `https://vc.example/issuers/5678#${VECTOR_PUBLIC}` };
    const sig = ed25519KeyPair(VECTOR_SECRET).sign(hashData(transform(ALUMNI, config), proofConfiguration(config)));
    expect(Buffer.from(await sig).toString('hex')).toBe(
      'fc91dec6565f35fbe185a77352e7fc512f95d1904da305cfef32ab8135469301f5a72d4e7a58368fc6ffc497b44633993bac054e3bc1436e3c846db8f1544503',
    );
  });
});

// ---------------------------------------------------------------------------------------------------------
// did:ledger issuers: keys found through DID resolution, under assertionMethod, DID active.

const DID = 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza';
const OTHER = 'did:ledger:testnet:aaaqeayeaudaocajbifqydiob4';
const seed = (n: number) => Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? n : 0));
const AUTH = seed(0);
const ASSERT = seed(2);
const OTHER_ASSERT = seed(3);
const mk = (s: Uint8Array) => ed25519KeyPair(s).publicKeyMultibase;

const record = (over: Partial<DidRecord> = {}): DidRecord => ({
  controller: 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR',
  authentication: [{ publicKeyMultibase: mk(AUTH) }],
  assertionMethod: [{ publicKeyMultibase: mk(ASSERT) }],
  keyAgreement: [],
  services: [],
  version: 1,
  createdLedger: 5,
  updatedLedger: 5,
  deactivated: false,
  ...over,
});
const resolution = (did: string, r: DidRecord) =>
  buildResolutionResult({ parsed: { did, network: 'testnet', didId: did.split(':')[3]! }, record: r });
const registry = (entries: Record<string, DidRecord>) => async (did: string) =>
  entries[did] ? resolution(did, entries[did]!) : resolutionError('notFound', `${did} is not registered`);

const NOW = new Date('2026-11-24T10:00:00Z');
const CREDENTIAL = {
  '@context': ['https://www.w3.org/ns/credentials/v2'],
  id: 'urn:uuid:9b1deb4d-3b7d-4bad-9bdd-2b0d7b3dcb6d',
  type: ['VerifiableCredential', 'EmployeeCredential'],
  issuer: DID,
  validFrom: '2026-01-01T00:00:00Z',
  credentialSubject: { id: 'did:ledger:testnet:aaaqeayeaudaocajbifqydiob4', role: 'auditor' },
};
const sign = (over: Partial<Parameters<typeof signCredential>[0]> = {}) =>
  signCredential({
    credential: CREDENTIAL,
    verificationMethod: `${DID}#assert-1`,
    secretKey: ASSERT,
    created: '2026-11-24T09:00:00Z',
    ...over,
  } as Parameters<typeof signCredential>[0]);

type Case = {
  name: string;
  make: () => Promise<Record<string, unknown>>;
  options?: Partial<VerifyDataIntegrityOptions>;
  registry?: Record<string, DidRecord>;
  want: true | ProofProblemReason;
};

const withProof = async (change: (p: DataIntegrityProof) => DataIntegrityProof) => {
  const s = await sign();
  return { ...s, proof: change(s.proof as DataIntegrityProof) };
};

const CASES: Case[] = [
  { name: 'a credential signed by an assertion key', make: () => sign(), want: true },
  {
    name: 'the same through a signer callback',
    make: () => sign({ secretKey: undefined, signer: ed25519KeyPair(ASSERT).sign }),
    want: true,
  },
  {
    name: 'a @context appended after signing (the proof context is a prefix)',
    make: async () => {
      const s = await sign();
      return { ...s, '@context': [...CREDENTIAL['@context'], 'https://w3id.org/security/data-integrity/v2'] };
    },
    want: true,
  },
  {
    name: 'a tampered credential',
    make: async () => ({ ...(await sign()), credentialSubject: { ...CREDENTIAL.credentialSubject, role: 'admin' } }),
    want: 'signature_invalid',
  },
  {
    name: 'a tampered proof',
    make: () => withProof((p) => ({ ...p, created: '2026-11-24T09:00:01Z' })),
    want: 'signature_invalid',
  },
  { name: 'a key other than the one named', make: () => sign({ secretKey: OTHER_ASSERT }), want: 'signature_invalid' },
  {
    name: 'a key not under assertionMethod',
    make: () => sign({ verificationMethod: `${DID}#auth-1`, secretKey: AUTH }),
    want: 'verification_method_not_authorized',
  },
  {
    name: 'a fragment the document does not have',
    make: () => sign({ verificationMethod: `${DID}#assert-9` }),
    want: 'verification_method_not_found',
  },
  {
    name: 'a verification method that is not a DID URL',
    make: () => sign({ verificationMethod: 'https://issuer.example/keys/1' }),
    want: 'verification_method_invalid',
  },
  {
    name: 'a deactivated DID',
    make: () => sign(),
    registry: { [DID]: record({ deactivated: true }) },
    want: 'did_deactivated',
  },
  { name: 'an unregistered DID', make: () => sign(), registry: {}, want: 'did_not_found' },
  { name: 'an expired proof', make: () => sign({ expires: '2026-11-24T09:30:00Z' }), want: 'proof_expired' },
  { name: 'a proof that expires later', make: () => sign({ expires: '2026-11-25T00:00:00Z' }), want: true },
  {
    name: 'a proof created beyond the clock skew',
    make: () => sign({ created: '2026-11-24T10:06:00Z' }),
    want: 'created_in_future',
  },
  { name: 'a proof created within the clock skew', make: () => sign({ created: '2026-11-24T10:04:00Z' }), want: true },
  {
    name: 'the wrong purpose',
    make: () => sign({ proofPurpose: 'authentication', verificationMethod: `${DID}#auth-1`, secretKey: AUTH }),
    want: 'proof_purpose_mismatch',
  },
  {
    name: 'the purpose the verifier asked for',
    make: () => sign({ proofPurpose: 'authentication', verificationMethod: `${DID}#auth-1`, secretKey: AUTH }),
    options: { expectedProofPurpose: 'authentication' },
    want: true,
  },
  {
    name: 'a missing document @context',
    make: async () => {
      const { '@context': _c, ...rest } = await sign();
      return rest;
    },
    want: 'context_mismatch',
  },
  {
    name: 'a document @context in another order',
    make: async () => {
      const c = {
        ...CREDENTIAL,
        '@context': ['https://www.w3.org/ns/credentials/v2', 'https://www.w3.org/ns/credentials/examples/v2'],
      };
      const s = await sign({ credential: c });
      return { ...s, '@context': [...c['@context']].reverse() };
    },
    want: 'context_mismatch',
  },
  {
    name: 'a proofValue that is not base58btc',
    make: () => withProof((p) => ({ ...p, proofValue: 'u' + p.proofValue.slice(1) })),
    want: 'malformed_proof',
  },
  {
    name: 'a cryptosuite this verifier does not know',
    make: () => withProof((p) => ({ ...p, cryptosuite: 'bbs-2023' as never })),
    want: 'unsupported_cryptosuite',
  },
  {
    // Read as RDF, the test credential's terms are not defined by its contexts: JSON-LD safe mode refuses it.
    name: 'a JCS proof relabelled eddsa-rdfc-2022',
    make: () => withProof((p) => ({ ...p, cryptosuite: 'eddsa-rdfc-2022' as never })),
    want: 'undefined_term',
  },
  {
    name: 'a proof without proofPurpose',
    make: () => withProof(({ proofPurpose: _p, ...p }) => p as DataIntegrityProof),
    want: 'malformed_proof',
  },
  {
    name: 'a created that is not a dateTimeStamp',
    make: () => withProof((p) => ({ ...p, created: '2026-11-24' })),
    want: 'malformed_proof',
  },
  { name: 'no proof at all', make: async () => ({ ...CREDENTIAL }), want: 'no_proof' },
  {
    name: 'a domain the verifier expects',
    make: () => sign({ domain: 'verifier.example' }),
    options: { domain: 'verifier.example' },
    want: true,
  },
  {
    name: 'another domain',
    make: () => sign({ domain: 'other.example' }),
    options: { domain: 'verifier.example' },
    want: 'domain_mismatch',
  },
  {
    name: 'another challenge',
    make: () => sign({ challenge: 'abc' }),
    options: { challenge: 'xyz' },
    want: 'challenge_mismatch',
  },
];

describe('verifyDataIntegrity: did:ledger credentials', () => {
  describe.each(CASES)('$name', ({ make, options, registry: entries, want }) => {
    it(want === true ? 'verifies' : `fails with ${want}`, async () => {
      const document = await make();
      const resolve = registry(
        entries ?? {
          [DID]: record(),
          [OTHER]: record({ assertionMethod: [{ publicKeyMultibase: mk(OTHER_ASSERT) }] }),
        },
      );
      const result = await verifyDataIntegrity({ document, resolve, now: NOW, ...options });
      if (want === true) {
        expect(result.errors).toEqual([]);
        expect(result.verified).toBe(true);
      } else {
        expect(result.verified).toBe(false);
        expect(result.errors.map((e) => e.reason)).toContain(want);
        expect(result.verifiedDocument).toBeUndefined();
      }
    });
  });

  it('reports a DID that cannot be resolved (the ledger unreachable) as did_unresolvable', async () => {
    const resolve = async () => resolutionError('internalError', 'the registry could not be read: rpc down');
    const result = await verifyDataIntegrity({ document: await sign(), resolve, now: NOW });
    expect(result.verified).toBe(false);
    expect(result.errors[0]!.reason).toBe('did_unresolvable');
  });

  // A programming error is not a verification outcome: it must surface (the service answers 500 and logs it),
  // not read as "the issuer's DID could not be resolved".
  it('lets a programming error of the resolver through as a throw', async () => {
    const resolve = async (): Promise<DidResolutionResult> => {
      throw new TypeError("Cannot read properties of undefined (reading 'record')");
    };
    await expect(verifyDataIntegrity({ document: await sign(), resolve, now: NOW })).rejects.toThrow(TypeError);
  });

  it('refuses a proof by another DID than expectedController without resolving it', async () => {
    const asked: string[] = [];
    const inner = registry({
      [DID]: record(),
      [OTHER]: record({ assertionMethod: [{ publicKeyMultibase: mk(OTHER_ASSERT) }] }),
    });
    const resolve = (did: string) => {
      asked.push(did);
      return inner(did);
    };
    const result = await verifyDataIntegrity({ document: await sign(), resolve, now: NOW, expectedController: OTHER });
    expect(result.errors.map((e) => e.reason)).toEqual(['not_proof_signer']);
    expect(asked).toEqual([]);
    expect(
      (await verifyDataIntegrity({ document: await sign(), resolve, now: NOW, expectedController: DID })).verified,
    ).toBe(true);
  });

  it('reports every mismatch of purpose, domain and challenge', async () => {
    const document = await sign({ proofPurpose: 'authentication', domain: 'a.example', challenge: 'c-1' });
    const result = await verifyDataIntegrity({
      document,
      resolve: registry({ [DID]: record() }),
      now: NOW,
      domain: 'b.example',
      challenge: 'c-2',
    });
    expect(result.errors.map((e) => [e.type, e.reason])).toEqual([
      ['MISMATCHED_PROOF_PURPOSE_ERROR', 'proof_purpose_mismatch'],
      ['INVALID_DOMAIN_ERROR', 'domain_mismatch'],
      ['INVALID_CHALLENGE_ERROR', 'challenge_mismatch'],
    ]);
  });

  it.each([null, 'text', [], 42])('answers a non-object document (%j) with a result', async (document) => {
    const result = await verifyDataIntegrity({ document, resolve: registry({}), now: NOW });
    expect(result).toMatchObject({ verified: false, errors: [{ reason: expect.any(String) }] });
  });
});

describe('proof sets and chains', () => {
  const resolve = registry({
    [DID]: record(),
    [OTHER]: record({ assertionMethod: [{ publicKeyMultibase: mk(OTHER_ASSERT) }] }),
  });
  const first = () => sign({ id: 'urn:uuid:proof-1' });

  it('a proof set of two issuers verifies, and one bad proof fails the set', async () => {
    const set = await addProof(
      await first(),
      { verificationMethod: `${OTHER}#assert-1`, created: '2026-11-24T09:05:00Z' },
      { secretKey: OTHER_ASSERT },
    );
    expect(Array.isArray(set.proof) && set.proof.length).toBe(2);
    const ok = await verifyDataIntegrity({ document: set, resolve, now: NOW });
    expect(ok.verified).toBe(true);
    expect(ok.results.map((r) => r.controller)).toEqual([DID, OTHER]);

    const proofs = set.proof as DataIntegrityProof[];
    const broken = { ...set, proof: [proofs[0], { ...proofs[1]!, created: '2026-11-24T09:06:00Z' }] };
    const bad = await verifyDataIntegrity({ document: broken, resolve, now: NOW });
    expect(bad.verified).toBe(false);
    expect(bad.results.map((r) => r.verified)).toEqual([true, false]);
  });

  it('a chained proof signs over the proof it names', async () => {
    const chain = await addProof(
      await first(),
      { verificationMethod: `${OTHER}#assert-1`, previousProof: 'urn:uuid:proof-1' },
      { secretKey: OTHER_ASSERT },
    );
    const proofs = chain.proof as DataIntegrityProof[];
    expect(proofs[1]!.previousProof).toBe('urn:uuid:proof-1');
    expect((await verifyDataIntegrity({ document: chain, resolve, now: NOW })).verified).toBe(true);

    // The second proof covers the first: it fails when the first is dropped or swapped.
    const dropped = await verifyDataIntegrity({ document: { ...chain, proof: [proofs[1]] }, resolve, now: NOW });
    expect(dropped.errors.map((e) => e.reason)).toEqual(['previous_proof_missing']);
    const other = await sign({ id: 'urn:uuid:proof-1', created: '2026-11-24T09:59:00Z' });
    const swapped = await verifyDataIntegrity({
      document: { ...chain, proof: [other.proof, proofs[1]] },
      resolve,
      now: NOW,
    });
    expect(swapped.results.map((r) => r.verified)).toEqual([true, false]);
  });

  it('composes the hash input of a chained proof with members before and after "proof" in JCS order', async () => {
    const doc = {
      ...(await first()),
      aardvark: [1, 2],
      quux: { b: 1, a: 2 },
      zeta: 'last',
      type: ['VerifiableCredential'],
    };
    const { proof: p1, ...rest } = doc;
    const one = await addProof(
      rest,
      { id: 'urn:uuid:p-a', verificationMethod: `${DID}#assert-1` },
      { secretKey: ASSERT },
    );
    const two = await addProof(
      one,
      { id: 'urn:uuid:p-b', verificationMethod: `${OTHER}#assert-1`, previousProof: 'urn:uuid:p-a' },
      { secretKey: OTHER_ASSERT },
    );
    const three = await addProof(
      two,
      { verificationMethod: `${DID}#assert-1`, previousProof: ['urn:uuid:p-b', 'urn:uuid:p-a'] },
      { secretKey: ASSERT },
    );
    expect(p1).toBeDefined();
    const result = await verifyDataIntegrity({ document: three, resolve, now: NOW });
    expect(result.errors).toEqual([]);
    expect(result.verified).toBe(true);
  });

  it(`refuses more than ${MAX_PROOFS} proofs without verifying any`, async () => {
    const one = (await first()).proof;
    const result = await verifyDataIntegrity({
      document: { ...(await first()), proof: Array.from({ length: MAX_PROOFS + 1 }, () => one) },
      resolve,
      now: NOW,
    });
    expect(result).toMatchObject({
      verified: false,
      results: [],
      errors: [{ type: 'MALFORMED_PROOF_ERROR', reason: 'too_many_proofs' }],
    });
  });

  it('a set that holds the same proof twice verifies, each copy checked once (W3C vc-di-eddsa-test-suite)', async () => {
    const doc = await first();
    const asked: string[] = [];
    const counted = (did: string) => {
      asked.push(did);
      return resolve(did);
    };
    const twice = { ...doc, proof: [doc.proof, structuredClone(doc.proof)] };
    const result = await verifyDataIntegrity({ document: twice, resolve: counted, now: NOW, expectedController: DID });
    expect(result.verified).toBe(true);
    expect(result.results.map((r) => [r.verified, r.controller])).toEqual([
      [true, DID],
      [true, DID],
    ]);
    expect(asked).toEqual([DID]);
    // A copy with one value changed is another proof, and it fails the set.
    const changed = { ...doc, proof: [doc.proof, { ...doc.proof, created: '2026-11-24T09:06:00Z' }] };
    const bad = await verifyDataIntegrity({ document: changed, resolve, now: NOW, expectedController: DID });
    expect(bad.results.map((r) => r.verified)).toEqual([true, false]);
  });

  it("with coSigners, a proof by another DID verifies with its key; one proof must be the controller's", async () => {
    const set = await addProof(
      await sign({ verificationMethod: `${OTHER}#assert-1`, secretKey: OTHER_ASSERT, id: 'urn:uuid:proof-1' }),
      {
        verificationMethod: `${DID}#assert-1`,
        created: '2026-11-24T09:05:00Z',
        previousProof: 'urn:uuid:proof-1',
      },
      { secretKey: ASSERT },
    );
    const options = { document: set, resolve, now: NOW, expectedController: DID };
    const strict = await verifyDataIntegrity(options);
    expect(strict.errors.map((e) => e.reason)).toEqual(['not_proof_signer']);
    const ok = await verifyDataIntegrity({ ...options, coSigners: true });
    expect(ok.verified).toBe(true);
    expect(ok.results.map((r) => r.controller)).toEqual([OTHER, DID]);
    // Co-signers alone are not the issuer.
    const onlyOther = { ...set, proof: (set.proof as DataIntegrityProof[])[0] };
    const none = await verifyDataIntegrity({ ...options, document: onlyOther, coSigners: true });
    expect(none.verified).toBe(false);
    expect(none.errors.map((e) => e.reason)).toEqual(['not_proof_signer']);
  });

  it.each([
    ['names a proof twice', ['urn:uuid:proof-1', 'urn:uuid:proof-1']],
    [
      `names more than ${MAX_PREVIOUS_PROOFS} proofs`,
      Array.from({ length: MAX_PREVIOUS_PROOFS + 1 }, (_, i) => `urn:uuid:p-${i}`),
    ],
    ['is an empty list', []],
    ['is a number', 7],
  ])('a previousProof that %s is a malformed proof', async (_name, previousProof) => {
    const doc = await first();
    const result = await verifyDataIntegrity({
      document: { ...doc, proof: [doc.proof, { ...doc.proof, id: 'urn:uuid:proof-2', previousProof }] },
      resolve,
      now: NOW,
    });
    expect(result.results.map((r) => r.errors.map((e) => e.type))).toEqual([[], ['MALFORMED_PROOF_ERROR']]);
  });

  it('refuses to chain to a proof the document does not have', async () => {
    await expect(
      addProof(
        await first(),
        { verificationMethod: `${OTHER}#assert-1`, previousProof: 'urn:uuid:nope' },
        { secretKey: OTHER_ASSERT },
      ),
    ).rejects.toThrow(/previousProof/);
  });
});

describe('signCredential', () => {
  it('produces an eddsa-jcs-2022 assertion proof with the document context', async () => {
    const signed = await sign({ created: new Date('2026-11-24T09:00:00.000Z') });
    expect(signed.proof).toMatchObject({
      type: 'DataIntegrityProof',
      cryptosuite: 'eddsa-jcs-2022',
      proofPurpose: 'assertionMethod',
      verificationMethod: `${DID}#assert-1`,
      created: '2026-11-24T09:00:00Z',
      '@context': CREDENTIAL['@context'],
      proofValue: expect.stringMatching(/^z[1-9A-HJ-NP-Za-km-z]{86,88}$/),
    });
    // Ed25519 is deterministic: Node's own signature over the same bytes is the same proofValue.
    const key = createPrivateKey({
      key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(ASSERT)]),
      format: 'der',
      type: 'pkcs8',
    });
    const { proofValue: _v, ...config } = signed.proof as DataIntegrityProof;
    const sig = cryptoSign(null, hashData(canonicalize(CREDENTIAL), proofConfiguration(config)), key);
    expect(Buffer.from(sig).length).toBe(64);
    expect((await sign({ secretKey: undefined, signer: () => new Uint8Array(sig) })).proof).toEqual(signed.proof);
  });

  it.each([
    ['both a key and a signer', { signer: ed25519KeyPair(ASSERT).sign }],
    ['neither a key nor a signer', { secretKey: undefined }],
    ['a secret key of the wrong length', { secretKey: new Uint8Array(31) }],
    ['a created that is not a date-time', { created: 'yesterday' }],
    ['a signer that returns no signature', { secretKey: undefined, signer: () => new Uint8Array(3) }],
  ])('refuses %s', async (_name, over) => {
    await expect(sign(over as never)).rejects.toThrow();
  });
});

describe('signCredential with ledgerVaultStatus, and signPresentation', () => {
  const VAULT = 'CD4FWXJVWXKDA6QU36W7SMC7PVVM2F43RTJIXY7G4PSF3A2YH52YRHWZ';
  const CTX = 'http://127.0.0.1:3000/contexts/ledger-vault/v1';

  it('adds the LedgerVaultStatusEntry and its context before signing', async () => {
    const signed = await sign({
      ledgerVaultStatus: { network: 'testnet', vaultContract: VAULT, vcId: 'vc-1', contextUrl: CTX },
    });
    expect(signed['credentialStatus']).toEqual({
      type: 'LedgerVaultStatusEntry',
      statusPurpose: 'revocation',
      network: 'testnet',
      vaultContract: VAULT,
      vcId: 'vc-1',
    });
    expect(signed['@context']).toEqual([...CREDENTIAL['@context'], CTX]);
    expect(
      (await verifyDataIntegrity({ document: signed, resolve: registry({ [DID]: record() }), now: NOW })).verified,
    ).toBe(true);
  });

  it('keeps other status entries beside it, and refuses a second LedgerVaultStatusEntry', async () => {
    const other = { type: 'BitstringStatusListEntry', statusPurpose: 'suspension' };
    const signed = await sign({
      credential: { ...CREDENTIAL, credentialStatus: other },
      ledgerVaultStatus: { network: 'testnet', vaultContract: VAULT, vcId: 'vc-1' },
    });
    expect(signed['credentialStatus']).toEqual([other, expect.objectContaining({ type: 'LedgerVaultStatusEntry' })]);
    await expect(
      sign({ credential: signed, ledgerVaultStatus: { network: 'testnet', vaultContract: VAULT, vcId: 'vc-2' } }),
    ).rejects.toThrow(/already carries/);
  });

  it("signs a presentation for its holder's authentication key over the challenge", async () => {
    const vp = await signPresentation({
      presentation: { holder: DID, verifiableCredential: [await sign()] },
      verificationMethod: `${DID}#auth-1`,
      challenge: 'c-1',
      domain: 'v.example',
      secretKey: AUTH,
    });
    expect(vp).toMatchObject({
      '@context': ['https://www.w3.org/ns/credentials/v2'],
      type: ['VerifiablePresentation'],
      holder: DID,
    });
    expect(vp.proof).toMatchObject({ proofPurpose: 'authentication', challenge: 'c-1', domain: 'v.example' });
    const result = await verifyDataIntegrity({
      document: vp,
      resolve: registry({ [DID]: record() }),
      now: NOW,
      expectedProofPurpose: 'authentication',
      challenge: 'c-1',
      domain: 'v.example',
      expectedController: DID,
    });
    expect(result.errors).toEqual([]);
  });
});

describe('canonicalCache', () => {
  it('keeps the JCS text of each document verified, equal to canonicalize, and uses it inside a container', async () => {
    const cache = new WeakMap<object, string>();
    const one = await sign({ id: 'urn:uuid:a' } as never);
    const set = await addProof(
      await sign(),
      { verificationMethod: `${DID}#assert-1`, created: '2026-11-24T09:01:00Z' },
      { secretKey: ASSERT },
    );
    const resolve = registry({ [DID]: record() });
    for (const doc of [one, set]) {
      await verifyDataIntegrity({ document: doc, resolve, now: NOW, canonicalCache: cache });
      expect(cache.get(doc)).toBe(canonicalize(doc));
    }
    const vp = await addProof(
      {
        '@context': CREDENTIAL['@context'],
        type: ['VerifiablePresentation'],
        holder: DID,
        verifiableCredential: [one, set],
      },
      { verificationMethod: `${DID}#auth-1`, proofPurpose: 'authentication', challenge: 'c' },
      { secretKey: AUTH },
    );
    const r = await verifyDataIntegrity({
      document: vp,
      resolve,
      now: NOW,
      canonicalCache: cache,
      expectedProofPurpose: 'authentication',
      challenge: 'c',
    });
    expect(r.errors).toEqual([]);
    expect(cache.get(vp)).toBe(canonicalize(vp));
  });
});
