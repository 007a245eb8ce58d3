// The W3C verifier test suites, ported: their requests and their assertions, sent to the real vault API (on the
// chain simulator, offline) at POST /credentials/verify. Each case names the suite file and test it comes
// from. The suites post `{verifiableCredential, options: {checks: ['proof']}}` and require 200 for a credential
// that verifies and a 4xx (400, or 422 for the eddsa suite) for one that does not; beyond the status, each
// "must not verify" case here also requires `verified: false` and the problem type the specifications name.
//
// Their credentials come from other implementations. So do these: signed by `independentProof` below (the
// `canonicalize` package and node:crypto, following eddsa-jcs-2022 §3.3 step by step), never by this
// repository's signing code; the suites' generators (vc-generator/generators.js) are reproduced as the proof
// changes they make before or after signing. Issuers and holders are did:key DIDs, as in the suites.
//
// Sources: w3c/vc-di-eddsa-test-suite tests/60-jcs-interop.js, tests/50-jcs-verify.js, tests/45-di-jcs-verify.js
// (→ w3c-ccg/data-integrity-test-suite-assertion suites/verify.js and vc-generator/generators.js);
// w3c-ccg/vc-api-verifier-test-suite tests/10-vc-di.js (its ed25519Vector as published, fixtures/w3c-test-vectors.json).
import { createHash, createPrivateKey, createPublicKey, randomBytes, sign as edSign } from 'node:crypto';
import { base58 } from '@scure/base';
import serialize from 'canonicalize';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readContextsFolder } from '../src/did/json-ld-folder.ts';
import { startVaultTestEnv, type MintedKey, type VaultTestEnv } from '../test-support/vault-api.ts';

const V2 = 'https://www.w3.org/ns/credentials/v2';
const FIXTURES = path.join(import.meta.dirname, 'fixtures');
const DI = 'https://w3id.org/security#';
const VCDM = 'https://www.w3.org/TR/vc-data-model#';

/** An Ed25519 key pair and its did:key, made with node:crypto alone. */
function didKey(seed = randomBytes(32)) {
  const privateKey = createPrivateKey({
    key: Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const raw = Buffer.from(createPublicKey(privateKey).export({ format: 'jwk' }).x!, 'base64url');
  const multibase = `z${base58.encode(Buffer.concat([Buffer.from([0xed, 0x01]), raw]))}`;
  const did = `did:key:${multibase}`;
  return { did, vm: `${did}#${multibase}`, privateKey };
}

type Json = Record<string, unknown>;
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * eddsa-jcs-2022 §3.3.1 Create Proof, done independently: proofConfig carries the document's @context; hash
 * = SHA-256(JCS(proofConfig)) || SHA-256(JCS(document)); Ed25519; proofValue = base58btc multibase.
 * `canonize` replaces JCS of the document (the suite's canonizeUnknown generator).
 */
function independentProof(
  doc: Json,
  config: Json,
  key: ReturnType<typeof didKey>,
  canonize: (d: Json) => string = (d) => serialize(d)!,
): Json {
  const proofConfig = { ...config, '@context': doc['@context'] };
  const data = Buffer.concat([sha256(serialize(proofConfig)!), sha256(canonize(doc))]);
  return { ...proofConfig, proofValue: `z${base58.encode(edSign(null, data, key.privateKey))}` };
}

const clone = <T>(v: T): T => structuredClone(v);

let env: VaultTestEnv;
let key: MintedKey;
const issuerKey = didKey();
const now = () => new Date(env.clock.now() - 60_000).toISOString().replace(/\.\d+Z$/, 'Z');

/** The suites' data-integrity generators, for eddsa-jcs-2022: proof options as the generator sets them. */
function issue(credential: Json, config: Json = {}, canonize?: (d: Json) => string): Json {
  const doc = { ...clone(credential), issuer: issuerKey.did };
  const base = {
    type: 'DataIntegrityProof',
    cryptosuite: 'eddsa-jcs-2022',
    created: now(),
    verificationMethod: issuerKey.vm,
    proofPurpose: 'assertionMethod',
  };
  const proofConfig = Object.fromEntries(Object.entries({ ...base, ...config }).filter(([, v]) => v !== undefined));
  return { ...doc, proof: independentProof(doc, proofConfig, issuerKey, canonize) };
}

async function verify(credential: unknown, options: Json = { checks: ['proof'] }) {
  return env.request('/credentials/verify', { key: key.key, body: { verifiableCredential: credential, options } });
}

/** data-integrity-test-suite-assertion assertions.js verificationFail, and the problem type named. */
async function mustNotVerify(credential: unknown, type: string, options?: Json) {
  const r = await verify(credential, options);
  expect(r.status, JSON.stringify(r.body)).toBe(400);
  if (r.body.error !== undefined) return r.body as { error: string };
  expect(r.body.verified).toBe(false);
  expect(
    r.body.problemDetails.map((p: { type: string }) => p.type),
    JSON.stringify(r.body),
  ).toContain(type);
  return r.body;
}

/** vc-di-eddsa-test-suite tests/vc-generator/validVc.js */
const VALID_VC: Json = {
  '@context': [V2],
  id: 'urn:uuid:86294362-4254-4f36-854f-3952fe42555d',
  type: ['VerifiableCredential'],
  credentialSubject: { id: 'did:key:z6MktKwz7Ge1Yxzr4JHavN33wiwa8y81QdcMRLXQsrH9T53b', name: 'ExampleClaim' },
};

beforeAll(async () => {
  // The vc-api-verifier vector's examples/v2 context, read as an operator's contexts folder (CV_JSONLD_CONTEXTS_DIR).
  const jsonLdContexts = await readContextsFolder(path.join(FIXTURES, 'jsonld-contexts'));
  env = await startVaultTestEnv({ network: 'testnet', jsonLdContexts });
  key = await env.mintKey({ role: 'early' });
}, 60_000);
afterAll(async () => {
  await env?.close();
});

describe('w3c/vc-di-eddsa-test-suite tests/60-jcs-interop.js: eddsa-jcs-2022 (interop)', () => {
  // "<verifier> should verify <issuer>", for two issuers whose code is not this service's.
  it('should verify an issuer with the eddsa-jcs-2022 test-vector key (vc-di-eddsa TestVectors)', async () => {
    const vectorKey = didKey(Buffer.from(base58.decode('3u2en7t5LR2WtQH5PfFqMqwVHBeXouLzo6haApm8XHqvjxq').subarray(2)));
    expect(vectorKey.did).toBe('did:key:z6MkrJVnaZkeFzdQyMZu1cgjg7k1pZZ6pvBQ7XJPt4swbTQ2');
    const doc = { ...clone(VALID_VC), id: `urn:uuid:${crypto.randomUUID()}`, issuer: vectorKey.did };
    const proof = independentProof(
      doc,
      {
        type: 'DataIntegrityProof',
        cryptosuite: 'eddsa-jcs-2022',
        created: now(),
        verificationMethod: vectorKey.vm,
        proofPurpose: 'assertionMethod',
      },
      vectorKey,
    );
    const r = await verify({ ...doc, proof });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  });

  it('should verify an issuer with a fresh did:key', async () => {
    const r = await verify(issue({ ...VALID_VC, id: `urn:uuid:${crypto.randomUUID()}` }));
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.verified).toBe(true);
  });
});

describe('w3c/vc-di-eddsa-test-suite tests/50-jcs-verify.js: eddsa-jcs-2022 (verifier)', () => {
  it('verifies a valid eddsa-jcs-2022 proof.', async () => {
    expect((await verify(issue(VALID_VC))).status).toBe(200);
  });

  it('If the "proofValue" field, when decoded to raw bytes, is not 64 bytes in length if the associated public key is 32 bytes in length, or 114 bytes in length if the public key is 57 bytes in length, an error MUST be raised.', async () => {
    const vc = issue(VALID_VC);
    const proof = vc['proof'] as Json;
    proof['proofValue'] =
      `z${base58.encode(Buffer.concat([Buffer.from(base58.decode(String(proof['proofValue']).slice(1))), randomBytes(32)]))}`;
    await mustNotVerify(vc, `${DI}MALFORMED_PROOF_ERROR`);
  });

  it('fails verification when credential is not canonicalized correctly.', async () => {
    const prefixed = (d: Json) =>
      JSON.stringify(Object.fromEntries(Object.entries(d).map(([k, v]) => [`unknown-${k}`, v])));
    await mustNotVerify(issue(VALID_VC, {}, prefixed), `${DI}PROOF_VERIFICATION_ERROR`);
  });

  it('If the "cryptosuite" field is not the string "eddsa-jcs-2022", an error MUST be raised.', async () => {
    await mustNotVerify(issue(VALID_VC, { cryptosuite: 'unknown-cryptosuite-2017' }), `${DI}PROOF_VERIFICATION_ERROR`);
  });
});

describe('w3c/vc-di-eddsa-test-suite tests/45-di-jcs-verify.js → data-integrity-test-suite-assertion suites/verify.js: Data Integrity (eddsa-jcs-2022 verifiers)', () => {
  it('Conforming processors MUST produce errors when non-conforming documents are consumed.', async () => {
    await mustNotVerify(issue(VALID_VC, { type: 'UnknownProofType' }), `${DI}PROOF_VERIFICATION_ERROR`);
  });

  it('If the "proof" field is missing, an error MUST be raised.', async () => {
    const { proof: _p, ...vc } = issue(VALID_VC);
    await mustNotVerify(vc, `${DI}PROOF_VERIFICATION_ERROR`);
  });

  it('If the "proof" field is invalid, an error MUST be raised.', async () => {
    await mustNotVerify({ ...issue(VALID_VC), proof: null }, `${DI}MALFORMED_PROOF_ERROR`);
  });

  it('If the "proof.type" field is missing, an error MUST be raised.', async () => {
    const vc = issue(VALID_VC);
    delete (vc['proof'] as Json)['type'];
    await mustNotVerify(vc, `${DI}MALFORMED_PROOF_ERROR`);
  });

  it('If the "proof.type" field is not the string "DataIntegrityProof", an error MUST be raised.', async () => {
    await mustNotVerify(issue(VALID_VC, { type: 'UnknownProofType' }), `${DI}PROOF_VERIFICATION_ERROR`);
  });

  it('If the "proof.verificationMethod" field is missing, an error MUST be raised.', async () => {
    await mustNotVerify(issue(VALID_VC, { verificationMethod: undefined }), `${DI}MALFORMED_PROOF_ERROR`);
  });

  it('If the "proof.verificationMethod" field is invalid, an error MUST be raised.', async () => {
    await mustNotVerify(
      issue(VALID_VC, { verificationMethod: 'did:key:@invalidVm@' }),
      `${DI}PROOF_VERIFICATION_ERROR`,
    );
  });

  it('If the "proof.proofPurpose" field is missing, an error MUST be raised.', async () => {
    await mustNotVerify(issue(VALID_VC, { proofPurpose: undefined }), `${DI}MALFORMED_PROOF_ERROR`);
  });

  it('If the "proof.proofPurpose" field is invalid, an error MUST be raised.', async () => {
    await mustNotVerify(issue(VALID_VC, { proofPurpose: 'invalidPurpose' }), `${DI}MISMATCHED_PROOF_PURPOSE_ERROR`);
  });

  it('If the "proof.proofPurpose" value does not match "options.expectedProofPurpose", an error MUST be raised.', async () => {
    // An option this service does not take: 400 with the error envelope (VCALM: unknown options are refused).
    const body = await mustNotVerify(issue(VALID_VC), '', {
      checks: ['proof'],
      expectedProofPurpose: 'authentication',
    });
    expect(body).toMatchObject({ error: 'invalid_request' });
  });

  it('The proofValue property MUST be used, as specified in 2.1 Proofs. (missing, null, without its multibase header)', async () => {
    const missing = issue(VALID_VC);
    delete (missing['proof'] as Json)['proofValue'];
    await mustNotVerify(missing, `${DI}MALFORMED_PROOF_ERROR`);
    const nulled = issue(VALID_VC);
    (nulled['proof'] as Json)['proofValue'] = null;
    await mustNotVerify(nulled, `${DI}MALFORMED_PROOF_ERROR`);
    const headless = issue(VALID_VC);
    // Every leading 'z', not the first alone: a signature whose base58btc starts with 'z' would otherwise keep a
    // header, and the rest could decode to 64 bytes that do not verify (the time in `created` varies the proof).
    (headless['proof'] as Json)['proofValue'] = String((headless['proof'] as Json)['proofValue']).replace(/^z+/, '');
    await mustNotVerify(headless, `${DI}MALFORMED_PROOF_ERROR`);
  });

  it('(added after issuance) an undefined term or type added to a signed credential does not verify.', async () => {
    const term = issue(VALID_VC);
    (term['credentialSubject'] as Json)['undefinedTerm'] = 'IfDroppedWillVerify';
    await mustNotVerify(term, `${DI}PROOF_VERIFICATION_ERROR`);
    const type = issue(VALID_VC);
    (type['type'] as string[]).push('UndefinedType');
    await mustNotVerify(type, `${DI}PROOF_VERIFICATION_ERROR`);
  });

  it('The date and time the proof was created is OPTIONAL and, if included, MUST be specified as an [XMLSCHEMA11-2] dateTimeStamp string.', async () => {
    await mustNotVerify(issue(VALID_VC, { created: 'invalidDate' }), `${DI}MALFORMED_PROOF_ERROR`);
  });

  it('(created) Time values that are incorrectly serialized without an offset: refused.', async () => {
    await mustNotVerify(
      issue(VALID_VC, { created: new Date().toISOString().replace(/\.\d+Z$/, '') }),
      `${DI}MALFORMED_PROOF_ERROR`,
    );
  });

  it('The value of the cryptosuite property MUST be a string that identifies the cryptographic suite.', async () => {
    await mustNotVerify(issue(VALID_VC, { cryptosuite: 'UnknownCryptosuite' }), `${DI}PROOF_VERIFICATION_ERROR`);
  });

  it('If options has a non-null domain item, it MUST be equal to proof.domain or an error MUST be raised.', async () => {
    const vc = issue(VALID_VC, {
      proofPurpose: 'authentication',
      domain: 'invalid-vc-domain.example.com',
      challenge: '1235abcd6789',
    });
    await mustNotVerify(vc, `${DI}INVALID_DOMAIN_ERROR`, { checks: ['proof'], domain: 'domain.example' });
  });

  it('If options has a non-null challenge item, it MUST be equal to proof.challenge or an error MUST be raised.', async () => {
    const vc = issue(VALID_VC, {
      proofPurpose: 'authentication',
      domain: 'domain.example',
      challenge: 'invalid-challenge',
    });
    await mustNotVerify(vc, `${DI}INVALID_CHALLENGE_ERROR`, {
      checks: ['proof'],
      domain: 'domain.example',
      challenge: '1235abcd6789',
    });
  });

  it("(@base in the proof's @context) a proof whose @context is not the start of the document's does not verify.", async () => {
    const vc = issue(VALID_VC);
    const proof = vc['proof'] as Json;
    const doc = { ...vc, proof: undefined };
    const withBase = independentProof(
      { ...doc, '@context': [V2, { '@base': 'https://evil.example/' }] } as Json,
      { ...proof, proofValue: undefined, '@context': undefined },
      issuerKey,
    );
    await mustNotVerify({ ...vc, proof: withBase }, `${DI}PROOF_VERIFICATION_ERROR`);
  });
});

describe('w3c-ccg/vc-api-verifier-test-suite tests/10-vc-di.js: Verify Credential - Data Integrity', () => {
  /** tests/vectors.js ed25519Vector as published: Ed25519Signature2020, its issuer a URL, its key a did:key. */
  let validVc: Json;
  beforeAll(() => {
    const vectors = JSON.parse(readFileSync(path.join(FIXTURES, 'w3c-test-vectors.json'), 'utf8')) as Json;
    validVc = vectors['ed25519Vector'] as Json;
  });

  it('MUST verify a valid VC.', async () => {
    const r = await verify(validVc);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  });

  const without = (path: string[]) => () => {
    const vc = clone(validVc);
    let at: Json = vc;
    for (const p of path.slice(0, -1)) at = at[p] as Json;
    delete at[path.at(-1)!];
    return vc;
  };
  it.each([
    ['"@context" property is missing', without(['@context']), `${VCDM}MALFORMED_VALUE_ERROR`],
    ['"type" property is missing', without(['type']), `${VCDM}MALFORMED_VALUE_ERROR`],
    ['"issuer" property is missing', without(['issuer']), `${VCDM}MALFORMED_VALUE_ERROR`],
    ['"credentialSubject" property is missing', without(['credentialSubject']), `${VCDM}MALFORMED_VALUE_ERROR`],
    ['"proof" property is missing', without(['proof']), `${DI}PROOF_VERIFICATION_ERROR`],
    ['"proof.type" property is missing', without(['proof', 'type']), `${DI}MALFORMED_PROOF_ERROR`],
    ['"proof.created" property is missing', without(['proof', 'created']), `${DI}PROOF_VERIFICATION_ERROR`],
    [
      '"proof.verificationMethod" property is missing',
      without(['proof', 'verificationMethod']),
      `${DI}MALFORMED_PROOF_ERROR`,
    ],
    ['"proof.proofValue" property is missing', without(['proof', 'proofValue']), `${DI}MALFORMED_PROOF_ERROR`],
    ['"proof.proofPurpose" property is missing', without(['proof', 'proofPurpose']), `${DI}MALFORMED_PROOF_ERROR`],
  ])('MUST not verify if %s.', async (_name, make, type) => {
    await mustNotVerify(make(), type);
  });

  // `undefined` leaves the member out of the JSON text (inside an array it becomes null), as the suite's
  // JSON requests send it.
  it.each([
    [
      '"@context" is not an array',
      '@context',
      ['string', {}, null, undefined, 10, true],
      `${VCDM}MALFORMED_VALUE_ERROR`,
    ],
    [
      '"@context" items are not strings',
      '@context',
      [[], {}, null, undefined, 10, true].map((v) => [v]),
      `${VCDM}MALFORMED_VALUE_ERROR`,
    ],
    ['"type" is not an array', 'type', ['string', {}, null, undefined, 10, true], `${VCDM}MALFORMED_VALUE_ERROR`],
    [
      '"type" items are not strings',
      'type',
      [[], {}, null, undefined, 10, true].map((v) => [v]),
      `${VCDM}MALFORMED_VALUE_ERROR`,
    ],
    [
      '"issuer" is not an object or a string',
      'issuer',
      [[], null, undefined, 10, true],
      `${VCDM}MALFORMED_VALUE_ERROR`,
    ],
    [
      '"credentialSubject" is not an object',
      'credentialSubject',
      ['string', null, undefined, 10, true, []],
      `${VCDM}MALFORMED_VALUE_ERROR`,
    ],
    ['"proof" is not an object', 'proof', ['string', null, undefined, 10, true, []], ''],
  ])('MUST not verify if %s.', async (_name, member, values, type) => {
    for (const value of values) {
      const vc = { ...clone(validVc), [member]: value };
      const body = await mustNotVerify(
        JSON.parse(JSON.stringify(vc)),
        type ||
          (value === undefined || (Array.isArray(value) && value.length === 0)
            ? `${DI}PROOF_VERIFICATION_ERROR`
            : `${DI}MALFORMED_PROOF_ERROR`),
      );
      expect(body, `${member}: ${JSON.stringify(value)}`).toHaveProperty('verified', false);
    }
  });
});
