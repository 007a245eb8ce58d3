// The /v1 registry routes' failures (spec "Record rules", "Errors"): every record rule before any transaction
// is built, DID and body errors, state errors, and the safe-submit checks.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Account, Contract, Keypair, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { encodeDidRecord } from '../chain/registry.ts';
import { didIdToBytes, generateDid, type DidRecordInput } from '../did/index.ts';
import {
  multikey,
  sign,
  startHarness,
  x25519Multikey,
  type Harness,
  type RegisteredDid,
} from '../../test-support/resolver.ts';
import { parseExposition } from '../../test-support/observability.ts';

let h: Harness;
let owner: Keypair;
let d: RegisteredDid;
beforeAll(async () => {
  h = await startHarness();
  owner = await h.account();
  d = await h.registerDid({ controller: owner });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

const ed = () => ({ publicKeyMultibase: multikey(Keypair.random()) });
const xk = () => ({ publicKeyMultibase: x25519Multikey() });
const svc = (
  idSuffix = 'inbox',
  serviceEndpoint = 'https://issuer.example.org/inbox',
  serviceType = 'DIDCommMessaging',
) => ({ idSuffix, serviceType, serviceEndpoint });

function baseRecord(): DidRecordInput {
  return { controller: owner.publicKey(), authentication: [ed()], assertionMethod: [], keyAgreement: [], services: [] };
}

async function prepareRegister(patch: (r: DidRecordInput) => Record<string, unknown>) {
  const { did } = generateDid({ network: 'testnet' });
  return h.post('/v1/dids/stellar', { did, sourcePublicKey: owner.publicKey(), record: patch(baseRecord()) });
}

describe('record rules, checked before any transaction is built', () => {
  const dup = ed();
  const bad32 = 'z6Mk1111'; // the Ed25519 prefix, far too few bytes
  const cases: [string, (r: DidRecordInput) => Record<string, unknown>, string, string][] = [
    ['no authentication key', (r) => ({ ...r, authentication: [] }), 'key_count_invalid', 'authentication'],
    [
      '4 authentication keys',
      (r) => ({ ...r, authentication: [ed(), ed(), ed(), ed()] }),
      'key_count_invalid',
      'authentication',
    ],
    [
      '4 assertionMethod keys',
      (r) => ({ ...r, assertionMethod: [ed(), ed(), ed(), ed()] }),
      'key_count_invalid',
      'assertionMethod',
    ],
    ['2 keyAgreement keys', (r) => ({ ...r, keyAgreement: [xk(), xk()] }), 'key_count_invalid', 'keyAgreement'],
    [
      'an X25519 authentication key',
      (r) => ({ ...r, authentication: [xk()] }),
      'key_invalid',
      'authentication[0].publicKeyMultibase',
    ],
    [
      'an Ed25519 keyAgreement key',
      (r) => ({ ...r, keyAgreement: [ed()] }),
      'key_invalid',
      'keyAgreement[0].publicKeyMultibase',
    ],
    [
      'a key longer than 128',
      (r) => ({ ...r, authentication: [{ publicKeyMultibase: 'z6Mk' + '1'.repeat(125) }] }),
      'key_invalid',
      'authentication[0].publicKeyMultibase',
    ],
    [
      'a key that is not 32 bytes',
      (r) => ({ ...r, authentication: [{ publicKeyMultibase: bad32 }] }),
      'key_invalid',
      'authentication[0].publicKeyMultibase',
    ],
    [
      'a 31-byte Ed25519 key',
      (r) => ({ ...r, assertionMethod: [{ publicKeyMultibase: short31() }] }),
      'key_invalid',
      'assertionMethod[0].publicKeyMultibase',
    ],
    [
      'an empty key',
      (r) => ({ ...r, authentication: [{ publicKeyMultibase: '' }] }),
      'key_invalid',
      'authentication[0].publicKeyMultibase',
    ],
    [
      'the same key twice in one relationship',
      (r) => ({ ...r, authentication: [dup, dup] }),
      'duplicate_key',
      'authentication[1].publicKeyMultibase',
    ],
    [
      '4 services',
      (r) => ({ ...r, services: [svc('a'), svc('b'), svc('c'), svc('d')] }),
      'service_invalid',
      'services',
    ],
    [
      'an idSuffix with uppercase',
      (r) => ({ ...r, services: [svc('Inbox')] }),
      'service_invalid',
      'services[0].idSuffix',
    ],
    [
      'an idSuffix ending in -',
      (r) => ({ ...r, services: [svc('inbox-')] }),
      'service_invalid',
      'services[0].idSuffix',
    ],
    [
      'an idSuffix of 33',
      (r) => ({ ...r, services: [svc('a'.repeat(33))] }),
      'service_invalid',
      'services[0].idSuffix',
    ],
    [
      'a duplicate idSuffix',
      (r) => ({ ...r, services: [svc('inbox'), svc('inbox')] }),
      'service_invalid',
      'services[1].idSuffix',
    ],
    [
      'an empty serviceType',
      (r) => ({ ...r, services: [svc('inbox', undefined, '')] }),
      'service_invalid',
      'services[0].serviceType',
    ],
    [
      'a serviceType of 65',
      (r) => ({ ...r, services: [svc('inbox', undefined, 'T'.repeat(65))] }),
      'service_invalid',
      'services[0].serviceType',
    ],
    [
      'an http:// endpoint',
      (r) => ({ ...r, services: [svc('inbox', 'http://issuer.example.org')] }),
      'url_not_https',
      'services[0].serviceEndpoint',
    ],
    [
      'a relative endpoint',
      (r) => ({ ...r, services: [svc('inbox', '/inbox')] }),
      'url_not_https',
      'services[0].serviceEndpoint',
    ],
    [
      'an endpoint over 255',
      (r) => ({ ...r, services: [svc('inbox', `https://issuer.example.org/${'a'.repeat(240)}`)] }),
      'service_invalid',
      'services[0].serviceEndpoint',
    ],
    [
      'an http:// metadataUri',
      (r) => ({ ...r, metadataUri: 'http://issuer.example.org/meta.json' }),
      'url_not_https',
      'metadataUri',
    ],
    [
      'a metadataUri over 255',
      (r) => ({ ...r, metadataUri: `https://issuer.example.org/${'a'.repeat(240)}` }),
      'invalid_record',
      'metadataUri',
    ],
    [
      'a metadataHash that is not 64 hex',
      (r) => ({ ...r, metadataUri: 'https://issuer.example.org/m.json', metadataHash: 'ABCD' }),
      'invalid_record',
      'metadataHash',
    ],
    [
      'a metadataHash without metadataUri',
      (r) => ({ ...r, metadataHash: 'a'.repeat(64) }),
      'metadata_inconsistent',
      'metadataHash',
    ],
    [
      'a controller with a bad checksum',
      (r) => ({ ...r, controller: owner.publicKey().slice(0, 55) + (owner.publicKey().endsWith('A') ? 'B' : 'A') }),
      'invalid_record',
      'controller',
    ],
    [
      'a contract as controller',
      (r) => ({ ...r, controller: h.info.testnet.registryId }),
      'invalid_record',
      'controller',
    ],
  ];

  it.each(cases)('%s → %s', async (_name, patch, code, field) => {
    const before = h.rpcCount();
    const r = await prepareRegister(patch);
    expect(r.status, r.text).toBe(400);
    expect(r.body).toMatchObject({
      code,
      message: expect.any(String),
      details: { field, violations: expect.arrayContaining([expect.objectContaining({ code, field })]) },
    });
    expect(h.rpcCount()).toBe(before);
  });

  it('accepts what the rules allow: a key shared by relationships, 3 of each, metadata with its hash', async () => {
    const k = ed();
    const r = await prepareRegister((rec) => ({
      ...rec,
      authentication: [k, ed(), ed()],
      assertionMethod: [k, ed(), ed()],
      keyAgreement: [xk()],
      services: [svc('a'), svc('b-2'), svc('c')],
      metadataUri: 'https://issuer.example.org/meta.json',
      metadataHash: 'f'.repeat(64),
    }));
    expect(r.status, r.text).toBe(200);
  });

  it('the record rules also hold for update', async () => {
    const r = await h.post(`/v1/dids/stellar/${d.did}/update`, {
      expectedVersion: 1,
      sourcePublicKey: owner.publicKey(),
      record: { ...d.record, authentication: [] },
    });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('key_count_invalid');
  });

  it('a signed register transaction breaking the rules is refused before it is sent', async () => {
    const { didId } = generateDid({ network: 'testnet' });
    const same = ed();
    const record = { ...baseRecord(), authentication: [same, same] };
    const i = h.info.testnet;
    const tx = new TransactionBuilder(new Account(owner.publicKey(), '1'), {
      fee: '100',
      networkPassphrase: i.passphrase,
    })
      .addOperation(
        new Contract(i.registryId).call(
          'register',
          xdr.ScVal.scvBytes(Buffer.from(didIdToBytes(didId))),
          encodeDidRecord(record),
        ),
      )
      .setTimeout(300)
      .build();
    tx.sign(owner);
    const before = h.rpcCount({ method: 'sendTransaction' });
    const r = await h.post('/v1/dids/stellar', { signedXdr: tx.toXdr() });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('duplicate_key');
    expect(h.rpcCount({ method: 'sendTransaction' })).toBe(before);
  });
});

/** An Ed25519 multicodec prefix with 31 key bytes: the right prefix, the wrong length. */
function short31(): string {
  const A = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
  let n = BigInt('0x' + Buffer.from([0xed, 0x01, ...new Uint8Array(31).fill(7)]).toString('hex'));
  let out = '';
  while (n > 0n) {
    out = A[Number(n % 58n)] + out;
    n /= 58n;
  }
  return 'z' + out;
}

describe('request errors', () => {
  it.each([
    ['a network alias', 'did:ledger:public:nohsyhu2pu7uaulcoocjljvxza'],
    ['a non-canonical didId', 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxzb'],
    ['another method', 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp'],
  ])('register: %s in the body → did_invalid', async (_n, did) => {
    const r = await h.post('/v1/dids/stellar', { did, sourcePublicKey: owner.publicKey(), record: baseRecord() });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'did_invalid', details: { did } });
  });

  it.each([
    ['an unknown field', (b: Record<string, unknown>) => ({ ...b, extra: 1 }), '/body/extra'],
    ['a missing record', ({ record: _r, ...b }: Record<string, unknown>) => b, '/body/record'],
    ['prepare fields and signedXdr together', (b: Record<string, unknown>) => ({ ...b, signedXdr: 'AAAA' }), '/body'],
  ])('register: %s → invalid_request with details.errors', async (_n, patch, path) => {
    const { did } = generateDid({ network: 'testnet' });
    const r = await h.post(
      '/v1/dids/stellar',
      patch({ did, sourcePublicKey: owner.publicKey(), record: baseRecord() }),
    );
    expect(r.status, r.text).toBe(400);
    expect(r.body).toMatchObject({
      code: 'invalid_request',
      details: { errors: expect.arrayContaining([expect.objectContaining({ path })]) },
    });
  });

  it('a body that is not JSON, or not sent as JSON, is invalid_request', async () => {
    const bad = await h.request('POST', '/v1/dids/stellar', {
      rawBody: '{"did":',
      headers: { 'content-type': 'application/json' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe('invalid_request');
    const text = await h.request('POST', '/v1/dids/stellar', {
      rawBody: 'did=x',
      headers: { 'content-type': 'text/plain' },
    });
    expect(text.status).toBe(400);
    expect(text.body.code).toBe('invalid_request');
  });

  it('an unfunded sourcePublicKey is invalid_request', async () => {
    const r = await h.post('/v1/dids/stellar', {
      did: generateDid({ network: 'testnet' }).did,
      sourcePublicKey: Keypair.random().publicKey(),
      record: baseRecord(),
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'invalid_request', details: { errors: [{ path: '/body/sourcePublicKey' }] } });
  });

  it('an invalid DID in the path is did_invalid on every /v1 route', async () => {
    const bad = 'did%3Aledger%3Atestnet%3Anohsyhu2pu7uaulcoocjljvxzb';
    const gets = await h.get(`/v1/dids/stellar/${bad}`);
    expect(gets.status).toBe(400);
    expect(gets.body.code).toBe('did_invalid');
    for (const [path, body] of [
      ['update', { expectedVersion: 1, sourcePublicKey: owner.publicKey(), record: baseRecord() }],
      ['transfer', { expectedVersion: 1, sourcePublicKey: owner.publicKey(), newController: owner.publicKey() }],
      ['deactivate', { expectedVersion: 1, sourcePublicKey: owner.publicKey() }],
    ] as const) {
      const r = await h.post(`/v1/dids/stellar/${bad}/${path}`, body);
      expect(r.status, path).toBe(400);
      expect(r.body.code, path).toBe('did_invalid');
    }
  });

  it('a newController with a bad checksum is invalid_request', async () => {
    const pk = owner.publicKey();
    const r = await h.post(`/v1/dids/stellar/${d.did}/transfer`, {
      expectedVersion: 1,
      sourcePublicKey: pk,
      newController: pk.slice(0, 55) + (pk.endsWith('A') ? 'B' : 'A'),
    });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'invalid_request', details: { errors: [{ path: '/body/newController' }] } });
  });
});

describe('state errors', () => {
  it('did_already_exists 409 when registering a registered DID', async () => {
    const r = await h.post('/v1/dids/stellar', {
      did: d.did,
      sourcePublicKey: owner.publicKey(),
      record: baseRecord(),
    });
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ code: 'did_already_exists', details: { contractError: 1 } });
  });

  it('did_not_found 404 for the raw record and every mutation of an unregistered DID', async () => {
    const { did } = generateDid({ network: 'testnet' });
    const raw = await h.get(`/v1/dids/stellar/${did}`);
    expect(raw.status).toBe(404);
    expect(raw.body).toEqual({ code: 'did_not_found', message: `${did} is not registered` });
    for (const [path, body] of [
      ['update', { expectedVersion: 1, sourcePublicKey: owner.publicKey(), record: baseRecord() }],
      ['transfer', { expectedVersion: 1, sourcePublicKey: owner.publicKey(), newController: owner.publicKey() }],
      ['deactivate', { expectedVersion: 1, sourcePublicKey: owner.publicKey() }],
    ] as const) {
      const r = await h.post(`/v1/dids/stellar/${did}/${path}`, body);
      expect(r.status, path).toBe(404);
      expect(r.body.code, path).toBe('did_not_found');
    }
  });

  it('version_mismatch 409 at prepare for transfer and deactivate too', async () => {
    for (const [path, body] of [
      ['transfer', { expectedVersion: 7, sourcePublicKey: owner.publicKey(), newController: owner.publicKey() }],
      ['deactivate', { expectedVersion: 7, sourcePublicKey: owner.publicKey() }],
    ] as const) {
      const r = await h.post(`/v1/dids/stellar/${d.did}/${path}`, body);
      expect(r.status, path).toBe(409);
      expect(r.body).toMatchObject({ code: 'version_mismatch', details: { expectedVersion: 7, currentVersion: 1 } });
    }
  });
});

describe('safe submit', () => {
  async function preparedDeactivate(x: RegisteredDid): Promise<string> {
    const prep = await h.post(`/v1/dids/stellar/${x.did}/deactivate`, {
      expectedVersion: 1,
      sourcePublicKey: x.controller.publicKey(),
    });
    expect(prep.status, prep.text).toBe(200);
    return sign(prep.body.xdr, prep.body.networkPassphrase, [x.controller]);
  }

  it('a route refuses a transaction invoking another registry function (tx_operation_mismatch)', async () => {
    const signed = await preparedDeactivate(d);
    for (const path of ['/v1/dids/stellar', `/v1/dids/stellar/${d.did}/update`, `/v1/dids/stellar/${d.did}/transfer`]) {
      const r = await h.post(path, { signedXdr: signed });
      expect(r.status, path).toBe(400);
      expect(r.body.code, path).toBe('tx_operation_mismatch');
    }
  });

  it('a refused submit is counted under its code in /metrics, not as internal_error', async () => {
    const signed = await preparedDeactivate(d);
    const route = `/v1/dids/stellar/{did}/update`;
    const count = async (outcome: string) => {
      const f = parseExposition((await h.get('/metrics')).text);
      const family = f.get('credential_vault_submits_total');
      const sample = family?.samples.find((s) => s.labels.route === route && s.labels.outcome === outcome);
      return sample?.value ?? 0;
    };
    const before = [await count('tx_operation_mismatch'), await count('internal_error')];
    const r = await h.post(`/v1/dids/stellar/${d.did}/update`, { signedXdr: signed });
    expect(r.body.code).toBe('tx_operation_mismatch');
    expect([await count('tx_operation_mismatch'), await count('internal_error')]).toEqual([before[0]! + 1, before[1]]);
  });

  it('a route refuses a transaction for another DID than its path', async () => {
    const other = await h.registerDid({ controller: owner });
    const signed = await preparedDeactivate(other);
    const r = await h.post(`/v1/dids/stellar/${d.did}/deactivate`, { signedXdr: signed });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'tx_operation_mismatch', message: expect.stringContaining(other.didId) });
  });

  it('a transaction of another network is refused for a path DID of this one', async () => {
    const m = await h.registerDid({ network: 'mainnet' });
    const prep = await h.post(`/v1/dids/stellar/${m.did}/deactivate`, {
      expectedVersion: 1,
      sourcePublicKey: m.controller.publicKey(),
    });
    const signed = sign(prep.body.xdr, prep.body.networkPassphrase, [m.controller]);
    const r = await h.post(`/v1/dids/stellar/${d.did}/deactivate`, { signedXdr: signed });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({
      code: 'tx_operation_mismatch',
      message: expect.stringContaining('not the DID registry of testnet'),
    });
    // /submit routes it to mainnet by the registry it invokes.
    const ok = await h.post('/v1/dids/stellar/submit', { signedXdr: signed });
    expect(ok.status, ok.text).toBe(200);
    expect((await h.get(`/1.0/identifiers/${m.did}`)).status).toBe(410);
  });

  it('/submit refuses a transaction that invokes no registry of a served network', async () => {
    const i = h.info.testnet;
    const tx = new TransactionBuilder(new Account(owner.publicKey(), '1'), {
      fee: '100',
      networkPassphrase: i.passphrase,
    })
      .addOperation(new Contract(i.factoryId).call('is_vault', xdr.ScVal.scvVoid()))
      .setTimeout(300)
      .build();
    tx.sign(owner);
    const r = await h.post('/v1/dids/stellar/submit', { signedXdr: tx.toXdr() });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('tx_operation_mismatch');
  });

  it('/submit refuses a registry call that is not a mutation', async () => {
    const i = h.info.testnet;
    const tx = new TransactionBuilder(new Account(owner.publicKey(), '1'), {
      fee: '100',
      networkPassphrase: i.passphrase,
    })
      .addOperation(new Contract(i.registryId).call('get', xdr.ScVal.scvBytes(Buffer.from(didIdToBytes(d.didId)))))
      .setTimeout(300)
      .build();
    tx.sign(owner);
    const r = await h.post('/v1/dids/stellar/submit', { signedXdr: tx.toXdr() });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ code: 'tx_operation_mismatch', message: expect.stringContaining('get') });
  });

  it('garbage or an unsigned envelope is invalid_request', async () => {
    const g = await h.post('/v1/dids/stellar/submit', { signedXdr: 'AAAAAAAA' });
    expect(g.status).toBe(400);
    expect(g.body).toMatchObject({ code: 'invalid_request', details: { errors: [{ path: '/body/signedXdr' }] } });
    const prep = await h.post(`/v1/dids/stellar/${d.did}/deactivate`, {
      expectedVersion: 1,
      sourcePublicKey: owner.publicKey(),
    });
    const unsigned = await h.post(`/v1/dids/stellar/${d.did}/deactivate`, { signedXdr: prep.body.xdr });
    expect(unsigned.status).toBe(400);
    expect(unsigned.body.code).toBe('invalid_request');
  });

  it('a transaction the network rejects is tx_submission_failed with the chain result', async () => {
    // Two different updates prepared at one sequence number: the second is rejected (bad sequence). Its own DID:
    // the others' `d` stays at version 1, whatever order the tests run in.
    const x = await h.registerDid({ controller: owner });
    const a = await h.post(`/v1/dids/stellar/${x.did}/update`, {
      expectedVersion: 1,
      sourcePublicKey: owner.publicKey(),
      record: x.record,
    });
    const b = await h.post(`/v1/dids/stellar/${x.did}/update`, {
      expectedVersion: 1,
      sourcePublicKey: owner.publicKey(),
      record: { ...x.record, services: [svc()] },
    });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    const first = await h.post(`/v1/dids/stellar/${x.did}/update`, {
      signedXdr: sign(a.body.xdr, a.body.networkPassphrase, [owner]),
    });
    expect(first.status, first.text).toBe(200);
    const second = await h.post('/v1/dids/stellar/submit', {
      signedXdr: sign(b.body.xdr, b.body.networkPassphrase, [owner]),
    });
    expect(second.status, second.text).toBe(400);
    expect(second.body).toMatchObject({
      code: 'tx_submission_failed',
      details: { status: 'ERROR', resultCode: expect.stringMatching(/^tx/) },
    });
  });
});

// A prepared transaction lives 5 minutes; later its own code says to prepare again.
describe('an expired prepared transaction', () => {
  it('→ 400 tx_expired', async () => {
    const net = h.sim.sim.network('testnet');
    const snap = net.snapshot();
    try {
      const p = await prepareRegister((r) => ({ ...r }));
      expect(p.status, p.text).toBe(200);
      net.setTime(net.ledger.nowSec() + 301);
      const r = await h.post('/v1/dids/stellar', {
        signedXdr: sign(p.body.xdr as string, p.body.networkPassphrase as string, [owner]),
      });
      expect([r.status, r.body.code], r.text).toEqual([400, 'tx_expired']);
      expect(r.body.message).toMatch(/^the prepared transaction expired .*prepare again, sign and submit/);
    } finally {
      net.revert(snap);
    }
  });
});
