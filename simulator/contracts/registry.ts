// DID registry 0.2.0 as in docs/chain-abi.md ("DID registry") and the did:ledger rules of
// docs/did-resolver.md "Record rules": a plain store of DidRecords with optimistic versioning.
//
// Storage. instance: Admin (kept; 0.2.0 has no admin function);
// persistent: Record(did_id: Bytes) → DidRecord — the exact key the resolver reads with getLedgerEntries.
import { xdr } from '@stellar/stellar-sdk';
import type { ContractContext } from '../host.ts';
import { bool, bytes, option, struct, sym, u32, unit, vec } from '../core/scval.ts';
import { RegistryError, failWith } from './errors.ts';
import { arg, defineContract } from './support.ts';

const fail = failWith(RegistryError);
const U32_MAX = 0xffffffff;
const RECORD_FIELDS = [
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
] as const;
const SERVICE_FIELDS = ['id_suffix', 'service_endpoint', 'service_type'] as const;
const ID_SUFFIX = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;

/** A decoded DidRecord; strings stay ScVals so that stored bytes are exactly the caller's. */
interface DidRecord {
  controller: xdr.ScVal;
  authentication: xdr.ScVal[]; // DidKey.public_key_multibase values
  assertion_method: xdr.ScVal[];
  key_agreement: xdr.ScVal[];
  services: { id_suffix: xdr.ScVal; service_type: xdr.ScVal; service_endpoint: xdr.ScVal }[];
  metadata_uri?: xdr.ScVal;
  metadata_hash?: xdr.ScVal;
  version: number;
  created_ledger: number;
  updated_ledger: number;
  deactivated: boolean;
}

/** The record's storage key, `Record(did_id)` (docs/chain-abi.md, the registry's storage); did_id must be BytesN<16>. */
const keyOf = (didId: xdr.ScVal): xdr.ScVal => vec([sym('Record'), bytes(arg.bytesN(didId, 16))]);
const text = (v: xdr.ScVal): Buffer => (v.type === 'scvString' ? Buffer.from(v.str.bytes) : Buffer.from(arg.string(v)));
const isHttpsUrl = (v: xdr.ScVal): boolean => {
  const b = text(v);
  return b.length > 'https://'.length && b.length <= 255 && b.subarray(0, 8).toString() === 'https://';
};

function decodeKeys(v: xdr.ScVal): xdr.ScVal[] {
  return arg.vec(v).map((k) => {
    const key = arg.struct(k, ['public_key_multibase']).public_key_multibase!;
    arg.stringBytes(key);
    return key;
  });
}

function decodeRecord(v: xdr.ScVal): DidRecord {
  const f = arg.struct(v, RECORD_FIELDS);
  const optString = (x: xdr.ScVal) => arg.option(x, (s) => (arg.stringBytes(s), s));
  return {
    controller: (arg.address(f.controller!), f.controller!),
    authentication: decodeKeys(f.authentication!),
    assertion_method: decodeKeys(f.assertion_method!),
    key_agreement: decodeKeys(f.key_agreement!),
    services: arg.vec(f.services!).map((s) => {
      const x = arg.struct(s, SERVICE_FIELDS);
      for (const name of SERVICE_FIELDS) arg.stringBytes(x[name]!);
      return { id_suffix: x.id_suffix!, service_type: x.service_type!, service_endpoint: x.service_endpoint! };
    }),
    metadata_uri: optString(f.metadata_uri!),
    metadata_hash: arg.option(f.metadata_hash!, (h) => (arg.bytesN(h, 32), h)),
    version: arg.u32(f.version!),
    created_ledger: arg.u32(f.created_ledger!),
    updated_ledger: arg.u32(f.updated_ledger!),
    deactivated: arg.bool(f.deactivated!),
  };
}

function encodeRecord(r: DidRecord): xdr.ScVal {
  const keys = (ks: xdr.ScVal[]) => vec(ks.map((k) => struct({ public_key_multibase: k })));
  return struct({
    controller: r.controller,
    authentication: keys(r.authentication),
    assertion_method: keys(r.assertion_method),
    key_agreement: keys(r.key_agreement),
    services: vec(r.services.map((s) => struct(s))),
    metadata_uri: option(r.metadata_uri, (x) => x),
    metadata_hash: option(r.metadata_hash, (x) => x),
    version: u32(r.version),
    created_ledger: u32(r.created_ledger),
    updated_ledger: u32(r.updated_ledger),
    deactivated: bool(r.deactivated),
  });
}

/** Every rule on the caller-supplied part of a record (counts first, then keys, services, metadata). */
function validate(r: DidRecord): void {
  if (r.authentication.length < 1 || r.authentication.length > 3) fail('InvalidAuthKeyCount');
  if (r.assertion_method.length > 3) fail('InvalidAssertionKeyCount');
  if (r.key_agreement.length > 1) fail('InvalidKeyAgreementCount');
  if (r.services.length > 3) fail('InvalidServiceCount');
  for (const relationship of [r.authentication, r.assertion_method, r.key_agreement]) {
    const seen = new Set<string>();
    for (const key of relationship) {
      const b = text(key);
      if (b.length === 0) fail('KeyEmpty');
      if (b.length > 128) fail('KeyTooLong');
      if (seen.has(b.toString('hex'))) fail('DuplicateKey');
      seen.add(b.toString('hex'));
    }
  }
  const ids = new Set<string>();
  for (const s of r.services) {
    const id = text(s.id_suffix);
    if (id.length > 32) fail('ServiceIdTooLong');
    if (!ID_SUFFIX.test(id.toString('latin1'))) fail('ServiceIdInvalidFormat');
    const type = text(s.service_type);
    if (type.length === 0) fail('ServiceTypeEmpty');
    if (type.length > 64) fail('ServiceTypeTooLong');
    if (!isHttpsUrl(s.service_endpoint)) fail('ServiceEndpointInvalid');
    if (ids.has(id.toString())) fail('DuplicateServiceId');
    ids.add(id.toString());
  }
  if (r.metadata_uri && !isHttpsUrl(r.metadata_uri)) fail('MetadataUriInvalid');
  if (r.metadata_hash && !r.metadata_uri) fail('MetadataInconsistent');
}

/** The stored record of a mutation: exists (#2), current controller signs, active (#4), version (#3, #19). */
function loadForMutation(ctx: ContractContext, didId: xdr.ScVal, expectedVersion: xdr.ScVal): DidRecord {
  const key = keyOf(didId);
  const expected = arg.u32(expectedVersion);
  const stored = ctx.storage.get(key);
  if (!stored) return fail('DidNotFound');
  const current = decodeRecord(stored);
  ctx.requireAuth(arg.address(current.controller));
  if (current.deactivated) fail('DidDeactivated');
  if (current.version !== expected) fail('VersionMismatch');
  if (current.version === U32_MAX) fail('VersionOverflow');
  return current;
}

function save(ctx: ContractContext, didId: xdr.ScVal, r: DidRecord): void {
  ctx.storage.set(keyOf(didId), encodeRecord(r));
}

export const registry = defineContract(
  'did-registry 0.2.0',
  {
    register: [
      2,
      (ctx, [didId, initial]) => {
        const key = keyOf(didId!);
        const r = decodeRecord(initial!);
        ctx.requireAuth(arg.address(r.controller));
        if (ctx.storage.has(key)) fail('DidAlreadyExists');
        validate(r);
        // Bookkeeping fields are the registry's, whatever the caller sent.
        save(ctx, didId!, {
          ...r,
          version: 1,
          created_ledger: ctx.ledgerSequence,
          updated_ledger: ctx.ledgerSequence,
          deactivated: false,
        });
        ctx.emit([sym('did_registered')], struct({ did_id: didId!, controller: r.controller, version: u32(1) }));
        return unit();
      },
    ],
    update: [
      3,
      (ctx, [didId, expectedVersion, next]) => {
        const current = loadForMutation(ctx, didId!, expectedVersion!);
        const r = decodeRecord(next!);
        validate(r);
        // "controller cannot change here": next_record.controller is ignored; transfer_controller changes it.
        const version = current.version + 1;
        save(ctx, didId!, {
          ...r,
          controller: current.controller,
          version,
          created_ledger: current.created_ledger,
          updated_ledger: ctx.ledgerSequence,
          deactivated: false,
        });
        ctx.emit([sym('did_updated')], struct({ did_id: didId!, version: u32(version) }));
        return unit();
      },
    ],
    transfer_controller: [
      3,
      (ctx, [didId, expectedVersion, newController]) => {
        const current = loadForMutation(ctx, didId!, expectedVersion!);
        arg.address(newController!);
        const version = current.version + 1;
        save(ctx, didId!, { ...current, controller: newController!, version, updated_ledger: ctx.ledgerSequence });
        ctx.emit(
          [sym('did_controller_transferred')],
          struct({
            did_id: didId!,
            old_controller: current.controller,
            new_controller: newController!,
            version: u32(version),
          }),
        );
        return unit();
      },
    ],
    deactivate: [
      2,
      (ctx, [didId, expectedVersion]) => {
        const current = loadForMutation(ctx, didId!, expectedVersion!);
        const version = current.version + 1;
        save(ctx, didId!, {
          ...current,
          authentication: [],
          assertion_method: [],
          key_agreement: [],
          services: [],
          version,
          updated_ledger: ctx.ledgerSequence,
          deactivated: true,
        });
        ctx.emit([sym('did_deactivated')], struct({ did_id: didId!, version: u32(version) }));
        return unit();
      },
    ],
    get: [
      1,
      (ctx, [didId]) => {
        return ctx.storage.get(keyOf(didId!)) ?? unit();
      },
    ],
  },
  [
    1,
    (ctx, [admin]) => {
      arg.address(admin!);
      ctx.storage.set(vec([sym('Admin')]), admin!, 'instance');
    },
  ],
);
