// The official XDR definitions (stellar-xdr, Rust, via @stellar/stellar-xdr-json) decode every
// XDR value that the simulator and both services put on the wire during the demo, on both networks, and
// encode it back byte for byte. `npm run demo` runs unchanged as a child process; recording proxies sit in front
// of the simulator (JSON-RPC and friendbot), both vault APIs and the resolver, so requests (the signed
// envelopes clients submit, the keys and transactions the services send the RPC) and answers are all seen.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { xdr } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../simulator/index.ts';
import { loadConfig } from '../src/config/index.ts';
import { startServices, type RunningServices } from '../src/services.ts';
import { startCaptureProxy, type CaptureProxy, type Exchange } from './helpers/capture-proxy.ts';
import { FRIENDBOT, looksLikeXdr, walk, walkRpc, walkService, type Found } from './helpers/xdr-fields.ts';
import { jsonToXdr, roundTrip, xdrToJson, xdrTypes } from './helpers/xdr-oracle.ts';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Every kind of XDR the demo's flows put on the wire; each must be seen at least once. */
const EXPECTED_TYPES = [
  'TransactionEnvelope',
  'SorobanTransactionData',
  'SorobanAuthorizationEntry',
  'ScVal',
  'TransactionResult',
  'TransactionMeta',
  'LedgerKey',
  'LedgerEntryData',
  'DiagnosticEvent',
  'ContractEvent',
  'LedgerHeader',
  'LedgerCloseMeta',
];

// A TransactionResult (fee 100, one successful payment) from stellar-xdr-json's README.
const TX_RESULT = 'AAAAAAAAAGQAAAAAAAAAAQAAAAAAAAABAAAAAAAAAAA=';

describe('the oracle itself', () => {
  it('is the newest stellar-xdr and knows the Protocol 27 authorization types', () => {
    for (const t of [
      'TransactionEnvelope',
      'LedgerCloseMeta',
      'TransactionEvent',
      'SorobanAddressCredentialsWithDelegates',
    ])
      expect(xdrTypes().has(t), t).toBe(true);
  });

  it.each([
    { given: 'a valid TransactionResult', type: 'TransactionResult', b64: TX_RESULT, want: 'ok' },
    { given: 'base64 without its padding', type: 'TransactionResult', b64: TX_RESULT.slice(0, -1), want: 'decode' },
    {
      given: 'a trailing XDR word',
      type: 'TransactionResult',
      b64: Buffer.concat([Buffer.from(TX_RESULT, 'base64'), Buffer.alloc(4)]).toString('base64'),
      want: 'decode',
    },
    { given: 'a truncated value', type: 'TransactionResult', b64: TX_RESULT.slice(0, 32), want: 'decode' },
    {
      given: 'an ScVal bool that is neither 0 nor 1 (decodes, but not back to the same bytes)',
      type: 'ScVal',
      b64: 'AAAAAAAAAAI=',
      want: 'mismatch',
    },
    { given: 'a type stellar-xdr does not define', type: 'TransactionResultV9', b64: TX_RESULT, want: 'unknown-type' },
  ])('$given → $want', ({ type, b64, want }) => {
    const r = roundTrip(type, b64);
    expect(r.ok ? 'ok' : r.stage).toBe(want);
  });

  it('finds mapped fields and flags XDR in fields it does not know', () => {
    const out: Found = { values: [], problems: [] };
    walkRpc(
      { jsonrpc: '2.0', id: 1, method: 'getTransaction', params: { hash: 'ab'.repeat(32) } },
      {
        jsonrpc: '2.0',
        id: 1,
        result: {
          status: 'SUCCESS',
          txHash: 'ab'.repeat(32),
          resultXdr: TX_RESULT,
          feeBumpXdr: TX_RESULT,
          events: { contractEventsXdr: [[TX_RESULT]] },
        },
      },
      'rpc',
      out,
    );
    expect(out.values.map((v) => [v.where, v.type])).toEqual([
      ['rpc getTransaction result.resultXdr', 'TransactionResult'],
      ['rpc getTransaction result.events.contractEventsXdr[0][0]', 'ContractEvent'],
    ]);
    expect(out.problems).toEqual([expect.stringMatching(/^rpc getTransaction result\.feeBumpXdr: unmapped field/)]);
    expect(looksLikeXdr('note', TX_RESULT)).toBe(true);
    for (const s of [
      'ab'.repeat(32),
      'GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7',
      'z6MkjxkvqxLxUeBipoyqUVLkXBnS2A9g6xr67hTSYYwTMs5T',
      '12345678',
      'PENDING',
      'did:ledger:testnet:abc',
      'credentialStatus',
    ])
      expect(looksLikeXdr('note', s), s).toBe(false);
  });
});

/** `npm run demo` against the given URLs, as a user runs it (whatever runtime the package script picks). */
function runDemo(urls: {
  vault: string;
  mainnet: string;
  resolver: string;
  simulator: string;
}): Promise<{ code: number | null; out: string }> {
  const args = [
    '--vault-url',
    urls.vault,
    '--mainnet-url',
    urls.mainnet,
    '--resolver-url',
    urls.resolver,
    '--simulator-url',
    urls.simulator,
  ];
  return new Promise((resolve, reject) => {
    // Its own process group, so that a timeout ends npm and the demo under it.
    const child = spawn('npm', ['run', '--silent', 'demo', '--', ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const timer = setTimeout(() => {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
      reject(new Error(`the demo did not finish in time\n${out}`));
    }, 120_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

/** Fields that must each have carried at least one value (indices dropped), per network where both apply. */
const REQUIRED_FIELDS: RegExp[] = [
  ...['testnet', 'mainnet'].flatMap((n) =>
    [
      'simulateTransaction params.transaction',
      'simulateTransaction result.transactionData',
      'simulateTransaction result.results.auth',
      'simulateTransaction result.results.xdr',
      'simulateTransaction result.events',
      'sendTransaction params.transaction',
      'getTransaction result.envelopeXdr',
      'getTransaction result.resultXdr',
      'getTransaction result.resultMetaXdr',
      'getTransaction result.events.contractEventsXdr',
      'getLedgerEntries params.keys',
      'getLedgerEntries result.entries.key',
      'getLedgerEntries result.entries.xdr',
      'getLatestLedger result.headerXdr',
      'getLatestLedger result.metadataXdr',
      'getLedgers result.ledgers.headerXdr',
      'getLedgers result.ledgers.metadataXdr',
      'getEvents result.events.topic',
      'getEvents result.events.value',
      'sendTransaction result.errorResultXdr',
    ].map((f) => new RegExp(`^simulator POST /${n}/rpc ${f.replace(/\./g, '\\.')}$`)),
  ),
  ...['testnet', 'mainnet'].flatMap((n) =>
    ['envelope_xdr', 'result_xdr', 'result_meta_xdr'].map(
      (f) => new RegExp(`^simulator GET /${n}/friendbot answer\\.${f}$`),
    ),
  ),
  // Prepared envelopes out, signed envelopes in; the vault APIs also sign-in with a challenge transaction.
  ...['vault API testnet', 'vault API mainnet', 'resolver'].flatMap((s) => [
    new RegExp(`^${s} .* answer\\.xdr$`),
    new RegExp(`^${s} POST .* request\\.signedXdr$`),
  ]),
  ...['vault API testnet', 'vault API mainnet'].flatMap((s) => [
    new RegExp(`^${s} GET /auth/challenge answer\\.transaction$`),
    new RegExp(`^${s} POST /auth/keys request\\.transaction$`),
  ]),
];

describe('every XDR value of the demo, both networks', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'cv-xdr-oracle-'));
  const exchanges: { source: string; x: Exchange }[] = [];
  const proxies: CaptureProxy[] = [];
  let sim: RunningSimulator;
  let services: RunningServices;
  let simProxy: CaptureProxy;
  const proxy = async (source: string, upstream: string) => {
    const p = await startCaptureProxy(upstream, (x) => exchanges.push({ source, x }));
    proxies.push(p);
    return p;
  };

  beforeAll(async () => {
    sim = await startSimulator({ port: 0 });
    simProxy = await proxy('simulator', sim.url);
    // The services run as against a real network, whose RPC is the simulator behind the recording proxy.
    const profile = (n: 'testnet' | 'mainnet') => {
      const i = sim.networks[n];
      return [
        `--${n}-rpc-url`,
        `${simProxy.url}/${n}/rpc`,
        `--${n}-passphrase`,
        i.passphrase,
        `--${n}-factory-id`,
        i.factoryId,
        `--${n}-registry-id`,
        i.registryId,
        `--${n}-vault-wasm-hash`,
        i.vaultWasmHash,
        `--${n}-simulation-account`,
        i.admin.publicKey,
        ...(i.feeTokenId ? [`--${n}-fee-token-id`, i.feeTokenId] : []),
      ];
    };
    const ports = ['--testnet-port', '--mainnet-port', '--resolver-port'].flatMap((f) => [f, '0']);
    const { config } = loadConfig(
      [
        '--simulator',
        'false',
        ...ports,
        '--data-dir',
        dataDir,
        '--log-level',
        'silent',
        ...profile('testnet'),
        ...profile('mainnet'),
      ],
      {},
    );
    services = await startServices(config, { mode: 'start' });
  }, 60_000);

  afterAll(async () => {
    await services?.close();
    await Promise.all(proxies.map((p) => p.close()));
    await sim?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('decodes and re-encodes each one byte for byte with stellar-xdr-json: zero failures', async () => {
    const urls = {
      vault: (await proxy('vault API testnet', services.vault.testnet!.url)).url,
      mainnet: (await proxy('vault API mainnet', services.vault.mainnet!.url)).url,
      resolver: (await proxy('resolver', services.resolverUrl!)).url,
      simulator: simProxy.url,
    };
    const { code, out } = await runDemo(urls);
    expect(code, out).toBe(0);
    expect(out).toMatch(/mainnet: USDC fee paid: /);

    // Calls the demo's flows do not make: getLatestLedger carries the ledger header and close meta, getLedgers the
    // close meta of every ledger the demo's transactions landed in (their envelopes, results and meta), getEvents
    // the ScVal topics and values of every contract event the demo caused, a refused sendTransaction its result.
    for (const n of ['testnet', 'mainnet']) {
      const rpc = async (method: string, params?: object) => {
        const res = await fetch(`${simProxy.url}/${n}/rpc`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        });
        return ((await res.json()) as { result: Record<string, unknown> }).result;
      };
      const { oldestLedger } = await rpc('getHealth');
      expect(await rpc('getLatestLedger'), `${n}: getLatestLedger`).toHaveProperty('metadataXdr');
      const ledgers: { metadataXdr: string }[] = [];
      let page = await rpc('getLedgers', { startLedger: oldestLedger, pagination: { limit: 200 } });
      for (;;) {
        const got = page.ledgers as { metadataXdr: string }[];
        ledgers.push(...got);
        if (got.length < 200) break;
        page = await rpc('getLedgers', { pagination: { cursor: page.cursor, limit: 200 } });
      }
      const txCount = ledgers
        .map((l) => xdr.LedgerCloseMeta.fromXdr(l.metadataXdr, 'base64'))
        .map((m) => xdr.expectUnionVariant(m, 'v2').v2.txProcessing.length)
        .reduce((a, b) => a + b, 0);
      expect(txCount, `${n}: getLedgers holds the demo's transactions`).toBeGreaterThan(5);
      const { events } = await rpc('getEvents', { startLedger: oldestLedger, pagination: { limit: 10_000 } });
      expect((events as unknown[]).length, `${n}: getEvents`).toBeGreaterThan(0);
      // A client resubmitting a sent envelope with another fee (rebuilt through the oracle's JSON, so no SDK):
      // its sequence number is used, so the RPC refuses it with an errorResultXdr.
      const sent = exchanges.find(
        ({ source, x }) =>
          source === 'simulator' &&
          x.path === `/${n}/rpc` &&
          (x.request as { method?: string }).method === 'sendTransaction',
      );
      const env = JSON.parse(
        xdrToJson('TransactionEnvelope', (sent!.x.request as { params: { transaction: string } }).params.transaction),
      ) as { tx: { tx: { fee: number } } };
      env.tx.tx.fee += 1;
      const refused = await rpc('sendTransaction', {
        transaction: jsonToXdr('TransactionEnvelope', JSON.stringify(env)),
      });
      expect(refused, `${n}: a replayed sequence number`).toMatchObject({
        status: 'ERROR',
        errorResultXdr: expect.any(String),
      });
    }

    const found: Found = { values: [], problems: [] };
    for (const { source, x } of exchanges) {
      const where = `${source} ${x.method} ${x.path.split('?')[0]}`;
      if (source === 'simulator' && /^\/(testnet|mainnet)\/rpc\/?$/.test(x.path))
        walkRpc(x.request, x.response, where, found);
      else if (source === 'simulator' && /\/friendbot/.test(x.path))
        walk(FRIENDBOT, x.response, `${where} answer`, found);
      else {
        walkService(x.request, `${where} request`, found);
        walkService(x.response, `${where} answer`, found);
      }
    }

    const failures: string[] = [];
    const byType = new Map<string, number>();
    for (const v of found.values) {
      byType.set(v.type, (byType.get(v.type) ?? 0) + 1);
      const r = roundTrip(v.type, v.base64);
      if (r.ok) continue;
      failures.push(
        `${v.where} as ${v.type}: ${r.stage}: ${r.error}\n  emitted   ${v.base64}${'reencoded' in r && r.reencoded ? `\n  reencoded ${r.reencoded}` : ''}`,
      );
    }
    const counts = [...byType].sort(([a], [b]) => a.localeCompare(b)).map(([t, c]) => `${t} ${c}`);
    console.log(
      `xdr-oracle: ${found.values.length} values from ${exchanges.length} exchanges round-tripped, ${failures.length} failures: ${counts.join(', ')}`,
    );

    expect(found.problems, 'strings that look like XDR in fields the test does not map').toEqual([]);
    expect(failures, 'values stellar-xdr cannot decode or encode back byte for byte').toEqual([]);
    for (const t of EXPECTED_TYPES) expect(byType.get(t) ?? 0, `no ${t} was seen`).toBeGreaterThan(0);
    const fields = new Set(found.values.map((v) => v.where.replace(/\[\d+\]/g, '')));
    const missing = REQUIRED_FIELDS.filter((re) => ![...fields].some((f) => re.test(f)));
    expect(missing.map(String), `fields that carried no value; seen:\n${[...fields].sort().join('\n')}`).toEqual([]);
  }, 180_000);
});
