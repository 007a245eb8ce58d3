// src/chain over HTTP JSON-RPC against the RPC simulator, with real signing (SDK keypairs):
// prepare → sign → submit → read back, and the failure codes the routes rely on.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from 'node:net';
import { randomBytes } from 'node:crypto';
import { Address, Keypair, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { createChain, type Chain } from './index.ts';
import { ChainError } from './errors.ts';
import * as inspect from './inspect.ts';
import type { DidRecordInput } from '../did/types.ts';
import type { Network } from '../domain.ts';
import type { ExpectInvocation } from './types.ts';
import { startSimulator, type NetworkInfo, type RunningSimulator } from '../../simulator/index.ts';
import { authOf, withAuth } from '../../simulator/core/testing.ts';
import { authEntries, authorizeEntries } from '../client/auth.ts';

let sim: RunningSimulator;
const chains: Partial<Record<Network, Chain>> = {};

function chainFor(net: NetworkInfo, rpcUrl = net.rpcUrl, readCacheMs = 0): Chain {
  return createChain({
    rpcUrl: rpcUrl!,
    networkPassphrase: net.passphrase,
    network: net.network,
    simulationAccount: net.admin.publicKey,
    allowHttp: true,
    timeouts: { rpcMs: 5_000, submitMs: 20_000, pollIntervalMs: 100 },
    readCacheMs,
    factoryId: net.factoryId,
    registryId: net.registryId,
    feeTokenId: net.feeTokenId,
  });
}

async function funded(net: NetworkInfo): Promise<Keypair> {
  const kp = Keypair.random();
  const res = await fetch(`${net.friendbotUrl!}?addr=${kp.publicKey()}`);
  if (!res.ok) throw new Error(`friendbot: ${res.status} ${await res.text()}`);
  return kp;
}

/** Signs a prepared transaction with the passphrase prepare returned (or another one, to test refusal). */
function sign(prepared: { xdr: string; network: string }, kp: Keypair, passphrase = prepared.network): string {
  const tx = TransactionBuilder.fromXdr(prepared.xdr, passphrase);
  tx.sign(kp);
  return tx.toXdr();
}

async function run(
  chain: Chain,
  prepared: Promise<{ xdr: string; network: string }>,
  kp: Keypair,
  expect?: ExpectInvocation,
) {
  return chain.client.submit(sign(await prepared, kp), expect);
}

async function failure(p: Promise<unknown>): Promise<ChainError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ChainError) return e;
    throw e;
  }
  throw new Error('expected a ChainError');
}

const record = (controller: string): DidRecordInput => ({
  controller,
  authentication: [{ publicKeyMultibase: 'z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK' }],
  assertionMethod: [{ publicKeyMultibase: 'z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK' }],
  keyAgreement: [],
  services: [],
});

describe('src/chain against the RPC simulator', () => {
  beforeAll(async () => {
    sim = await startSimulator({ port: 0 });
    chains.testnet = chainFor(sim.networks.testnet);
    chains.mainnet = chainFor(sim.networks.mainnet);
  });
  afterAll(async () => {
    await sim?.close();
  });

  it('health and network check', async () => {
    const c = chains.testnet!;
    expect((await c.client.health()).passphrase).toBe(sim.networks.testnet.passphrase);
    expect((await c.client.verifyNetwork()).ok).toBe(true);
  });

  // With a read cache far longer than the test, every read after a write proves read-your-writes.
  it.each([
    { cache: 'off', readCacheMs: 0 },
    { cache: '10 min', readCacheMs: 600_000 },
  ])(
    'vault lifecycle: deploy, issue, verify, revoke, deny/allow, push, revoke vault (read cache $cache)',
    async ({ readCacheMs }) => {
      const net = sim.networks.testnet;
      const c = readCacheMs ? chainFor(net, net.rpcUrl, readCacheMs) : chains.testnet!;
      const [owner, issuer] = await Promise.all([funded(net), funded(net)]);
      const vault = c.vaultAddress(owner.publicKey());

      // deploy (safe submit: the decoder checks the function and arguments)
      expect(await c.vault.exists({ vault })).toBe(false);
      const deployed = await run(
        c,
        c.factory.deploy({ source: owner.publicKey(), owner: owner.publicKey(), didUri: 'did:web:owner' }),
        owner,
        (inv) => {
          inspect.expectCall(inv, { contractId: net.factoryId, fn: 'deploy' });
          expect(inspect.decodeDeployArgs(inv).owner).toBe(owner.publicKey());
        },
      );
      expect(deployed.txId).toMatch(/^[0-9a-f]{64}$/);
      expect(await c.vault.exists({ vault })).toBe(true);
      expect(await c.factory.isVault(vault)).toBe(true);
      expect(await c.vault.version({ vault })).toBe('0.4.0');
      expect(await c.vault.vaultOwner({ vault })).toBe(owner.publicKey());
      expect(await c.vault.vaultDid({ vault })).toBe('did:web:owner');

      // deploying again at the same (owner, salt) fails as already deployed
      const again = await failure(
        c.factory.deploy({ source: owner.publicKey(), owner: owner.publicKey(), didUri: 'did:web:owner' }),
      );
      expect([again.code, again.status]).toEqual(['vault_already_deployed', 409]);

      // issuer DID
      const didId = randomBytes(16);
      await run(
        c,
        c.registry.register({ source: issuer.publicKey(), didId, record: record(issuer.publicKey()) }),
        issuer,
        (inv) => {
          expect(inspect.decodeRegisterArgs(inv).record.controller).toBe(issuer.publicKey());
        },
      );
      const entry = await c.registry.get(didId);
      expect(entry?.record).toMatchObject({ ...record(issuer.publicKey()), version: 1, deactivated: false });
      expect(await c.registry.get(randomBytes(16))).toBeUndefined();
      const issuerDid = `did:ledger:testnet:x${didId.toString('hex')}`;

      // issue, with the on-chain fee
      const quote = await c.factory.quoteFee(issuer.publicKey());
      expect(quote).toMatchObject({ enabled: true, amount: 50_000_000n, token: net.feeTokenId });
      const before = await c.token.balance(net.feeTokenId, issuer.publicKey());
      await run(
        c,
        c.vault.issue({
          source: issuer.publicKey(),
          vault,
          vcId: 'vc-1',
          vcData: 'cipher-1',
          issuer: issuer.publicKey(),
          issuerDid,
        }),
        issuer,
        (inv) => {
          const a = inspect.decodeIssueArgs(inv);
          expect([a.vaultContract, a.issuer]).toEqual([inv.contractId, issuer.publicKey()]);
        },
      );
      const after = await c.token.balance(net.feeTokenId, issuer.publicKey());
      expect(before - after).toBeGreaterThanOrEqual(50_000_000n);
      expect(await c.vault.verifyVc({ vault, vcId: 'vc-1' })).toEqual({ status: 'valid' });
      expect(await c.vault.getVc({ vault, vcId: 'vc-1' })).toEqual({
        id: 'vc-1',
        data: 'cipher-1',
        issuanceContract: vault,
        issuerDid,
      });
      expect(await c.vault.getVc({ vault, vcId: 'nope' })).toBeUndefined();
      expect(await c.vault.listVcIds({ vault, offset: 0, limit: 50 })).toEqual(['vc-1']);
      expect(await c.vault.vcCount({ vault })).toBe(1);
      const dup = await failure(
        c.vault.issue({
          source: issuer.publicKey(),
          vault,
          vcId: 'vc-1',
          vcData: 'x',
          issuer: issuer.publicKey(),
          issuerDid,
        }),
      );
      expect([dup.code, dup.status]).toEqual(['vc_already_exists', 409]);
      const tooLarge = await failure(c.vault.listVcIds({ vault, offset: 0, limit: 201 }));
      expect(tooLarge.code).toBe('limit_too_large');

      // batch issue
      await run(
        c,
        c.vault.batchIssue({
          source: issuer.publicKey(),
          vault,
          issuer: issuer.publicKey(),
          issuerDid,
          vcs: [
            { vcId: 'b-1', vcData: 'B1' },
            { vcId: 'b-2', vcData: 'B2' },
          ],
        }),
        issuer,
      );
      expect(await c.vault.vcCount({ vault })).toBe(3);
      const six = Array.from({ length: 6 }, (_, k) => ({ vcId: `s-${k}`, vcData: 'x' }));
      for (const vcs of [six, []]) {
        const e = await failure(
          c.vault.batchIssue({ source: issuer.publicKey(), vault, issuer: issuer.publicKey(), issuerDid, vcs }),
        );
        expect([e.code, e.status]).toEqual(['batch_too_large', 400]);
      }

      // safe submit: a signed revoke posted where an issue is expected is refused before sending
      const revokePrepared = await c.vault.revoke({
        source: owner.publicKey(),
        vault,
        vcId: 'vc-1',
        date: '2026-02-03T04:05:06.000Z',
      });
      const signedRevoke = sign(revokePrepared, owner);
      const refused = await failure(c.client.submit(signedRevoke, (inv) => void inspect.decodeIssueArgs(inv)));
      expect([refused.code, refused.status]).toEqual(['tx_operation_mismatch', 400]);
      expect(await c.vault.verifyVc({ vault, vcId: 'vc-1' })).toEqual({ status: 'valid' });

      // revoke
      await c.client.submit(signedRevoke, (inv) => void inspect.decodeRevokeArgs(inv));
      expect(await c.vault.verifyVc({ vault, vcId: 'vc-1' })).toEqual({
        status: 'revoked',
        since: '2026-02-03T04:05:06.000Z',
      });
      expect(await c.vault.vcCount({ vault })).toBe(2);
      expect((await c.vault.getVc({ vault, vcId: 'vc-1' }))?.data).toBe('cipher-1');
      const twice = await failure(c.vault.revoke({ source: owner.publicKey(), vault, vcId: 'vc-1', date: 'd' }));
      expect([twice.code, twice.status]).toEqual(['vc_already_revoked', 409]);
      const missing = await failure(c.vault.revoke({ source: owner.publicKey(), vault, vcId: 'nope', date: 'd' }));
      expect([missing.code, missing.status]).toEqual(['vc_not_found', 404]);

      // deny / allow
      await run(c, c.vault.denyIssuer({ source: owner.publicKey(), vault, issuer: issuer.publicKey() }), owner);
      expect(await c.vault.listDeniedIssuers({ vault, offset: 0, limit: 10 })).toEqual([issuer.publicKey()]);
      expect(await c.vault.deniedIssuerCount({ vault })).toBe(1);
      const denied = await failure(
        c.vault.issue({
          source: issuer.publicKey(),
          vault,
          vcId: 'vc-2',
          vcData: 'x',
          issuer: issuer.publicKey(),
          issuerDid,
        }),
      );
      expect([denied.code, denied.status]).toEqual(['issuer_denied', 403]);
      await run(c, c.vault.allowIssuer({ source: owner.publicKey(), vault, issuer: issuer.publicKey() }), owner);
      expect(await c.vault.deniedIssuerCount({ vault })).toBe(0);

      // a failure at apply time (prepared while allowed, denied before submitting) maps from the failed transaction
      const prepared = await c.vault.issue({
        source: issuer.publicKey(),
        vault,
        vcId: 'vc-late',
        vcData: 'x',
        issuer: issuer.publicKey(),
        issuerDid,
      });
      await run(c, c.vault.denyIssuer({ source: owner.publicKey(), vault, issuer: issuer.publicKey() }), owner);
      const late = await failure(c.client.submit(sign(prepared, issuer)));
      expect([late.code, late.status]).toEqual(['issuer_denied', 403]);
      expect(late.txId).toMatch(/^[0-9a-f]{64}$/);
      await run(c, c.vault.allowIssuer({ source: owner.publicKey(), vault, issuer: issuer.publicKey() }), owner);

      // a write whose required signer did not authorize it fails on-chain with the host's auth error
      const unauthorized = await c.vault.denyIssuer({ source: issuer.publicKey(), vault, issuer: issuer.publicKey() });
      const inv = c.client.inspect(sign(unauthorized, issuer));
      expect([inv.authAddresses, inv.signedBy]).toEqual([[owner.publicKey()], [issuer.publicKey()]]);
      const auth = await failure(c.client.submit(sign(unauthorized, issuer)));
      expect([auth.code, auth.status]).toEqual(['tx_failed', 400]);
      expect(auth.message).toMatch(/Error\(Auth/);

      // set-vault-did, set-new-owner
      await run(c, c.vault.setVaultDid({ source: owner.publicKey(), vault, didUri: 'did:web:changed' }), owner);
      expect(await c.vault.vaultDid({ vault })).toBe('did:web:changed');
      const admin2 = await funded(net);
      await run(
        c,
        c.vault.setVaultAdmin({ source: owner.publicKey(), vault, newAdmin: admin2.publicKey() }),
        owner,
        (inv) => {
          expect(inspect.decodeSetVaultAdminArgs(inv)).toEqual({ newAdmin: admin2.publicKey() });
        },
      );
      expect(await c.vault.vaultOwner({ vault })).toBe(owner.publicKey());
      await run(c, c.vault.setVaultAdmin({ source: admin2.publicKey(), vault, newAdmin: owner.publicKey() }), admin2);

      // push to the owner's salted vault
      const salt = 'ab'.repeat(32);
      const salted = c.vaultAddress(owner.publicKey(), salt);
      await run(
        c,
        c.factory.deploy({
          source: owner.publicKey(),
          owner: owner.publicKey(),
          didUri: 'did:web:owner',
          userSalt: salt,
        }),
        owner,
      );
      await run(c, c.vault.push({ source: owner.publicKey(), vault, vcId: 'b-1', destVault: salted }), owner, (inv) => {
        expect(inspect.decodePushArgs(inv)).toEqual({ vcId: 'b-1', destVault: salted });
      });
      expect(await c.vault.getVc({ vault: salted, vcId: 'b-1' })).toMatchObject({ id: 'b-1', data: 'B1' });
      expect(await c.vault.verifyVc({ vault: salted, vcId: 'b-1' })).toEqual({ status: 'valid' });
      expect(await c.vault.verifyVc({ vault, vcId: 'b-1' })).toEqual({ status: 'invalid' });

      // push to another owner's vault fails
      const other = await funded(net);
      await run(
        c,
        c.factory.deploySponsored({
          source: owner.publicKey(),
          deployer: owner.publicKey(),
          owner: other.publicKey(),
          didUri: 'did:web:other',
        }),
        owner,
        (inv) => {
          expect(inspect.decodeDeploySponsoredArgs(inv)).toMatchObject({
            deployer: owner.publicKey(),
            owner: other.publicKey(),
          });
        },
      );
      const otherVault = c.vaultAddress(other.publicKey());
      expect(await c.vault.vaultOwner({ vault: otherVault })).toBe(other.publicKey());
      const mismatch = await failure(
        c.vault.push({ source: owner.publicKey(), vault, vcId: 'b-2', destVault: otherVault }),
      );
      expect([mismatch.code, mismatch.status]).toEqual(['push_owner_mismatch', 400]);

      // revoke vault: later writes fail
      await run(c, c.vault.revokeVault({ source: owner.publicKey(), vault }), owner);
      const revoked = await failure(
        c.vault.issue({
          source: issuer.publicKey(),
          vault,
          vcId: 'vc-3',
          vcData: 'x',
          issuer: issuer.publicKey(),
          issuerDid,
        }),
      );
      expect([revoked.code, revoked.status]).toEqual(['vault_revoked', 409]);
    },
  );

  it('registry: update, version mismatch, transfer, deactivate', async () => {
    const net = sim.networks.testnet;
    const c = chains.testnet!;
    const [controller, next] = await Promise.all([funded(net), funded(net)]);
    const didId = randomBytes(16);
    await run(
      c,
      c.registry.register({ source: controller.publicKey(), didId, record: record(controller.publicKey()) }),
      controller,
    );
    const exists = await failure(
      c.registry.register({ source: controller.publicKey(), didId, record: record(controller.publicKey()) }),
    );
    expect([exists.code, exists.status]).toEqual(['did_already_exists', 409]);
    const updated = {
      ...record(controller.publicKey()),
      services: [{ idSuffix: 'inbox', serviceType: 'Messaging', serviceEndpoint: 'https://example.org/inbox' }],
    };
    await run(
      c,
      c.registry.update({ source: controller.publicKey(), didId, expectedVersion: 1, record: updated }),
      controller,
    );
    expect((await c.registry.get(didId))?.record).toMatchObject({ services: updated.services, version: 2 });
    const stale = await failure(
      c.registry.update({ source: controller.publicKey(), didId, expectedVersion: 1, record: updated }),
    );
    expect([stale.code, stale.status]).toEqual(['version_mismatch', 409]);
    await run(
      c,
      c.registry.transferController({
        source: controller.publicKey(),
        didId,
        expectedVersion: 2,
        newController: next.publicKey(),
      }),
      controller,
    );
    expect((await c.registry.get(didId))?.record.controller).toBe(next.publicKey());
    await run(c, c.registry.deactivate({ source: next.publicKey(), didId, expectedVersion: 3 }), next);
    const entry = await c.registry.get(didId);
    expect(entry?.record).toMatchObject({ deactivated: true, authentication: [], version: 4 });
    expect(entry?.lastModifiedLedgerSeq).toBeGreaterThan(0);
    const gone = await failure(
      c.registry.update({ source: next.publicKey(), didId, expectedVersion: 4, record: record(next.publicKey()) }),
    );
    expect([gone.code, gone.status]).toEqual(['did_deactivated', 409]);
  });

  it('refuses a transaction signed for another network', async () => {
    const net = sim.networks.testnet;
    const c = chains.testnet!;
    const owner = await funded(net);
    const prepared = await c.factory.deploy({
      source: owner.publicKey(),
      owner: owner.publicKey(),
      didUri: 'did:web:o',
    });
    const e = await failure(c.client.submit(sign(prepared, owner, sim.networks.mainnet.passphrase)));
    expect([e.code, e.status]).toEqual(['tx_invalid', 400]);
    expect(e.message).toMatch(
      `no signature on the transaction verifies for its source account ${owner.publicKey()} under this network's passphrase`,
    );
    expect(e.message).toMatch(/signed for another network, or by a key other than/);
  });

  it('a stale sequence number → tx_failed naming txBadSeq; a replay of an applied one returns its id', async () => {
    const net = sim.networks.testnet;
    const c = chains.testnet!;
    const owner = await funded(net);
    const first = sign(
      await c.factory.deploy({ source: owner.publicKey(), owner: owner.publicKey(), didUri: 'a' }),
      owner,
    );
    const second = sign(
      await c.factory.deploy({
        source: owner.publicKey(),
        owner: owner.publicKey(),
        didUri: 'a',
        userSalt: '01'.repeat(32),
      }),
      owner,
    );
    const done = await c.client.submit(first);
    const e = await failure(c.client.submit(second));
    expect([e.code, e.status]).toEqual(['tx_failed', 400]);
    expect(e.message).toContain('txBadSeq');
    expect((await c.client.submit(first)).txId).toBe(done.txId);
    // ten ledgers on, the network no longer bans the hash but refuses the used sequence number: still its id
    for (let i = 0; i < 10; i++) await sim.sim.network('testnet').rpc('sim_closeLedger');
    expect((await c.client.submit(first)).txId).toBe(done.txId);
  });

  it('source account missing → source_account_not_found', async () => {
    const c = chains.testnet!;
    const ghost = Keypair.random().publicKey();
    const e = await failure(c.factory.deploy({ source: ghost, owner: ghost, didUri: 'did:web:g' }));
    expect([e.code, e.status]).toEqual(['source_account_not_found', 400]);
  });

  it('mainnet: an issuer without a trustline to the fee token → trustline_missing', async () => {
    const net = sim.networks.mainnet;
    const c = chains.mainnet!;
    const [owner, issuer] = await Promise.all([funded(net), funded(net)]);
    await run(c, c.factory.deploy({ source: owner.publicKey(), owner: owner.publicKey(), didUri: 'did:web:o' }), owner);
    const e = await failure(
      c.vault.issue({
        source: issuer.publicKey(),
        vault: c.vaultAddress(owner.publicKey()),
        vcId: 'v',
        vcData: 'x',
        issuer: issuer.publicKey(),
        issuerDid: 'did:ledger:mainnet:x',
      }),
    );
    expect([e.code, e.status]).toEqual(['trustline_missing', 400]);
    expect(e.message).toMatch(/trustline entry is missing for account/);
  });

  it('RPC down → chain_unavailable', async () => {
    const port = await new Promise<number>((resolve) => {
      const s = createServer();
      s.listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const c = chainFor(sim.networks.testnet, `http://127.0.0.1:${port}`);
    const e = await failure(c.vault.version({ vault: c.vaultAddress(sim.networks.testnet.admin.publicKey) }));
    expect([e.code, e.status]).toEqual(['chain_unavailable', 502]);
  });
});

// CAP-71 end to end: a relayed write (the relayer is the source and pays; the vault owner authorizes through an
// address-credential entry), prepared by src/chain, signed by src/client with SDK 17's authorizeEntry, submitted
// by src/chain, against the simulator emulating each protocol of the supported line.
describe('relayed writes across the protocol line (CAP-71)', () => {
  const sims: RunningSimulator[] = [];
  afterAll(async () => {
    await Promise.all(sims.map((s) => s.close()));
  });

  async function network(protocol: number) {
    const s = await startSimulator({ port: 0, protocol });
    sims.push(s);
    const net = s.networks.testnet;
    const c = chainFor(net);
    const [owner, relayer] = await Promise.all([funded(net), funded(net)]);
    await run(c, c.factory.deploy({ source: owner.publicKey(), owner: owner.publicKey(), didUri: 'did:web:o' }), owner);
    const vault = c.vaultAddress(owner.publicKey());
    const latest = async () =>
      (await (
        await fetch(net.rpcUrl!, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getLatestLedger' }),
        })
      ).json()) as { result: { sequence: number; protocolVersion: number } };
    return { net, c, owner, relayer, vault, latest };
  }

  /** The owner authorizes (SDK 17), then the relayer signs the envelope. */
  async function relay(
    prepared: { xdr: string; network: string },
    owner: Keypair,
    relayer: Keypair,
    validUntilLedger: number,
  ): Promise<string> {
    const authorized = await authorizeEntries(prepared.xdr, prepared.network, {
      address: owner.publicKey(),
      signer: owner,
      validUntilLedger,
    });
    return sign({ xdr: authorized, network: prepared.network }, relayer);
  }

  it.each([
    { protocol: 28, prepared: 'addressV2' }, // prepare asks for upgraded auth (useUpgradedAuth)
    { protocol: 27, prepared: 'addressV2' },
    { protocol: 26, prepared: 'address' },
  ])(
    'Protocol $protocol: prepare returns $prepared entries, the owner signs them with SDK 17, the relayed deny lands',
    async ({ protocol, prepared: kind }) => {
      const { c, owner, relayer, vault, latest } = await network(protocol);
      const { result } = await latest();
      expect(result.protocolVersion).toBe(protocol);
      expect((await c.client.verifyNetwork()).protocolVersion).toBe(protocol);
      const denied = Keypair.random().publicKey();
      const prepared = await c.vault.denyIssuer({ source: relayer.publicKey(), vault, issuer: denied });
      expect(authEntries(prepared.xdr)).toEqual([
        { credentialType: kind, address: owner.publicKey(), signers: [{ address: owner.publicKey(), signed: false }] },
      ]);
      const signed = await relay(prepared, owner, relayer, result.sequence + 100);
      expect(c.client.inspect(signed)).toMatchObject({
        source: relayer.publicKey(),
        authAddresses: [owner.publicKey()],
        signedBy: [relayer.publicKey()],
      });
      await c.client.submit(signed, (inv) => void inspect.decodeDenyIssuerArgs(inv));
      expect(await c.vault.listDeniedIssuers({ vault, offset: 0, limit: 10 })).toEqual([denied]);
    },
  );

  /** The prepared transaction with its address entries turned into `kind` (same address, nonce and invocation). */
  function asCredentials(preparedXdr: string, kind: 'address' | 'addressV2'): string {
    const env = xdr.TransactionEnvelope.fromXdr(preparedXdr, 'base64');
    const auth = authOf(env).map((e) => {
      const c = e.credentials;
      const creds =
        c.type === 'sorobanCredentialsAddress'
          ? c.address
          : c.type === 'sorobanCredentialsAddressV2'
            ? c.addressV2
            : undefined;
      if (!creds) return e;
      const credentials =
        kind === 'address'
          ? xdr.SorobanCredentials.sorobanCredentialsAddress(creds)
          : xdr.SorobanCredentials.sorobanCredentialsAddressV2(creds);
      return new xdr.SorobanAuthorizationEntry({ credentials, rootInvocation: e.rootInvocation });
    });
    return withAuth(env, auth).toXdr('base64');
  }

  it('legacy ADDRESS entries still land on Protocol 28, which accepts them', async () => {
    const { c, owner, relayer, vault, latest } = await network(28);
    const denied = Keypair.random().publicKey();
    const prepared = await c.vault.denyIssuer({ source: relayer.publicKey(), vault, issuer: denied });
    const legacy = { xdr: asCredentials(prepared.xdr, 'address'), network: prepared.network };
    expect(authEntries(legacy.xdr).map((e) => e.credentialType)).toEqual(['address']);
    await c.client.submit(await relay(legacy, owner, relayer, (await latest()).result.sequence + 100));
    expect(await c.vault.listDeniedIssuers({ vault, offset: 0, limit: 10 })).toEqual([denied]);
  });

  it('an ADDRESS_V2 entry on Protocol 26 is relayed as signed and refused by the network', async () => {
    const { c, owner, relayer, vault, latest } = await network(26);
    const prepared = await c.vault.denyIssuer({
      source: relayer.publicKey(),
      vault,
      issuer: Keypair.random().publicKey(),
    });
    const v2 = { xdr: asCredentials(prepared.xdr, 'addressV2'), network: prepared.network };
    const e = await failure(c.client.submit(await relay(v2, owner, relayer, (await latest()).result.sequence + 100)));
    expect(e.status).toBe(400);
    expect([e.code, e.message]).toEqual(['tx_failed', 'transaction rejected: txMalformed']);
    expect(await c.vault.deniedIssuerCount({ vault })).toBe(0);
  });

  it("the owner's V2 signature put under another address is refused by submit before it is sent", async () => {
    const { c, owner, relayer, vault, latest } = await network(28);
    const prepared = await c.vault.denyIssuer({
      source: relayer.publicKey(),
      vault,
      issuer: Keypair.random().publicKey(),
    });
    const authorized = xdr.TransactionEnvelope.fromXdr(
      await authorizeEntries(prepared.xdr, prepared.network, {
        address: owner.publicKey(),
        signer: owner,
        validUntilLedger: (await latest()).result.sequence + 100,
      }),
      'base64',
    );
    const moved = authOf(authorized).map((e) => {
      const a = (e.credentials as xdr.SorobanCredentialsAddressV2).addressV2;
      const creds = new xdr.SorobanAddressCredentials({
        address: new Address(relayer.publicKey()).toScAddress(),
        nonce: a.nonce,
        signatureExpirationLedger: a.signatureExpirationLedger,
        signature: a.signature,
      });
      return new xdr.SorobanAuthorizationEntry({
        credentials: xdr.SorobanCredentials.sorobanCredentialsAddressV2(creds),
        rootInvocation: e.rootInvocation,
      });
    });
    const signed = sign({ xdr: withAuth(authorized, moved).toXdr('base64'), network: prepared.network }, relayer);
    const e = await failure(c.client.submit(signed));
    expect([e.code, e.status]).toEqual(['tx_invalid', 400]);
    expect(e.message).toMatch(
      new RegExp(
        `ADDRESS_V2 authorization entry for ${relayer.publicKey()} carries a signature by ${owner.publicKey()}`,
      ),
    );
    expect(e.txId).toBeUndefined(); // never sent
  });
});
