// The Universal Registrar binding (DID Registration, client-managed secret mode) over the simulator: create,
// update and deactivate through action → sign → wait → finished; a signature by another key refused with the
// job left open; expiry; internal secret mode and fields the record cannot hold refused by name; a job
// answered by another instance sharing the store.
import { Keypair, Transaction } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { memoryRegistrarJobs, sqlRegistrarJobs, type RegistrarJobStore } from '../../stores/registrar-jobs.ts';
import { createSqliteStores } from '../../stores/sqlite.ts';
import { tempDir } from '../../../test-support/stores/backends.ts';
import type { RegistrarJob } from './state.ts';
import { StoreUnavailableError } from '../../stores/types.ts';
import { multikey, startHarness, type Harness, type HttpResponse } from '../../../test-support/resolver.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 60_000);
afterAll(async () => {
  await h?.close();
});

type Post = (path: string, body: unknown) => Promise<HttpResponse>;

const docOf = (auth: Keypair, extra: Record<string, unknown> = {}) => ({
  verificationMethod: [{ id: '#auth-1', type: 'Multikey', publicKeyMultibase: multikey(auth) }],
  authentication: ['#auth-1'],
  ...extra,
});

/** The signing response of an action answer, signed by `key`. */
function signed(action: HttpResponse, key: Keypair) {
  const request = action.body.didState.signingRequest.signingRequest1;
  const signature = Buffer.from(key.sign(Buffer.from(request.serializedPayload, 'base64'))).toString('base64');
  return { jobId: action.body.jobId, secret: { signingResponse: { signingRequest1: { signature, alg: 'EdDSA' } } } };
}

/** Signs the job of `action` with `key`, then asks until it is no longer waiting. */
async function finish(post: Post, path: string, action: HttpResponse, key: Keypair): Promise<HttpResponse> {
  const sent = await post(path, signed(action, key));
  expect(sent.status, sent.text).toBe(200);
  expect(sent.body.didState.state).toBe('wait');
  let last = sent;
  await vi.waitFor(
    async () => {
      last = await post(path, { jobId: action.body.jobId });
      expect(last.body.didState.state).not.toBe('wait');
    },
    { timeout: 15_000, interval: 50 },
  );
  return last;
}

async function created(controller: Keypair, auth = Keypair.random()) {
  const action = await h.post('/1.0/create?method=ledger', {
    options: { network: 'testnet', clientSecretMode: true, controller: controller.publicKey() },
    didDocument: docOf(auth),
  });
  expect(action.status, action.text).toBe(200);
  return action;
}

describe('create, update, deactivate', () => {
  it('runs the whole flow, each step a DID Registration state', async () => {
    const controller = await h.account();
    const action = await created(controller);
    const ds = action.body.didState;
    expect(ds).toMatchObject({ state: 'action', action: 'signPayload' });
    expect(ds.signingRequest.signingRequest1).toMatchObject({ alg: 'EdDSA', kid: controller.publicKey() });
    expect(Buffer.from(ds.signingRequest.signingRequest1.serializedPayload, 'base64').toString('hex')).toBe(
      ds.signingRequest.signingRequest1.payload.hash,
    );
    const done = await finish(h.post, '/1.0/create?method=ledger', action, controller);
    expect(done.status, done.text).toBe(201);
    expect(done.body).toMatchObject({ jobId: null, didState: { state: 'finished', did: ds.did } });
    expect(done.body.didDocumentMetadata).toMatchObject({ versionId: '1', deactivated: false });
    expect((await h.get(`/1.0/identifiers/${ds.did}`)).status).toBe(200);

    const auth2 = Keypair.random();
    const service = {
      id: '#service-inbox',
      type: 'DIDCommMessaging',
      serviceEndpoint: 'https://issuer.example.org/inbox',
    };
    const updateAction = await h.post('/1.0/update', {
      did: ds.did,
      options: { clientSecretMode: true },
      didDocumentOperation: ['setDidDocument'],
      didDocument: [docOf(auth2, { service: [service] })],
    });
    expect(updateAction.status, updateAction.text).toBe(200);
    const updated = await finish(h.post, '/1.0/update', updateAction, controller);
    expect(updated.status, updated.text).toBe(200);
    expect(updated.body.didState.didDocument.service).toEqual([{ ...service, id: `${ds.did}#service-inbox` }]);
    const resolved = await h.get(`/1.0/identifiers/${ds.did}`);
    expect(resolved.body.didDocument.verificationMethod[0].publicKeyMultibase).toBe(multikey(auth2));

    const deactivateAction = await h.post('/1.0/deactivate', { did: ds.did, options: { clientSecretMode: true } });
    const deactivated = await finish(h.post, '/1.0/deactivate', deactivateAction, controller);
    expect(deactivated.status, deactivated.text).toBe(200);
    expect(deactivated.body.didDocumentMetadata.deactivated).toBe(true);
    expect((await h.get(`/1.0/identifiers/${ds.did}`)).status).toBe(410);
  });

  it('takes the controller from the first authentication key when the options name none', async () => {
    const controller = await h.account();
    const action = await h.post('/1.0/create?method=ledger', {
      options: { clientSecretMode: true },
      didDocument: docOf(controller),
    });
    expect(action.body.didState.signingRequest.signingRequest1.kid).toBe(controller.publicKey());
    expect((await finish(h.post, '/1.0/create?method=ledger', action, controller)).status).toBe(201);
  });
});

describe('who may advance a job', () => {
  it('refuses a signature by another key and keeps the job open', async () => {
    const controller = await h.account();
    const action = await created(controller);
    const wrong = await h.post('/1.0/create?method=ledger', signed(action, Keypair.random()));
    expect(wrong.status).toBe(400);
    expect(wrong.body.jobId).toBe(action.body.jobId);
    expect(wrong.body.didState.state).toBe('action');
    expect(wrong.body.didRegistrationMetadata.error).toBe('signing_response_invalid');
    const poll = await h.post('/1.0/create?method=ledger', { jobId: action.body.jobId });
    expect(poll.body.didState.state).toBe('action');
    expect((await finish(h.post, '/1.0/create?method=ledger', action, controller)).status).toBe(201);
  });

  it('answers an expired job failed, with the reason', async () => {
    const controller = await h.account();
    const action = await created(controller);
    h.clock.advance(6 * 60 * 1000);
    try {
      const late = await h.post('/1.0/create?method=ledger', signed(action, controller));
      expect(late.status).toBe(400);
      expect(late.body).toMatchObject({ jobId: null, didState: { state: 'failed', error: 'job_expired' } });
      expect(late.body.didState.reason).toMatch(/expired/);
    } finally {
      h.clock.advance(-6 * 60 * 1000);
    }
  });

  it('lets another instance sharing the store finish the job', async () => {
    const jobs = memoryRegistrarJobs();
    const a = await h.startApp({ registrarJobs: jobs });
    const b = await h.startApp({ registrarJobs: jobs });
    const postTo =
      (base: string): Post =>
      async (path, body) => {
        const r = await fetch(base + path, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        const text = await r.text();
        return { status: r.status, headers: r.headers, text, body: JSON.parse(text) };
      };
    const controller = await h.account();
    const action = await postTo(a.url)('/1.0/create?method=ledger', {
      options: { clientSecretMode: true, controller: controller.publicKey() },
      didDocument: docOf(Keypair.random()),
    });
    expect(action.status, action.text).toBe(200);
    const done = await finish(postTo(b.url), '/1.0/create?method=ledger', action, controller);
    expect(done.status, done.text).toBe(201);
    expect((await postTo(a.url)('/1.0/create?method=ledger', { jobId: action.body.jobId })).status).toBe(201);
  });
});

describe('a submitted job whose instance went away', () => {
  it('is sent again by another instance once the lease ends, and never while it holds', async () => {
    const dir = await tempDir();
    const stores = createSqliteStores({ dataDir: dir.dir, now: h.clock.now });
    try {
      const jobs = sqlRegistrarJobs(stores.query, h.clock.now);
      const b = await h.startApp({ registrarJobs: jobs });
      const post = async (body: unknown) => {
        const r = await fetch(`${b.url}/1.0/create?method=ledger`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        return { status: r.status, body: await r.json() };
      };
      const controller = await h.account();
      const action = await post({
        options: { clientSecretMode: true, controller: controller.publicKey() },
        didDocument: docOf(Keypair.random()),
      });
      expect(action.status).toBe(200);
      const jobId: string = action.body.jobId;
      // Instance A signed and took the lease, then went away before its transaction was sent.
      const read = (await jobs.get<RegistrarJob>(jobId))!;
      const tx = new Transaction(read.job.transaction, read.job.networkPassphrase);
      tx.sign(controller);
      const held = {
        ...read.job,
        phase: 'submitted' as const,
        signedXdr: tx.toXdr(),
        leaseUntil: h.clock.now() + 60_000,
      };
      expect(await jobs.replace(held, read.revision)).toBe(true);

      // While A's lease holds, B answers wait and leaves the job alone.
      expect((await post({ jobId })).body.didState.state).toBe('wait');
      expect(await jobs.get<RegistrarJob>(jobId)).toEqual({ job: held, revision: read.revision + 1 });

      // Past the lease, B takes it (a new lease, written before it sends) and sends; the job finishes.
      h.clock.advance(61_000);
      try {
        expect((await post({ jobId })).body.didState.state).toBe('wait');
        const taken = (await jobs.get<RegistrarJob>(jobId))!;
        expect(taken.revision).toBe(read.revision + 2);
        expect(taken.job.leaseUntil).toBeGreaterThan(h.clock.now());
        let last = { status: 0, body: {} as { didState?: { state: string; did?: string } } };
        await vi.waitFor(
          async () => {
            last = await post({ jobId });
            expect(last.body.didState?.state).toBe('finished');
          },
          { timeout: 15_000, interval: 50 },
        );
        expect(last.status).toBe(201);
        expect((await h.get(`/1.0/identifiers/${last.body.didState!.did}`)).status).toBe(200);
      } finally {
        h.clock.advance(-61_000);
      }
    } finally {
      await stores.close();
      await dir.remove();
    }
  });
});

describe('a job store that is down', () => {
  it('answers 503 registrar_unavailable, never 500, and serves again once it is back', async () => {
    const jobs = memoryRegistrarJobs();
    let down = true;
    const outage = () => Promise.reject(new StoreUnavailableError('keys', 'connect ECONNREFUSED 127.0.0.1:5432'));
    const flaky: RegistrarJobStore = {
      create: (job) => (down ? outage() : jobs.create(job)),
      get: (id) => (down ? outage() : jobs.get(id)),
      replace: (job, revision) => (down ? outage() : jobs.replace(job, revision)),
      close: () => jobs.close(),
    };
    const app = await h.startApp({ registrarJobs: flaky });
    const controller = await h.account();
    const request = {
      options: { network: 'testnet', clientSecretMode: true, controller: controller.publicKey() },
      didDocument: docOf(Keypair.random()),
    };
    const post = (body: unknown) =>
      fetch(`${app.url}/1.0/create?method=ledger`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const refused = await post(request);
    expect(refused.status).toBe(503);
    expect(await refused.json()).toMatchObject({ code: 'registrar_unavailable' });
    down = false;
    const action = await post(request);
    expect(action.status).toBe(200);
    expect((await action.json()).didState.state).toBe('action');
  });
});

describe('refusals', () => {
  const cases: { name: string; path: string; body: (c: Keypair) => unknown; error: string; reason: RegExp }[] = [
    {
      name: 'internal secret mode',
      path: '/1.0/create?method=ledger',
      body: (c) => ({ options: { controller: c.publicKey() }, didDocument: docOf(c) }),
      error: 'secret_mode_unsupported',
      reason: /clientSecretMode/,
    },
    {
      name: 'a key in the secret',
      path: '/1.0/create?method=ledger',
      body: (c) => ({ options: { clientSecretMode: true }, secret: { seed: 'x' }, didDocument: docOf(c) }),
      error: 'secret_mode_unsupported',
      reason: /secret\.seed/,
    },
    {
      name: 'another method',
      path: '/1.0/create?method=key',
      body: (c) => ({ options: { clientSecretMode: true }, didDocument: docOf(c) }),
      error: 'method_not_supported',
      reason: /method=ledger/,
    },
    {
      name: 'alsoKnownAs',
      path: '/1.0/create?method=ledger',
      body: (c) => ({
        options: { clientSecretMode: true },
        didDocument: docOf(c, { alsoKnownAs: ['https://x.example'] }),
      }),
      error: 'did_document_unsupported',
      reason: /didDocument\.alsoKnownAs/,
    },
    {
      name: 'capabilityInvocation',
      path: '/1.0/create?method=ledger',
      body: (c) => ({
        options: { clientSecretMode: true },
        didDocument: docOf(c, { capabilityInvocation: ['#auth-1'] }),
      }),
      error: 'did_document_unsupported',
      reason: /didDocument\.capabilityInvocation/,
    },
    {
      name: 'a JWK key',
      path: '/1.0/create?method=ledger',
      body: (c) => ({
        options: { clientSecretMode: true, controller: c.publicKey() },
        didDocument: {
          verificationMethod: [{ id: '#k', type: 'JsonWebKey2020', publicKeyJwk: { kty: 'OKP' } }],
          authentication: ['#k'],
        },
      }),
      error: 'did_document_unsupported',
      reason: /verificationMethod\[0\]\.publicKeyJwk/,
    },
    {
      name: 'a map endpoint',
      path: '/1.0/create?method=ledger',
      body: (c) => ({
        options: { clientSecretMode: true },
        didDocument: docOf(c, {
          service: [{ id: '#service-a', type: 'X', serviceEndpoint: { uri: 'https://a.example' } }],
        }),
      }),
      error: 'did_document_unsupported',
      reason: /service\[0\]\.serviceEndpoint/,
    },
    {
      name: 'a record rule',
      path: '/1.0/create?method=ledger',
      body: (c) => ({
        options: { clientSecretMode: true, controller: c.publicKey() },
        didDocument: { authentication: [] },
      }),
      error: 'key_count_invalid',
      reason: /authentication/,
    },
    {
      name: 'an unknown job',
      path: '/1.0/update',
      body: () => ({ jobId: '6d85bcd0-2ea3-4288-ab00-15afadd8a156' }),
      error: 'job_not_found',
      reason: /no job/,
    },
    {
      name: 'an update of a DID never registered',
      path: '/1.0/update',
      body: (c) => ({
        did: 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza',
        options: { clientSecretMode: true },
        didDocument: [docOf(c)],
      }),
      error: 'did_not_found',
      reason: /not registered/,
    },
    // rules of the request alone, stated in the spec (Prism refuses them too): the schema's refusal is a state
    {
      name: 'a network the registrar does not know',
      path: '/1.0/create?method=ledger',
      body: (c) => ({ options: { clientSecretMode: true, network: 'devnet' }, didDocument: docOf(c) }),
      error: 'invalid_request',
      reason: /options\.network/,
    },
    {
      name: 'a DID of another method',
      path: '/1.0/deactivate',
      body: () => ({
        did: 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp',
        options: { clientSecretMode: true },
      }),
      error: 'did_invalid',
      reason: /^did: /,
    },
    {
      name: 'a deactivate without did',
      path: '/1.0/deactivate',
      body: () => ({ options: { clientSecretMode: true } }),
      error: 'invalid_request',
      reason: /did/,
    },
    {
      name: 'an update with two documents',
      path: '/1.0/update',
      body: (c) => ({
        did: 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza',
        options: { clientSecretMode: true },
        didDocument: [docOf(c), docOf(c)],
      }),
      error: 'invalid_request',
      reason: /didDocument/,
    },
    {
      name: 'a signing response without its jobId',
      path: '/1.0/create?method=ledger',
      body: (c) => ({
        options: { clientSecretMode: true },
        secret: { signingResponse: { signingRequest1: { signature: 'AAAA' } } },
        didDocument: docOf(c),
      }),
      error: 'invalid_request',
      reason: /jobId/,
    },
    {
      name: 'an update naming another network than its DID',
      path: '/1.0/update',
      body: (c) => ({
        did: 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza',
        options: { clientSecretMode: true, network: 'mainnet' },
        didDocument: [docOf(c)],
      }),
      error: 'invalid_request',
      reason: /options\.network is mainnet, but .* is a testnet DID/,
    },
    {
      name: 'a deactivate naming another network than its DID',
      path: '/1.0/deactivate',
      body: () => ({
        did: 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza',
        options: { clientSecretMode: true, network: 'mainnet' },
      }),
      error: 'invalid_request',
      reason: /options\.network is mainnet/,
    },
  ];
  it.each(cases)('$name: failed, $error', async ({ path, body, error, reason }) => {
    const r = await h.post(path, body(Keypair.random()));
    expect(r.status, r.text).toBe(400);
    expect(r.body).toMatchObject({ jobId: null, didState: { state: 'failed', error } });
    expect(r.body.didState.reason).toMatch(reason);
  });
});
