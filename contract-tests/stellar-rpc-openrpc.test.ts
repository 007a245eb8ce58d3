// The simulator against Stellar's published OpenRPC description of stellar-rpc (contract-tests/fixtures/: 12
// methods): every method's answer, with and without its optional parameters and in both XDR formats, validates
// against the method's result schema; every example of the description validates too and names no top-level field
// the simulator leaves out; the invalid inputs the descriptions document are refused with stellar-rpc's codes
// (stellar/stellar-rpc internal/methods/*.go). Where the description and stellar-rpc's code disagree the code
// wins: SCHEMA_FIXES lists each such place with its source (docs/chain-abi.md, "stellar-rpc conformance").
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Account, Address, Asset, Contract, Keypair, Memo, TransactionBuilder, rpc, xdr } from '@stellar/stellar-sdk';
import { Ajv } from 'ajv';
import { beforeAll, describe, expect, it } from 'vitest';
import { createSimulator } from '../simulator/index.ts';
import type { SimNetwork } from '../simulator/core/network.ts';
import { address, addressOfScVal } from '../simulator/core/scval.ts';

interface Method {
  name: string;
  params: { name: string; required?: boolean }[];
  result: { schema: Record<string, unknown> };
  examples: { name: string; params: { name: string; value: unknown }[]; result: { value: Record<string, unknown> } }[];
}
const description = JSON.parse(
  readFileSync(new URL('./fixtures/stellar-rpc.openrpc.json', import.meta.url), 'utf8'),
) as { info: { version: string }; methods: Method[] };
const method = (name: string): Method => description.methods.find((m) => m.name === name)!;

type Schema = { type?: string; required?: string[]; properties?: Record<string, Schema>; items?: Schema };

/**
 * Where stellar-rpc's code (stellar/stellar-rpc 41b2f0ff, internal/methods/*.go and go-stellar-sdk's protocol
 * types) answers otherwise than the description's schema says; the code wins (docs/chain-abi.md, "stellar-rpc
 * conformance"). Each: method, why, and the change to its result schema.
 */
const SCHEMA_FIXES: [string, string, (s: Schema) => void][] = [
  [
    'sendTransaction',
    "latestLedgerCloseTime is an int64 sent with `,string` (protocol's SendTransactionResponse); the examples give a string",
    (s) => void (s.properties!.latestLedgerCloseTime!.type = 'string'),
  ],
  [
    'simulateTransaction',
    'results[].xdr and auth are omitempty (SimulateHostFunctionResult): with xdrFormat json they are returnValueJson and authJson',
    (s) => void (s.properties!.results!.items!.required = []),
  ],
];

function schemaOf(name: string): Schema {
  const schema = structuredClone(method(name).result.schema) as Schema;
  for (const [m, , fix] of SCHEMA_FIXES) if (m === name) fix(schema);
  return schema;
}

const ajv = new Ajv({ strict: false, allErrors: true });
const validators = new Map(description.methods.map((m) => [m.name, ajv.compile(schemaOf(m.name))]));
function expectValid(name: string, answer: unknown): void {
  const validate = validators.get(name)!;
  expect(validate(answer) ? [] : validate.errors, `${name}: ${JSON.stringify(answer).slice(0, 300)}`).toEqual([]);
}

let net: SimNetwork;
const call = (name: string, params: Record<string, unknown> = {}) => net.rpc(name, params);
/** Answers collected per method, for the example comparison. */
const answers = new Map<string, Record<string, unknown>[]>();

let owner: Keypair;
let vault: string;
let sent: { hash: string; ledger: number };
let invokeTx: string;

/** An unsigned `vc_count` call by `owner`, as a client builds it before simulating. */
function vcCountTx(memo?: string): string {
  const seq = net.account(owner.publicKey())!.seqNum.toString();
  const b = new TransactionBuilder(new Account(owner.publicKey(), seq), {
    fee: '100',
    networkPassphrase: net.info.passphrase,
  }).addOperation(new Contract(vault).call('vc_count'));
  if (memo) b.addMemo(Memo.text(memo));
  return b.setTimeout(300).build().toXDR();
}

beforeAll(async () => {
  net = createSimulator().network('testnet');
  owner = Keypair.random();
  net.fund(owner.publicKey(), 10_000n * 10_000_000n);
  const deployed = net.invoke({
    source: owner,
    contractId: net.info.factoryId,
    fn: 'deploy',
    args: [
      address(owner.publicKey()),
      xdr.ScVal.scvString('did:ledger:testnet:openrpc'),
      xdr.ScVal.scvBytes(Buffer.alloc(32)),
    ],
  });
  if (deployed.status !== 'SUCCESS') throw new Error(`deploy failed: ${JSON.stringify(deployed)}`);
  vault = addressOfScVal(deployed.returnValue);
  invokeTx = vcCountTx();
  // a transaction through the RPC: simulate, assemble, sign, send
  const sim = (await call('simulateTransaction', { transaction: invokeTx })) as rpc.Api.RawSimulateTransactionResponse;
  const assembled = rpc
    .assembleTransaction(
      TransactionBuilder.fromXDR(invokeTx, net.info.passphrase) as never,
      rpc.parseRawSimulation(sim),
    )
    .build();
  assembled.sign(owner);
  const reply = (await call('sendTransaction', { transaction: assembled.toXDR() })) as { hash: string; status: string };
  expect(reply.status).toBe('PENDING');
  const got = (await call('getTransaction', { hash: reply.hash })) as { ledger: number };
  sent = { hash: reply.hash, ledger: got.ledger };
  for (const [name, params] of CALLS) {
    const a = (await call(name, params())) as Record<string, unknown>;
    answers.set(name, [...(answers.get(name) ?? []), a]);
  }
});

describe('the fixture', () => {
  it('is the published description of stellar-rpc: 12 methods', () => {
    expect(description.info.version).toBe('27.1.1');
    expect(description.methods.map((m) => m.name).sort()).toEqual([
      'getEvents',
      'getFeeStats',
      'getHealth',
      'getLatestLedger',
      'getLedgerEntries',
      'getLedgers',
      'getNetwork',
      'getTransaction',
      'getTransactions',
      'getVersionInfo',
      'sendTransaction',
      'simulateTransaction',
    ]);
  });

  it('docs/chain-abi.md writes down each place where the simulator follows the code, not the description', () => {
    const doc = readFileSync(new URL('../docs/chain-abi.md', import.meta.url), 'utf8');
    const section = doc.split(/^## /m).find((x) => x.startsWith('stellar-rpc conformance'))!;
    for (const [name] of SCHEMA_FIXES) expect(section).toContain(`\`${name}`);
    for (const field of ['cost', 'restorePreamble', 'friendbotUrl']) expect(section).toContain(`\`${field}\``);
  });

  it('its schemas catch a wrong answer (the check can fail)', () => {
    expect(validators.get('getHealth')!({ status: 'healthy', latestLedger: '7' })).toBe(false);
    expect(validators.get('getTransactions')!({ transactions: [{ ledger: 'x' }] })).toBe(false);
  });
});

/** Every method with and without its optional parameters, in both formats (answers kept for the examples). */
const CALLS: [string, () => Record<string, unknown>][] = [
  ['getHealth', () => ({})],
  ['getNetwork', () => ({})],
  ['getVersionInfo', () => ({})],
  ['getFeeStats', () => ({})],
  ['getLatestLedger', () => ({})],
  ['getLedgerEntries', () => ({ keys: [accountKey()] })],
  ['getLedgerEntries', () => ({ keys: [accountKey()], xdrFormat: 'json' })],
  ['getLedgers', () => ({ startLedger: sent.ledger, pagination: { limit: 1 } })],
  ['getLedgers', () => ({ pagination: { cursor: String(sent.ledger - 1), limit: 2 }, xdrFormat: 'json' })],
  ['getTransactions', () => ({ startLedger: sent.ledger, pagination: { limit: 1 } })],
  ['getTransactions', () => ({ pagination: { cursor: '0' }, xdrFormat: 'json' })],
  ['getTransaction', () => ({ hash: sent.hash })],
  ['getTransaction', () => ({ hash: sent.hash, xdrFormat: 'json' })],
  ['getTransaction', () => ({ hash: '0'.repeat(64) })],
  ['getEvents', () => ({ startLedger: 1, pagination: { limit: 5 } })],
  ['getEvents', () => ({ startLedger: 1, filters: [{ type: 'contract', topics: [['*', '**']] }], xdrFormat: 'json' })],
  ['simulateTransaction', () => ({ transaction: invokeTx })],
  ['simulateTransaction', () => ({ transaction: invokeTx, resourceConfig: { instructionLeeway: 1_000_000 } })],
  ['simulateTransaction', () => ({ transaction: invokeTx, authMode: 'enforce' })],
  ['simulateTransaction', () => ({ transaction: invokeTx, authMode: 'record' })],
  ['simulateTransaction', () => ({ transaction: invokeTx, authMode: 'record_allow_nonroot' })],
  ['simulateTransaction', () => ({ transaction: invokeTx, xdrFormat: 'json' })],
  ['simulateTransaction', () => ({ transaction: 'AAAA' })],
  ['sendTransaction', () => ({ transaction: invokeTx })], // unsigned: ERROR, with its TransactionResult
];

const accountKey = (): string =>
  xdr.LedgerKey.account(
    new xdr.LedgerKeyAccount({ accountId: xdr.PublicKey.publicKeyTypeEd25519(owner.rawPublicKey()) }),
  ).toXDR('base64');

describe('every method answers as the description says', () => {
  it.each(description.methods.map((m) => m.name))('%s: every answer validates against its result schema', (name) => {
    const ours = answers.get(name) ?? [];
    expect(ours.length).toBeGreaterThan(0);
    for (const a of ours) expectValid(name, a);
  });

  it('getHealth has close times; getFeeStats counts the transactions of the ledgers it closed', () => {
    const [health] = answers.get('getHealth')!;
    expect(Number(health!.latestLedgerCloseTime)).toBeGreaterThan(0);
    const [fees] = answers.get('getFeeStats')!;
    expect((fees!.sorobanInclusionFee as { transactionCount: string }).transactionCount).not.toBe('0');
  });

  it('getTransactions pages by cursor, and answers json', async () => {
    const page = (await call('getTransactions', { startLedger: 1, pagination: { limit: 1 } })) as {
      transactions: { txHash: string }[];
      cursor: string;
    };
    const next = (await call('getTransactions', { pagination: { cursor: page.cursor, limit: 200 } })) as typeof page;
    expect(next.transactions.map((t) => t.txHash)).not.toContain(page.transactions[0]!.txHash);
    expect(next.transactions.map((t) => t.txHash)).toContain(sent.hash);
    const json = (await call('getTransactions', { startLedger: sent.ledger, xdrFormat: 'json' })) as {
      transactions: { envelopeJson?: unknown; envelopeXdr?: string }[];
    };
    expect(json.transactions[0]!.envelopeJson).toBeDefined();
    expect(json.transactions[0]!.envelopeXdr).toBeUndefined();
  });

  it('simulateTransaction budgets instructionLeeway, and its json carries the *Json fields', async () => {
    const sim = (params: Record<string, unknown>) =>
      call('simulateTransaction', { transaction: invokeTx, ...params }) as Promise<Record<string, unknown>>;
    const instructions = (d: unknown) =>
      xdr.SorobanTransactionData.fromXDR(d as string, 'base64').resources.instructions;
    const plain = await sim({});
    const more = await sim({ resourceConfig: { instructionLeeway: 1_000_000 } });
    expect(instructions(more.transactionData)).toBe(instructions(plain.transactionData) + 1_000_000);
    expect(plain.stateChanges).toEqual([]);
    const json = await sim({ xdrFormat: 'json' });
    expect(json.transactionDataJson).toBeDefined();
    expect(json.transactionData).toBeUndefined();
  });
});

describe('ledgers are hashed as on the network', () => {
  it("a ledger's id is the SHA-256 of its LedgerHeader XDR, and the next ledger links to it", async () => {
    const latest = (await call('getLatestLedger')) as { id: string; headerXdr: string; sequence: number };
    expect(createHash('sha256').update(Buffer.from(latest.headerXdr, 'base64')).digest('hex')).toBe(latest.id);
    const page = (await call('getLedgers', { startLedger: sent.ledger - 1, pagination: { limit: 2 } })) as {
      ledgers: { hash: string; headerXdr: string }[];
    };
    const [a, b] = page.ledgers.map((l) => ({
      hash: l.hash,
      entry: xdr.LedgerHeaderHistoryEntry.fromXDR(l.headerXdr, 'base64'),
    }));
    for (const l of [a!, b!]) {
      expect(Buffer.from(l.entry.hash.value).toString('hex')).toBe(l.hash);
      expect(createHash('sha256').update(l.entry.header.toXDR()).digest('hex')).toBe(l.hash);
    }
    expect(Buffer.from(b!.entry.header.previousLedgerHash.value).toString('hex')).toBe(a!.hash);
  });
});

type RpcEvent = Record<string, unknown> & { id: string; topic: string[]; value: string; contractId: string };

/** A `fee` event's topics and amount, read from getEvents' base64 (CAP-67: ["fee", account], i128). */
function feeOf(e: RpcEvent): { topics: string[]; amount: bigint } {
  const [name, account] = e.topic.map((t) => xdr.ScVal.fromXDR(t, 'base64'));
  const v = xdr.ScVal.fromXDR(e.value, 'base64');
  if (name?.type !== 'scvSymbol' || v.type !== 'scvI128' || !account) throw new Error(`not a fee event: ${e.id}`);
  return {
    topics: [name.sym.toString(), Address.fromScVal(account).toString()],
    amount: (BigInt(v.i128.hi) << 64n) + BigInt(v.i128.lo),
  };
}

describe('fee events (CAP-67), as the "All Events" example shows them', () => {
  const example = method('getEvents').examples.find((e) => e.name === 'All Events')!;
  const exampleEvents = example.result.value.events as RpcEvent[];
  const toid = (ledger: number, tx: number): string =>
    ((BigInt(ledger) << 32n) | (BigInt(tx) << 12n)).toString().padStart(19, '0');

  it("the example's events are the native asset's fee events, charged before every transaction", () => {
    const testnetNative = Asset.native().contractId('Test SDF Network ; September 2015');
    expect(exampleEvents.length).toBeGreaterThan(0);
    for (const [i, e] of exampleEvents.entries()) {
      expect(e).toMatchObject({ type: 'contract', contractId: testnetNative, transactionIndex: 0, operationIndex: 0 });
      expect(e.id).toBe(`${toid(e.ledger as number, 0)}-${String(i).padStart(10, '0')}`);
      const fee = feeOf(e);
      expect(fee.topics[0]).toBe('fee');
      expect(fee.topics[1]).toMatch(/^G[A-Z2-7]{55}$/);
      expect(fee.amount).toBeGreaterThan(0n);
    }
  });

  it("the simulator's fee events have the example's fields and form, on its own native SAC", async () => {
    const ours = (await call('getEvents', { startLedger: sent.ledger, filters: [{ type: 'contract' }] })) as {
      events: RpcEvent[];
    };
    expectValid('getEvents', ours);
    const native = Asset.native().contractId(net.info.passphrase);
    const fees = ours.events.filter((e) => e.txHash === sent.hash && e.contractId === native);
    expect(fees.map((e) => feeOf(e).topics)).toEqual([['fee', owner.publicKey()]]); // no refund: minimum declared
    const [charge] = fees;
    expect(Object.keys(charge!).sort()).toEqual(Object.keys(exampleEvents[0]!).sort());
    expect(charge).toMatchObject({ type: 'contract', transactionIndex: 0, operationIndex: 0 });
    expect(charge!.inSuccessfulContractCall).toBe(true);
    expect(charge!.id).toMatch(new RegExp(`^${toid(sent.ledger, 0)}-\\d{10}$`));
    // the charge is the transaction's fee, and the same event is its transaction-level event
    const tx = (await call('getTransaction', { hash: sent.hash })) as {
      resultXdr: string;
      events: { transactionEventsXdr: string[] };
    };
    const feeCharged = BigInt(xdr.TransactionResult.fromXDR(tx.resultXdr, 'base64').feeCharged);
    expect(feeOf(charge!).amount).toBe(feeCharged);
    const [te] = tx.events.transactionEventsXdr.map((b) => xdr.TransactionEvent.fromXDR(b, 'base64'));
    expect(te!.stage.name).toBe('transactionEventStageBeforeAllTxs');
    expect(te!.event.body.v0.topics.map((t) => t.toXDR('base64'))).toEqual(charge!.topic);
  });

  it('getTransaction answers them in json as TransactionEvent', async () => {
    const tx = (await call('getTransaction', { hash: sent.hash, xdrFormat: 'json' })) as {
      events: { transactionEventsJson: { stage: string; event: { type_: string } }[] };
    };
    expect(tx.events.transactionEventsJson.map((e) => e.stage)).toEqual(['before_all_txs']);
  });
});

describe("the description's examples", () => {
  /** Top-level fields of an example the simulator may leave out, with why. */
  const OPTIONAL: Record<string, string> = {
    restorePreamble: 'answered only when an archived entry must be restored (the simulator archives nothing)',
    diagnosticEventsXdr: 'only a failed transaction carries them',
    errorResultXdr: 'only an ERROR answer carries it',
    cost: "stellar-rpc's simulateTransaction has no cost any more (methods/simulate_transaction.go)",
    friendbotUrl: 'answered when the simulator is served over HTTP (the friendbot lives there), not in process',
  };

  it.each(description.methods.flatMap((m) => m.examples.map((e) => ({ name: m.name, example: e.name, e }))))(
    '$name "$example" validates, and the simulator answers its fields',
    ({ name, e }) => {
      const value = e.result.value;
      const validate = validators.get(name)!;
      expect(validate(value) ? [] : validate.errors).toEqual([]);
      const ours = answers.get(name) ?? [];
      expect(ours.length).toBeGreaterThan(0);
      const json = e.params.some((p) => p.name === 'xdrFormat' && p.value === 'json');
      const missing = Object.keys(value).filter(
        (k) => !(k in OPTIONAL) && !ours.some((a) => k in a) && (json || !k.endsWith('Json')),
      );
      expect(missing).toEqual([]);
    },
  );
});

describe('documented invalid inputs are refused as stellar-rpc refuses them', () => {
  it.each([
    { name: 'getTransaction', params: { hash: 'ab' }, code: -32602 },
    { name: 'getTransaction', params: { hash: '0'.repeat(64), xdrFormat: 'xml' }, code: -32602 },
    { name: 'getLedgerEntries', params: { keys: ['not xdr'] }, code: -32602 },
    { name: 'getLedgerEntries', params: { keys: Array(201).fill('AAAA') }, code: -32602 },
    { name: 'getLedgers', params: { startLedger: 1, pagination: { limit: 201 } }, code: -32600 },
    { name: 'getLedgers', params: { startLedger: 1, xdrFormat: 'xml' }, code: -32600 },
    { name: 'getTransactions', params: { startLedger: 999_999 }, code: -32600 },
    { name: 'getTransactions', params: { startLedger: 1, pagination: { cursor: '1' } }, code: -32600 },
    { name: 'getTransactions', params: { startLedger: 1, pagination: { limit: 201 } }, code: -32600 },
    { name: 'getTransactions', params: { startLedger: 1, xdrFormat: 'xml' }, code: -32600 },
    { name: 'getTransactions', params: { pagination: { cursor: 'x' } }, code: -32602 },
    { name: 'getEvents', params: { startLedger: 999_999 }, code: -32600 },
    { name: 'getEvents', params: {}, code: -32602 },
    { name: 'getEvents', params: { startLedger: 1, pagination: { cursor: '1-1' } }, code: -32602 },
    { name: 'getEvents', params: { startLedger: 1, pagination: { limit: 10_001 } }, code: -32602 },
    { name: 'getEvents', params: { startLedger: 1, xdrFormat: 'xml' }, code: -32602 },
    { name: 'getEvents', params: { startLedger: 1, filters: [{ type: 'diagnostic' }] }, code: -32602 },
    { name: 'getEvents', params: { startLedger: 1, filters: Array(6).fill({}) }, code: -32602 },
    { name: 'getEvents', params: { startLedger: 1, filters: [{ topics: [['*', '*', '*', '*', '*']] }] }, code: -32602 },
    { name: 'getEvents', params: { startLedger: 1, filters: [{ topics: [['**', '*']] }] }, code: -32602 },
    { name: 'getEvents', params: { startLedger: 1, filters: [{ topics: [['not-an-scval']] }] }, code: -32602 },
    { name: 'sendTransaction', params: { transaction: 'AAAA' }, code: -32602 },
    {
      name: 'simulateTransaction',
      params: { transaction: 'x', resourceConfig: { instructionLeeway: 'lots' } },
      code: -32602,
    },
  ])('$name $params → $code', async ({ name, params, code }) => {
    await expect(call(name, params)).rejects.toMatchObject({ code });
  });

  it('a TTL key is refused: TTLs come with their entries', async () => {
    const ttl = xdr.LedgerKey.ttl(new xdr.LedgerKeyTtl({ keyHash: Buffer.alloc(32) })).toXDR('base64');
    await expect(call('getLedgerEntries', { keys: [ttl] })).rejects.toMatchObject({
      code: -32602,
      message: 'ledger ttl entries cannot be queried directly',
    });
  });

  it.each([
    {
      why: 'a transaction that does not decode',
      params: () => ({ transaction: 'AAAA' }),
      error: /^Could not unmarshal transaction/,
    },
    {
      why: 'a bad authMode',
      params: () => ({ transaction: invokeTx, authMode: 'never' }),
      error: /optional 'authMode' must be one of/,
    },
    {
      why: 'a bad xdrFormat',
      params: () => ({ transaction: invokeTx, xdrFormat: 'xml' }),
      error: /^got 'xml': expected base64, json/,
    },
    { why: 'a memo', params: () => ({ transaction: vcCountTx('hello') }), error: /Transaction contains a memo/ },
  ])('simulateTransaction answers $why in result.error', async ({ params, error }) => {
    const answer = (await call('simulateTransaction', params())) as Record<string, unknown>;
    expectValid('simulateTransaction', answer);
    expect(answer.error).toMatch(error);
  });
});
