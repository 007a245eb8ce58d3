// The contract routes on mainnet, where issuance is paid in a stablecoin: the issuer needs a trustline and
// a balance, and the fee token's failures reach the client with the chain's words, at prepare or at submit.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Keypair } from '@stellar/stellar-sdk';
import { startSimulator, type RunningSimulator, type SimNetwork } from '../../../simulator/index.ts';
import {
  registerIssuerDid,
  startVaultTestEnv,
  type MintedKey,
  type VaultTestEnv,
} from '../../../test-support/vault-api.ts';
import { generateDid } from '../../did/index.ts';

const V2 = 'https://www.w3.org/ns/credentials/v2';
const UNIT = 10_000_000n;

let sim: RunningSimulator;
let net: SimNetwork;
let env: VaultTestEnv;
let owner: Keypair, issuer: Keypair;
let ownerKey: MintedKey, issuerKey: MintedKey;
let issuerDid: string;

const call = (path: string, key: MintedKey, body?: unknown) =>
  env.request(path, { key: key.key, ...(body !== undefined ? { body } : {}) });

function expectError(r: { status: number; body: any }, status: number, code: string, words?: RegExp): void {
  expect({ status: r.status, error: r.body?.error }, JSON.stringify(r.body)).toEqual({ status, error: code });
  if (words) expect(r.body.message).toMatch(words);
}

async function prepare(path: string, body: unknown, key: MintedKey): Promise<string> {
  const r = await call(path, key, body);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.network).toBe(env.passphrase);
  return r.body.xdr as string;
}

const issueBody = (vcId: string, from = issuer) => ({
  owner: owner.publicKey(),
  vcId,
  issuer: from.publicKey(),
  issuerDid,
  sourcePublicKey: from.publicKey(),
  vcData: JSON.stringify({
    '@context': [V2],
    type: ['VerifiableCredential'],
    credentialSubject: { id: owner.publicKey() },
  }),
});

const usdc = (holder: string) => env.chain.token.balance(env.info!.feeTokenId, holder);

beforeAll(async () => {
  sim = await startSimulator({ port: 0 });
  net = sim.sim.network('mainnet');
  env = await startVaultTestEnv({ network: 'mainnet', simulator: sim });
  [owner, issuer] = await Promise.all([env.fund(), env.fund()]);
  [ownerKey, issuerKey] = await Promise.all([env.mintKey({ wallet: owner }), env.mintKey({ wallet: issuer })]);
  issuerDid = await registerIssuerDid(env, issuer);
  const xdr = await prepare(
    '/contracts/vault/create',
    { owner: owner.publicKey(), didUri: 'did:ledger:mainnet:owner', sourcePublicKey: owner.publicKey() },
    ownerKey,
  );
  expect((await call('/contracts/vault/create', ownerKey, { signedXdr: env.sign(xdr, owner) })).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await env?.close();
  await sim?.close();
});

// Each test starts from the ledger beforeAll left (no trustline, no stablecoin), whatever ran before it.
let start: string;
beforeEach(() => {
  start = net.snapshot();
});
afterEach(() => {
  net.revert(start);
});

describe('mainnet fees in the stablecoin', () => {
  it('without a trustline: 400 trustline_missing with the chain words, at prepare', async () => {
    expectError(
      await call('/contracts/vc/issue', issuerKey, issueBody('m1')),
      400,
      'trustline_missing',
      /trustline entry is missing for account/,
    );
  });

  it('with a trustline but no balance: 400 insufficient_balance with the chain words, at prepare', async () => {
    net.fund(issuer.publicKey(), 1n, 'USDC');
    expectError(
      await call('/contracts/vc/issue', issuerKey, issueBody('m1')),
      400,
      'insufficient_balance',
      /balance is not sufficient/,
    );
  });

  it('the same failures at submit, when the balance is gone after prepare', async () => {
    net.fund(issuer.publicKey(), 1n, 'USDC'); // a trustline, without the balance a credential costs
    const before = net.snapshot();
    net.fund(issuer.publicKey(), UNIT, 'USDC');
    const xdr = await prepare('/contracts/vc/issue', issueBody('m2'), issuerKey);
    net.revert(before);
    const r = await call('/contracts/vc/issue', issuerKey, { signedXdr: env.sign(xdr, issuer) });
    expectError(r, 400, 'insufficient_balance', /balance is not sufficient/);

    const fresh = await env.fund();
    const freshKey = await env.mintKey({ wallet: fresh });
    const did = await registerIssuerDid(env, fresh);
    const noLine = net.snapshot();
    net.fund(fresh.publicKey(), UNIT, 'USDC');
    const x2 = await prepare('/contracts/vc/issue', { ...issueBody('m3', fresh), issuerDid: did }, freshKey);
    net.revert(noLine);
    expectError(
      await call('/contracts/vc/issue', freshKey, { signedXdr: env.sign(x2, fresh) }),
      400,
      'trustline_missing',
      /trustline entry is missing for account/,
    );
  });

  it('charges 1 stablecoin unit per credential, n units for a batch of n', async () => {
    net.fund(issuer.publicKey(), 10n * UNIT, 'USDC');
    const dest = env.info!.admin.publicKey;
    const d0 = await usdc(dest);
    const i0 = await usdc(issuer.publicKey());
    const x1 = await prepare('/contracts/vc/issue', issueBody('m4'), issuerKey);
    expect((await call('/contracts/vc/issue', issuerKey, { signedXdr: env.sign(x1, issuer) })).status).toBe(200);
    expect((await usdc(dest)) - d0).toBe(UNIT);
    expect(i0 - (await usdc(issuer.publicKey()))).toBe(UNIT);

    const { vcData } = issueBody('x');
    const batch = {
      owner: owner.publicKey(),
      issuer: issuer.publicKey(),
      issuerDid,
      sourcePublicKey: issuer.publicKey(),
      vcs: [
        { vcId: 'm5', vcData },
        { vcId: 'm6', vcData },
      ],
    };
    const x2 = await prepare('/contracts/vc/batch-issue', batch, issuerKey);
    expect((await call('/contracts/vc/batch-issue', issuerKey, { signedXdr: env.sign(x2, issuer) })).status).toBe(200);
    expect((await usdc(dest)) - d0).toBe(3n * UNIT);
    const got = await call('/contracts/vault/get-vc', ownerKey, { owner: owner.publicKey(), vcId: 'm5' });
    expect(got.body.result.credentialSubject.id).toBe(owner.publicKey());
  });
});

describe('nothing carries over from testnet', () => {
  it('a testnet issuer DID → issuerDid_network_mismatch; a transaction signed for testnet → tx_invalid', async () => {
    net.fund(issuer.publicKey(), UNIT, 'USDC');
    const testnetDid = generateDid({ network: 'testnet' }).did;
    expectError(
      await call('/contracts/vc/issue', issuerKey, { ...issueBody('t1'), issuerDid: testnetDid }),
      400,
      'issuerDid_network_mismatch',
      /testnet/,
    );
    const xdr = await prepare('/contracts/vc/issue', issueBody('t2'), issuerKey);
    const signedForTestnet = env.sign(xdr, issuer, sim.networks.testnet.passphrase);
    expectError(await call('/contracts/vc/issue', issuerKey, { signedXdr: signedForTestnet }), 400, 'tx_invalid');
  });
});
