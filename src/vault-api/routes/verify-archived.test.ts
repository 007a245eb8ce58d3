// POST /credentials/verify and state archival (docs/vault-api.md "Credential lifetime"), against a simulator with
// small TTL settings so the test closes ledgers past them: by reference (owner + vcId) a credential past its TTL
// answers 409 state_archived naming the ledger keys to restore, as get-vc does; a presented credential whose
// LedgerVaultStatusEntry points at archived state gets `status_unconfirmed` for that entry. And the other cause of
// `status_unconfirmed` for a LedgerVaultStatusEntry under a verified proof: a vault copy this service cannot open.
import { xdr } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type RunningSimulator } from '../../../simulator/index.ts';
import type { ApiResponse, MintedKey } from '../../../test-support/vault-api.ts';
import { startVerificationEnv, type VerificationEnv } from '../../../test-support/verification.ts';
import { SMALL_TTL } from '../../../test-support/ttl.ts';

type Problem = { reason: string; level: string };
const reasons = (body: { problemDetails?: Problem[] }, level = 'error') =>
  (body.problemDetails ?? []).filter((p) => p.level === level).map((p) => p.reason);
const verify = (t: VerificationEnv, body: unknown, key?: MintedKey) => t.call('/credentials/verify', body, key);
const show = (r: ApiResponse) => JSON.stringify(r.body).slice(0, 600);

describe('past the TTL (a simulator whose persistent entries live 40 ledgers)', () => {
  let sim: RunningSimulator;
  let t: VerificationEnv;
  let vcEntry: Record<string, unknown>;
  const byReference = () => verify(t, { owner: t.holder.wallet.publicKey(), vcId: 'vc-1' }, t.holder.key);

  beforeAll(async () => {
    sim = await startSimulator({ port: 0, ttl: SMALL_TTL });
    t = await startVerificationEnv({ simulator: sim });
    await t.issue('vc-1', await t.sign());
    vcEntry = await t.sign({ statusFor: 'vc-entry' });
    await t.issue('vc-entry', vcEntry);
    // The control: within the TTL the same requests verify.
    const live = await byReference();
    expect([live.status, live.body.verified], show(live)).toEqual([200, true]);
    const presented = await verify(t, { verifiableCredential: vcEntry });
    expect([presented.status, presented.body.results?.credentialStatus?.[0]?.status], show(presented)).toEqual([
      200,
      'valid',
    ]);
    // Every entry of the vault (its instance, the credentials) was written at most now: past now + TTL all are archived.
    const net = sim.sim.network('testnet');
    const past = net.ledger.latest.seq + SMALL_TTL.minPersistentTTL;
    while (net.ledger.latest.seq <= past) net.closeLedger();
  }, 120_000);

  afterAll(async () => {
    await t?.close();
    await sim?.close();
  });

  it('by reference: 409 state_archived, naming the ledger keys to restore (base64 LedgerKeys), not the credential', async () => {
    const r = await byReference();
    expect({ status: r.status, error: r.body.error }, show(r)).toEqual({ status: 409, error: 'state_archived' });
    const keys = (r.body.message as string).match(/AAAA[A-Za-z0-9+/=]{20,}/g) ?? [];
    expect(keys.length).toBeGreaterThanOrEqual(1);
    for (const k of keys) expect(xdr.LedgerKey.fromXdr(k, 'base64').type).toBe('contractData');
    expect(JSON.stringify(r.body)).not.toContain('credentialSubject');
    // get-vc names the same keys (docs/vault-api.md: the two answer alike)
    const got = await t.call(
      '/contracts/vault/get-vc',
      { owner: t.holder.wallet.publicKey(), vcId: 'vc-1' },
      t.holder.key,
    );
    expect([got.status, got.body.error]).toEqual([409, 'state_archived']);
    expect((got.body.message as string).match(/AAAA[A-Za-z0-9+/=]{20,}/g)).toEqual(keys);
  });

  it('a presented credential whose LedgerVaultStatusEntry is archived: status_unconfirmed for that entry, not verified, never a 409 or a 500', async () => {
    const r = await verify(t, { verifiableCredential: vcEntry });
    expect(r.status, show(r)).toBe(400);
    expect(r.body.verified).toBe(false);
    expect(reasons(r.body)).toEqual(['status_unconfirmed']);
    expect(r.body.results.credentialStatus).toEqual([{ verified: false, input: t.statusEntry('vc-entry') }]);
    const problem = (r.body.problemDetails as (Problem & { detail: string })[]).find(
      (p) => p.reason === 'status_unconfirmed',
    );
    expect(problem?.detail).toMatch(/archived/);
    // the proof itself still verifies: only the status is unknown
    expect(r.body.results.proof).toEqual([expect.objectContaining({ verified: true })]);
  });

  it('the reads docs/vault-api.md says keep answering do: vc-count', async () => {
    const count = await t.env.request(`/contracts/vault/vc-count?owner=${t.holder.wallet.publicKey()}`, {
      key: t.holder.key.key,
    });
    expect(count.status, JSON.stringify(count.body)).toBe(200);
    expect(count.body.count).toBe(2);
  });
});

describe('a LedgerVaultStatusEntry whose vault copy this service cannot open', () => {
  let t: VerificationEnv;
  let vc: Record<string, unknown>;

  beforeAll(async () => {
    t = await startVerificationEnv();
    vc = await t.sign({ statusFor: 'vc-foreign' });
    // Issued on the chain directly, not through this service: the vault holds the credential in the clear, not
    // sealed in this service's envelope, so the service cannot match it with the one presented.
    const prepared = await t.env.chain.vault.issue({
      vault: t.vault,
      source: t.issuer.wallet.publicKey(),
      vcId: 'vc-foreign',
      vcData: JSON.stringify(vc),
      issuer: t.issuer.wallet.publicKey(),
      issuerDid: t.issuer.did,
    });
    await t.env.chain.client.submit(t.env.sign(prepared.xdr, t.issuer.wallet));
  }, 120_000);

  afterAll(async () => {
    await t?.close();
  });

  it('status_unconfirmed: the status is not taken from a slot that cannot be matched with the credential presented', async () => {
    const r = await verify(t, { verifiableCredential: vc });
    expect(r.status, show(r)).toBe(400);
    expect(reasons(r.body)).toEqual(['status_unconfirmed']);
    expect(r.body.results.credentialStatus).toEqual([{ verified: false, input: t.statusEntry('vc-foreign') }]);
    const problem = (r.body.problemDetails as (Problem & { detail: string })[]).find(
      (p) => p.reason === 'status_unconfirmed',
    );
    expect(problem?.detail).toMatch(/cannot be opened by this service/);
  });
});
