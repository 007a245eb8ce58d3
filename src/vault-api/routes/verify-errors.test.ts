// A programming error during verification is a 500 that the log explains, never a verification outcome:
// it used to read as `did_unresolvable` (issuer DID "could not be resolved"), hiding the defect.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVaultTestEnv, stubChain, type VaultTestEnv } from '../../../test-support/vault-api.ts';

const DID = 'did:ledger:testnet:nohsyhu2pu7uaulcoocjljvxza';
let env: VaultTestEnv;

beforeAll(async () => {
  // A registry answer the code cannot read: authentication is not a list.
  const registry = {
    get: async () => ({
      record: {
        controller: 'GCFIRY65OQE7DFP5KLNS2PF2LVZMUZYJX4OZIEQ36N2IQANUB5XVYOJR',
        authentication: null,
        assertionMethod: [],
        keyAgreement: [],
        services: [],
        version: 1,
        createdLedger: 1,
        updatedLedger: 1,
        deactivated: false,
      },
    }),
  };
  env = await startVaultTestEnv({ chain: stubChain('testnet', { registry } as never) });
}, 60_000);
afterAll(async () => {
  await env?.close();
});

/** A credential whose proof check reaches the issuer DID's resolution. */
const credential = {
  '@context': ['https://www.w3.org/ns/credentials/v2'],
  type: ['VerifiableCredential'],
  issuer: DID,
  credentialSubject: { id: DID },
  proof: {
    type: 'DataIntegrityProof',
    cryptosuite: 'eddsa-jcs-2022',
    verificationMethod: `${DID}#assert-1`,
    proofPurpose: 'assertionMethod',
    proofValue: 'z5',
  },
};

describe('POST /credentials/verify: a programming error', () => {
  it('answers 500 internal_error and logs the error, not verified false with did_unresolvable', async () => {
    const r = await env.request('/credentials/verify', { body: { verifiableCredential: credential } });
    expect([r.status, r.body.error], JSON.stringify(r.body)).toEqual([500, 'internal_error']);
    expect(env.logs).toContainEqual(
      expect.objectContaining({ level: 'error', error: 'internal_error', detail: expect.stringMatching(/^TypeError/) }),
    );
  });

  it('answers 500 for a TypeError thrown by the registry read itself, not did_unresolvable', async () => {
    const registry = {
      get: async () => {
        throw new TypeError("Cannot read properties of undefined (reading 'entries')");
      },
    };
    const thrower = await startVaultTestEnv({ chain: stubChain('testnet', { registry } as never) });
    try {
      const r = await thrower.request('/credentials/verify', { body: { verifiableCredential: credential } });
      expect([r.status, r.body.error], JSON.stringify(r.body)).toEqual([500, 'internal_error']);
      expect(thrower.logs).toContainEqual(
        expect.objectContaining({ level: 'error', detail: expect.stringMatching(/^TypeError/) }),
      );
    } finally {
      await thrower.close();
    }
  }, 60_000);
});
