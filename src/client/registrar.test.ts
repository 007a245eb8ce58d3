// The client's registrar calls and reverse lookup against the resolver over the simulator: create, update and
// deactivate with a Keypair and with a Signer callback, a refusal answered as the failed state, and didsOf.
import { Keypair, TransactionBuilder } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multikey, startHarness, type Harness } from '../../test-support/resolver.ts';
import { createRegistrar, didsOf } from './registrar.ts';
import { createResolverClient, type ResolverClient } from './resolver.ts';

let h: Harness;
let client: ResolverClient;
beforeAll(async () => {
  h = await startHarness();
  client = createResolverClient({ baseUrl: h.url });
}, 60_000);
afterAll(async () => {
  await h?.close();
});

const docOf = (k: Keypair) => ({
  verificationMethod: [{ id: '#auth-1', type: 'Multikey', publicKeyMultibase: multikey(k) }],
  authentication: ['#auth-1'],
});
const noWait = async () => {};

describe('createRegistrar', () => {
  it('creates, updates and deactivates; didsOf follows', async () => {
    const controller = await h.account();
    const registrar = createRegistrar(client);
    const created = await registrar.create({ wallet: controller, didDocument: docOf(controller), sleep: noWait });
    expect(created.didState.state).toBe('finished');
    const did = created.didState.did!;
    expect((await didsOf(client, controller.publicKey())).dids.map((d) => d.did)).toEqual([did]);

    // A Signer callback, as a wallet integration would pass one.
    const signer = (xdr: string, passphrase: string) => {
      const tx = TransactionBuilder.fromXDR(xdr, passphrase);
      tx.sign(controller);
      return tx.toXDR();
    };
    const updated = await registrar.update({
      wallet: signer,
      did,
      didDocument: docOf(Keypair.random()),
      sleep: noWait,
    });
    expect(updated.didDocumentMetadata).toMatchObject({ versionId: '2' });
    const deactivated = await registrar.deactivate({ wallet: controller, did, sleep: noWait });
    expect(deactivated.didDocumentMetadata).toMatchObject({ deactivated: true });
    const all = await didsOf(client, controller.publicKey(), { status: 'all' });
    expect(all.dids).toMatchObject([{ did, deactivated: true, version: 3 }]);
    expect(all.index.toLedger).toBeGreaterThanOrEqual(all.index.fromLedger);
  });

  it('answers a refusal as the failed state, and a wallet that is not the controller as an error', async () => {
    const registrar = createRegistrar(client);
    const k = Keypair.random();
    const refused = await registrar.create({ wallet: k, didDocument: { ...docOf(k), alsoKnownAs: ['x'] } });
    expect(refused.didState).toMatchObject({ state: 'failed', error: 'did_document_unsupported' });
    const controller = await h.account();
    await expect(
      registrar.create({
        wallet: Keypair.random(),
        didDocument: docOf(Keypair.random()),
        options: { controller: controller.publicKey() },
      }),
    ).rejects.toThrow(/did not sign as/);
  });
});
