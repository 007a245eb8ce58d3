// The registrar's answers, and the requests its clients send, against the Universal Registrar's published
// OpenAPI schemas (fixtures/universal-registrar-openapi.yaml, offline): every state of create, update and
// deactivate (action, wait, finished), a refusal (failed) and a signature by another key (400, the job open).
// Two readings of the fixture as OpenAPI 3.1 intends it, not as JSON Schema would read it literally: YAML's
// `type: null` is the type "null", and `discriminator` and `example` are annotations (Ajv, strict off).
import { readFileSync } from 'node:fs';
import { Keypair } from '@stellar/stellar-sdk';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parse } from 'yaml';
import { multikey, startHarness, type Harness, type HttpResponse } from '../test-support/resolver.ts';

const fixture = parse(readFileSync(new URL('./fixtures/universal-registrar-openapi.yaml', import.meta.url), 'utf8'));

/** `type: null` (YAML null) → `"null"`, wherever a type or a list of types holds it. */
function nullTypes(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(nullTypes);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === 'type' && v === null) out[k] = 'null';
    else if (k === 'type' && Array.isArray(v)) out[k] = v.map((t) => (t === null ? 'null' : t));
    else out[k] = nullTypes(v);
  }
  return out;
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema({ $id: 'ur', components: nullTypes(fixture.components) });
const validator = (name: string) => ajv.getSchema(`ur#/components/schemas/${name}`)!;

function expectValid(name: string, value: unknown): void {
  const validate = validator(name);
  const ok = validate(value);
  expect(ok, `${name}: ${JSON.stringify(validate.errors)}\n${JSON.stringify(value).slice(0, 600)}`).toBe(true);
}

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 60_000);
afterAll(async () => {
  await h?.close();
});

const doc = (k: Keypair) => ({
  verificationMethod: [{ id: '#auth-1', type: 'Multikey', publicKeyMultibase: multikey(k) }],
  authentication: ['#auth-1'],
});

function signingResponse(action: HttpResponse, key: Keypair) {
  const payload = action.body.didState.signingRequest.signingRequest1.serializedPayload;
  const signature = Buffer.from(key.sign(Buffer.from(payload, 'base64'))).toString('base64');
  return { jobId: action.body.jobId, secret: { signingResponse: { signingRequest1: { signature, alg: 'EdDSA' } } } };
}

/** Posts `body` (checked against the UR request schema) and checks the answer against the UR state schema. */
async function call(path: string, request: string, state: string, body: unknown): Promise<HttpResponse> {
  expectValid(request, body);
  const r = await h.post(path, body);
  expectValid(state, r.body);
  return r;
}

/** `again`: what every later call carries beside the jobId (UpdateRequest and DeactivateRequest require `did`). */
async function flow(path: string, request: string, state: string, first: unknown, key: Keypair, again = {}) {
  const action = await call(path, request, state, first);
  expect(action.body.didState.state).toBe('action');
  const wait = await call(path, request, state, { ...again, ...signingResponse(action, key) });
  expect(wait.body.didState.state).toBe('wait');
  let done = wait;
  await vi.waitFor(
    async () => {
      done = await call(path, request, state, { ...again, jobId: action.body.jobId });
      expect(done.body.didState.state).toBe('finished');
    },
    { timeout: 15_000, interval: 50 },
  );
  return done;
}

describe('answers against the Universal Registrar OpenAPI (CreateState, UpdateState, DeactivateState)', () => {
  it('every state of create, update and deactivate', async () => {
    const controller = await h.account();
    const created = await flow(
      '/1.0/create?method=ledger',
      'CreateRequest',
      'CreateState',
      { options: { clientSecretMode: true, network: 'testnet' }, didDocument: doc(controller) },
      controller,
    );
    const did = created.body.didState.did;
    await flow(
      '/1.0/update',
      'UpdateRequest',
      'UpdateState',
      {
        did,
        options: { clientSecretMode: true },
        didDocumentOperation: ['setDidDocument'],
        didDocument: [doc(Keypair.random())],
      },
      controller,
      { did },
    );
    const deactivate = { did, options: { clientSecretMode: true } };
    await flow('/1.0/deactivate', 'DeactivateRequest', 'DeactivateState', deactivate, controller, { did });
  });

  it('a refusal and a signature by another key', async () => {
    const controller = await h.account();
    const refused = await call('/1.0/create?method=ledger', 'CreateRequest', 'CreateState', {
      options: { clientSecretMode: false },
      didDocument: doc(controller),
    });
    expect(refused.status).toBe(400);
    const action = await call('/1.0/create?method=ledger', 'CreateRequest', 'CreateState', {
      options: { clientSecretMode: true },
      didDocument: doc(controller),
    });
    const wrong = await call(
      '/1.0/create?method=ledger',
      'CreateRequest',
      'CreateState',
      signingResponse(action, Keypair.random()),
    );
    expect(wrong.status).toBe(400);
  });

  it('the fixture is read as published: a state without didState is refused', () => {
    expect(validator('CreateState')({ jobId: null })).toBe(false);
    expect(validator('CreateState')({ jobId: 7, didState: { state: 'finished' } })).toBe(false);
  });
});
