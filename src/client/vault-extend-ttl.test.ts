// The client's prepareAndSubmit on POST /contracts/vault/extend-ttl against a real app over the simulator with
// small TTL settings (docs/vault-api.md "Credential lifetime"), as a user of the package writes it: the extension
// of a live vault, and over archived state the restore first (the answer's `operation` says which), then a second
// call for the extension. Each `it` sets up the vault and the credential it needs.
import { Contract, Keypair, TransactionBuilder } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../simulator/index.ts';
import { registerIssuerDid, startVaultTestEnv, type VaultTestEnv } from '../../test-support/vault-api.ts';
import { createVaultClient, isApiError, prepareAndSubmit, unwrap, type VaultClient } from './index.ts';
import { closeLedgersUntil, SMALL_TTL } from '../../test-support/ttl.ts';

const V2 = 'https://www.w3.org/ns/credentials/v2';
const PATH = '/contracts/vault/extend-ttl';

let sim: RunningSimulator;
let env: VaultTestEnv;
let issuer: Keypair;
let asIssuer: VaultClient;
let issuerDid: string;

const net = () => sim.sim.network('testnet');
const latest = () => net().ledger.latest.seq;
const closeUntil = (seq: number): void => closeLedgersUntil(sim, seq);

interface Owner {
  kp: Keypair;
  owner: string;
  vault: VaultClient;
}

/** A funded owner with its own key, a deployed vault and one credential `vcId`, all through the client. */
async function ownerWithCredential(vcId: string): Promise<Owner> {
  const kp = await env.fund();
  const owner = kp.publicKey();
  const vault = createVaultClient({ baseUrl: env.url, apiKey: (await env.mintKey({ wallet: kp })).key });
  await prepareAndSubmit(
    vault,
    '/contracts/vault/create',
    { owner, didUri: 'did:ledger:testnet:o', sourcePublicKey: owner },
    kp,
  );
  const vcData = JSON.stringify({
    '@context': [V2],
    type: ['VerifiableCredential'],
    issuer: issuerDid,
    credentialSubject: { id: owner },
  });
  const src = issuer.publicKey();
  await prepareAndSubmit(
    asIssuer,
    '/contracts/vc/issue',
    { owner, vcId, vcData, issuer: src, issuerDid, sourcePublicKey: src },
    issuer,
  );
  return { kp, owner, vault };
}

const getVc = (o: Owner, vcId: string) => o.vault.POST('/contracts/vault/get-vc', { body: { owner: o.owner, vcId } });

/** The live-until ledger of the vault's instance (getLedgerEntries). */
async function instanceLiveUntil(owner: string): Promise<number> {
  const res = await env.chain.client.getLedgerEntries([new Contract(env.chain.vaultAddress(owner)).getFootprint()]);
  return res.entries[0]!.liveUntilLedgerSeq!;
}

/** The hash of the transaction `prepared` names once signed by `kp`, as the submit answers it. */
const signedHash = (xdr: string, kp: Keypair): string =>
  Buffer.from(TransactionBuilder.fromXDR(env.sign(xdr, kp), env.passphrase).hash()).toString('hex');

beforeAll(async () => {
  sim = await startSimulator({ port: 0, ttl: SMALL_TTL });
  env = await startVaultTestEnv({ network: 'testnet', simulator: sim });
  issuer = await env.fund();
  asIssuer = createVaultClient({
    baseUrl: env.url,
    apiKey: (await env.mintKey({ wallet: issuer, role: 'early' })).key, // its write bucket holds every test's issues
  });
  issuerDid = await registerIssuerDid(env, issuer);
}, 60_000);

afterAll(async () => {
  await env?.close();
  await sim?.close();
});

describe('prepareAndSubmit on POST /contracts/vault/extend-ttl', () => {
  it('extends a live vault: `prepared` is the extend-ttl answer, and the credential outlives its first TTL', async () => {
    const o = await ownerWithCredential('vc-live');
    const issuedIn = latest();
    const result = await prepareAndSubmit(
      o.vault,
      PATH,
      { owner: o.owner, sourcePublicKey: o.owner, ledgers: 200 },
      o.kp,
      { idempotencyKey: `extend-${issuedIn}` },
    );
    // typed as ExtendTtlPrepareResponse: no cast to read what the extension covers
    expectTypeOf(result.prepared.operation).toEqualTypeOf<'extendFootprintTtl' | 'restoreFootprint'>();
    expect(result.prepared).toMatchObject({
      operation: 'extendFootprintTtl',
      vault: env.chain.vaultAddress(o.owner),
      vcIds: ['vc-live'],
      restoring: [],
      ledgers: 200,
      networkPassphrase: env.passphrase,
    });
    expect(result.prepared.liveUntilLedger).toBeGreaterThan(issuedIn + 200);
    expect(result.txId).toBe(signedHash(result.prepared.xdr, o.kp));
    expect(await instanceLiveUntil(o.owner)).toBeGreaterThanOrEqual(issuedIn + 200);

    closeUntil(issuedIn + SMALL_TTL.minPersistentTTL + 2);
    const got = await getVc(o, 'vc-live');
    expect(got.response.status, JSON.stringify(got.error)).toBe(200);
  });

  it('over archived state submits the restore; a second call extends, and the credential reads again', async () => {
    const o = await ownerWithCredential('vc-old');
    closeUntil(latest() + SMALL_TTL.minPersistentTTL + 2);
    let archived: unknown;
    try {
      unwrap(await getVc(o, 'vc-old'));
    } catch (err) {
      archived = err;
    }
    expect(isApiError(archived, 'state_archived')).toBe(true);

    // What a user writes: call it, and when the answer was the restore, call it once more for the extension.
    const body = { owner: o.owner, sourcePublicKey: o.owner };
    const restore = await prepareAndSubmit(o.vault, PATH, body, o.kp);
    expect(restore.prepared).toMatchObject({ operation: 'restoreFootprint', vcIds: ['vc-old'], ledgers: 399 });
    expect(restore.prepared.restoring).toHaveLength(3); // the instance, and the credential's data and status
    expect(restore.prepared.liveUntilLedger).toBeUndefined();
    expect(restore.txId).toBe(signedHash(restore.prepared.xdr, o.kp));
    expect((await getVc(o, 'vc-old')).response.status).toBe(200); // restored: live for the minimum TTL again

    const extend = await prepareAndSubmit(o.vault, PATH, body, o.kp);
    expect(extend.prepared).toMatchObject({ operation: 'extendFootprintTtl', restoring: [], ledgers: 399 });
    const extendedIn = latest();
    expect(await instanceLiveUntil(o.owner)).toBeGreaterThanOrEqual(extendedIn + 398);
    closeUntil(extendedIn + SMALL_TTL.minPersistentTTL + 5);
    const got = await getVc(o, 'vc-old');
    expect(got.response.status, JSON.stringify(got.error)).toBe(200);
  });
});
