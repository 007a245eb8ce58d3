// The TTL a credential gets on the public networks' settings (docs/vault-api.md "Credential lifetime", docs/chain-abi.md
// "State archival"): the entries an issue through the API creates live the minimum persistent TTL from the issue's
// ledger, as getLedgerEntries reports them (`liveUntilLedgerSeq`). The figure is read from docs/vault-api.md, so the
// promise to users, the simulator's default settings and what the RPC answers are one number.
import { readFileSync } from 'node:fs';
import { xdr } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TTL_SETTINGS } from '../../../simulator/core/ledger.ts';
import { startVerificationEnv, type VerificationEnv } from '../../../test-support/verification.ts';

const VAULT_API_DOC = readFileSync(new URL('../../../docs/vault-api.md', import.meta.url), 'utf8');

/** docs/vault-api.md's figure for a credential's lifetime, in ledgers. */
function documentedMinPersistentTtl(): number {
  const m = /lives the network's minimum persistent TTL from its issue:\s+([\d,]+) ledgers/.exec(VAULT_API_DOC);
  if (!m) throw new Error('docs/vault-api.md "Credential lifetime" names no minimum persistent TTL');
  return Number(m[1]!.replaceAll(',', ''));
}

let t: VerificationEnv;
beforeAll(async () => {
  t = await startVerificationEnv(); // a simulator of its own, on its default (the public networks') settings
}, 120_000);
afterAll(async () => {
  await t?.close();
});

describe("a credential's TTL on the public networks' settings", () => {
  it("docs/vault-api.md's figure is the simulator's default minimum persistent TTL (2,073,600 ledgers)", () => {
    expect(documentedMinPersistentTtl()).toBe(TTL_SETTINGS.minPersistentTTL);
    expect(TTL_SETTINGS.minPersistentTTL).toBe(2_073_600);
  });

  it('the entries an issue creates live until its ledger + minPersistentTTL - 1 (getLedgerEntries liveUntilLedgerSeq)', async () => {
    const vcId = `vc-ttl-${crypto.randomUUID().slice(0, 8)}`;
    const body = {
      owner: t.holder.wallet.publicKey(),
      vcId,
      vcData: JSON.stringify(await t.sign()),
      issuer: t.issuer.wallet.publicKey(),
      issuerDid: t.issuer.did,
      sourcePublicKey: t.issuer.wallet.publicKey(),
    };
    const prepared = await t.call('/contracts/vc/issue', body, t.issuer.key);
    expect(prepared.status, JSON.stringify(prepared.body)).toBe(200);
    const signedXdr = t.env.sign(prepared.body.xdr, t.issuer.wallet);
    const submitted = await t.call('/contracts/vc/issue', { signedXdr }, t.issuer.key);
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);

    const net = t.env.simulator!.sim.network(t.env.network);
    const tx = (await net.rpc('getTransaction', { hash: submitted.body.txId })) as {
      status: string;
      ledger: number;
      resultMetaXdr: string;
    };
    expect(tx.status).toBe('SUCCESS');
    // what the issue created: its operation's `created` changes (the credential and its status)
    const meta = xdr.expectUnionVariant(xdr.TransactionMeta.fromXdr(tx.resultMetaXdr, 'base64'), 'v4').v4;
    const persistent = meta.operations
      .flatMap((op) => op.changes)
      .flatMap((c) => (c.type === 'ledgerEntryCreated' ? [c.created.data] : []))
      .flatMap((d) => (d.type === 'contractData' ? [d.contractData] : []))
      .filter((d) => d.durability === xdr.ContractDataDurability.persistent);
    expect(persistent.length, 'the issue created persistent contract data').toBeGreaterThanOrEqual(2);
    const keys = persistent.map((d) =>
      xdr.LedgerKey.contractData(
        new xdr.LedgerKeyContractData({ contract: d.contract, key: d.key, durability: d.durability }),
      ).toXdr('base64'),
    );

    const got = (await net.rpc('getLedgerEntries', { keys })) as {
      entries: { key: string; liveUntilLedgerSeq: number; lastModifiedLedgerSeq: number }[];
    };
    const want = tx.ledger + documentedMinPersistentTtl() - 1;
    expect(got.entries.map((e) => [e.key, e.lastModifiedLedgerSeq, e.liveUntilLedgerSeq])).toEqual(
      keys.map((k) => [k, tx.ledger, want]),
    );
  });
});
