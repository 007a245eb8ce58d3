import { beforeEach, describe, expect, it } from 'vitest';
import { scValToNative, xdr } from '@stellar/stellar-sdk';
import {
  address,
  bool,
  bytes,
  field,
  fromStruct,
  option,
  str,
  struct,
  sym,
  toStr,
  toVec,
  u32,
  unit,
  vec,
} from '../../src/chain/codec.ts';
import { RegistryError as E } from './errors.ts';
import { registry } from './registry.ts';
import { TestHost, account, errorOf, eventsNamed } from './test-host.ts';

const admin = account(1);
const controller = account(2);
const next = account(3);
const stranger = account(4);
const DID = Buffer.alloc(16, 7);
const ED = (n: number) => `z6Mk${'a'.repeat(40)}${n}`;
const X = (n: number) => `z6LS${'b'.repeat(40)}${n}`;

interface Input {
  controller?: string;
  authentication?: string[];
  assertion_method?: string[];
  key_agreement?: string[];
  services?: { id_suffix: string; service_type: string; service_endpoint: string }[];
  metadata_uri?: string;
  metadata_hash?: Buffer;
  version?: number;
  created_ledger?: number;
  updated_ledger?: number;
  deactivated?: boolean;
}
const keys = (ks: string[]) => vec(ks.map((k) => struct({ public_key_multibase: str(k) })));
function record(r: Input = {}): xdr.ScVal {
  return struct({
    controller: address(r.controller ?? controller),
    authentication: keys(r.authentication ?? [ED(1)]),
    assertion_method: keys(r.assertion_method ?? [ED(2)]),
    key_agreement: keys(r.key_agreement ?? [X(1)]),
    services: vec(
      (r.services ?? []).map((s) =>
        struct({
          id_suffix: str(s.id_suffix),
          service_type: str(s.service_type),
          service_endpoint: str(s.service_endpoint),
        }),
      ),
    ),
    metadata_uri: option(r.metadata_uri, str),
    metadata_hash: option(r.metadata_hash, bytes),
    version: u32(r.version ?? 0),
    created_ledger: u32(r.created_ledger ?? 0),
    updated_ledger: u32(r.updated_ledger ?? 0),
    deactivated: bool(r.deactivated ?? false),
  });
}
const svc = (id_suffix = 'hub', service_type = 'LinkedDomains', service_endpoint = 'https://example.org') => ({
  id_suffix,
  service_type,
  service_endpoint,
});

let host: TestHost;
let reg: string;
const call = (fn: string, args: xdr.ScVal[], auth: string[] = [controller]) => host.invoke(reg, fn, args, auth);
const get = (did = DID) => scValToNative(call('get', [bytes(did)], [])) as Record<string, unknown> | null;
const register = (r: Input = {}, did = DID) => call('register', [bytes(did), record(r)], [r.controller ?? controller]);

beforeEach(() => {
  host = new TestHost();
  reg = host.register(registry, [address(admin)]);
});

describe('register', () => {
  it("stores the record under Record(did_id) with the registry's bookkeeping, whatever was sent", () => {
    register({
      version: 99,
      created_ledger: 5,
      updated_ledger: 6,
      deactivated: true,
      metadata_uri: 'https://m.example',
      metadata_hash: Buffer.alloc(32, 9),
    });
    expect(get()).toEqual({
      controller,
      authentication: [{ public_key_multibase: ED(1) }],
      assertion_method: [{ public_key_multibase: ED(2) }],
      key_agreement: [{ public_key_multibase: X(1) }],
      services: [],
      metadata_uri: 'https://m.example',
      metadata_hash: new Uint8Array(32).fill(9),
      version: 1,
      created_ledger: host.ledgerSequence,
      updated_ledger: host.ledgerSequence,
      deactivated: false,
    });
    expect(eventsNamed(host, 'did_registered')).toEqual([
      { contractId: reg, data: { did_id: new Uint8Array(DID), controller, version: 1 } },
    ]);
  });

  it('uses exactly the key ScVec[Symbol("Record"), Bytes(did_id)] in persistent storage, as a sorted ScMap', () => {
    register({ services: [svc()] });
    const stored = host.storage(reg).get(vec([sym('Record'), bytes(DID)]), 'persistent');
    expect(stored?.toXdr('base64')).toBe(call('get', [bytes(DID)], []).toXdr('base64'));
    expect(Object.keys(fromStruct(stored!))).toEqual([
      'assertion_method',
      'authentication',
      'controller',
      'created_ledger',
      'deactivated',
      'key_agreement',
      'metadata_hash',
      'metadata_uri',
      'services',
      'updated_ledger',
      'version',
    ]);
    const service = toVec(field(fromStruct(stored!), 'services'))[0]!;
    expect(Object.keys(fromStruct(service))).toEqual(['id_suffix', 'service_endpoint', 'service_type']);
    expect(field(fromStruct(stored!), 'metadata_uri').type).toBe('scvVoid');
  });

  it('twice → #1 DidAlreadyExists', () => {
    register();
    expect(errorOf(() => register())).toMatchObject({ code: E.DidAlreadyExists });
  });
  it("needs record.controller's signature", () => {
    expect(errorOf(() => call('register', [bytes(DID), record()], [stranger]))).toMatchObject({ kind: 'Auth' });
  });
  it('get of an unknown DID → None', () => {
    expect(get()).toBeNull();
  });
  it.each([
    { name: 'did_id of 15 bytes', args: () => [bytes(Buffer.alloc(15)), record()] },
    { name: 'record without a field', args: () => [bytes(DID), struct({ controller: address(controller) })] },
    {
      name: 'String where Address expected',
      args: () => [bytes(DID), struct({ ...fromStruct(record()), controller: str(controller) })],
    },
  ])('host Value error: $name', ({ args }) => {
    expect(errorOf(() => call('register', args()))).toMatchObject({ kind: 'Value' });
  });
});

describe('validation rules (register and update)', () => {
  const long = (n: number) => 'a'.repeat(n);
  const cases: { name: string; r: Input; want?: number }[] = [
    { name: 'no authentication key', r: { authentication: [] }, want: E.InvalidAuthKeyCount },
    { name: '3 authentication keys', r: { authentication: [ED(1), ED(2), ED(3)] } },
    { name: '4 authentication keys', r: { authentication: [ED(1), ED(2), ED(3), ED(4)] }, want: E.InvalidAuthKeyCount },
    { name: 'no assertion key', r: { assertion_method: [] } },
    {
      name: '4 assertion keys',
      r: { assertion_method: [ED(1), ED(2), ED(3), ED(4)] },
      want: E.InvalidAssertionKeyCount,
    },
    { name: 'no key agreement', r: { key_agreement: [] } },
    { name: '2 key agreement keys', r: { key_agreement: [X(1), X(2)] }, want: E.InvalidKeyAgreementCount },
    { name: '3 services', r: { services: [svc('a'), svc('b'), svc('c')] } },
    { name: '4 services', r: { services: [svc('a'), svc('b'), svc('c'), svc('d')] }, want: E.InvalidServiceCount },
    { name: 'duplicate authentication key', r: { authentication: [ED(1), ED(1)] }, want: E.DuplicateKey },
    { name: 'duplicate assertion key', r: { assertion_method: [ED(2), ED(3), ED(2)] }, want: E.DuplicateKey },
    { name: 'one key in two relationships', r: { authentication: [ED(1)], assertion_method: [ED(1)] } },
    { name: 'key of 128', r: { authentication: [long(128)] } },
    { name: 'key of 129', r: { authentication: [long(129)] }, want: E.KeyTooLong },
    { name: 'key agreement key of 129', r: { key_agreement: [long(129)] }, want: E.KeyTooLong },
    { name: 'empty key', r: { assertion_method: [''] }, want: E.KeyEmpty },
    { name: 'service_type of 64', r: { services: [svc('a', long(64))] } },
    { name: 'service_type of 65', r: { services: [svc('a', long(65))] }, want: E.ServiceTypeTooLong },
    { name: 'empty service_type', r: { services: [svc('a', '')] }, want: E.ServiceTypeEmpty },
    { name: 'id_suffix of 32', r: { services: [svc(long(32))] } },
    { name: 'id_suffix of 33', r: { services: [svc(long(33))] }, want: E.ServiceIdTooLong },
    ...['0', 'a-b', 'a--9', 'x1y2'].map((id) => ({ name: `id_suffix "${id}"`, r: { services: [svc(id)] } })),
    ...['', 'A', '-a', 'a-', 'a_b', 'a.b', 'é'].map((id) => ({
      name: `id_suffix "${id}"`,
      r: { services: [svc(id)] },
      want: E.ServiceIdInvalidFormat,
    })),
    { name: 'endpoint https, 255', r: { services: [svc('a', 't', `https://${long(247)}`)] } },
    ...['http://example.org', 'https://', 'ftp://x', 'HTTPS://x', `https://${long(248)}`].map((ep) => ({
      name: `endpoint "${ep.slice(0, 20)}" (${ep.length})`,
      r: { services: [svc('a', 't', ep)] },
      want: E.ServiceEndpointInvalid,
    })),
    { name: 'duplicate service id', r: { services: [svc('a'), svc('b'), svc('a')] }, want: E.DuplicateServiceId },
    { name: 'metadata_uri https, 255', r: { metadata_uri: `https://${long(247)}` } },
    { name: 'metadata_uri http', r: { metadata_uri: 'http://m.example' }, want: E.MetadataUriInvalid },
    { name: 'metadata_uri of 256', r: { metadata_uri: `https://${long(248)}` }, want: E.MetadataUriInvalid },
    { name: 'metadata_hash with metadata_uri', r: { metadata_uri: 'https://m', metadata_hash: Buffer.alloc(32) } },
    {
      name: 'metadata_hash without metadata_uri',
      r: { metadata_hash: Buffer.alloc(32) },
      want: E.MetadataInconsistent,
    },
  ];
  describe.each(cases)('$name', ({ r, want }) => {
    const expected = want === undefined ? undefined : expect.objectContaining({ code: want });
    it(want ? `register → #${want}` : 'register accepts it', () => {
      expect(errorOf(() => register(r))).toEqual(expected);
    });
    it(want ? `update → #${want}` : 'update accepts it', () => {
      register();
      expect(errorOf(() => call('update', [bytes(DID), u32(1), record(r)]))).toEqual(expected);
    });
  });
});

describe('update', () => {
  beforeEach(() => register({ services: [svc()] }));
  it('replaces the whole record, keeps the controller and created_ledger, bumps the version', () => {
    host.ledgerSequence += 10;
    call('update', [
      bytes(DID),
      u32(1),
      record({
        controller: stranger,
        authentication: [ED(9)],
        assertion_method: [],
        key_agreement: [],
        version: 50,
        deactivated: true,
      }),
    ]);
    expect(get()).toMatchObject({
      controller, // "controller cannot change here": the field of next_record is ignored
      authentication: [{ public_key_multibase: ED(9) }],
      assertion_method: [],
      key_agreement: [],
      services: [],
      version: 2,
      created_ledger: host.ledgerSequence - 10,
      updated_ledger: host.ledgerSequence,
      deactivated: false,
    });
    expect(eventsNamed(host, 'did_updated')).toEqual([
      { contractId: reg, data: { did_id: new Uint8Array(DID), version: 2 } },
    ]);
  });
  it.each([
    {
      name: 'unknown DID → #2',
      args: () => [bytes(Buffer.alloc(16, 1)), u32(1), record()],
      want: { code: E.DidNotFound },
    },
    { name: 'stale version → #3', args: () => [bytes(DID), u32(2), record()], want: { code: E.VersionMismatch } },
    { name: 'version 0 → #3', args: () => [bytes(DID), u32(0), record()], want: { code: E.VersionMismatch } },
  ])('$name', ({ args, want }) => {
    expect(errorOf(() => call('update', args()))).toMatchObject(want);
  });
  it('needs the current controller, not the one in next_record', () => {
    expect(
      errorOf(() => call('update', [bytes(DID), u32(1), record({ controller: stranger })], [stranger])),
    ).toMatchObject({ kind: 'Auth' });
  });
  it('version u32::MAX → #19 VersionOverflow', () => {
    const key = vec([sym('Record'), bytes(DID)]);
    const stored = host.storage(reg).get(key)!;
    host
      .storage(reg)
      .set(
        key,
        xdr.ScVal.scvMap(
          xdr
            .expectUnionVariant(stored, 'scvMap')
            .map!.map((e) =>
              toStr(e.key) === 'version' ? new xdr.ScMapEntry({ key: e.key, val: u32(0xffffffff) }) : e,
            ),
        ),
      );
    for (const [fn, args] of [
      ['update', [bytes(DID), u32(0xffffffff), record()]],
      ['transfer_controller', [bytes(DID), u32(0xffffffff), address(next)]],
      ['deactivate', [bytes(DID), u32(0xffffffff)]],
    ] as const) {
      expect(errorOf(() => call(fn, [...args]))).toMatchObject({ code: E.VersionOverflow });
    }
  });
});

describe('transfer_controller', () => {
  beforeEach(() => register({ services: [svc()] }));
  it('rotates the controller, keeps keys and services, bumps the version, emits', () => {
    const before = get()!;
    call('transfer_controller', [bytes(DID), u32(1), address(next)]);
    expect(get()).toEqual({ ...before, controller: next, version: 2 });
    expect(eventsNamed(host, 'did_controller_transferred')).toEqual([
      {
        contractId: reg,
        data: { did_id: new Uint8Array(DID), old_controller: controller, new_controller: next, version: 2 },
      },
    ]);
    // Only the new controller can mutate from now on.
    expect(errorOf(() => call('update', [bytes(DID), u32(2), record()], [controller]))).toMatchObject({ kind: 'Auth' });
    expect(errorOf(() => call('update', [bytes(DID), u32(2), record()], [next]))).toBeUndefined();
    expect(get()).toMatchObject({ controller: next, version: 3 });
  });
  it.each([
    { name: 'unknown DID → #2', did: Buffer.alloc(16, 1), version: 1, want: { code: E.DidNotFound } },
    { name: 'stale version → #3', did: DID, version: 5, want: { code: E.VersionMismatch } },
  ])('$name', ({ did, version, want }) => {
    expect(errorOf(() => call('transfer_controller', [bytes(did), u32(version), address(next)]))).toMatchObject(want);
  });
  it('needs the current controller (the new one does not sign)', () => {
    expect(errorOf(() => call('transfer_controller', [bytes(DID), u32(1), address(next)], [next]))).toMatchObject({
      kind: 'Auth',
    });
  });
});

describe('deactivate', () => {
  beforeEach(() => register({ services: [svc()], metadata_uri: 'https://m' }));
  it('is a tombstone: arrays emptied, deactivated, version + 1, event', () => {
    host.ledgerSequence += 3;
    call('deactivate', [bytes(DID), u32(1)]);
    expect(get()).toMatchObject({
      controller,
      authentication: [],
      assertion_method: [],
      key_agreement: [],
      services: [],
      metadata_uri: 'https://m',
      deactivated: true,
      version: 2,
      updated_ledger: host.ledgerSequence,
    });
    expect(eventsNamed(host, 'did_deactivated')).toEqual([
      { contractId: reg, data: { did_id: new Uint8Array(DID), version: 2 } },
    ]);
  });
  it.each([
    { fn: 'update', args: [bytes(DID), u32(2), record()] },
    { fn: 'transfer_controller', args: [bytes(DID), u32(2), address(next)] },
    { fn: 'deactivate', args: [bytes(DID), u32(2)] },
  ])('is irreversible: $fn afterwards → #4', ({ fn, args }) => {
    call('deactivate', [bytes(DID), u32(1)]);
    expect(errorOf(() => call(fn, args))).toMatchObject({ code: E.DidDeactivated });
  });
  it.each([
    { name: 'unknown DID → #2', did: Buffer.alloc(16, 1), version: 1, want: { code: E.DidNotFound } },
    { name: 'stale version → #3', did: DID, version: 2, want: { code: E.VersionMismatch } },
  ])('$name', ({ did, version, want }) => {
    expect(errorOf(() => call('deactivate', [bytes(did), u32(version)]))).toMatchObject(want);
  });
  it('needs the current controller', () => {
    expect(errorOf(() => call('deactivate', [bytes(DID), u32(1)], [stranger]))).toMatchObject({ kind: 'Auth' });
  });
  // #17 NoProposedAdmin belongs to an admin transfer that 0.2.0's listed surface does not have.
});

describe('surface', () => {
  it.each(['version', 'set_admin', 'upgrade'])('%s does not exist', (fn) => {
    expect(errorOf(() => call(fn, [], [admin]))).toMatchObject({ kind: 'Context' });
  });
  it('get needs no signature and returns void for None', () => {
    expect(call('get', [bytes(DID)], []).type).toBe('scvVoid');
    expect(unit().type).toBe('scvVoid');
  });
});
