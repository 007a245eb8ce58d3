// The simulator over HTTP, driven by the unmodified SDK: rpc.Server and contract.Client (prepare → sign → send →
// poll → return value), friendbot, ledger entries, events, classic USDC operations, and JSON-RPC framing.
import {
  Asset,
  BASE_FEE,
  Keypair,
  Networks,
  Operation,
  TransactionBuilder,
  contract,
  rpc,
  scValToNative,
  xdr,
} from '@stellar/stellar-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deriveVaultAddress } from '../src/chain/derive.ts';
import { startSimulator, type RunningSimulator } from './index.ts';

const T = xdr.ScSpecTypeDef;
const input = (name: string, type: xdr.ScSpecTypeDef) => new xdr.ScSpecFunctionInputV0({ doc: '', name, type });
const fn = (name: string, inputs: xdr.ScSpecFunctionInputV0[], outputs: xdr.ScSpecTypeDef[]) =>
  xdr.ScSpecEntry.scSpecEntryFunctionV0(new xdr.ScSpecFunctionV0({ doc: '', name, inputs, outputs }));

const factorySpec = new contract.Spec([
  fn(
    'deploy',
    [
      input('owner', T.scSpecTypeAddress()),
      input('did_uri', T.scSpecTypeString()),
      input('user_salt', T.scSpecTypeBytesN(new xdr.ScSpecTypeBytesN({ n: 32 }))),
    ],
    [T.scSpecTypeAddress()],
  ),
]);
const vaultSpec = new contract.Spec([
  fn(
    'issue',
    [
      input('vc_id', T.scSpecTypeString()),
      input('vc_data', T.scSpecTypeString()),
      input('vault_contract', T.scSpecTypeAddress()),
      input('issuer', T.scSpecTypeAddress()),
      input('issuer_did', T.scSpecTypeString()),
    ],
    [T.scSpecTypeString()],
  ),
  fn('vc_count', [], [T.scSpecTypeU32()]),
]);

let running: RunningSimulator;
let server: rpc.Server;

beforeAll(async () => {
  running = await startSimulator({ port: 0 });
  server = new rpc.Server(running.networks.testnet.rpcUrl!, { allowHttp: true });
});
afterAll(async () => {
  await running?.close();
});

async function post(path: string, body: string): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await fetch(`${running.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

function client<T>(spec: contract.Spec, contractId: string, kp: Keypair): T {
  const net = running.networks.testnet;
  return new contract.Client(spec, {
    contractId,
    networkPassphrase: net.passphrase,
    rpcUrl: net.rpcUrl!,
    allowHttp: true,
    publicKey: kp.publicKey(),
    ...contract.basicNodeSigner(kp, net.passphrase),
  }) as T;
}

type Tx<R> = Promise<contract.AssembledTransaction<R>>;
interface Factory {
  deploy(a: { owner: string; did_uri: string; user_salt: Buffer }): Tx<string>;
}
interface Vault {
  issue(a: { vc_id: string; vc_data: string; vault_contract: string; issuer: string; issuer_did: string }): Tx<string>;
  vc_count(): Tx<number>;
}

describe('Soroban RPC over HTTP with the SDK', () => {
  it('serves network, health and the latest ledger with valid XDR', async () => {
    const n = await server.getNetwork();
    expect(n.passphrase).toBe('Credential Vault Simulator Testnet ; 2026');
    expect(n.protocolVersion).toBe(28);
    expect((await server.getVersionInfo()).protocolVersion).toBe(28);
    expect(n.friendbotUrl).toBe(`${running.url}/testnet/friendbot`);
    expect((await server.getHealth()).status).toBe('healthy');
    const l = await server.getLatestLedger();
    expect(l.headerXdr.ledgerSeq).toBe(l.sequence);
    expect(l.protocolVersion).toBe(28);
    expect(l.headerXdr.ledgerVersion).toBe(28);
    // stellar-core emits LedgerCloseMetaV2 from Protocol 23 on
    expect(l.metadataXdr.type).toBe('v2');
    expect(Number(l.closeTime)).toBeGreaterThan(1_700_000_000);
  });

  it('funds through friendbot and reads the account', async () => {
    const kp = Keypair.random();
    const acc = await server.requestAirdrop(kp.publicKey());
    expect(acc.accountId()).toBe(kp.publicKey());
    const loaded = await server.getAccount(kp.publicKey());
    expect(loaded.sequenceNumber()).toBe(acc.sequenceNumber());
    await expect(server.requestAirdrop(kp.publicKey())).resolves.toBeDefined(); // already funded: the SDK reads it back
    const again = await fetch(`${running.url}/testnet/friendbot?addr=${kp.publicKey()}`);
    expect(again.status).toBe(400);
  });

  it('round-trips contract.Client: deploy, issue (source auth), issue (address auth), read, failure, events', async () => {
    const net = running.networks.testnet;
    const owner = Keypair.random();
    const issuer = Keypair.random();
    await server.requestAirdrop(owner.publicKey());
    await server.requestAirdrop(issuer.publicKey());

    const factory = client<Factory>(factorySpec, net.factoryId, owner);
    const deployTx = await factory.deploy({
      owner: owner.publicKey(),
      did_uri: 'did:ledger:testnet:owner',
      user_salt: Buffer.alloc(32),
    });
    const deployed = await deployTx.signAndSend();
    const vaultId = deployed.result;
    expect(vaultId).toBe(
      deriveVaultAddress({ networkPassphrase: net.passphrase, factoryId: net.factoryId, owner: owner.publicKey() }),
    );

    const asIssuer = client<Vault>(vaultSpec, vaultId, issuer);
    const issueArgs = {
      vc_id: 'vc-1',
      vc_data: 'ciphertext',
      vault_contract: vaultId,
      issuer: issuer.publicKey(),
      issuer_did: 'did:ledger:testnet:issuer',
    };
    const sent = await (await asIssuer.issue(issueArgs)).signAndSend();
    expect(sent.result).toBe('vc-1');
    expect(sent.getTransactionResponse?.status).toBe('SUCCESS');

    // the owner submits, the issuer signs only its auth entry
    const asOwner = client<Vault>(vaultSpec, vaultId, owner);
    const tx = await asOwner.issue({ ...issueArgs, vc_id: 'vc-2' });
    expect(tx.needsNonInvokerSigningBy()).toEqual([issuer.publicKey()]);
    await tx.signAuthEntries({
      address: issuer.publicKey(),
      signAuthEntry: contract.basicNodeSigner(issuer, net.passphrase).signAuthEntry,
    });
    expect((await tx.signAndSend()).result).toBe('vc-2');

    const count = await asOwner.vc_count();
    expect(count.isReadCall).toBe(true);
    expect(count.result).toBe(2);

    const dup = await asIssuer.issue(issueArgs);
    expect(rpc.Api.isSimulationError(dup.simulation!)).toBe(true);
    expect((dup.simulation as rpc.Api.SimulateTransactionErrorResponse).error).toMatch(
      /^HostError: Error\(Contract, #12\)/,
    );

    const latest = await server.getLatestLedger();
    const events = await server.getEvents({
      startLedger: Math.max(latest.sequence - 50, 1),
      filters: [{ type: 'contract', contractIds: [vaultId] }],
    });
    const issued = events.events.filter((e) => scValToNative(e.topic[0]!) === 'vc_issued');
    expect(issued.map((e) => scValToNative(e.value).vc_id)).toEqual(['vc-1', 'vc-2']);
  });

  it('reports sendTransaction ERRORs as TransactionResult XDR (txBadAuth for the wrong network)', async () => {
    const kp = Keypair.random();
    const acc = await server.requestAirdrop(kp.publicKey());
    const tx = new TransactionBuilder(acc, { fee: BASE_FEE, networkPassphrase: Networks.TESTNET })
      .addOperation(
        Operation.payment({
          destination: running.networks.testnet.admin.publicKey,
          asset: Asset.native(),
          amount: '1',
        }),
      )
      .setTimeout(60)
      .build();
    tx.sign(kp);
    const reply = await server.sendTransaction(tx);
    expect(reply.status).toBe('ERROR');
    expect(reply.errorResult!.result.type).toBe('txBadAuth');
  });

  it('mainnet USDC: changeTrust and a payment from the issuer through sendTransaction/pollTransaction', async () => {
    const main = running.networks.mainnet;
    const mserver = new rpc.Server(main.rpcUrl!, { allowHttp: true });
    const info = (await post('/mainnet/rpc', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sim_info' }))).json
      .result as { stablecoinIssuerSecret: string };
    const issuer = Keypair.fromSecret(info.stablecoinIssuerSecret);
    const usdc = new Asset('USDC', main.stablecoin!.issuer);
    const holder = Keypair.random();
    await mserver.requestAirdrop(holder.publicKey());
    const submit = async (kp: Keypair, op: xdr.Operation) => {
      const tx = new TransactionBuilder(await mserver.getAccount(kp.publicKey()), {
        fee: BASE_FEE,
        networkPassphrase: main.passphrase,
      })
        .addOperation(op)
        .setTimeout(60)
        .build();
      tx.sign(kp);
      const sent = await mserver.sendTransaction(tx);
      expect(sent.status).toBe('PENDING');
      return mserver.pollTransaction(sent.hash);
    };
    expect((await submit(holder, Operation.changeTrust({ asset: usdc }))).status).toBe('SUCCESS');
    expect(
      (await submit(issuer, Operation.payment({ destination: holder.publicKey(), asset: usdc, amount: '3' }))).status,
    ).toBe('SUCCESS');
    const line = await mserver.getTrustline(holder.publicKey(), usdc);
    expect(line.balance).toBe(30_000_000n);
  });
});

describe('JSON-RPC framing', () => {
  it('answers without an error key on success, -32700 on bad JSON, -32601 on unknown methods, 413 over 1 MB', async () => {
    const ok = await post('/testnet/rpc', JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'getHealth' }));
    expect(ok.json.id).toBe(7);
    expect('error' in ok.json).toBe(false);
    expect((await post('/testnet/rpc', '{nope')).json.error).toMatchObject({ code: -32700 });
    expect(
      (await post('/testnet/rpc', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'nope' }))).json.error,
    ).toMatchObject({ code: -32601 });
    expect((await post('/testnet/rpc', 'x'.repeat(1_100_000))).status).toBe(413);
    const batch = await fetch(`${running.url}/mainnet/rpc`, {
      method: 'POST',
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'getNetwork' },
        { jsonrpc: '2.0', id: 2, method: 'getLatestLedger' },
      ]),
    });
    expect(((await batch.json()) as unknown[]).length).toBe(2);
    expect((await fetch(`${running.url}/elsewhere/rpc`, { method: 'POST', body: '{}' })).status).toBe(404);
  });
});
