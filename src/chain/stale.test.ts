// Prepare snapshots the ledger. When another transaction lands between prepare and submit and moves
// what this one must touch outside its footprint, submit fails with 409 `tx_stale` (prepare again).
import { afterAll, beforeAll, expect, it } from 'vitest';
import { Keypair, TransactionBuilder } from '@stellar/stellar-sdk';
import { createChain, type Chain } from './index.ts';
import { ChainError } from './errors.ts';
import { startSimulator, type RunningSimulator } from '../../simulator/index.ts';

let sim: RunningSimulator;
let chain: Chain;

beforeAll(async () => {
  sim = await startSimulator({ port: 0 });
  const net = sim.networks.testnet;
  chain = createChain({
    rpcUrl: net.rpcUrl!,
    networkPassphrase: net.passphrase,
    network: 'testnet',
    simulationAccount: net.admin.publicKey,
    allowHttp: true,
    timeouts: { rpcMs: 5_000, submitMs: 20_000, pollIntervalMs: 50 },
    factoryId: net.factoryId,
    registryId: net.registryId,
    feeTokenId: net.feeTokenId,
  });
});
afterAll(async () => {
  await sim?.close();
});

async function funded(): Promise<Keypair> {
  const kp = Keypair.random();
  const res = await fetch(`${sim.networks.testnet.friendbotUrl!}?addr=${kp.publicKey()}`);
  expect(res.ok).toBe(true);
  return kp;
}
const sign = (p: { xdr: string; network: string }, kp: Keypair) => {
  const tx = TransactionBuilder.fromXdr(p.xdr, p.network);
  tx.sign(kp);
  return tx.toXdr();
};

it('two issuers prepare into the same vault; the second submit is tx_stale and succeeds when prepared again', async () => {
  const [owner, a, b] = await Promise.all([funded(), funded(), funded()]);
  const deployed = await chain.factory.deploy({
    source: owner.publicKey(),
    owner: owner.publicKey(),
    didUri: 'did:web:o',
  });
  await chain.client.submit(sign(deployed, owner));
  const vault = chain.vaultAddress(owner.publicKey());
  const issue = (kp: Keypair, vcId: string) =>
    chain.vault.issue({
      source: kp.publicKey(),
      vault,
      vcId,
      vcData: 'cipher',
      issuer: kp.publicKey(),
      issuerDid: 'did:ledger:testnet:aaaaaaaaaaaaaaaaaaaaaaaaaa',
    });

  const [pa, pb] = await Promise.all([issue(a, 'vc-a'), issue(b, 'vc-b')]);
  await chain.client.submit(sign(pa, a));
  const err = await chain.client.submit(sign(pb, b)).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ChainError);
  expect((err as ChainError).code).toBe('tx_stale');
  expect((err as ChainError).status).toBe(409);
  expect((err as ChainError).message).toMatch(/footprint/);

  await chain.client.submit(sign(await issue(b, 'vc-b'), b));
  expect(await chain.vault.listVcIds({ vault, offset: 0, limit: 10 })).toEqual(['vc-a', 'vc-b']);
});
