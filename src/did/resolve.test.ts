import { describe, expect, it } from 'vitest';
import { resolveFromRegistry } from './resolve.ts';
import type { DidRecord } from './types.ts';

const DID = 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza';
const RECORD: DidRecord = {
  controller: 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR',
  authentication: [{ publicKeyMultibase: 'z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp' }],
  assertionMethod: [{ publicKeyMultibase: 'z6MkjchhfUsD6mmvni8mCdXHw216Xrm9bQe2mBH1P5RDjVJG' }],
  keyAgreement: [],
  services: [],
  version: 3,
  createdLedger: 10,
  updatedLedger: 30,
  deactivated: false,
};

describe('resolveFromRegistry', () => {
  it.each([
    {
      name: 'a registered DID',
      did: DID,
      read: async () => RECORD,
      want: { error: undefined, versionId: '3', assert: [`#assert-1`] },
    },
    { name: 'an unregistered DID', did: DID, read: async () => undefined, want: { error: 'notFound' } },
    { name: 'an invalid DID', did: 'did:ledger:testnet:nope', read: async () => RECORD, want: { error: 'invalidDid' } },
    {
      name: 'a DID of a network not read',
      did: 'did:ledger:mainnet:nohsyhu2pu7uaulcoocjljvxza',
      read: async () => RECORD,
      want: { error: 'invalidDid' },
    },
    {
      name: 'a registry that cannot be read',
      did: DID,
      read: async () => {
        throw new Error('rpc down');
      },
      want: { error: 'internalError' },
    },
  ])('$name', async ({ did, read, want }) => {
    const r = await resolveFromRegistry({
      did,
      networks: ['testnet'],
      readRecord: read,
      isReadFailure: (e) => e instanceof Error && e.message === 'rpc down',
    });
    expect(r.didResolutionMetadata.error).toBe(want.error);
    if (want.error === undefined) {
      expect(r.didDocumentMetadata.versionId).toBe(want.versionId);
      expect(r.didDocument?.assertionMethod).toEqual(want.assert);
    } else {
      expect(r.didDocument).toBeNull();
    }
  });

  it('a deactivated DID resolves to its tombstone with deactivated metadata', async () => {
    const r = await resolveFromRegistry({
      did: DID,
      networks: ['testnet'],
      readRecord: async () => ({ ...RECORD, deactivated: true }),
      isReadFailure: () => true,
    });
    expect(r.didDocumentMetadata.deactivated).toBe(true);
    expect(r.didDocument?.verificationMethod).toBeUndefined();
  });

  // A defect of the reader is not a DID that cannot be resolved: it must surface (the service answers 500 and
  // logs it), where internalError metadata would make a verifier say did_unresolvable.
  it('lets a TypeError of the reader through as a throw, not internalError', async () => {
    const readRecord = async (): Promise<DidRecord | undefined> => {
      throw new TypeError("Cannot read properties of undefined (reading 'record')");
    };
    const isReadFailure = (e: unknown) => !(e instanceof TypeError);
    await expect(resolveFromRegistry({ did: DID, networks: ['testnet'], readRecord, isReadFailure })).rejects.toThrow(
      TypeError,
    );
  });
});
