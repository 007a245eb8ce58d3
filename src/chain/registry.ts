// DID registry 0.2.0 (docs/chain-abi.md "DID registry") as typed functions. Reads are ledger-entry reads
// (reads are free: no simulation).
import { Address, xdr } from '@stellar/stellar-sdk';
import {
  address,
  bool,
  bytes,
  field,
  fromOption,
  fromStruct,
  option,
  str,
  struct,
  sym,
  toAddress,
  toBool,
  toBytes,
  toStr,
  toU32,
  toVec,
  u32,
  vec,
} from './codec.ts';
import { remembered, type ChainCaches } from './caches.ts';
import type { DidKey, DidRecord, DidRecordInput, DidService } from '../did/types.ts';
import type { ChainClient, PreparedTransaction } from './types.ts';

export type { DidRecord, DidRecordInput } from '../did/types.ts';

/** did_id: 16 bytes. */
export type DidIdBytes = Uint8Array;

const didKey = (k: DidKey): xdr.ScVal => struct({ public_key_multibase: str(k.publicKeyMultibase) });
const didService = (s: DidService): xdr.ScVal =>
  struct({ id_suffix: str(s.idSuffix), service_type: str(s.serviceType), service_endpoint: str(s.serviceEndpoint) });

/**
 * DidRecord struct. register/update send the whole record; the registry overwrites the bookkeeping
 * fields, so an input without them is sent with zeros and `deactivated: false`.
 */
export function encodeDidRecord(
  r: DidRecordInput & Partial<Pick<DidRecord, 'version' | 'createdLedger' | 'updatedLedger' | 'deactivated'>>,
): xdr.ScVal {
  return struct({
    controller: address(r.controller),
    authentication: vec(r.authentication.map(didKey)),
    assertion_method: vec(r.assertionMethod.map(didKey)),
    key_agreement: vec(r.keyAgreement.map(didKey)),
    services: vec(r.services.map(didService)),
    metadata_uri: option(r.metadataUri, str),
    metadata_hash: option(r.metadataHash, (h) => bytes(hexBytes(h, 32, 'metadataHash'))),
    version: u32(r.version ?? 0),
    created_ledger: u32(r.createdLedger ?? 0),
    updated_ledger: u32(r.updatedLedger ?? 0),
    deactivated: bool(r.deactivated ?? false),
  });
}

const decodeKey = (v: xdr.ScVal): DidKey => ({
  publicKeyMultibase: toStr(field(fromStruct(v), 'public_key_multibase')),
});
function decodeService(v: xdr.ScVal): DidService {
  const s = fromStruct(v);
  return {
    idSuffix: toStr(field(s, 'id_suffix')),
    serviceType: toStr(field(s, 'service_type')),
    serviceEndpoint: toStr(field(s, 'service_endpoint')),
  };
}

/** DidRecord struct → typed record (metadataHash as lowercase hex). Throws CodecError on another shape. */
export function decodeDidRecord(v: xdr.ScVal): DidRecord {
  const s = fromStruct(v);
  const metadataUri = fromOption(s['metadata_uri'] ?? xdr.ScVal.scvVoid(), toStr);
  const metadataHash = fromOption(s['metadata_hash'] ?? xdr.ScVal.scvVoid(), (h) => toBytes(h).toString('hex'));
  return {
    controller: toAddress(field(s, 'controller')),
    authentication: toVec(field(s, 'authentication')).map(decodeKey),
    assertionMethod: toVec(field(s, 'assertion_method')).map(decodeKey),
    keyAgreement: toVec(field(s, 'key_agreement')).map(decodeKey),
    services: toVec(field(s, 'services')).map(decodeService),
    ...(metadataUri !== undefined ? { metadataUri } : {}),
    ...(metadataHash !== undefined ? { metadataHash } : {}),
    version: toU32(field(s, 'version')),
    createdLedger: toU32(field(s, 'created_ledger')),
    updatedLedger: toU32(field(s, 'updated_ledger')),
    deactivated: toBool(field(s, 'deactivated')),
  };
}

/** The input part of a record (what register/update carry). */
export function decodeDidRecordInput(v: xdr.ScVal): DidRecordInput {
  const { version: _v, createdLedger: _c, updatedLedger: _u, deactivated: _d, ...input } = decodeDidRecord(v);
  return input;
}

/** Persistent storage key of a record: `ScVec[Symbol("Record"), Bytes(did_id)]`. */
export function recordKey(didId: DidIdBytes): xdr.ScVal {
  return vec([sym('Record'), bytes(didIdBytes(didId))]);
}

/**
 * The LedgerKey of a record, through the chain's cache when given: the SDK re-validates the registry's StrKey on
 * every Address, and a prepare for an issuer DID reads the same record again and again. A cached key is shared:
 * do not mutate it.
 */
export function recordLedgerKey(
  registryId: string,
  didId: DidIdBytes,
  cache?: ChainCaches['recordKeys'],
): xdr.LedgerKey {
  return remembered(cache, `${registryId}:${Buffer.from(didId).toString('hex')}`, () =>
    xdr.LedgerKey.contractData(
      new xdr.LedgerKeyContractData({
        contract: new Address(registryId).toScAddress(),
        key: recordKey(didId),
        durability: xdr.ContractDataDurability.persistent,
      }),
    ),
  );
}

export interface RegistryEntry {
  record: DidRecord;
  /** Ledger of the entry's last change. */
  lastModifiedLedgerSeq?: number;
}

export interface RegistryApi {
  readonly registryId: string;
  register(o: { source: string; didId: DidIdBytes; record: DidRecordInput }): Promise<PreparedTransaction>;
  update(o: {
    source: string;
    didId: DidIdBytes;
    expectedVersion: number;
    record: DidRecordInput;
  }): Promise<PreparedTransaction>;
  transferController(o: {
    source: string;
    didId: DidIdBytes;
    expectedVersion: number;
    newController: string;
  }): Promise<PreparedTransaction>;
  deactivate(o: { source: string; didId: DidIdBytes; expectedVersion: number }): Promise<PreparedTransaction>;
  /** The record, or undefined when not registered. */
  get(didId: DidIdBytes): Promise<RegistryEntry | undefined>;
}

export function createRegistryApi(
  client: ChainClient,
  { registryId, recordKeys }: { registryId: string; recordKeys?: ChainCaches['recordKeys'] },
): RegistryApi {
  const prepare = (source: string, fn: string, args: xdr.ScVal[]) =>
    client.prepare({ source, contractId: registryId, fn, args, contract: 'registry' });
  const id = (d: DidIdBytes) => bytes(didIdBytes(d));
  return {
    registryId,
    register: ({ source, didId, record }) => prepare(source, 'register', [id(didId), encodeDidRecord(record)]),
    update: ({ source, didId, expectedVersion, record }) =>
      prepare(source, 'update', [id(didId), u32(expectedVersion), encodeDidRecord(record)]),
    transferController: ({ source, didId, expectedVersion, newController }) =>
      prepare(source, 'transfer_controller', [id(didId), u32(expectedVersion), address(newController)]),
    deactivate: ({ source, didId, expectedVersion }) =>
      prepare(source, 'deactivate', [id(didId), u32(expectedVersion)]),
    async get(didId) {
      // Within the read cache's bound (a registration, update or deactivation elsewhere shows within readCacheMs).
      const res = await client.getLedgerEntries([recordLedgerKey(registryId, didId, recordKeys)], { cached: true });
      const entry = res.entries[0];
      if (!entry) return undefined;
      if (entry.val.type !== 'contractData') return undefined;
      const record = decodedRecord(entry, entry.val.contractData.val);
      return {
        record,
        ...(entry.lastModifiedLedgerSeq !== undefined ? { lastModifiedLedgerSeq: entry.lastModifiedLedgerSeq } : {}),
      };
    },
  };
}

/**
 * The record of a ledger entry, decoded once per entry object: a cached read (readCacheMs) answers the same entry
 * object to every request until it expires, and decoding its XDR was a twentieth of a verification's CPU. Keyed by
 * the entry object, not by content, so a fresh read is decoded anew; frozen, since every reader shares it.
 */
const decodedRecords = new WeakMap<object, DidRecord>();
function decodedRecord(entry: object, val: xdr.ScVal): DidRecord {
  let record = decodedRecords.get(entry);
  if (record === undefined) {
    record = freezeRecord(decodeDidRecord(val));
    decodedRecords.set(entry, record);
  }
  return record;
}

function freezeRecord(r: DidRecord): DidRecord {
  for (const list of [r.authentication, r.assertionMethod, r.keyAgreement, r.services]) {
    for (const item of list) Object.freeze(item);
    Object.freeze(list);
  }
  return Object.freeze(r);
}

function didIdBytes(d: DidIdBytes): Buffer {
  if (d.length !== 16) throw new TypeError('didId must be 16 bytes');
  return Buffer.from(d);
}

function hexBytes(h: string, n: number, name: string): Buffer {
  if (!new RegExp(`^[0-9a-fA-F]{${n * 2}}$`).test(h)) throw new TypeError(`${name} must be ${n * 2} hex characters`);
  return Buffer.from(h, 'hex');
}
