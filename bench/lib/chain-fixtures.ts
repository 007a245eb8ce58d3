// Chain state for the benchmarks, made fast through the simulator's in-process API: funded accounts, issuer
// DIDs in the registry, vaults from the factory, and vaults filled with batch_issue (5 credentials a
// transaction, signed and checked like any other).
import { Address, Keypair, xdr } from '@stellar/stellar-sdk';
import type { InvokeResult, SimNetwork } from '../../simulator/index.ts';
import { address } from '../../src/chain/codec.ts';
import { encodeDidRecord } from '../../src/chain/registry.ts';
import { didIdToBytes, encodeMultikey, generateDid } from '../../src/did/index.ts';

/** Enough for hundreds of thousands of 5-unit credential fees. */
export const BENCH_FUNDING = 10n ** 16n;
export const BATCH = 5;

const str = (s: string) => xdr.ScVal.scvString(s);
// The shared codec's cached address encoding, as the service and the contracts use it.
const addr = (a: string) => address(a);

/** A stored payload the size of a real encrypted credential (the contract does not look inside). */
export const FILL_DATA = `v1.gcm.bench.${'A'.repeat(360)}`;

function ok(r: InvokeResult, what: string): xdr.ScVal {
  if (r.status !== 'SUCCESS')
    throw new Error(
      `${what} failed at ${r.stage}: ${r.error}${r.contractError !== undefined ? ` (#${r.contractError})` : ''}`,
    );
  return r.returnValue;
}

export function fundedAccount(net: SimNetwork): Keypair {
  const kp = Keypair.random();
  net.fund(kp.publicKey(), BENCH_FUNDING);
  return kp;
}

/** Registers a did:ledger DID controlled by `controller`, with its key as the authentication key. */
export function registerDid(net: SimNetwork, controller: Keypair): string {
  const { did, didId } = generateDid({ network: net.name });
  const record = encodeDidRecord({
    controller: controller.publicKey(),
    authentication: [{ publicKeyMultibase: encodeMultikey('Ed25519', controller.rawPublicKey()) }],
    assertionMethod: [{ publicKeyMultibase: encodeMultikey('Ed25519', controller.rawPublicKey()) }],
    keyAgreement: [],
    services: [],
  });
  ok(
    net.invoke({
      source: controller,
      contractId: net.info.registryId,
      fn: 'register',
      args: [xdr.ScVal.scvBytes(Buffer.from(didIdToBytes(didId))), record],
    }),
    'register DID',
  );
  return did;
}

/** Deploys the owner's canonical vault (user salt of 32 zero bytes); returns its C… address. */
export function deployVault(net: SimNetwork, owner: Keypair, didUri: string): string {
  const ret = ok(
    net.invoke({
      source: owner,
      contractId: net.info.factoryId,
      fn: 'deploy',
      args: [addr(owner.publicKey()), str(didUri), xdr.ScVal.scvBytes(Buffer.alloc(32))],
    }),
    'deploy vault',
  );
  return Address.fromScVal(ret).toString();
}

export interface Issuer {
  keypair: Keypair;
  did: string;
}

export function issuer(net: SimNetwork): Issuer {
  const keypair = fundedAccount(net);
  return { keypair, did: registerDid(net, keypair) };
}

export function vcId(prefix: string, i: number): string {
  return `${prefix}-${String(i).padStart(6, '0')}`;
}

/** Issues `count` credentials `${prefix}-000000…` into `vault`, 5 a transaction; returns the time taken. */
export function fillVault(
  net: SimNetwork,
  o: { vault: string; issuer: Issuer; count: number; prefix: string; maxMs?: number },
): { count: number; ms: number } {
  const t0 = performance.now();
  const deadline = t0 + (o.maxMs ?? 600_000);
  let done = 0;
  while (done < o.count) {
    if (performance.now() > deadline)
      throw new Error(`filling ${o.vault} stopped at ${done} of ${o.count}: over ${o.maxMs} ms`);
    const n = Math.min(BATCH, o.count - done);
    const vcs = Array.from({ length: n }, (_, k) => xdr.ScVal.scvVec([str(vcId(o.prefix, done + k)), str(FILL_DATA)]));
    ok(
      net.invoke({
        source: o.issuer.keypair,
        contractId: o.vault,
        fn: 'batch_issue',
        args: [addr(o.issuer.keypair.publicKey()), addr(o.vault), str(o.issuer.did), xdr.ScVal.scvVec(vcs)],
      }),
      `batch_issue at ${done}`,
    );
    done += n;
  }
  return { count: done, ms: performance.now() - t0 };
}

/** The arguments of `issue(vc_id, vc_data, vault_contract, issuer, issuer_did)`. */
export function issueArgs(
  vault: string,
  issuerAccount: string,
  issuerDid: string,
  id: string,
  data = FILL_DATA,
): xdr.ScVal[] {
  return [str(id), str(data), addr(vault), addr(issuerAccount), str(issuerDid)];
}
