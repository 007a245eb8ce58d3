// w3c/vc-data-model-2.0-test-suite (commit 6e07524), ported: every test that calls a verifier
// (`endpoints.verify`: POST /credentials/verify with `checks: ['proof']`) or a presentation verifier
// (`endpoints.verifyVp`: POST /presentations/verify with the suite's challenge and domain), sent to the real vault
// API on the chain simulator, offline. Each case names the suite file and test it comes from; the suite counts a
// 2xx as "does not reject" and any 4xx as "rejects", and so do these, each also requiring `verified`.
//
// Inputs are the suite's fixtures (tests/input/*.json, the W3C test suite licence or the W3C 3-clause BSD
// licence), inlined. The suite signs with its own key, `did:key:z6MkpJyS…` (tests/data-generator.js), and so do
// these; its issuer tests are run here as a local issuer would, then verified, as `shouldRejectEitherIssueOrVerify`
// does for an issuer that does not check. The suite signs with `eddsa-rdfc-2022` (digitalbazaar's vc library), and
// so does the second run here (digitalbazaar's cryptosuite and Multikey signer, test-support/digitalbazaar.ts);
// the first signs the same documents with `eddsa-jcs-2022` by an independent signer (the `canonicalize` package
// and node:crypto, eddsa-jcs-2022 §3.3). Never this repository's signing code. The published suite itself, run as
// written against `npm start`: scripts/w3c-suites.sh, docs/testing.md.
import { createHash, createPrivateKey, createPublicKey, sign as edSign } from 'node:crypto';
import { base58 } from '@scure/base';
import serialize from 'canonicalize';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as Ed25519Multikey from '@digitalbazaar/ed25519-multikey';
import { rawProof, type DidKey } from '../test-support/digitalbazaar.ts';
import { startVaultTestEnv, type MintedKey, type VaultTestEnv } from '../test-support/vault-api.ts';

type Json = Record<string, unknown>;
const V2 = 'https://www.w3.org/ns/credentials/v2';
const EXAMPLES = 'https://www.w3.org/ns/credentials/examples/v2';

/** tests/data-generator.js: the suite's secretKeyMultibase, without its `z`. */
const SUITE_SECRET = 'rv1a6V2qqSGkBz7QPw4yJedKc8X9dEdug7c3MEzNUDVEmkyVcXtTWNLQLArgKXzN7LbGMTVjqE2CbdrqpnxqtxmY1M';

/** tests/data-generator.js getKeys(): the suite's local issuer and holder key, from its secretKeyMultibase. */
function suiteKey() {
  const secret = base58.decode(SUITE_SECRET);
  const seed = Buffer.from(secret.subarray(2, 34)); // multicodec ed25519-priv (0x8026), then the seed
  const privateKey = createPrivateKey({
    key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const raw = Buffer.from(createPublicKey(privateKey).export({ format: 'jwk' }).x!, 'base64url');
  const multibase = `z${base58.encode(Buffer.concat([Buffer.from([0xed, 0x01]), raw]))}`;
  return { did: `did:key:${multibase}`, vm: `did:key:${multibase}#${multibase}`, privateKey };
}
const KEY = suiteKey();
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/** eddsa-jcs-2022 §3.3.1, independently: SHA-256(JCS(proofConfig)) || SHA-256(JCS(document)), Ed25519. */
async function jcsProof(doc: Json, config: Json): Promise<Json> {
  const proofConfig = { ...config, '@context': doc['@context'] };
  const data = Buffer.concat([sha256(serialize(proofConfig)!), sha256(serialize(doc)!)]);
  return { ...proofConfig, proofValue: `z${base58.encode(edSign(null, data, KEY.privateKey))}` };
}

/** The suite's key as digitalbazaar's Multikey library holds it (data-generator.js getKeys), for its signer. */
const RDFC_KEY: Promise<DidKey> = (async () => {
  const key = await Ed25519Multikey.from({
    '@context': 'https://w3id.org/security/multikey/v1',
    type: 'Multikey',
    id: KEY.vm,
    controller: KEY.did,
    publicKeyMultibase: KEY.vm.split('#')[1]!,
    secretKeyMultibase: `z${SUITE_SECRET}`,
  });
  const document = await key.export({ publicKey: true, includeContext: true });
  return { did: KEY.did, vm: KEY.vm, curve: 'Ed25519', key, document };
})();

/** eddsa-rdfc-2022 §3.2, as the suite signs (its vc library): digitalbazaar's canonicalization and signer. */
async function rdfcProof(doc: Json, config: Json): Promise<Json> {
  return rawProof('eddsa-rdfc-2022', await RDFC_KEY, doc, config);
}

/**
 * The cryptosuites the suite's documents are signed with here (see the header), and the `@context` values that
 * 4.03 appends to a signed presentation, each of which must make it fail. Under `eddsa-jcs-2022` the signature
 * covers the proof's own `@context`, of which the document's need only start with (eddsa-jcs-2022 §3.3.2 step
 * 3), so an appended context URL is refused only when it is not a URL; `https://example.com` fails under RDF
 * canonicalization (its context cannot be loaded), and joins the list with `eddsa-rdfc-2022`.
 */
const SUITES = [
  {
    cryptosuite: 'eddsa-jcs-2022',
    prove: jcsProof,
    appendedContexts: ['https ://not-a-url/contexts/example/v1', 123192875],
  },
  {
    cryptosuite: 'eddsa-rdfc-2022',
    prove: rdfcProof,
    appendedContexts: ['https ://not-a-url/contexts/example/v1', 123192875, 'https://example.com'],
  },
];

/** tests/data-generator.js: its challenge (base64url of 128 random bits, `u`-prefixed) and domain. */
const CHALLENGE = `u${Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString('base64url')}`;
const DOMAIN = 'github.com/w3c/vc-data-model-2.0-test-suite';

let env: VaultTestEnv;
let key: MintedKey;
const created = () => new Date(env.clock.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z');
const clone = <T>(v: T): T => structuredClone(v);

describe.each(SUITES)(
  'w3c/vc-data-model-2.0-test-suite, signed with $cryptosuite',
  ({ cryptosuite, prove, appendedContexts }) => {
    const sign = async (doc: Json, purpose: Json): Promise<Json> => ({
      ...doc,
      proof: await prove(doc, {
        type: 'DataIntegrityProof',
        cryptosuite,
        created: created(),
        verificationMethod: KEY.vm,
        ...purpose,
      }),
    });

    /** A local issuer (data-generator.js _signCredentials, vc.issue): the suite's key is the issuer. */
    const issue = (credential: Json) =>
      sign({ ...clone(credential), issuer: KEY.did }, { proofPurpose: 'assertionMethod' });

    /** data-generator.js createLocalVp / createInvalidVp: its credentials issued, then the holder's proof. */
    const createLocalVp = async (presentation: Json) => {
      const vp = clone(presentation);
      const vcs = vp['verifiableCredential'];
      if (Array.isArray(vcs))
        vp['verifiableCredential'] = await Promise.all(vcs.map((vc: Json) => (vc['proof'] ? vc : issue(vc))));
      return sign(vp, { proofPurpose: 'authentication', challenge: CHALLENGE, domain: DOMAIN });
    };

    /** TestEndpoints.verify: mock.data.js createVerifyRequestBody. */
    const verify = (vc: unknown) =>
      env.request('/credentials/verify', {
        key: key.key,
        body: { verifiableCredential: vc, options: { checks: ['proof'] } },
      });
    /** TestEndpoints.verifyVp: the suite's domain and challenge. */
    const verifyVp = (vp: unknown) =>
      env.request('/presentations/verify', {
        key: key.key,
        body: { verifiablePresentation: vp, options: { domain: DOMAIN, challenge: CHALLENGE } },
      });
    const accepts = async (r: Promise<{ status: number; body: any }>) => {
      const { status, body } = await r;
      expect([status, body.verified], JSON.stringify(body)).toEqual([200, true]);
    };
    const rejects = async (r: Promise<{ status: number; body: any }>) => {
      const { status, body } = await r;
      expect(status, JSON.stringify(body)).toBe(400);
      if (body.error === undefined) expect(body.verified).toBe(false);
    };

    const SUBJECT_VC: Json = {
      '@context': [V2],
      type: ['VerifiableCredential'],
      issuer: 'did:example:issuer',
      credentialSubject: { id: 'did:example:subject' },
    };
    /** tests/input/credential-ok.json */
    const CREDENTIAL_OK: Json = {
      '@context': [V2],
      type: ['VerifiableCredential'],
      credentialSubject: { id: 'did:example:subject' },
    };
    /** tests/input/presentation-ok.json */
    const PRESENTATION_OK: Json = { '@context': [V2], type: ['VerifiablePresentation'] };
    /** tests/input/presentation-vc-ok.json (= presentation-context-combo1-ok.json without holder) */
    const PRESENTATION_VC_OK: Json = { ...PRESENTATION_OK, verifiableCredential: [SUBJECT_VC] };
    const MANAGER = { CredentialManagerPresentation: 'https://example.org/examples#CredentialManagerPresentation' };

    describe('tests/1.03-conformance.js', () => {
      it('A conforming verifier implementation MUST perform verification on a conforming document', async () => {
        await accepts(verify(await issue(CREDENTIAL_OK)));
      });

      it('A conforming verifier implementation MUST produce errors when non-conforming documents are detected', async () => {
        const doc = { type: ['NonconformingDocument'] };
        await rejects(verify(doc));
        await rejects(verifyVp(doc));
      });
    });

    describe('tests/4.03-contexts.js', () => {
      it('Verifiable presentations MUST include a @context property', async () => {
        const valid = await createLocalVp(PRESENTATION_OK);
        await accepts(verifyVp(valid));
        const { '@context': _, ...invalid } = valid;
        await rejects(verifyVp(invalid));
      });

      it('Verifiable presentations: @context MUST be an ordered set whose first item is …/credentials/v2', async () => {
        // presentation-context-order-fail.json, signed as createInvalidVp does
        const orderFail = {
          '@context': [MANAGER, V2],
          type: ['VerifiablePresentation', 'CredentialManagerPresentation'],
        };
        await rejects(verifyVp(await createLocalVp(orderFail)));
        const unordered = { ...(await createLocalVp(PRESENTATION_OK)), '@context': [EXAMPLES, V2] };
        await rejects(verifyVp(unordered));
        // presentation-missing-base-context-fail.json, unsigned
        await rejects(verifyVp({ '@context': [EXAMPLES], type: ['VerifiablePresentation'] }));
      });

      it('Verifiable Presentation @context: subsequent items are URLs and/or objects processable as JSON-LD contexts', async () => {
        // presentation-context-combo1-ok.json and presentation-context-combo2-ok.json
        await accepts(verifyVp(await createLocalVp({ ...PRESENTATION_VC_OK, holder: KEY.did })));
        const combo2 = {
          '@context': [V2, { ExampleVerifiablePresentation: 'https://example.org/#ExampleVerifiablePresentation' }],
          type: ['VerifiablePresentation', 'ExampleVerifiablePresentation'],
          holder: KEY.did,
          verifiableCredential: [SUBJECT_VC],
        };
        await accepts(verifyVp(await createLocalVp(combo2)));
        const vp = await createLocalVp(PRESENTATION_VC_OK);
        for (const value of appendedContexts) {
          await rejects(verifyVp({ ...vp, '@context': [V2, value] }));
        }
      });
    });

    describe('tests/4.05-types.js', () => {
      it('Verifiable presentations MUST contain a type property with an associated value', async () => {
        await rejects(verifyVp({ '@context': [V2] })); // presentation-no-type-fail.json
      });

      it('Verifiable Presentation objects MUST have a type specified', async () => {
        // presentation-optional-type-ok.json, signed; presentation-missing-required-type-fail.json, unsigned
        const optional = {
          '@context': [V2, MANAGER],
          type: ['VerifiablePresentation', 'CredentialManagerPresentation'],
        };
        await accepts(verifyVp(await createLocalVp(optional)));
        await rejects(verifyVp({ '@context': [V2, MANAGER], type: ['CredentialManagerPresentation'] }));
      });
    });

    // The suite's issuer tests, as shouldRejectEitherIssueOrVerify runs them for an issuer that does not check:
    // what a local issuer signs must then be refused by the verifier, whatever `checks` names.
    describe('tests/4.09-validity-period.js (assertions.js shouldRejectEitherIssueOrVerify, testTemporality)', () => {
      it.each([
        ['credential-validfrom-ms-ok.json', { validFrom: '2023-02-26T01:02:58.447Z' }],
        ['credential-validfrom-tz-ok.json', { validFrom: '2023-02-25T19:10:39-06:00' }],
        ['credential-validuntil-ok.json', { validFrom: '2023-02-26T01:19:19Z', validUntil: '2023-02-26T01:19:20Z' }],
        [
          'credential-validuntil-ms-ok.json',
          { validFrom: '2023-02-26T01:20:00Z', validUntil: '2023-02-26T01:20:18.477Z' },
        ],
        [
          'credential-validuntil-tz-ok.json',
          { validFrom: '2023-02-26T01:21:23Z', validUntil: '2023-02-25T19:21:29-06:00' },
        ],
        ['a validFrom far into the future', { validFrom: '2999-01-01T00:00:00Z' }],
      ])('%s verifies', async (_name, period) => {
        await accepts(verify(await issue({ ...CREDENTIAL_OK, ...period })));
      });

      it.each([
        ['credential-validfrom-invalid-fail.json', { validFrom: 'Sat 25 Feb 2023 07:16:31 PM CST' }, 'invalid_date'],
        [
          'credential-validuntil-invalid-fail.json',
          { validFrom: '2023-02-26T01:21:51Z', validUntil: 'Sun, 26 Feb 2023 01:22:14 +0000' },
          'invalid_date',
        ],
        ['a date without a time (the issue\'s "2020-01-01")', { validFrom: '2020-01-01' }, 'invalid_date'],
        [
          'credential-validUntil-validFrom-fail.json (validFrom a year ahead, validUntil a year ago)',
          { validFrom: '2027-11-28T00:00:00Z', validUntil: '2025-11-28T00:00:00Z' },
          'valid_until_before_valid_from',
        ],
      ])('%s is refused', async (_name, period, reason) => {
        const r = await verify(await issue({ ...CREDENTIAL_OK, ...period }));
        expect([r.status, r.body.verified], JSON.stringify(r.body)).toEqual([400, false]);
        expect(r.body.problemDetails).toEqual([
          expect.objectContaining({ title: 'MALFORMED_VALUE_ERROR', level: 'error', reason }),
        ]);
      });

      it('credential-validUntil-validFrom-ok.json (a year ago to a year ahead) verifies', async () => {
        await accepts(
          verify(
            await issue({ ...CREDENTIAL_OK, validFrom: '2025-11-28T00:00:00Z', validUntil: '2027-11-28T00:00:00Z' }),
          ),
        );
      });
    });

    describe('tests/4.13-verifiable-presentations.js', () => {
      it('If [the id field is] present, the normative guidance in Section 4.4 Identifiers MUST be followed', async () => {
        await accepts(
          verifyVp(await createLocalVp({ ...PRESENTATION_OK, id: 'urn:uuid:9c9a36f8-518f-4976-a934-6649502d0008' })),
        );
      });

      it('The type property MUST be present; one value MUST be VerifiablePresentation', async () => {
        await accepts(verifyVp(await createLocalVp(PRESENTATION_OK)));
      });

      it('The verifiableCredential property MAY be present: one or more verifiable credentials', async () => {
        const other = { ...SUBJECT_VC, credentialSubject: { id: 'did:example:other-subject' } };
        await accepts(verifyVp(await createLocalVp({ ...PRESENTATION_OK, verifiableCredential: [SUBJECT_VC, other] })));
      });

      it('If present (holder), the value MUST be either a URL or an object containing an id property', async () => {
        await accepts(verifyVp(await createLocalVp({ ...PRESENTATION_VC_OK, holder: KEY.did })));
        await accepts(verifyVp(await createLocalVp({ ...PRESENTATION_VC_OK, holder: { id: KEY.did } })));
      });
    });

    describe('tests/7-algorithms.js', () => {
      it('conforming verifiers MUST run the verification algorithm on a credential and a presentation', async () => {
        await accepts(verify(await issue(CREDENTIAL_OK)));
        const vp = await createLocalVp(PRESENTATION_OK);
        await accepts(verifyVp(vp));
        const proof = { ...(vp['proof'] as Json), proofValue: 'z5nmMBw2u9TGKd9NxxHJtyZKgjN2Eh' };
        await rejects(verifyVp({ ...vp, proof }));
      });
    });
  },
);

beforeAll(async () => {
  env = await startVaultTestEnv({ network: 'testnet' });
  key = await env.mintKey({ role: 'early' });
  expect(KEY.did).toBe('did:key:z6MkpJySvETLnxhQG9DzEdmKJtysBDjuuTeDfUj1uNNCUqcj');
}, 60_000);
afterAll(async () => {
  await env?.close();
});
