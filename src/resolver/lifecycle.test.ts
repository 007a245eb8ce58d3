// The whole DID lifecycle through the resolver with SDK signatures (spec/did-resolver.yaml, the
// registry operations): register → resolve → update → stale update 409 → transfer → old controller refused →
// deactivate → 410 tombstone → raw record deactivated; and network routing on mainnet.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Address, Keypair, Transaction, xdr } from '@stellar/stellar-sdk';
import { authOf, withAuth } from '../../simulator/core/testing.ts';
import { generateDid } from '../did/index.ts';
import { multikey, signWithAuth, startHarness, type Harness, type RegisteredDid } from '../../test-support/resolver.ts';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
}, 60_000);
afterAll(async () => {
  await h?.close();
});

describe('DID lifecycle on testnet', () => {
  // One story: each step needs the state the one before left, so it is one test (the tests of a file run in a
  // random order; vitest.config.ts). A failure names its step by its line.
  it('register → resolve → update → stale updates 409 → transfer → old controller refused → deactivate → 410', async () => {
    let d: RegisteredDid;
    let newController: Keypair;
    d = await h.registerDid({ assertionKeys: [Keypair.random()], keyAgreement: true });
    expect(d.txId).toMatch(/^[0-9a-f]{64}$/);

    // resolves 200 with version 1 and the controller as stellarAccount
    {
      const r = await h.get(`/1.0/identifiers/${d.did}`);
      expect(r.status).toBe(200);
      expect(r.body.didDocument.id).toBe(d.did);
      expect(r.body.didDocument.authentication).toEqual(['#auth-1']);
      expect(r.body.didDocument.assertionMethod).toEqual(['#assert-1']);
      expect(r.body.didDocument.keyAgreement).toEqual(['#keyagr-1']);
      expect(r.body.didDocumentMetadata).toMatchObject({
        versionId: '1',
        deactivated: false,
        method: { network: 'testnet', stellarAccount: d.controller.publicKey() },
      });
    }

    // the raw record is version 1 exactly as sent
    {
      const r = await h.get(`/v1/dids/stellar/${d.did}`);
      expect(r.status).toBe(200);
      expect(r.headers.get('cache-control')).toBe('no-store');
      expect(r.body).toEqual({
        did: d.did,
        didId: d.didId,
        record: {
          ...d.record,
          version: 1,
          createdLedger: expect.any(Number),
          updatedLedger: expect.any(Number),
          deactivated: false,
        },
      });
      expect(r.body.record.createdLedger).toBe(r.body.record.updatedLedger);
    }

    // update (full replacement) → version 2, and the resolver shows it at once (its own write evicts the cache)
    {
      const newAuth = Keypair.random();
      const record = {
        ...d.record,
        authentication: [{ publicKeyMultibase: multikey(newAuth) }, ...d.record.authentication],
        services: [
          { idSuffix: 'linked-domain', serviceType: 'LinkedDomains', serviceEndpoint: 'https://issuer.example.org' },
        ],
      };
      const r = await h.prepareSignSubmit(
        `/v1/dids/stellar/${d.did}/update`,
        { expectedVersion: 1, sourcePublicKey: d.controller.publicKey(), record },
        [d.controller],
      );
      expect(r.status, r.text).toBe(200);
      expect(r.body.txId).toMatch(/^[0-9a-f]{64}$/);
      const res = await h.get(`/1.0/identifiers/${d.did}`);
      expect(res.body.didDocumentMetadata.versionId).toBe('2');
      expect(res.body.didDocument.authentication).toEqual(['#auth-1', '#auth-2']);
      expect(res.body.didDocument.service).toEqual([
        { id: `${d.did}#service-linked-domain`, type: 'LinkedDomains', serviceEndpoint: 'https://issuer.example.org' },
      ]);
      d.record = record;
    }

    // a stale expectedVersion fails with version_mismatch 409 at prepare
    {
      const r = await h.post(`/v1/dids/stellar/${d.did}/update`, {
        expectedVersion: 1,
        sourcePublicKey: d.controller.publicKey(),
        record: d.record,
      });
      expect(r.status).toBe(409);
      expect(r.body).toMatchObject({ code: 'version_mismatch', details: { expectedVersion: 1, currentVersion: 2 } });
    }

    // a stale transaction fails on-chain with version_mismatch 409 at submit (fee payer ≠ controller)
    {
      // Prepared at version 2 with another account as source (the controller authorizes through its auth
      // entry), then the controller moves the record to version 3: the signed transaction is stale.
      const payer = await h.account();
      const prep = await h.post(`/v1/dids/stellar/${d.did}/update`, {
        expectedVersion: 2,
        sourcePublicKey: payer.publicKey(),
        record: d.record,
      });
      expect(prep.status, prep.text).toBe(200);
      const staleXdr = await signWithAuth(
        prep.body.xdr,
        prep.body.networkPassphrase,
        payer,
        [d.controller],
        (await h.latestLedger()) + 100,
      );
      const first = await h.prepareSignSubmit(
        `/v1/dids/stellar/${d.did}/update`,
        { expectedVersion: 2, sourcePublicKey: d.controller.publicKey(), record: d.record },
        [d.controller],
      );
      expect(first.status, first.text).toBe(200);
      const stale = await h.post(`/v1/dids/stellar/${d.did}/update`, { signedXdr: staleXdr });
      expect(stale.status, stale.text).toBe(409);
      expect(stale.body).toMatchObject({ code: 'version_mismatch', details: { contractError: 3, currentVersion: 3 } });
    }

    // transfer rotates the controller; the DID string stays and version +1
    {
      newController = await h.account();
      const r = await h.prepareSignSubmit(
        `/v1/dids/stellar/${d.did}/transfer`,
        { expectedVersion: 3, newController: newController.publicKey(), sourcePublicKey: d.controller.publicKey() },
        [d.controller],
      );
      expect(r.status, r.text).toBe(200);
      const res = await h.get(`/1.0/identifiers/${d.did}`);
      expect(res.body.didDocument.id).toBe(d.did);
      expect(res.body.didDocumentMetadata).toMatchObject({
        versionId: '4',
        method: { stellarAccount: newController.publicKey() },
      });
      expect(res.body.didDocument.authentication).toEqual(['#auth-1', '#auth-2']);
    }

    // the old controller can no longer update (its transaction fails on-chain: tx_submission_failed)
    {
      const record = { ...d.record, controller: newController.publicKey() };
      const r = await h.prepareSignSubmit(
        `/v1/dids/stellar/${d.did}/update`,
        { expectedVersion: 4, sourcePublicKey: d.controller.publicKey(), record },
        [d.controller],
      );
      expect(r.status, r.text).toBe(400);
      expect(r.body.code).toBe('tx_submission_failed');
      expect(r.body.details).toMatchObject({ status: expect.any(String) });
      const raw = await h.get(`/v1/dids/stellar/${d.did}`);
      expect(raw.body.record.version).toBe(4);
    }

    // an update keeping the old controller is refused before any transaction (invalid_record)
    {
      const r = await h.post(`/v1/dids/stellar/${d.did}/update`, {
        expectedVersion: 4,
        sourcePublicKey: newController.publicKey(),
        record: d.record,
      });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'invalid_record', details: { field: 'controller' } });
    }

    // the new controller updates
    {
      const record = { ...d.record, controller: newController.publicKey() };
      const r = await h.prepareSignSubmit(
        `/v1/dids/stellar/${d.did}/update`,
        { expectedVersion: 4, sourcePublicKey: newController.publicKey(), record },
        [newController],
      );
      expect(r.status, r.text).toBe(200);
    }

    // deactivate → resolve 410 tombstone (id only) and the raw record deactivated with empty arrays
    {
      const r = await h.prepareSignSubmit(
        `/v1/dids/stellar/${d.did}/deactivate`,
        { expectedVersion: 5, sourcePublicKey: newController.publicKey() },
        [newController],
      );
      expect(r.status, r.text).toBe(200);
      const res = await h.get(`/1.0/identifiers/${d.did}`);
      expect(res.status).toBe(410);
      expect(res.body.didDocument).toEqual({
        '@context': ['https://www.w3.org/ns/did/v1.1', 'https://w3id.org/security/multikey/v1'],
        id: d.did,
      });
      expect(res.body.didDocumentMetadata).toMatchObject({ versionId: '6', deactivated: true });
      const raw = await h.get(`/v1/dids/stellar/${d.did}`);
      expect(raw.status).toBe(200);
      expect(raw.body.record).toMatchObject({
        deactivated: true,
        version: 6,
        authentication: [],
        assertionMethod: [],
        keyAgreement: [],
        services: [],
      });
    }

    // every mutation of a deactivated DID is did_deactivated 409
    {
      const pk = newController.publicKey();
      for (const [path, body] of [
        ['update', { expectedVersion: 6, sourcePublicKey: pk, record: { ...d.record, controller: pk } }],
        ['transfer', { expectedVersion: 6, sourcePublicKey: pk, newController: pk }],
        ['deactivate', { expectedVersion: 6, sourcePublicKey: pk }],
      ] as const) {
        const r = await h.post(`/v1/dids/stellar/${d.did}/${path}`, body);
        expect(r.status, path).toBe(409);
        expect(r.body.code).toBe('did_deactivated');
      }
    }
  }, 120_000);
});

describe('who signs (docs/did-resolver.md "Writes: prepare and submit")', () => {
  it('register needs the signature of record.controller: a payer alone cannot register for it', async () => {
    const payer = await h.account();
    const controller = await h.account();
    const { did } = generateDid({ network: 'testnet' });
    const record = {
      controller: controller.publicKey(),
      authentication: [{ publicKeyMultibase: multikey(Keypair.random()) }],
      assertionMethod: [],
      keyAgreement: [],
      services: [],
    };
    const r = await h.prepareSignSubmit('/v1/dids/stellar', { did, sourcePublicKey: payer.publicKey(), record }, [
      payer,
    ]);
    expect(r.status, r.text).toBe(400);
    expect(r.body.code).toBe('tx_submission_failed');
    expect((await h.get(`/1.0/identifiers/${did}`)).status).toBe(404);
    // With the controller's authorization entry signed, the payer's transaction registers it.
    const prep = await h.post('/v1/dids/stellar', { did, sourcePublicKey: payer.publicKey(), record });
    const signed = await signWithAuth(
      prep.body.xdr,
      prep.body.networkPassphrase,
      payer,
      [controller],
      (await h.latestLedger()) + 100,
    );
    const ok = await h.post('/v1/dids/stellar', { signedXdr: signed });
    expect(ok.status, ok.text).toBe(200);
    expect((await h.get(`/1.0/identifiers/${did}`)).body.didDocumentMetadata.method.stellarAccount).toBe(
      controller.publicKey(),
    );
  });

  it("the controller's ADDRESS_V2 entry, its signature moved to another address, is refused at submit", async () => {
    const payer = await h.account();
    const controller = await h.account();
    const other = await h.account();
    const { did } = generateDid({ network: 'testnet' });
    const record = {
      controller: controller.publicKey(),
      authentication: [{ publicKeyMultibase: multikey(Keypair.random()) }],
      assertionMethod: [],
      keyAgreement: [],
      services: [],
    };
    const prep = await h.post('/v1/dids/stellar', { did, sourcePublicKey: payer.publicKey(), record });
    expect(authOf(xdr.TransactionEnvelope.fromXdr(prep.body.xdr, 'base64')).map((e) => e.credentials.type)).toEqual([
      'sorobanCredentialsAddressV2',
    ]);
    const env = xdr.TransactionEnvelope.fromXdr(
      await signWithAuth(
        prep.body.xdr,
        prep.body.networkPassphrase,
        payer,
        [controller],
        (await h.latestLedger()) + 100,
      ),
      'base64',
    );
    const moved = authOf(env).map((e) => {
      const a = (e.credentials as xdr.SorobanCredentialsAddressV2).addressV2;
      const creds = new xdr.SorobanAddressCredentials({
        address: new Address(other.publicKey()).toScAddress(),
        nonce: a.nonce,
        signatureExpirationLedger: a.signatureExpirationLedger,
        signature: a.signature,
      });
      return new xdr.SorobanAuthorizationEntry({
        credentials: xdr.SorobanCredentials.sorobanCredentialsAddressV2(creds),
        rootInvocation: e.rootInvocation,
      });
    });
    const tx = new Transaction(withAuth(env, moved), prep.body.networkPassphrase);
    tx.sign(payer);
    const r = await h.post('/v1/dids/stellar', { signedXdr: tx.toXdr() });
    expect(r.status, r.text).toBe(400);
    expect(r.body.code).toBe('invalid_request');
    expect(r.body.message).toMatch(
      new RegExp(
        `ADDRESS_V2 authorization entry for ${other.publicKey()} carries a signature by ${controller.publicKey()}`,
      ),
    );
    expect((await h.get(`/1.0/identifiers/${did}`)).status).toBe(404);
  });

  it('deactivate and transfer signed by a stranger fail on-chain; the DID stays active', async () => {
    const x = await h.registerDid();
    const stranger = await h.account();
    const off = await h.prepareSignSubmit(
      `/v1/dids/stellar/${x.did}/deactivate`,
      { expectedVersion: 1, sourcePublicKey: stranger.publicKey() },
      [stranger],
    );
    expect(off.status, off.text).toBe(400);
    expect(off.body.code).toBe('tx_submission_failed');
    const move = await h.prepareSignSubmit(
      `/v1/dids/stellar/${x.did}/transfer`,
      { expectedVersion: 1, sourcePublicKey: stranger.publicKey(), newController: stranger.publicKey() },
      [stranger],
    );
    expect(move.status, move.text).toBe(400);
    expect(move.body.code).toBe('tx_submission_failed');
    const res = await h.get(`/1.0/identifiers/${x.did}`);
    expect(res.status).toBe(200);
    expect(res.body.didDocumentMetadata).toMatchObject({
      versionId: '1',
      method: { stellarAccount: x.controller.publicKey() },
    });
  });

  it('the registry stores what register sends, metadata included, and invents nothing', async () => {
    const controller = await h.account();
    const { did, didId } = generateDid({ network: 'testnet' });
    const record = {
      controller: controller.publicKey(),
      authentication: [{ publicKeyMultibase: multikey(Keypair.random()) }],
      assertionMethod: [],
      keyAgreement: [],
      services: [],
      metadataUri: 'https://issuer.example.org/.well-known/did-metadata.json',
      metadataHash: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
    };
    const r = await h.prepareSignSubmit('/v1/dids/stellar', { did, sourcePublicKey: controller.publicKey(), record }, [
      controller,
    ]);
    expect(r.status, r.text).toBe(200);
    const raw = await h.get(`/v1/dids/stellar/${encodeURIComponent(did)}`);
    expect(raw.body).toEqual({
      did,
      didId,
      record: {
        ...record,
        version: 1,
        createdLedger: expect.any(Number),
        updatedLedger: expect.any(Number),
        deactivated: false,
      },
    });
  });
});

describe('network routing', () => {
  it('a mainnet DID is registered on and resolved from mainnet', async () => {
    const before = h.rpcCount({ network: 'testnet' });
    const d = await h.registerDid({ network: 'mainnet' });
    const r = await h.get(`/1.0/identifiers/${d.did}`);
    expect(r.status).toBe(200);
    expect(r.body.didDocumentMetadata.method).toEqual({ network: 'mainnet', stellarAccount: d.controller.publicKey() });
    expect(h.rpcCount({ network: 'testnet' })).toBe(before);
    // The same didId on testnet is another DID, not registered there.
    const other = await h.get(`/1.0/identifiers/did:ledger:testnet:${d.didId}`);
    expect(other.status).toBe(404);
  });

  it('prepare answers the network name and its passphrase', async () => {
    const kp = await h.account('mainnet');
    const { did } = generateDid({ network: 'mainnet' });
    const r = await h.post('/v1/dids/stellar', {
      did,
      sourcePublicKey: kp.publicKey(),
      record: {
        controller: kp.publicKey(),
        authentication: [{ publicKeyMultibase: multikey(Keypair.random()) }],
        assertionMethod: [],
        keyAgreement: [],
        services: [],
      },
    });
    expect(r.status, r.text).toBe(200);
    expect(r.body).toEqual({
      xdr: expect.any(String),
      network: 'mainnet',
      networkPassphrase: h.info.mainnet.passphrase,
    });
  });
});
