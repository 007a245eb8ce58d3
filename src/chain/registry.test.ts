import { describe, expect, it } from 'vitest';
import { Address, Keypair, StrKey, xdr } from '@stellar/stellar-sdk';
import { fromStruct, sym, vec } from './codec.ts';
import { createRegistryApi, decodeDidRecord, encodeDidRecord, recordKey, recordLedgerKey } from './registry.ts';
import type { ChainClient } from './types.ts';
import type { DidRecord } from '../did/types.ts';

const G = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 1)).publicKey();
const C = StrKey.encodeContract(Buffer.alloc(32, 2));

describe('DidRecord codec', () => {
  const full: DidRecord = {
    controller: G,
    authentication: [{ publicKeyMultibase: 'z6MkA' }],
    assertionMethod: [{ publicKeyMultibase: 'z6MkB' }, { publicKeyMultibase: 'z6MkC' }],
    keyAgreement: [{ publicKeyMultibase: 'z6LSD' }],
    services: [{ idSuffix: 's-1', serviceType: 'T', serviceEndpoint: 'https://e.org' }],
    metadataUri: 'https://e.org/m',
    metadataHash: '0f'.repeat(32),
    version: 3,
    createdLedger: 10,
    updatedLedger: 20,
    deactivated: false,
  };
  it('round-trips a full record', () => expect(decodeDidRecord(encodeDidRecord(full))).toEqual(full));
  it('encodes snake_case keys, sorted, options as void', () => {
    const { metadataUri: _u, metadataHash: _h, ...bare } = full;
    const v = encodeDidRecord(bare);
    expect(Object.keys(fromStruct(v))).toEqual([
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
    expect(decodeDidRecord(v)).toEqual(bare);
  });
  it('refuses a metadataHash that is not 32 bytes of hex', () => {
    expect(() => encodeDidRecord({ ...full, metadataHash: 'abc' })).toThrow(/metadataHash/);
  });
  it('storage key is ScVec[Symbol("Record"), Bytes(did_id)], persistent', () => {
    const id = Buffer.alloc(16, 9);
    expect(recordKey(id).toXdr('base64')).toBe(vec([sym('Record'), xdr.ScVal.scvBytes(id)]).toXdr('base64'));
    const k = xdr.expectUnionVariant(recordLedgerKey(C, id), 'contractData').contractData;
    expect(Address.fromScAddress(k.contract).toString()).toBe(C);
    expect(k.durability).toBe(xdr.ContractDataDurability.persistent);
  });
});

describe('registry.get', () => {
  const record: DidRecord = {
    controller: G,
    authentication: [{ publicKeyMultibase: 'z6MkA' }],
    assertionMethod: [{ publicKeyMultibase: 'z6MkB' }],
    keyAgreement: [],
    services: [],
    version: 1,
    createdLedger: 5,
    updatedLedger: 5,
    deactivated: false,
  };
  const entryOf = (r: DidRecord) => ({ val: { type: 'contractData', contractData: { val: encodeDidRecord(r) } } });
  const registryAnswering = (answers: unknown[]) => {
    let i = 0;
    const client = {
      getLedgerEntries: async () => ({ entries: [answers[Math.min(i++, answers.length - 1)]] }),
    } as unknown as ChainClient;
    return createRegistryApi(client, { registryId: C });
  };

  it('decodes a cached entry once and shares the record, frozen', async () => {
    const entry = entryOf(record);
    const registry = registryAnswering([entry, entry]);
    const a = (await registry.get(Buffer.alloc(16, 1)))!.record;
    const b = (await registry.get(Buffer.alloc(16, 1)))!.record;
    expect(a).toEqual(record);
    expect(b).toBe(a);
    expect([a, a.assertionMethod, a.assertionMethod[0]].every((o) => Object.isFrozen(o))).toBe(true);
  });

  it('decodes a fresh entry anew, whatever its content', async () => {
    const updated = { ...record, version: 2, assertionMethod: [{ publicKeyMultibase: 'z6MkZ' }] };
    const registry = registryAnswering([entryOf(record), entryOf(updated)]);
    expect((await registry.get(Buffer.alloc(16, 1)))!.record).toEqual(record);
    expect((await registry.get(Buffer.alloc(16, 1)))!.record).toEqual(updated);
  });
});
