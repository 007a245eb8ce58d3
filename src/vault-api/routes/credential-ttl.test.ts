// A vault's credentials under state archival (docs/vault-api.md "Credential lifetime"), against the simulator with
// small TTL settings so the test closes ledgers past them: a credential is readable for the minimum persistent TTL
// from its issue; past it get-vc and verify-vc answer 409 state_archived naming the ledger keys to restore; a
// RestoreFootprint over those keys brings it back; a write prepared through the API restores what it touches.
// Each test starts from the ledger as the set-up left it (a snapshot reverted before each) and closes its own ledgers.
import { Operation, TransactionBuilder, rpc, xdr } from '@stellar/stellar-sdk';
import type { Keypair } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../../simulator/index.ts';
import {
  registerIssuerDid,
  startVaultTestEnv,
  type MintedKey,
  type VaultTestEnv,
} from '../../../test-support/vault-api.ts';
import { closeLedgersUntil, SMALL_TTL } from '../../../test-support/ttl.ts';

const V2 = 'https://www.w3.org/ns/credentials/v2';

let sim: RunningSimulator;
let env: VaultTestEnv;
let owner: Keypair, issuer: Keypair;
let ownerKey: MintedKey, issuerKey: MintedKey;
let issuerDid: string;
let issuedIn: number;
let issued: string;

const call = (path: string, key: MintedKey, body?: unknown) =>
  env.request(path, { key: key.key, ...(body !== undefined ? { body } : {}) });

async function write(path: string, body: unknown, key: MintedKey, signer: Keypair): Promise<void> {
  const prepared = await call(path, key, body);
  expect(prepared.status, JSON.stringify(prepared.body)).toBe(200);
  const r = await call(path, key, { signedXdr: env.sign(prepared.body.xdr as string, signer) });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
}

const net = () => sim.sim.network('testnet');
const closeUntil = (seq: number): void => closeLedgersUntil(sim, seq);
const issue = (vcId: string) =>
  write(
    '/contracts/vc/issue',
    {
      owner: owner.publicKey(),
      vcId,
      vcData: JSON.stringify({
        '@context': [V2],
        type: ['VerifiableCredential'],
        issuer: issuerDid,
        credentialSubject: { id: owner.publicKey() },
      }),
      issuer: issuer.publicKey(),
      issuerDid,
      sourcePublicKey: issuer.publicKey(),
    },
    issuerKey,
    issuer,
  );

beforeAll(async () => {
  sim = await startSimulator({ port: 0, ttl: SMALL_TTL });
  env = await startVaultTestEnv({ network: 'testnet', simulator: sim });
  [owner, issuer] = await Promise.all([env.fund(), env.fund()]);
  [ownerKey, issuerKey] = await Promise.all([env.mintKey({ wallet: owner }), env.mintKey({ wallet: issuer })]);
  issuerDid = await registerIssuerDid(env, issuer);
  await write(
    '/contracts/vault/create',
    { owner: owner.publicKey(), didUri: 'did:ledger:testnet:owner', sourcePublicKey: owner.publicKey() },
    ownerKey,
    owner,
  );
  await issue('vc-1');
  await issue('vc-2');
  issuedIn = net().ledger.latest.seq;
  issued = net().snapshot();
}, 60_000);

beforeEach(() => {
  expect(net().revert(issued)).toBe(true);
});

afterAll(async () => {
  await env?.close();
  await sim?.close();
});

describe('credential lifetime (state archival)', () => {
  it('stays readable for the minimum persistent TTL after its issue', async () => {
    // the vault was deployed a few ledgers before the credentials: stay within the vault's TTL too
    closeUntil(issuedIn + SMALL_TTL.minPersistentTTL - 10);
    const got = await call('/contracts/vault/get-vc', ownerKey, { owner: owner.publicKey(), vcId: 'vc-1' });
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    expect(got.body.result.credentialSubject.id).toBe(owner.publicKey());
  });

  /** Closes ledgers past the TTL; returns the ledger keys get-vc names for vc-1, as base64 XDR. */
  async function archived(): Promise<string[]> {
    closeUntil(issuedIn + SMALL_TTL.minPersistentTTL + 2);
    const got = await call('/contracts/vault/get-vc', ownerKey, { owner: owner.publicKey(), vcId: 'vc-1' });
    expect({ status: got.status, error: got.body.error }).toEqual({ status: 409, error: 'state_archived' });
    return (got.body.message as string).match(/AAAA[A-Za-z0-9+/=]{20,}/g) ?? [];
  }

  it('past it, get-vc and verify-vc answer 409 state_archived with the ledger keys to restore', async () => {
    const keys = await archived();
    expect(keys.length).toBeGreaterThanOrEqual(1);
    for (const k of keys) expect(xdr.LedgerKey.fromXdr(k, 'base64').type).toBe('contractData');
    const v = await call('/contracts/vault/verify-vc', ownerKey, { owner: owner.publicKey(), vcId: 'vc-1' });
    expect({ status: v.status, error: v.body.error }).toEqual({ status: 409, error: 'state_archived' });
  });

  it('a RestoreFootprint over those keys, paid by anyone, makes it readable again', async () => {
    const keys = await archived();
    const server = new rpc.Server(env.info!.rpcUrl!, { allowHttp: true });
    const account = await server.getAccount(owner.publicKey());
    const footprint = new xdr.LedgerFootprint({
      readOnly: [],
      readWrite: keys.map((k) => xdr.LedgerKey.fromXdr(k, 'base64')),
    });
    const tx = new TransactionBuilder(account, { fee: '100', networkPassphrase: env.passphrase })
      .addOperation(Operation.restoreFootprint({}))
      .setSorobanData(
        new xdr.SorobanTransactionData({
          ext: xdr.SorobanTransactionDataExt.v0(),
          resources: new xdr.SorobanResources({ footprint, instructions: 0, diskReadBytes: 0, writeBytes: 0 }),
          resourceFee: 0n,
        }),
      )
      .setTimeout(300)
      .build();
    const prepared = await server.prepareTransaction(tx);
    prepared.sign(owner);
    const sent = await server.sendTransaction(prepared);
    expect(sent.status).toBe('PENDING');
    expect((await server.pollTransaction(sent.hash)).status).toBe('SUCCESS');
    const got = await call('/contracts/vault/get-vc', ownerKey, { owner: owner.publicKey(), vcId: 'vc-1' });
    expect(got.status, JSON.stringify(got.body)).toBe(200);
  });

  it("a write prepared through the API restores the archived entries it touches (the restore is in the write's fee)", async () => {
    closeUntil(issuedIn + SMALL_TTL.minPersistentTTL + 2);
    const before = await call('/contracts/vault/get-vc', ownerKey, { owner: owner.publicKey(), vcId: 'vc-2' });
    expect(before.body.error).toBe('state_archived');
    await write(
      '/contracts/vc/revoke',
      { owner: owner.publicKey(), vcId: 'vc-2', sourcePublicKey: owner.publicKey() },
      ownerKey,
      owner,
    );
    const v = await call('/contracts/vault/verify-vc', ownerKey, { owner: owner.publicKey(), vcId: 'vc-2' });
    expect(v.status, JSON.stringify(v.body)).toBe(200);
    expect(v.body.status).toBe('revoked');
  });
});
