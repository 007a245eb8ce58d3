// Property 6 — DID lifecycle on the registry (docs/chain-abi.md "DID registry", spec/did-resolver.yaml
// registry operations): register → version 1; every mutation adds exactly 1; a stale expected_version always fails #3;
// update replaces the whole record but never the controller; transfer rotates the controller (the old one can no
// longer sign); deactivated is terminal (#4 for every later mutation) and its keys and services are emptied.
import fc from 'fast-check';
import { describe, it } from 'vitest';
import type { xdr } from '@stellar/stellar-sdk';
import { address, bytes, fromOption, u32 } from '../src/chain/codec.ts';
import { decodeDidRecord, encodeDidRecord } from '../src/chain/registry.ts';
import {
  actor,
  choiceLabel,
  code,
  Coverage,
  expectEqual,
  freshChain,
  needsAuthOf,
  OK,
  perform,
  resolveSigner,
  runParams,
  SEQUENCE,
  signerChoice,
  type Actor,
  type Chain,
  type Outcome,
  type SignerChoice,
  type Transition,
} from './harness.ts';

const RegistryErr = { DidAlreadyExists: 1, DidNotFound: 2, VersionMismatch: 3, DidDeactivated: 4 } as const;

/** The caller-supplied part of a DidRecord. */
interface Doc {
  authentication: string[];
  assertionMethod: string[];
  keyAgreement: string[];
  services: { idSuffix: string; serviceType: string; serviceEndpoint: string }[];
  metadataUri?: string;
  metadataHash?: string; // hex
}
interface DidState extends Doc {
  controller: string;
  version: number;
  createdLedger: number;
  updatedLedger: number;
  deactivated: boolean;
}
interface Model {
  dids: (DidState | undefined)[];
  /** Controllers each DID had before its current one. */
  former: Set<string>[];
}
interface Real {
  chain: Chain;
}
type Cmd = fc.Command<Model, Real>;

const CONTROLLERS = [0, 1, 2].map((i) => actor(`did/controller-${i}`));
const DID_IDS = [0, 1, 2].map((i) => Buffer.alloc(16, 0x10 + i));
const chain = freshChain('testnet', CONTROLLERS);
const registry = chain.info.registryId;
const genesis = chain.net.snapshot();
const coverage = new Coverage('did lifecycle');

// The model keeps keys as plain strings; the ScVal shapes come from src/chain's own codecs.
const toKeys = (ks: string[]) => ks.map((publicKeyMultibase) => ({ publicKeyMultibase }));
const fromKeys = (ks: { publicKeyMultibase: string }[]) => ks.map((k) => k.publicKeyMultibase);

function encodeRecord(
  controller: string,
  d: Doc,
  book = { version: 0, createdLedger: 0, updatedLedger: 0, deactivated: false },
): xdr.ScVal {
  return encodeDidRecord({
    controller,
    authentication: toKeys(d.authentication),
    assertionMethod: toKeys(d.assertionMethod),
    keyAgreement: toKeys(d.keyAgreement),
    services: d.services,
    ...(d.metadataUri !== undefined ? { metadataUri: d.metadataUri } : {}),
    ...(d.metadataHash !== undefined ? { metadataHash: d.metadataHash } : {}),
    version: book.version,
    createdLedger: book.createdLedger,
    updatedLedger: book.updatedLedger,
    deactivated: book.deactivated,
  });
}

function decodeRecord(v: xdr.ScVal): DidState {
  const r = decodeDidRecord(v);
  return {
    controller: r.controller,
    authentication: fromKeys(r.authentication),
    assertionMethod: fromKeys(r.assertionMethod),
    keyAgreement: fromKeys(r.keyAgreement),
    services: r.services,
    ...(r.metadataUri !== undefined ? { metadataUri: r.metadataUri } : {}),
    ...(r.metadataHash !== undefined ? { metadataHash: r.metadataHash } : {}),
    version: r.version,
    createdLedger: r.createdLedger,
    updatedLedger: r.updatedLedger,
    deactivated: r.deactivated,
  };
}

/** The model's record in the order decodeRecord builds it (so the JSON comparison is field-for-field). */
function canonical(r: DidState): DidState {
  return decodeRecord(encodeRecord(r.controller, r, r));
}

function checkAll(m: Model, r: Real): void {
  DID_IDS.forEach((id, i) => {
    const got = fromOption(r.chain.read(registry, 'get', [bytes(id)]), decodeRecord);
    const want = m.dids[i];
    expectEqual(`get(did ${i})`, got, want && canonical(want));
  });
}

/** Rules shared by update, transfer_controller and deactivate: exists #2, active #4, version #3, then the controller. */
function mutation(m: Model, i: number, signer: string, expected: number, apply: (d: DidState) => void): Transition {
  const d = m.dids[i];
  if (!d) return { expected: code(RegistryErr.DidNotFound) };
  if (d.deactivated) return { expected: code(RegistryErr.DidDeactivated) };
  if (d.version !== expected) return { expected: code(RegistryErr.VersionMismatch) };
  if (signer !== d.controller) return { expected: needsAuthOf(d.controller) };
  return { expected: OK, apply: () => apply(d) };
}

/** Runs a mutation, takes updated_ledger of a success from the ledger it landed in, and checks every DID. */
function mutate(m: Model, r: Real, label: string, i: number, t: Transition, call: () => Outcome, who: string): void {
  if (m.former[i]!.has(who) && 'authOf' in t.expected) coverage.hit('mutation by a former controller', t.expected);
  const out = perform(coverage, label, t, call);
  const d = m.dids[i];
  if (out.ok && d) d.updatedLedger = out.ledger;
  checkAll(m, r);
}

/** The DID a mutation targets: a fixed one, or the k-th registered one (when any is). */
type DidChoice = number | { registered: number };
function resolveDid(m: Model, c: DidChoice): number {
  if (typeof c === 'number') return c;
  const known = m.dids.flatMap((d, i) => (d ? [i] : []));
  return known.length ? known[c.registered % known.length]! : c.registered % DID_IDS.length;
}
const didLabel = (c: DidChoice, used?: number): string =>
  typeof c === 'number' ? `did ${c}` : `registered#${c.registered}${used === undefined ? '' : `=did ${used}`}`;

/** expected_version: mostly the current one, sometimes stale or ahead. */
type Skew = number | 'zero';
const expectedVersion = (m: Model, i: number, skew: Skew): number =>
  skew === 'zero' ? 0 : Math.max(0, (m.dids[i]?.version ?? 1) + skew);

class Register implements Cmd {
  used?: Actor;
  readonly i: number;
  readonly controller: Actor;
  readonly submitter: SignerChoice;
  readonly doc: Doc;
  constructor(i: number, controller: Actor, submitter: SignerChoice, doc: Doc) {
    this.i = i;
    this.controller = controller;
    this.submitter = submitter;
    this.doc = doc;
  }
  check = (): boolean => true;
  run(m: Model, r: Real): void {
    const who = (this.used = resolveSigner(this.submitter, this.controller.id, CONTROLLERS));
    const t: Transition = m.dids[this.i]
      ? { expected: code(RegistryErr.DidAlreadyExists) }
      : who.id !== this.controller.id
        ? { expected: needsAuthOf(this.controller) }
        : {
            expected: OK,
            apply: () =>
              void (m.dids[this.i] = {
                ...this.doc,
                controller: this.controller.id,
                version: 1,
                createdLedger: 0,
                updatedLedger: 0,
                deactivated: false,
              }),
          };
    const out = perform(coverage, this.toString(), t, () =>
      r.chain.call(who, registry, 'register', [bytes(DID_IDS[this.i]!), encodeRecord(this.controller.id, this.doc)]),
    );
    const d = m.dids[this.i];
    if (out.ok && d) d.createdLedger = d.updatedLedger = out.ledger;
    checkAll(m, r);
  }
  toString = (): string =>
    `register(did ${this.i}, controller ${this.controller.name}, by ${choiceLabel(this.submitter, this.used)})`;
}

class Update implements Cmd {
  used?: Actor;
  version?: number;
  i?: number;
  readonly did: DidChoice;
  readonly signer: SignerChoice;
  readonly skew: Skew;
  readonly doc: Doc;
  readonly claimed: Actor;
  constructor(did: DidChoice, signer: SignerChoice, skew: Skew, doc: Doc, claimed: Actor) {
    this.did = did;
    this.signer = signer;
    this.skew = skew;
    this.doc = doc;
    this.claimed = claimed;
  }
  check = (): boolean => true;
  run(m: Model, r: Real): void {
    const i = (this.i = resolveDid(m, this.did));
    const who = (this.used = resolveSigner(this.signer, m.dids[i]?.controller ?? CONTROLLERS[0]!.id, CONTROLLERS));
    const v = (this.version = expectedVersion(m, i, this.skew));
    // next_record names `claimed` as controller: the registry must ignore it
    const t = mutation(m, i, who.id, v, (d) => {
      delete d.metadataUri; // a whole-record replacement: absent optional fields are cleared
      delete d.metadataHash;
      Object.assign(d, this.doc, { version: d.version + 1 });
    });
    mutate(
      m,
      r,
      this.toString(),
      i,
      t,
      () =>
        r.chain.call(who, registry, 'update', [bytes(DID_IDS[i]!), u32(v), encodeRecord(this.claimed.id, this.doc)]),
      who.id,
    );
  }
  toString = (): string =>
    `update(${didLabel(this.did, this.i)}, v${this.version ?? `+${this.skew}`}, by ${choiceLabel(this.signer, this.used)}, claims ${this.claimed.name})`;
}

class Transfer implements Cmd {
  used?: Actor;
  version?: number;
  i?: number;
  readonly did: DidChoice;
  readonly signer: SignerChoice;
  readonly skew: Skew;
  readonly to: Actor;
  constructor(did: DidChoice, signer: SignerChoice, skew: Skew, to: Actor) {
    this.did = did;
    this.signer = signer;
    this.skew = skew;
    this.to = to;
  }
  check = (): boolean => true;
  run(m: Model, r: Real): void {
    const i = (this.i = resolveDid(m, this.did));
    const who = (this.used = resolveSigner(this.signer, m.dids[i]?.controller ?? CONTROLLERS[0]!.id, CONTROLLERS));
    const v = (this.version = expectedVersion(m, i, this.skew));
    const t = mutation(m, i, who.id, v, (d) => {
      if (d.controller !== this.to.id) m.former[i]!.add(d.controller);
      m.former[i]!.delete(this.to.id);
      Object.assign(d, { controller: this.to.id, version: d.version + 1 });
    });
    mutate(
      m,
      r,
      this.toString(),
      i,
      t,
      () => r.chain.call(who, registry, 'transfer_controller', [bytes(DID_IDS[i]!), u32(v), address(this.to.id)]),
      who.id,
    );
  }
  toString = (): string =>
    `transfer_controller(${didLabel(this.did, this.i)}, v${this.version ?? `+${this.skew}`}, by ${choiceLabel(this.signer, this.used)}, → ${this.to.name})`;
}

class Deactivate implements Cmd {
  used?: Actor;
  version?: number;
  i?: number;
  readonly did: DidChoice;
  readonly signer: SignerChoice;
  readonly skew: Skew;
  constructor(did: DidChoice, signer: SignerChoice, skew: Skew) {
    this.did = did;
    this.signer = signer;
    this.skew = skew;
  }
  check = (): boolean => true;
  run(m: Model, r: Real): void {
    const i = (this.i = resolveDid(m, this.did));
    const who = (this.used = resolveSigner(this.signer, m.dids[i]?.controller ?? CONTROLLERS[0]!.id, CONTROLLERS));
    const v = (this.version = expectedVersion(m, i, this.skew));
    const t = mutation(m, i, who.id, v, (d) =>
      Object.assign(d, {
        authentication: [],
        assertionMethod: [],
        keyAgreement: [],
        services: [],
        deactivated: true,
        version: d.version + 1,
      }),
    );
    mutate(
      m,
      r,
      this.toString(),
      i,
      t,
      () => r.chain.call(who, registry, 'deactivate', [bytes(DID_IDS[i]!), u32(v)]),
      who.id,
    );
  }
  toString = (): string =>
    `deactivate(${didLabel(this.did, this.i)}, v${this.version ?? `+${this.skew}`}, by ${choiceLabel(this.signer, this.used)})`;
}

const BASE58 = [...'123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'];
const key = fc.string({ unit: fc.constantFrom(...BASE58), minLength: 6, maxLength: 48 }).map((s) => `z${s}`);
const service = fc.record({
  idSuffix: fc.constantFrom('hub', 'agent-1', 'x', 'linked-domain'),
  serviceType: fc.constantFrom('LinkedDomains', 'DIDCommMessaging', 'CredentialRegistry'),
  serviceEndpoint: fc.constantFrom('https://svc.test/', 'https://svc.test/a/b?c=d', 'https://agent.invalid/inbox'),
});
const doc: fc.Arbitrary<Doc> = fc
  .record({
    authentication: fc.uniqueArray(key, { minLength: 1, maxLength: 3 }),
    assertionMethod: fc.uniqueArray(key, { maxLength: 3 }),
    keyAgreement: fc.uniqueArray(key, { maxLength: 1 }),
    services: fc.uniqueArray(service, { maxLength: 3, selector: (s) => s.idSuffix }),
    metadata: fc.option(
      fc.record({
        uri: fc.constantFrom('https://meta.test/doc.json', 'https://meta.test/x'),
        hash: fc.option(fc.uint8Array({ minLength: 32, maxLength: 32 }), { nil: undefined }),
      }),
      { nil: undefined },
    ),
  })
  .map(({ metadata, ...rest }) => ({
    ...rest,
    ...(metadata
      ? {
          metadataUri: metadata.uri,
          ...(metadata.hash ? { metadataHash: Buffer.from(metadata.hash).toString('hex') } : {}),
        }
      : {}),
  }));
const didIndex = fc.integer({ min: 0, max: DID_IDS.length - 1 });
const didChoice: fc.Arbitrary<DidChoice> = fc.oneof(
  { weight: 4, arbitrary: fc.nat({ max: 5 }).map((registered) => ({ registered })) },
  { weight: 1, arbitrary: didIndex },
);
const controller = fc.constantFrom(...CONTROLLERS);
const signer = signerChoice(CONTROLLERS);
const skew: fc.Arbitrary<Skew> = fc.oneof(
  { weight: 6, arbitrary: fc.constant(0) },
  { weight: 1, arbitrary: fc.constantFrom(-2, -1, 1, 2, 1000) },
  { weight: 1, arbitrary: fc.constant('zero' as const) },
);
const commands = fc.commands(
  [
    fc.tuple(didIndex, controller, signer, doc).map(([i, c, s, d]) => new Register(i, c, s, d)),
    fc.tuple(didIndex, controller, signer, doc).map(([i, c, s, d]) => new Register(i, c, s, d)),
    fc.tuple(didChoice, signer, skew, doc, controller).map(([i, s, k, d, c]) => new Update(i, s, k, d, c)),
    fc.tuple(didChoice, signer, skew, doc, controller).map(([i, s, k, d, c]) => new Update(i, s, k, d, c)),
    fc.tuple(didChoice, signer, skew, controller).map(([i, s, k, c]) => new Transfer(i, s, k, c)),
    fc.tuple(didChoice, signer, skew).map(([i, s, k]) => new Deactivate(i, s, k)),
  ],
  SEQUENCE,
);

describe('DID lifecycle (simulator registry)', () => {
  it('versions +1 per mutation; stale expected_version #3; transfer rotates the controller; deactivated is terminal', () => {
    fc.assert(
      fc.property(commands, (cmds) => {
        const setup = () => {
          chain.reset(genesis);
          return {
            model: { dids: DID_IDS.map(() => undefined), former: DID_IDS.map(() => new Set<string>()) },
            real: { chain },
          };
        };
        fc.modelRun(setup, cmds);
      }),
      runParams('did lifecycle'),
    );
    coverage.report();
  });
});
