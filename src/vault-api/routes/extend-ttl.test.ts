// POST /contracts/vault/extend-ttl against the simulator with small TTL settings (docs/vault-api.md "Credential
// lifetime"): prepare, sign and submit an extension; an archived credential restored (restoreFootprint, then the
// extension) reads again; the refusals the spec lists; a vault whose storage layout is not the simulator's kept
// live over the keys its reads' simulations name. Each `it` sets up the vault and credentials it needs.
import { Contract, Keypair, type Transaction, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VAULT_WASM_HASH, contractImpls } from '../../../simulator/contracts/index.ts';
import type { ContractContext, ContractImpl, ContractStorage, Durability } from '../../../simulator/host.ts';
import { startSimulator, type RunningSimulator } from '../../../simulator/index.ts';
import {
  registerIssuerDid,
  startVaultTestEnv,
  type MintedKey,
  type VaultTestEnv,
} from '../../../test-support/vault-api.ts';
import { signPrepared } from '../../cli/sign.ts';
import { closeLedgersUntil, SMALL_TTL } from '../../../test-support/ttl.ts';

const V2 = 'https://www.w3.org/ns/credentials/v2';
const PATH = '/contracts/vault/extend-ttl';

let sim: RunningSimulator;
let env: VaultTestEnv;
let issuer: Keypair;
let issuerKey: MintedKey;
let issuerDid: string;

const net = () => sim.sim.network('testnet');
const latest = () => net().ledger.latest.seq;
const closeUntil = (seq: number): void => closeLedgersUntil(sim, seq);
const call = (path: string, key: MintedKey, body?: unknown) =>
  env.request(path, { key: key.key, ...(body !== undefined ? { body } : {}) });

async function submit(path: string, xdrText: string, key: MintedKey, signer: Keypair) {
  const r = await call(path, key, { signedXdr: env.sign(xdrText, signer) });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r;
}

async function write(path: string, body: unknown, key: MintedKey, signer: Keypair): Promise<void> {
  const prepared = await call(path, key, body);
  expect(prepared.status, JSON.stringify(prepared.body)).toBe(200);
  await submit(path, prepared.body.xdr as string, key, signer);
}

interface Owner {
  kp: Keypair;
  key: MintedKey;
  vault: string;
}

/** A funded owner with a key and a deployed vault. */
async function newOwner(): Promise<Owner> {
  const kp = await env.fund();
  const key = await env.mintKey({ wallet: kp });
  await write(
    '/contracts/vault/create',
    { owner: kp.publicKey(), didUri: 'did:ledger:testnet:owner', sourcePublicKey: kp.publicKey() },
    key,
    kp,
  );
  return { kp, key, vault: env.chain.vaultAddress(kp.publicKey()) };
}

const issue = (owner: Owner, vcId: string) =>
  write(
    '/contracts/vc/issue',
    {
      owner: owner.kp.publicKey(),
      vcId,
      vcData: JSON.stringify({
        '@context': [V2],
        type: ['VerifiableCredential'],
        issuer: issuerDid,
        credentialSubject: { id: owner.kp.publicKey() },
      }),
      issuer: issuer.publicKey(),
      issuerDid,
      sourcePublicKey: issuer.publicKey(),
    },
    issuerKey,
    issuer,
  );

const getVc = (owner: Owner, vcId: string) =>
  call('/contracts/vault/get-vc', owner.key, { owner: owner.kp.publicKey(), vcId });

/** The live-until ledger of the vault's instance (getLedgerEntries; 0 once archived). */
async function instanceLiveUntil(vault: string): Promise<number> {
  const res = await env.chain.client.getLedgerEntries([new Contract(vault).getFootprint()]);
  return res.entries[0]!.liveUntilLedgerSeq!;
}

beforeAll(async () => {
  sim = await startSimulator({ port: 0, ttl: SMALL_TTL });
  env = await startVaultTestEnv({ network: 'testnet', simulator: sim });
  issuer = await env.fund();
  issuerKey = await env.mintKey({ wallet: issuer, role: 'early' }); // its write bucket holds every test's issues
  issuerDid = await registerIssuerDid(env, issuer);
}, 60_000);

afterAll(async () => {
  await env?.close();
  await sim?.close();
});

describe('POST /contracts/vault/extend-ttl', () => {
  it('prepares an extension with its fee, and once submitted the credential outlives its first TTL', async () => {
    const owner = await newOwner();
    await issue(owner, 'vc-1');
    await issue(owner, 'vc-2');
    const issuedIn = latest();
    const prepared = await call(PATH, owner.key, {
      owner: owner.kp.publicKey(),
      vcIds: ['vc-1'],
      ledgers: 200,
      sourcePublicKey: owner.kp.publicKey(),
    });
    expect(prepared.status, JSON.stringify(prepared.body)).toBe(200);
    expect(prepared.body).toMatchObject({
      operation: 'extendFootprintTtl',
      vault: owner.vault,
      vcIds: ['vc-1'],
      restoring: [],
      ledgers: 200,
      network: env.passphrase,
      networkPassphrase: env.passphrase,
    });
    expect(prepared.body.liveUntilLedger).toBe(latest() + 1 + 200);
    const tx = TransactionBuilder.fromXdr(prepared.body.xdr, env.passphrase);
    expect(prepared.body.fee).toBe(tx.fee);
    expect(BigInt(prepared.body.fee)).toBeGreaterThan(100n); // the inclusion fee and the resources, rent included
    expect(prepared.headers.get('x-writeratelimit-limit')).not.toBeNull(); // the write bucket
    // the submit with an Idempotency-Key; its retry is answered from the store, not sent again
    const signedXdr = env.sign(prepared.body.xdr, owner.kp);
    const once = { key: owner.key.key, body: { signedXdr }, headers: { 'Idempotency-Key': `extend-${issuedIn}` } };
    const sent = await env.request(PATH, once);
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const retry = await env.request(PATH, once);
    expect(retry.body).toEqual(sent.body);
    expect(retry.headers.get('idempotency-replayed')).toBe('true');
    expect(await instanceLiveUntil(owner.vault)).toBeGreaterThanOrEqual(issuedIn + 200);

    closeUntil(issuedIn + SMALL_TTL.minPersistentTTL + 2);
    const got = await getVc(owner, 'vc-1');
    expect(got.status, JSON.stringify(got.body)).toBe(200);
    // vc-2 was not named: its own entries ran out, however live its vault is
    const other = await getVc(owner, 'vc-2');
    expect({ status: other.status, error: other.body.error }).toEqual({ status: 409, error: 'state_archived' });
  });

  it('over archived state prepares the restore first; restored and extended, the credential reads again', async () => {
    const owner = await newOwner();
    await issue(owner, 'vc-a');
    await issue(owner, 'vc-b');
    closeUntil(latest() + SMALL_TTL.minPersistentTTL + 2);
    expect((await getVc(owner, 'vc-a')).body.error).toBe('state_archived');

    // no vcIds: every credential the vault lists; no ledgers: the network's maximum
    const body = { owner: owner.kp.publicKey(), sourcePublicKey: owner.kp.publicKey() };
    const restore = await call(PATH, owner.key, body);
    expect(restore.status, JSON.stringify(restore.body)).toBe(200);
    expect(restore.body).toMatchObject({ operation: 'restoreFootprint', vcIds: ['vc-a', 'vc-b'], ledgers: 399 });
    expect(restore.body.liveUntilLedger).toBeUndefined();
    expect(restore.body.restoring).toHaveLength(5); // the instance, and each credential's data and status
    for (const k of restore.body.restoring) expect(xdr.LedgerKey.fromXdr(k, 'base64').type).toBe('contractData');
    // signed as `credential-vault tx sign` signs a prepare answer (no authorization entries: the envelope only)
    const signed = await signPrepared({
      xdr: restore.body.xdr,
      passphrase: restore.body.networkPassphrase,
      keypair: owner.kp,
    });
    expect({ envelopeSigned: signed.envelopeSigned, authEntriesSigned: signed.authEntriesSigned }).toEqual({
      envelopeSigned: true,
      authEntriesSigned: 0,
    });
    const restored = await call(PATH, owner.key, { signedXdr: signed.signedXdr });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect((await getVc(owner, 'vc-a')).status).toBe(200);

    const extend = await call(PATH, owner.key, body);
    expect(extend.status, JSON.stringify(extend.body)).toBe(200);
    expect(extend.body).toMatchObject({ operation: 'extendFootprintTtl', restoring: [], ledgers: 399 });
    await submit(PATH, extend.body.xdr, owner.key, owner.kp);
    const extendedIn = latest();
    expect(await instanceLiveUntil(owner.vault)).toBeGreaterThanOrEqual(extendedIn + 398);
    closeUntil(extendedIn + SMALL_TTL.minPersistentTTL + 5);
    for (const vcId of ['vc-a', 'vc-b']) expect((await getVc(owner, vcId)).status).toBe(200);
  });

  it('refuses bad input: 400 for the body, 404 for a missing vault or credential, 403 for another owner', async () => {
    const owner = await newOwner();
    await issue(owner, 'vc-x');
    const me = owner.kp.publicKey();
    const base = { owner: me, sourcePublicKey: me };
    const refusal = async (body: unknown, key = owner.key) => {
      const r = await call(PATH, key, body);
      return { status: r.status, error: r.body.error as string, message: r.body.message as string };
    };
    const many = Array.from({ length: 25 }, (_, i) => `vc-${i}`);
    expect(await refusal({ ...base, vcIds: many })).toMatchObject({ status: 400, error: 'invalid_request' });
    expect(await refusal({ ...base, vcIds: [] })).toMatchObject({ status: 400, error: 'invalid_request' });
    expect(await refusal({ ...base, vcIds: ['vc-x', 'vc-x'] })).toMatchObject({
      status: 400,
      error: 'invalid_request',
    });
    expect(await refusal({ ...base, ledgers: 0 })).toMatchObject({ status: 400, error: 'invalid_request' });
    expect(await refusal({ ...base, ledgers: 3_110_400 })).toMatchObject({ status: 400, error: 'invalid_request' });
    // within the spec's bound, beyond this network's maximum TTL
    const tooLong = await refusal({ ...base, ledgers: 400 });
    expect(tooLong).toMatchObject({ status: 400, error: 'invalid_request' });
    expect(tooLong.message).toContain('399');
    expect(await refusal({ ...base, surplus: 1 })).toMatchObject({ status: 400, error: 'invalid_request' });
    expect(await refusal({ ...base, vcIds: ['vc-x', 'nope'] })).toMatchObject({ status: 404, error: 'vc_not_found' });
    const salted = { ...base, userSalt: 'ab'.repeat(32) };
    expect(await refusal(salted)).toMatchObject({ status: 404, error: 'vault_not_found' });
    const stranger = await env.mintKey({ wallet: Keypair.random() });
    expect(await refusal(base, stranger)).toMatchObject({ status: 403, error: 'forbidden' });
  });

  it('without vcIds, a vault that lists more than 24 credentials is 400 batch_too_large; naming 24 of them works', async () => {
    const owner = await newOwner();
    const me = owner.kp.publicKey();
    const vcData = JSON.stringify({
      '@context': [V2],
      type: ['VerifiableCredential'],
      issuer: issuerDid,
      credentialSubject: { id: me },
    });
    const ids = Array.from({ length: 25 }, (_, i) => `vc-${i}`);
    for (let i = 0; i < ids.length; i += 5) {
      const vcs = ids.slice(i, i + 5).map((vcId) => ({ vcId, vcData }));
      const body = { owner: me, issuer: issuer.publicKey(), issuerDid, vcs, sourcePublicKey: issuer.publicKey() };
      await write('/contracts/vc/batch-issue', body, issuerKey, issuer);
    }
    const all = await call(PATH, owner.key, { owner: me, sourcePublicKey: me });
    expect({ status: all.status, error: all.body.error }).toEqual({ status: 400, error: 'batch_too_large' });
    expect(all.body.message).toContain('25 credentials');
    const named = await call(PATH, owner.key, { owner: me, vcIds: ids.slice(1), sourcePublicKey: me });
    expect(named.status, JSON.stringify(named.body)).toBe(200);
    expect(named.body.vcIds).toHaveLength(24);
    await submit(PATH, named.body.xdr, owner.key, owner.kp);
  });

  it("submit refuses a transaction that is not this route's: another operation, or a vault the key does not own", async () => {
    const owner = await newOwner();
    const other = await newOwner();
    await issue(owner, 'vc-s');
    const me = owner.kp.publicKey();
    const revoke = await call('/contracts/vc/revoke', owner.key, { owner: me, vcId: 'vc-s', sourcePublicKey: me });
    expect(revoke.status).toBe(200);
    const wrongOp = await call(PATH, owner.key, { signedXdr: env.sign(revoke.body.xdr, owner.kp) });
    expect({ status: wrongOp.status, error: wrongOp.body.error }).toEqual({
      status: 400,
      error: 'tx_operation_mismatch',
    });

    // the other owner's extension, signed by its owner, sent with this owner's key
    const theirs = await call(PATH, other.key, { owner: other.kp.publicKey(), sourcePublicKey: other.kp.publicKey() });
    expect(theirs.status).toBe(200);
    const foreign = await call(PATH, owner.key, { signedXdr: env.sign(theirs.body.xdr, other.kp) });
    expect({ status: foreign.status, error: foreign.body.error }).toEqual({ status: 403, error: 'forbidden' });
    expect(foreign.body.message).toContain(other.kp.publicKey());
    const unsigned = await call(PATH, other.key, { signedXdr: theirs.body.xdr });
    expect({ status: unsigned.status, error: unsigned.body.error }).toEqual({ status: 400, error: 'tx_invalid' });
  });
});

describe('a credential issued late in its vault life', () => {
  it('is readable up to the vault instance TTL, the earlier boundary, and archived the ledger after', async () => {
    const owner = await newOwner();
    closeUntil(latest() + 20); // half the vault's TTL gone before the credential is issued
    await issue(owner, 'vc-late');
    const boundary = await instanceLiveUntil(owner.vault);
    const vcEntry = await env.chain.client.getLedgerEntries([
      xdr.LedgerKey.contractData(
        new xdr.LedgerKeyContractData({
          contract: new Contract(owner.vault).address().toScAddress(),
          key: xdr.ScVal.scvVec([xdr.ScVal.scvSymbol('VC'), xdr.ScVal.scvString('vc-late')]),
          durability: xdr.ContractDataDurability.persistent,
        }),
      ),
    ]);
    // the credential's own entry lives past its vault's instance
    expect(vcEntry.entries[0]!.liveUntilLedgerSeq!).toBeGreaterThan(boundary + 10);
    // A read runs in the ledger after the latest closed one (simulation's ledger); it is live there while that
    // ledger is at most the instance's live-until ledger (docs/vault-api.md "Credential lifetime").
    const readIn = async (ledger: number) => {
      closeUntil(ledger - 1);
      expect(latest()).toBe(ledger - 1);
      const r = await getVc(owner, 'vc-late');
      return { status: r.status, error: r.body.error };
    };
    expect(await readIn(boundary - 1)).toEqual({ status: 200, error: undefined });
    expect(await readIn(boundary)).toEqual({ status: 200, error: undefined });
    const after = await readIn(boundary + 1);
    expect(after).toEqual({ status: 409, error: 'state_archived' });
    const v = await call('/contracts/vault/verify-vc', owner.key, { owner: owner.kp.publicKey(), vcId: 'vc-late' });
    expect({ status: v.status, error: v.body.error }).toEqual({ status: 409, error: 'state_archived' });
  });
});

/** The simulator's vault with every persistent key moved under `ScVec[U32(7), key]`: a storage layout the service
 *  cannot have copied, behind the same functions. */
function relaid(impl: ContractImpl): ContractImpl {
  const moved = (k: xdr.ScVal, d?: Durability) =>
    d === undefined || d === 'persistent' ? xdr.ScVal.scvVec([xdr.ScVal.scvU32(7), k]) : k;
  const inner = (ctx: ContractContext): ContractContext => {
    const s = ctx.storage;
    const storage: ContractStorage = {
      get: (k, d) => s.get(moved(k, d), d),
      set: (k, v, d) => s.set(moved(k, d), v, d),
      has: (k, d) => s.has(moved(k, d), d),
      remove: (k, d) => s.remove(moved(k, d), d),
    };
    return new Proxy(ctx, {
      get: (t, p) => {
        if (p === 'storage') return storage;
        const v: unknown = Reflect.get(t, p, t);
        return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(t) : v;
      },
    });
  };
  return {
    name: impl.name,
    ...(impl.functions ? { functions: impl.functions } : {}),
    ...(impl.construct ? { construct: (ctx, args) => impl.construct!(inner(ctx), args) } : {}),
    invoke: (ctx, fn, args) => impl.invoke(inner(ctx), fn, args),
  };
}

describe('a vault whose storage layout is not the simulator’s', () => {
  const hash = VAULT_WASM_HASH.toString('hex');
  const original = contractImpls.get(hash)!;
  beforeAll(() => void contractImpls.set(hash, relaid(original)));
  afterAll(() => void contractImpls.set(hash, original));

  const fp = (x: string): string[] => {
    const inner = (TransactionBuilder.fromXdr(x, env.passphrase) as Transaction).tx;
    const ext = 'ext' in inner ? inner.ext : undefined;
    if (ext?.type !== 'sorobanData') throw new Error('no footprint');
    const f = ext.sorobanData.resources.footprint;
    return [...f.readOnly, ...f.readWrite].map((k) => k.toXdr('base64')).sort();
  };
  /** The vault's contract data that simulating its reads of `vcId` names (the instance included). */
  const simulated = async (vault: string, vcId: string): Promise<string[]> => {
    const contract = new Contract(vault).address().toScAddress().toXdr('base64');
    const keys = new Set<string>();
    for (const fn of ['get_vc', 'verify_vc']) {
      const r = await env.chain.client.readFootprint({ contractId: vault, fn, args: [xdr.ScVal.scvString(vcId)] });
      for (const k of r.keys)
        if (k.type === 'contractData' && k.contractData.contract.toXdr('base64') === contract)
          keys.add(k.toXdr('base64'));
    }
    return [...keys];
  };
  const vcKey = (vault: string, vcId: string) =>
    xdr.LedgerKey.contractData(
      new xdr.LedgerKeyContractData({
        contract: new Contract(vault).address().toScAddress(),
        key: xdr.ScVal.scvVec([xdr.ScVal.scvSymbol('VC'), xdr.ScVal.scvString(vcId)]),
        durability: xdr.ContractDataDurability.persistent,
      }),
    );

  it('is restored and extended over the keys the simulations of its reads name', async () => {
    const owner = await newOwner();
    await issue(owner, 'vc-x');
    await issue(owner, 'vc-y');
    expect((await getVc(owner, 'vc-x')).status).toBe(200);
    // the simulator's own layout holds nothing here: keys built from it would name no entry
    expect((await env.chain.client.getLedgerEntries([vcKey(owner.vault, 'vc-x')])).entries).toEqual([]);
    const want = [...new Set([...(await simulated(owner.vault, 'vc-x')), ...(await simulated(owner.vault, 'vc-y'))])];
    expect(want).toHaveLength(5); // the instance, and each credential's two entries, wherever they are
    closeUntil(latest() + SMALL_TTL.minPersistentTTL + 2);
    expect((await getVc(owner, 'vc-x')).body.error).toBe('state_archived');

    const body = { owner: owner.kp.publicKey(), vcIds: ['vc-x', 'vc-y'], sourcePublicKey: owner.kp.publicKey() };
    const restore = await call(PATH, owner.key, body);
    expect(restore.status, JSON.stringify(restore.body)).toBe(200);
    expect(restore.body.operation).toBe('restoreFootprint');
    expect([...restore.body.restoring].sort()).toEqual([...want].sort());
    expect(fp(restore.body.xdr)).toEqual([...want].sort());
    await submit(PATH, restore.body.xdr, owner.key, owner.kp);

    const extend = await call(PATH, owner.key, { ...body, ledgers: 300 });
    expect(extend.status, JSON.stringify(extend.body)).toBe(200);
    expect(extend.body).toMatchObject({ operation: 'extendFootprintTtl', restoring: [] });
    expect(fp(extend.body.xdr)).toEqual([...want].sort());
    await submit(PATH, extend.body.xdr, owner.key, owner.kp);
    const extendedIn = latest();
    const entries = await env.chain.client.getLedgerEntries(want.map((k) => xdr.LedgerKey.fromXdr(k, 'base64')));
    expect(entries.entries).toHaveLength(5);
    for (const e of entries.entries) expect(e.liveUntilLedgerSeq!).toBeGreaterThanOrEqual(extendedIn + 299);
    closeUntil(extendedIn + SMALL_TTL.minPersistentTTL + 5);
    for (const vcId of ['vc-x', 'vc-y']) expect((await getVc(owner, vcId)).status).toBe(200);
  });
});
