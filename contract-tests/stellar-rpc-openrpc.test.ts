// The simulator against Stellar's published OpenRPC description of stellar-rpc (contract-tests/fixtures/: 12
// methods): every method's answer, with and without its optional parameters and in both XDR formats, validates
// against the method's result schema; every example of the description validates too and names no top-level field
// the simulator leaves out; the invalid inputs the descriptions document are refused with stellar-rpc's codes
// (stellar/stellar-rpc internal/methods/*.go). Where the description and stellar-rpc's code disagree the code
// wins: SCHEMA_FIXES lists each such place with its source (docs/chain-abi.md, "stellar-rpc conformance").
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import {
  Account,
  Address,
  Asset,
  Contract,
  Keypair,
  Memo,
  Operation,
  SorobanDataBuilder,
  TransactionBuilder,
  rpc,
  xdr,
} from '@stellar/stellar-sdk';
import { Ajv } from 'ajv';
import { beforeAll, describe, expect, it } from 'vitest';
import { createSimulator } from '../simulator/index.ts';
import type { SimNetwork } from '../simulator/core/network.ts';
import { XdrJson } from '../simulator/core/rpc/xdr-format.ts';
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
  [
    'simulateTransaction',
    'stateChanges[].key is omitempty (LedgerEntryChange): with xdrFormat json it is keyJson, and before/after are null beside beforeJson/afterJson',
    (s) => void (s.properties!.stateChanges!.items!.required = ['type', 'before', 'after']),
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

/** An unsigned call of `fn` by `owner` (on `vault` unless told), as a client builds it before simulating. */
function ownerTx(fn: string, args: xdr.ScVal[] = [], o: { memo?: string; on?: SimNetwork; contract?: string } = {}) {
  const n = o.on ?? net;
  const seq = n.account(owner.publicKey())!.seqNum.toString();
  const b = new TransactionBuilder(new Account(owner.publicKey(), seq), {
    fee: '100',
    networkPassphrase: n.info.passphrase,
  }).addOperation(new Contract(o.contract ?? vault).call(fn, ...args));
  if (o.memo) b.addMemo(Memo.text(o.memo));
  return b.setTimeout(300).build().toXDR();
}

/** An unsigned `issue` of `vcId` into `owner`'s vault, by `owner`. */
const issueTx = (vcId: string): string =>
  ownerTx('issue', [
    xdr.ScVal.scvString(vcId),
    xdr.ScVal.scvString(`data of ${vcId}`),
    address(vault),
    address(owner.publicKey()),
    xdr.ScVal.scvString('did:ledger:testnet:x'),
  ]);

/** An unsigned `vc_count` call by `owner`. */
const vcCountTx = (memo?: string): string => ownerTx('vc_count', [], { memo });

/** `owner`'s vault, deployed on `on` by the factory. */
function deployVault(on: SimNetwork, salt = 0): string {
  const deployed = on.invoke({
    source: owner,
    contractId: on.info.factoryId,
    fn: 'deploy',
    args: [
      address(owner.publicKey()),
      xdr.ScVal.scvString(`did:ledger:testnet:openrpc${salt || ''}`),
      xdr.ScVal.scvBytes(Buffer.alloc(32, salt)),
    ],
  });
  if (deployed.status !== 'SUCCESS') throw new Error(`deploy failed: ${JSON.stringify(deployed)}`);
  return addressOfScVal(deployed.returnValue);
}

/** A persistent contract data key of `contract` (the instance unless `key`), as base64. */
const dataKey = (contract: string, key: xdr.ScVal = xdr.ScVal.scvLedgerKeyContractInstance()): string =>
  xdr.LedgerKey.contractData(
    new xdr.LedgerKeyContractData({
      contract: net.ledger.codec.toScAddress(contract),
      key,
      durability: xdr.ContractDataDurability.persistent,
    }),
  ).toXDR('base64');

/** An ExtendFootprintTTL of `keys` (read-only footprint) by `owner` on `on`, unsigned. */
function extendTx(on: SimNetwork, keys: string[]): string {
  const seq = on.account(owner.publicKey())!.seqNum.toString();
  return new TransactionBuilder(new Account(owner.publicKey(), seq), {
    fee: '100',
    networkPassphrase: on.info.passphrase,
  })
    .addOperation(Operation.extendFootprintTtl({ extendTo: 50 }))
    .setSorobanData(new SorobanDataBuilder().setReadOnly(keys.map((k) => xdr.LedgerKey.fromXDR(k, 'base64'))).build())
    .setTimeout(300)
    .build()
    .toXDR();
}

/** A network whose persistent entries live 20 ledgers, and `owner`'s vault there, deployed and then archived. */
let archived: SimNetwork;
let archivedVault: string;
const SMALL_TTL = { minPersistentTTL: 20, minTemporaryTTL: 10, maxEntryTTL: 100 };

beforeAll(async () => {
  net = createSimulator().network('testnet');
  owner = Keypair.random();
  net.fund(owner.publicKey(), 10_000n * 10_000_000n);
  vault = deployVault(net);
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
  // one more transaction in a later ledger, so an endLedger has events on both sides
  net.closeLedger();
  const later = net.invoke({ source: owner, contractId: vault, fn: 'vc_count', args: [] });
  if (later.status !== 'SUCCESS') throw new Error(`vc_count failed: ${JSON.stringify(later)}`);
  for (const [name, params] of CALLS) {
    const a = (await call(name, params())) as Record<string, unknown>;
    answers.set(name, [...(answers.get(name) ?? []), a]);
  }
  archived = createSimulator({ ttl: SMALL_TTL }).network('testnet');
  archived.fund(owner.publicKey(), 10_000n * 10_000_000n);
  archivedVault = deployVault(archived);
  for (let i = 0; i <= SMALL_TTL.minPersistentTTL; i++) archived.closeLedger();
  for (const transaction of [
    extendTx(archived, [dataKey(archivedVault)]),
    ownerTx('vc_count', [], { on: archived, contract: archivedVault }),
  ]) {
    const a = (await archived.rpc('simulateTransaction', { transaction })) as Record<string, unknown>;
    answers.set('simulateTransaction', [...answers.get('simulateTransaction')!, a]);
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
  ['getEvents', () => ({ startLedger: 1, endLedger: sent.ledger + 1, pagination: { limit: 100 } })],
  ['getEvents', () => ({ startLedger: 1, filters: [{ type: 'contract', topics: [['*', '**']] }], xdrFormat: 'json' })],
  ['simulateTransaction', () => ({ transaction: invokeTx })],
  ['simulateTransaction', () => ({ transaction: invokeTx, resourceConfig: { instructionLeeway: 1_000_000 } })],
  ['simulateTransaction', () => ({ transaction: invokeTx, authMode: 'enforce' })],
  ['simulateTransaction', () => ({ transaction: invokeTx, authMode: 'record' })],
  ['simulateTransaction', () => ({ transaction: invokeTx, authMode: 'record_allow_nonroot' })],
  ['simulateTransaction', () => ({ transaction: invokeTx, xdrFormat: 'json' })],
  ['simulateTransaction', () => ({ transaction: 'AAAA' })],
  // an invocation that writes and emits events (simulated only), and one the contract fails (diagnostic events)
  ['simulateTransaction', () => ({ transaction: issueTx('vc-calls') })],
  ['simulateTransaction', () => ({ transaction: issueTx('vc-calls'), xdrFormat: 'json' })],
  ['simulateTransaction', () => ({ transaction: ownerTx('get_vc', [xdr.ScVal.scvString('vc-none')]) })],
  [
    'simulateTransaction',
    () => ({ transaction: ownerTx('get_vc', [xdr.ScVal.scvString('vc-none')]), xdrFormat: 'json' }),
  ],
  ['sendTransaction', () => ({ transaction: invokeTx })], // unsigned: ERROR, with its TransactionResult
];

const ZERO_ACCOUNT_KEY = xdr.LedgerKey.account(
  new xdr.LedgerKeyAccount({ accountId: xdr.PublicKey.publicKeyTypeEd25519(Buffer.alloc(32)) }),
).toXDR('base64');

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

  it('getHealth has close times; getFeeStats counts the transactions of the ledgers it closed', async () => {
    const [health] = answers.get('getHealth')!;
    expect(Number(health!.latestLedgerCloseTime)).toBeGreaterThan(0);
    const [fees] = answers.get('getFeeStats')!;
    const soroban = fees!.sorobanInclusionFee as Record<string, string>;
    expect(soroban.transactionCount).not.toBe('0');
    // the inclusion fee the sent transaction bid (its fee less its declared resource fee), charged in full
    const tx = (await call('getTransaction', { hash: sent.hash })) as { envelopeXdr: string };
    const env = xdr.TransactionEnvelope.fromXDR(tx.envelopeXdr, 'base64');
    const body = xdr.expectUnionVariant(env, 'envelopeTypeTx').v1.tx;
    const data = xdr.expectUnionVariant(body.ext, 'sorobanData').sorobanData;
    const inclusion = BigInt(body.fee) - BigInt(data.resourceFee);
    expect(inclusion).toBe(100n);
    expect(soroban.p50).toBe(inclusion.toString());
  });

  it('getEvents answers the events of [startLedger, endLedger), and its cursor goes on at endLedger', async () => {
    type Page = { events: RpcEvent[]; cursor: string };
    const all = (await call('getEvents', { startLedger: 1, pagination: { limit: 10_000 } })) as Page;
    const end = sent.ledger + 1;
    const before = all.events.filter((e) => (e.ledger as number) < end);
    expect(before.length).toBeGreaterThan(0);
    expect(all.events.length).toBeGreaterThan(before.length); // the bound cuts something off
    const bounded = (await call('getEvents', { startLedger: 1, endLedger: end })) as Page;
    expectValid('getEvents', bounded);
    expect(bounded.events.map((e) => e.id)).toEqual(before.map((e) => e.id));
    // a short page's cursor is the end of the scanned window, endLedger - 1 (get_events.go)
    expect(Number(BigInt(bounded.cursor.split('-')[0]!) >> 32n)).toBe(end - 1);
    const rest = (await call('getEvents', { pagination: { cursor: bounded.cursor, limit: 10_000 } })) as Page;
    expect(rest.events.map((e) => e.id)).toEqual(all.events.slice(before.length).map((e) => e.id));
    // endLedger only narrows the scan: at or before startLedger the range is empty, not refused
    for (const endLedger of [sent.ledger, sent.ledger - 1]) {
      const empty = (await call('getEvents', { startLedger: sent.ledger, endLedger })) as Page;
      expectValid('getEvents', empty);
      expect(empty.events).toEqual([]);
    }
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
    // A read writes nothing, emits no event and needs no authorization. Slices with omitempty are left out when
    // empty (SimulateTransactionResponse stateChanges, events, eventsJson; SimulateHostFunctionResult authJson);
    // `auth` is a pointer to a slice, sent empty.
    expect(['stateChanges', 'events'].filter((k) => k in plain)).toEqual([]);
    expect(plain.results).toEqual([{ auth: [], xdr: expect.any(String) }]);
    const json = await sim({ xdrFormat: 'json' });
    expect(json.transactionDataJson).toBeDefined();
    expect(json.transactionData).toBeUndefined();
    expect(['stateChanges', 'eventsJson', 'events'].filter((k) => k in json)).toEqual([]);
    expect(json.results).toEqual([{ returnValueJson: expect.anything() }]);
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
    { name: 'getLedgerEntries', params: { keys: [ZERO_ACCOUNT_KEY], xdrFormat: 'xml' }, code: -32602 },
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
    {
      name: 'getEvents',
      params: { endLedger: 2, pagination: { cursor: '0000000004294967296-0000000000' } },
      code: -32602,
    },
    { name: 'getEvents', params: { startLedger: 1, endLedger: -1 }, code: -32602 },
    { name: 'getEvents', params: { startLedger: 1, endLedger: 'x' }, code: -32602 },
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

/** A stateChange as simulateTransaction answers it (LedgerEntryDiff). */
type StateChange = { type: string; key: string; before: string | null; after: string | null };

/** The LedgerKey naming an account or contract data entry, as base64. */
function keyOfEntry(e: xdr.LedgerEntry): string {
  if (e.data.type === 'account')
    return xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: e.data.account.accountId })).toXDR('base64');
  const d = xdr.expectUnionVariant(e.data, 'contractData').contractData;
  return xdr.LedgerKey.contractData(
    new xdr.LedgerKeyContractData({ contract: d.contract, key: d.key, durability: d.durability }),
  ).toXDR('base64');
}
const valOf = (e: string | null): xdr.ScVal =>
  xdr.expectUnionVariant(xdr.LedgerEntry.fromXDR(e!, 'base64').data, 'contractData').contractData.val;

describe('simulateTransaction answers the entries an invocation creates, updates and deletes', () => {
  const str = (v: string) => xdr.ScVal.scvString(v);
  const vcKey = (contract: string, id: string) =>
    dataKey(contract, xdr.ScVal.scvVec([xdr.ScVal.scvSymbol('VC'), str(id)]));
  const statusKey = (contract: string, id: string) =>
    dataKey(contract, xdr.ScVal.scvVec([xdr.ScVal.scvSymbol('Status'), str(id)]));
  const issueArgs = (id: string) => [
    str(id),
    str(`data of ${id}`),
    address(vault),
    address(owner.publicKey()),
    str('did:ledger:testnet:x'),
  ];
  let other: string;
  /** The name of an enum variant (a vec led by a symbol). */
  const variant = (v: xdr.ScVal) =>
    xdr.expectUnionVariant(xdr.expectUnionVariant(v, 'scvVec').vec![0]!, 'scvSymbol').sym.toString();

  beforeAll(() => {
    const issued = net.invoke({ source: owner, contractId: vault, fn: 'issue', args: issueArgs('vc-1') });
    if (issued.status !== 'SUCCESS') throw new Error(`issue failed: ${JSON.stringify(issued)}`);
    other = deployVault(net, 1);
  });

  /**
   * Simulates `tx`; every stateChange validates, its key and entries decode as LedgerKey and LedgerEntry, the
   * entries are the key's, `before` is the entry the ledger holds now (getLedgerEntries), and `type` says which of
   * before and after there are.
   */
  async function changesOf(tx: string): Promise<Map<string, StateChange>> {
    const sim = (await call('simulateTransaction', { transaction: tx })) as Record<string, unknown>;
    expectValid('simulateTransaction', sim);
    expect(sim.error).toBeUndefined();
    const changes = sim.stateChanges as StateChange[];
    const now = (await call('getLedgerEntries', { keys: changes.map((c) => c.key) })) as {
      entries: { key: string; xdr: string; lastModifiedLedgerSeq: number }[];
    };
    const held = new Map(now.entries.map((e) => [e.key, e]));
    for (const c of changes) {
      expect(xdr.LedgerKey.fromXDR(c.key, 'base64').toXDR('base64')).toBe(c.key);
      const [before, after] = [c.before, c.after].map((e) =>
        e === null ? null : xdr.LedgerEntry.fromXDR(e, 'base64'),
      );
      expect(c.type).toBe(before ? (after ? 'updated' : 'deleted') : 'created');
      for (const e of [before, after]) if (e) expect(keyOfEntry(e)).toBe(c.key);
      const ledger = held.get(c.key);
      expect(before && { xdr: before.data.toXDR('base64'), lm: before.lastModifiedLedgerSeq }).toEqual(
        ledger ? { xdr: ledger.xdr, lm: ledger.lastModifiedLedgerSeq } : null,
      );
    }
    return new Map(changes.map((c) => [c.key, c]));
  }

  it('an issue creates the credential and its status', async () => {
    const changes = await changesOf(ownerTx('issue', issueArgs('vc-2')));
    const vc = changes.get(vcKey(vault, 'vc-2'))!;
    const status = changes.get(statusKey(vault, 'vc-2'))!;
    for (const c of [vc, status]) expect(c).toMatchObject({ type: 'created', before: null });
    expect(valOf(vc.after).type).toBe('scvMap'); // the VerifiableCredential struct
    expect(variant(valOf(status.after))).toBe('Valid');
  });

  it('a revoke updates the status from Valid to Revoked', async () => {
    const changes = await changesOf(ownerTx('revoke', [str('vc-1'), str('2026-11-29')]));
    const status = changes.get(statusKey(vault, 'vc-1'))!;
    expect(status.type).toBe('updated');
    expect(variant(valOf(status.before))).toBe('Valid');
    expect(variant(valOf(status.after))).toBe('Revoked');
    expect(changes.has(vcKey(vault, 'vc-1'))).toBe(false); // read, not written
  });

  it("in json each change is stellar-rpc's LedgerEntryChange: keyJson, before and after null, beforeJson/afterJson where there is an entry", async () => {
    // methods/simulate_transaction.go LedgerEntryChangeFromXDRDiff + AddLedgerEntryChangeJSON, encoded as
    // go-stellar-sdk's protocol.LedgerEntryChange: `key` omitempty (left out), `before`/`after` *string without
    // omitempty (null), `keyJson`/`beforeJson`/`afterJson` omitempty; fields in the struct's order
    const xdrJson = new XdrJson();
    const seen = new Set<string>();
    for (const transaction of [
      ownerTx('issue', issueArgs('vc-2')),
      ownerTx('revoke', [str('vc-1'), str('2026-11-29')]),
      ownerTx('push', [str('vc-1'), address(other)]),
    ]) {
      const [plain, json] = (await Promise.all(
        ['base64', 'json'].map((xdrFormat) => call('simulateTransaction', { transaction, xdrFormat })),
      )) as [{ stateChanges: StateChange[] }, { stateChanges: Record<string, unknown>[] }];
      expectValid('simulateTransaction', json);
      const want = plain.stateChanges.map((c) => ({
        type: c.type,
        keyJson: xdrJson.toJson('LedgerKey', c.key),
        before: null,
        ...(c.before === null ? {} : { beforeJson: xdrJson.toJson('LedgerEntry', c.before) }),
        after: null,
        ...(c.after === null ? {} : { afterJson: xdrJson.toJson('LedgerEntry', c.after) }),
      }));
      expect(json.stateChanges).toStrictEqual(want);
      expect(json.stateChanges.map((c) => Object.keys(c))).toEqual(want.map((c) => Object.keys(c)));
      for (const c of plain.stateChanges) seen.add(c.type);
    }
    expect([...seen].sort()).toEqual(['created', 'deleted', 'updated']);
  });

  it('a push deletes the credential here and creates it in the other vault', async () => {
    const changes = await changesOf(ownerTx('push', [str('vc-1'), address(other)]));
    for (const key of [vcKey(vault, 'vc-1'), statusKey(vault, 'vc-1')])
      expect(changes.get(key)).toMatchObject({ type: 'deleted', after: null });
    const moved = changes.get(vcKey(other, 'vc-1'))!;
    expect(moved).toMatchObject({ type: 'created', before: null });
    expect(moved.after && valOf(moved.after).toXDR('base64')).toBe(
      valOf(changes.get(vcKey(vault, 'vc-1'))!.before).toXDR('base64'),
    );
  });
});

describe('over archived state (a simulator whose entries live 20 ledgers)', () => {
  it('an ExtendFootprintTTL over an archived entry answers the restore to send first, as restorePreamble', async () => {
    const sim = (await archived.rpc('simulateTransaction', {
      transaction: extendTx(archived, [dataKey(archivedVault)]),
    })) as {
      restorePreamble?: { transactionData: string; minResourceFee: string };
    };
    expectValid('simulateTransaction', sim);
    const pre = sim.restorePreamble!;
    expect(BigInt(pre.minResourceFee)).toBeGreaterThan(0n);
    const data = xdr.SorobanTransactionData.fromXDR(pre.transactionData, 'base64');
    expect(data.resources.footprint.readWrite.map((k) => k.toXDR('base64'))).toEqual([dataKey(archivedVault)]);
    expect(data.resources.footprint.readOnly).toEqual([]);
    // over a live entry: nothing to restore
    const live = (await call('simulateTransaction', { transaction: extendTx(net, [dataKey(vault)]) })) as Record<
      string,
      unknown
    >;
    expectValid('simulateTransaction', live);
    expect(live.transactionData).toBeDefined();
    expect(live.restorePreamble).toBeUndefined();
  });

  it('an invocation over archived entries restores them through its restore list, with no restorePreamble', async () => {
    const sim = (await archived.rpc('simulateTransaction', {
      transaction: ownerTx('vc_count', [], { on: archived, contract: archivedVault }),
    })) as Record<string, unknown>;
    expectValid('simulateTransaction', sim);
    expect(sim.error).toBeUndefined();
    expect(sim.restorePreamble).toBeUndefined();
    const data = xdr.SorobanTransactionData.fromXDR(sim.transactionData as string, 'base64');
    const rw = data.resources.footprint.readWrite.map((k) => k.toXDR('base64'));
    const restored = xdr
      .expectUnionVariant(data.ext, 'resourceExt')
      .resourceExt.archivedSorobanEntries.map((i) => rw[i]);
    expect(restored).toContain(dataKey(archivedVault));
  });
});
