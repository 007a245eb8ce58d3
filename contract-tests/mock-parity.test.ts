// The Prism mocks refuse what the services refuse. The services' negative corpus (the bad-input mutations of
// property-tests/http, one of each kind on each operation; the Pact negatives; the adversarial cases below)
// goes to the real service (the test-support harness over the simulator) and to its mock as
// `npm run mock:vault` / `mock:resolver` run it (Prism behind scripts/mock-front.ts). Both answers must be
// of one class (2xx, 4xx) and, where Prism can know it, of one status. A Pact negative's service answer is
// the one the provider run holds the service to. The only exceptions are the listed rules
// (helpers/mock-exceptions.ts; docs/testing.md, "Where a mock cannot refuse", lists the same, which
// docs-claims.test.ts holds): a service answer with one of their codes. The mocks' examples agree with
// the services' answers too: GET /config, a prepare answer and a submit answer.
import { Account, Contract, Keypair, Networks, StrKey, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from '../test-support/resolver.ts';
import { startVaultTestEnv, type VaultTestEnv } from '../test-support/vault-api.ts';
import type { RawRequest } from '../property-tests/http/mutations.ts';
import { codeOf, fuzzProbes, pactProbes, send, type Answer, type Probe } from './helpers/negative-corpus.ts';
import { RESOLVER_EXCEPTIONS, VAULT_EXCEPTIONS, type Exception } from './helpers/mock-exceptions.ts';
import { startPrismMock, type PrismMock } from './helpers/prism.ts';

const UNLIMITED = { read: 1e9, write: 1e9 };
const OWNER = 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR';
/** The spec examples' other accounts (issuer, sponsor, factory admin), funded so that prepares get further. */
const EXAMPLE_ACCOUNTS = [
  OWNER,
  'GDWUSKGGFDI4FRXK5EBTRECZSVQSSWJHHJOGH6JWG3AUMFFMQ435DIAG',
  'GBXHUHG5FGYLPD6RHL2MKWMP572O6KUXCZXDZJXS4T57ZTMAKBN7DWXN',
  'GDVEU3DD4KOFECV66VIHWEZOYX4ZKR3WV27L464SIIPOU2IUI3JCZA57',
];

/** The account of the first authentication key of spec/did-resolver.yaml's registrar create example. */
const REGISTRAR_EXAMPLE_CONTROLLER = 'GA5WUJ54Z23KILLCUOUNAKTPBVZWKMQVO4O6EQ5GHLAERIMLLHNCSKYH';

/** Statuses Prism gives by its own rules (validation, security, routing, negotiation): these must be equal. */
const PRISM_KNOWS = new Set([400, 401, 404, 405, 406, 415]);

const klass = (status: number) => `${Math.floor(status / 100)}xx`;

interface Outcome {
  probe: Probe;
  service: { status: number; code: string | undefined; text: string };
  mock: { status: number; text: string };
}

function disagreement(o: Outcome): string | undefined {
  const s = o.service.status;
  const m = o.mock.status;
  if (klass(s) !== klass(m)) return `class ${klass(s)} ≠ ${klass(m)}`;
  if (PRISM_KNOWS.has(s) && s !== m) return `status ${s} ≠ ${m}`;
  return undefined;
}

function excusedBy(o: Outcome, table: readonly Exception[]): Exception | undefined {
  return table.find(
    (e) =>
      (e.operations === undefined || (o.probe.operation !== undefined && e.operations.includes(o.probe.operation))) &&
      ((e.codes !== undefined && o.service.code !== undefined && e.codes.includes(o.service.code)) ||
        (e.kinds !== undefined && e.kinds.includes(o.probe.kind))),
  );
}

/** The stable code of an answer; a verification result that does not verify is `verified:false`. */
function stableCode(a: Answer): string | undefined {
  const b = a.body as Record<string, unknown> | undefined;
  if (b?.['verified'] === false) return 'verified:false';
  if (a.status === 410 && b && 'didDocumentMetadata' in b) return 'deactivated';
  // A Universal Registrar refusal is a DID Registration state whose code is `didState.error`.
  const state = b?.['didState'] as Record<string, unknown> | undefined;
  if (state?.['state'] === 'failed' && typeof state['error'] === 'string') return state['error'];
  return codeOf(a);
}

const failed = (e: unknown): Answer => ({
  status: 0,
  text: String((e as Error).cause ?? e),
  body: undefined,
  headers: new Headers(),
  contentType: '',
});

async function serviceAnswer(base: string, p: Probe): Promise<Outcome['service']> {
  if (p.pactStatus !== undefined) return { status: p.pactStatus, code: p.pactCode, text: '(as the pact says)' };
  const a = await send(base, p.req).catch(failed);
  // A HEAD answer has no body: its code is the one GET answers.
  const code =
    p.req.method === 'HEAD' && a.status >= 400
      ? stableCode(await send(base, { ...p.req, method: 'GET' }).catch(failed))
      : stableCode(a);
  return { status: a.status, code, text: a.text };
}

function report(o: Outcome, why: string): string {
  const cut = (s: string, n = 200) => (s.length > n ? `${s.slice(0, n)}… (${s.length})` : s);
  const body = typeof o.probe.req.body === 'string' ? o.probe.req.body : o.probe.req.body ? '(bytes)' : '';
  return [
    `${cut(o.probe.name)}: ${why}`,
    `  request: ${o.probe.req.method} ${cut(o.probe.req.path)} ${cut(JSON.stringify(o.probe.req.headers))} ${cut(body)}`,
    `  service: ${o.service.status} ${cut(o.service.text)}`,
    `  mock:    ${o.mock.status} ${cut(o.mock.text)}`,
  ].join('\n');
}

async function runCorpus(
  probes: readonly Probe[],
  service: string,
  mock: string,
  before?: (p: Probe) => void,
): Promise<Outcome[]> {
  const out: Outcome[] = [];
  for (const probe of probes) {
    before?.(probe);
    const [s, m] = await Promise.all([serviceAnswer(service, probe), send(mock, probe.req).catch(failed)]);
    out.push({ probe, service: s, mock: { status: m.status, text: m.text } });
  }
  return out;
}

/** The checks of one API's corpus: every source agrees outside the exceptions, and every exception is used. */
function checkCorpus(name: string, outcomes: () => Outcome[], table: readonly Exception[]): void {
  it.each(['fuzz', 'pact', 'adversarial'] as const)('the %s requests: the mock answers as the service', (source) => {
    const mine = outcomes().filter((o) => o.probe.source === source);
    expect(mine.length, `${source} requests were sent`).toBeGreaterThan(0);
    const bad = mine.flatMap((o) => {
      const d = disagreement(o);
      return d && !excusedBy(o, table) ? [report(o, `${d} (service code ${o.service.code ?? '-'})`)] : [];
    });
    const excused = mine.filter((o) => disagreement(o) && excusedBy(o, table)).length;
    console.log(
      `[mock-parity] ${name}, ${source}: ${mine.length} requests, ${excused} differ by a listed rule, ${bad.length} otherwise`,
    );
    expect(bad, bad.join('\n\n')).toEqual([]);
  });

  it('every listed rule still explains a difference (a stale rule fails)', () => {
    const used = new Set(outcomes().flatMap((o) => (disagreement(o) ? [excusedBy(o, table)?.rule] : [])));
    expect(table.map((e) => e.rule).filter((r) => !used.has(r))).toEqual([]);
  });
}

const json = (method: string, path: string, body: unknown, headers: Record<string, string> = {}): RawRequest => ({
  method,
  path,
  headers: { 'content-type': 'application/json', ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
});

const adversarial = (name: string, req: RawRequest, operation?: string): Probe => ({
  source: 'adversarial',
  name,
  kind: name,
  req,
  ...(operation ? { operation } : {}),
});

/**
 * A base64 string of the envelope's shape (`AAAAAgD/…`, 200 bytes: the spec's pattern and length) that is no
 * transaction envelope (its source account's type is 0x00ffffff). The 0x00 after the type keeps the third base64
 * character `g`, which the pattern needs (0x02 0xff would be `Av`, which Prism refuses as the service does).
 */
const SHAPED_GARBAGE = Buffer.concat([Buffer.from([0, 0, 0, 2, 0]), Buffer.alloc(195, 0xff)]).toString('base64');

/** A well-formed `issue` call on a vault, signed by a key that is not its source's (fixed keys): only the
 *  service's signature check refuses it. */
function signedByAnotherKey(): string {
  const source = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 1));
  const tx = new TransactionBuilder(new Account(source.publicKey(), '1'), {
    fee: '100',
    networkPassphrase: Networks.TESTNET,
  })
    .addOperation(new Contract(StrKey.encodeContract(Buffer.alloc(32, 7))).call('issue', xdr.ScVal.scvString('vc-1')))
    .setTimeout(0)
    .build();
  tx.sign(Keypair.fromRawEd25519Seed(Buffer.alloc(32, 2)));
  return tx.toXDR();
}

function vaultAdversarial(key: string): Probe[] {
  const k = { 'x-svc-key': key };
  const issue = 'POST /contracts/vc/issue';
  const verify = 'POST /credentials/verify';
  return [
    adversarial('verify: an empty body', json('POST', '/credentials/verify', {}, k), verify),
    adversarial('verify: vcId without owner', json('POST', '/credentials/verify', { vcId: 'vc-1' }, k), verify),
    adversarial('verify: owner without vcId', json('POST', '/credentials/verify', { owner: OWNER }, k), verify),
    adversarial(
      'verify: a presented credential and a vcId without owner',
      json(
        'POST',
        '/credentials/verify',
        { verifiableCredential: { type: ['VerifiableCredential'] }, vcId: 'vc-1' },
        k,
      ),
      verify,
    ),
    adversarial(
      'verify: options alone',
      json('POST', '/credentials/verify', { options: { checks: ['proof'] } }),
      verify,
    ),
    adversarial(
      'issue: submit {"signedXdr":"AAAA"}',
      json('POST', '/contracts/vc/issue', { signedXdr: 'AAAA' }, k),
      issue,
    ),
    adversarial(
      'issue: submit {"signedXdr":"AAAA"} with the key abc',
      json('POST', '/contracts/vc/issue', { signedXdr: 'AAAA' }, { 'x-svc-key': 'abc' }),
      issue,
    ),
    adversarial(
      'issue: submit a signedXdr that is not base64',
      json('POST', '/contracts/vc/issue', { signedXdr: 'not base64!' }, k),
      issue,
    ),
    adversarial(
      'issue: submit a payment envelope type 1',
      json('POST', '/contracts/vc/issue', { signedXdr: `AAAAAQ${'A'.repeat(200)}` }, k),
      issue,
    ),
    adversarial(
      'issue: submit an envelope of the right shape that does not decode',
      json('POST', '/contracts/vc/issue', { signedXdr: SHAPED_GARBAGE }, k),
      issue,
    ),
    adversarial(
      "issue: submit a well-formed envelope signed by a key that is not its source's",
      json('POST', '/contracts/vc/issue', { signedXdr: signedByAnotherKey() }, k),
      issue,
    ),
    adversarial(
      'issue: submit with another field',
      json('POST', '/contracts/vc/issue', { signedXdr: SHAPED_GARBAGE, owner: OWNER }, k),
      issue,
    ),
    adversarial('issue: an empty body', json('POST', '/contracts/vc/issue', {}, k), issue),
    adversarial('vault/create: a JSON array body', json('POST', '/contracts/vault/create', [], k)),
    adversarial('GET vault/{owner}: not an account', {
      method: 'GET',
      path: '/contracts/vault/not-an-address',
      headers: k,
    }),
    adversarial('GET vc-count: no owner', { method: 'GET', path: '/contracts/vault/vc-count', headers: k }),
    adversarial('GET vc-count: an empty key header', {
      method: 'GET',
      path: `/contracts/vault/vc-count?owner=${OWNER}`,
      headers: { 'x-svc-key': '' },
    }),
    adversarial('GET list-vc-ids (a POST route beside {owner})', {
      method: 'GET',
      path: '/contracts/vault/list-vc-ids',
      headers: k,
    }),
    adversarial('issue: text that is not JSON', json('POST', '/contracts/vc/issue', '{"owner": ', k), issue),
  ];
}

function resolverAdversarial(): Probe[] {
  const resolve = (did: string, query = '') =>
    adversarial(`resolve ${did}${query}`, {
      method: 'GET',
      path: `/1.0/identifiers/${did}${query}`,
      headers: { accept: 'application/did+json' },
    });
  return [
    resolve('garbage'),
    resolve('did:ledger:public:nohsyhu2pu7uaulcoocjljvxza'),
    resolve('did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxzb'),
    resolve('did:ledger:testnet:NOHSYHU2PU7UAULCOOCJLJVXZA'),
    resolve('did:web:example.com'),
    resolve('did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza', '?colour=red'),
    adversarial('register: an empty body', json('POST', '/v1/dids/stellar', {})),
    adversarial('register: a JSON array body', json('POST', '/v1/dids/stellar', [])),
    adversarial('register: submit {"signedXdr":"AAAA"}', json('POST', '/v1/dids/stellar', { signedXdr: 'AAAA' })),
    adversarial('submit: {"signedXdr":"AAAAAAAA"}', json('POST', '/v1/dids/stellar/submit', { signedXdr: 'AAAAAAAA' })),
    adversarial(
      'submit: an envelope of the right shape that does not decode',
      json('POST', '/v1/dids/stellar/submit', { signedXdr: SHAPED_GARBAGE }),
      'POST /v1/dids/stellar/submit',
    ),
    // Every route that takes `{signedXdr}` alone as its submit mode: the same envelope that does not decode.
    adversarial(
      'register: submit an envelope of the right shape that does not decode',
      json('POST', '/v1/dids/stellar', { signedXdr: SHAPED_GARBAGE }),
      'POST /v1/dids/stellar',
    ),
    ...(['update', 'transfer', 'deactivate'] as const).map((action) =>
      adversarial(
        `${action}: submit an envelope of the right shape that does not decode`,
        json('POST', `/v1/dids/stellar/did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza/${action}`, {
          signedXdr: SHAPED_GARBAGE,
        }),
        `POST /v1/dids/stellar/{did}/${action}`,
      ),
    ),
    adversarial('proof challenge: an empty body', json('POST', '/v1/proof/challenge', {})),
    adversarial(
      'proof challenge: a non-canonical DID',
      json('POST', '/v1/proof/challenge', {
        did: 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxzb',
        domain: 'vault.example.org',
      }),
    ),
  ];
}

describe('the Prism mock of spec/vault-api.yaml refuses what the vault API refuses', () => {
  let env: VaultTestEnv;
  let mock: PrismMock;
  let key: string;
  let outcomes: Outcome[] = [];
  beforeAll(async () => {
    [env, mock] = await Promise.all([
      startVaultTestEnv({ limits: { rateLimits: { standard: UNLIMITED, early: UNLIMITED, admin: UNLIMITED } } }),
      startPrismMock('spec/vault-api.yaml'),
    ]);
    for (const account of EXAMPLE_ACCOUNTS) await fetch(`${env.info!.friendbotUrl}?addr=${account}`);
    const keys = { standard: (await env.mintKey()).key, admin: (await env.mintKey({ role: 'admin' })).key };
    key = keys.standard;
    const probes = [
      ...fuzzProbes('vault', keys),
      ...pactProbes('vault', 'pacts/credential-vault-client-credential-vault-api.json'),
      ...vaultAdversarial(keys.standard),
    ];
    // /auth/* and keyless verification are limited per client IP: every request here comes from 127.0.0.1.
    outcomes = await runCorpus(probes, env.url, mock.url, () => env.clock.advance(61_000));
  }, 900_000);
  afterAll(async () => {
    await Promise.all([env?.close(), mock?.stop()]);
  });

  checkCorpus('vault API', () => outcomes, VAULT_EXCEPTIONS);

  it("answers GET /config as the service does: the example's rpcUrl is the simulator's path", async () => {
    const [fromMock, fromService] = await Promise.all([
      send(mock.url, { method: 'GET', path: '/config' }),
      send(env.url, { method: 'GET', path: '/config' }),
    ]);
    const [m, s] = [fromMock.body as Record<string, unknown>, fromService.body as Record<string, unknown>];
    expect(Object.keys(m).sort()).toEqual(Object.keys(s).sort());
    expect(new URL(String(m['rpcUrl'])).pathname).toBe(new URL(String(s['rpcUrl'])).pathname);
    expect([m['networkType'], m['protocolVersion'], m['networkPassphrase']]).toEqual([
      s['networkType'],
      s['protocolVersion'],
      s['networkPassphrase'],
    ]);
  });

  it('answers a prepare with a prepare answer and a submit with a submit answer, as the service does', async () => {
    const wallet = await env.fund(Keypair.random());
    const own = (await env.mintKey({ wallet })).key;
    const prepare = {
      owner: wallet.publicKey(),
      didUri: 'did:ledger:testnet:ugzmhvhf6ydrqkj2jnog27upsa',
      sourcePublicKey: wallet.publicKey(),
    };
    const prepared = await send(env.url, json('POST', '/contracts/vault/create', prepare, { 'x-svc-key': own }));
    expect(prepared.status, prepared.text).toBe(200);
    const xdr = (prepared.body as { xdr: string }).xdr;
    const tx = TransactionBuilder.fromXDR(xdr, env.passphrase);
    tx.sign(wallet);
    const signedXdr = tx.toEnvelope().toXDR('base64');
    const submitted = await send(
      env.url,
      json('POST', '/contracts/vault/create', { signedXdr }, { 'x-svc-key': own, 'idempotency-key': 'i25' }),
    );
    expect(submitted.status, submitted.text).toBe(200);

    const mockPrepared = await send(mock.url, json('POST', '/contracts/vault/create', prepare, { 'x-svc-key': key }));
    const mockSubmitted = await send(
      mock.url,
      json('POST', '/contracts/vault/create', { signedXdr }, { 'x-svc-key': key }),
    );
    const keysOf = (a: Answer) => Object.keys(a.body as object).sort();
    expect([mockPrepared.status, keysOf(mockPrepared)]).toEqual([200, keysOf(prepared)]);
    expect([mockSubmitted.status, keysOf(mockSubmitted)]).toEqual([200, keysOf(submitted)]);
  });
});

describe('the Prism mock of spec/did-resolver.yaml refuses what the resolver refuses', () => {
  let h: Harness;
  let mock: PrismMock;
  let outcomes: Outcome[] = [];
  beforeAll(async () => {
    [h, mock] = await Promise.all([startHarness(), startPrismMock('spec/did-resolver.yaml')]);
    await h.fund(OWNER);
    // The registrar create example's controller (the account of its first authentication key): funded, so
    // that the example gets its signing request, as from the mock.
    await h.fund(REGISTRAR_EXAMPLE_CONTROLLER);
    const probes = [
      ...fuzzProbes('resolver', undefined),
      ...pactProbes('resolver', 'pacts/credential-vault-client-did-ledger-resolver.json'),
      ...resolverAdversarial(),
    ];
    outcomes = await runCorpus(probes, h.url, mock.url);
  }, 900_000);
  afterAll(async () => {
    await Promise.all([h?.close(), mock?.stop()]);
  });

  checkCorpus('resolver', () => outcomes, RESOLVER_EXCEPTIONS);
});
