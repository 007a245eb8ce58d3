import { describe, expect, it } from 'vitest';
import {
  Account, Address, Asset, Contract, Keypair, Networks, Operation, StrKey, TransactionBuilder, xdr,
} from '@stellar/stellar-sdk';
import * as inspect from './inspect.ts';
import { ChainError } from './errors.ts';
import { createVaultApi } from './vault.ts';
import { createFactoryApi } from './factory.ts';
import { createRegistryApi } from './registry.ts';
import type { ChainClient, Invocation, PrepareRequest } from './types.ts';
import type { DidRecordInput } from '../did/types.ts';

const PASS = Networks.TESTNET;
const OTHER = Networks.PUBLIC;
const issuer = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 1));
const owner = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 3));
const vaultId = StrKey.encodeContract(Buffer.alloc(32, 7));
const otherVault = StrKey.encodeContract(Buffer.alloc(32, 8));
const factoryId = StrKey.encodeContract(Buffer.alloc(32, 2));
const registryId = StrKey.encodeContract(Buffer.alloc(32, 9));

/** A client whose prepare builds the plain invocation locally (no RPC), for builder ↔ decoder round trips. */
function localClient(): ChainClient {
  const unsupported = () => Promise.reject(new Error('not in this test'));
  return {
    network: 'testnet', networkPassphrase: PASS, rpcUrl: 'http://127.0.0.1:1',
    async prepare(req: PrepareRequest) {
      const tx = new TransactionBuilder(new Account(req.source, '41'), { fee: '100', networkPassphrase: PASS })
        .addOperation(new Contract(req.contractId).call(req.fn, ...req.args)).setTimeout(300).build();
      return { xdr: tx.toXdr(), network: PASS };
    },
    read: unsupported, submit: unsupported, getLedgerEntries: unsupported, health: unsupported, verifyNetwork: unsupported,
    inspect: (x: string) => inspect.inspectTransaction(x, PASS),
  };
}

function signed(x: string, kp: Keypair, passphrase = PASS): string {
  const tx = TransactionBuilder.fromXdr(x, passphrase);
  tx.sign(kp);
  return tx.toXdr();
}

function txWith(ops: xdr.Operation[], source = issuer): string {
  let b = new TransactionBuilder(new Account(source.publicKey(), '1'), { fee: '100', networkPassphrase: PASS });
  for (const op of ops) b = b.addOperation(op);
  return b.setTimeout(300).build().toXdr();
}

const code = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    return e instanceof ChainError ? `${e.code} ${e.status}` : `other: ${String(e)}`;
  }
  return 'no error';
};

const record: DidRecordInput = {
  controller: issuer.publicKey(),
  authentication: [{ publicKeyMultibase: 'z6MkAuth' }],
  assertionMethod: [{ publicKeyMultibase: 'z6MkAssert' }],
  keyAgreement: [],
  services: [{ idSuffix: 'inbox', serviceType: 'Messaging', serviceEndpoint: 'https://example.org/inbox' }],
  metadataUri: 'https://example.org/meta.json',
  metadataHash: 'ab'.repeat(32),
};
const didId = Buffer.alloc(16, 5);

describe('inspectTransaction', () => {
  const vault = createVaultApi(localClient());
  const issueArgs = { source: issuer.publicKey(), vault: vaultId, vcId: 'vc-1', vcData: 'cipher', issuer: issuer.publicKey(), issuerDid: 'did:ledger:testnet:x' };

  it('decodes the invocation and its valid signers', async () => {
    const { xdr: unsigned, network } = await vault.issue(issueArgs);
    expect(network).toBe(PASS);
    const inv = inspect.inspectTransaction(signed(unsigned, issuer), PASS);
    expect(inv).toMatchObject({ source: issuer.publicKey(), operationSource: issuer.publicKey(), contractId: vaultId, fn: 'issue', signedBy: [issuer.publicKey()] });
    expect(inv.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it('finds no valid signer when signed for another network or not at all', async () => {
    const { xdr: unsigned } = await vault.issue(issueArgs);
    const otherNet = signed(TransactionBuilder.fromXdr(unsigned, PASS).toXdr(), issuer, OTHER);
    expect(inspect.inspectTransaction(otherNet, PASS).signedBy).toEqual([]);
    expect(inspect.inspectTransaction(unsigned, PASS).signedBy).toEqual([]);
    expect(inspect.inspectTransaction(signed(unsigned, owner), PASS).signedBy).toEqual([]);
  });

  it('a signature with the right hint but wrong or malformed bytes does not count', async () => {
    const { xdr: unsigned } = await vault.issue(issueArgs);
    const forge = (signature: Uint8Array) => {
      const tx = TransactionBuilder.fromXdr(unsigned, PASS);
      tx.signatures.push(new xdr.DecoratedSignature({ hint: issuer.signatureHint(), signature }));
      return tx.toXdr();
    };
    const good = TransactionBuilder.fromXdr(signed(unsigned, issuer), PASS).signatures[0]!.signature.value;
    const flipped = Buffer.from(good);
    flipped[10] = (flipped[10] ?? 0) ^ 1;
    expect(inspect.inspectTransaction(forge(flipped), PASS).signedBy).toEqual([]);
    expect(inspect.inspectTransaction(forge(good.subarray(0, 63)), PASS).signedBy).toEqual([]);
    expect(inspect.inspectTransaction(forge(Buffer.alloc(64)), PASS).signedBy).toEqual([]);
    expect(inspect.inspectTransaction(forge(good), PASS).signedBy).toEqual([issuer.publicKey()]);
  });

  it.each([
    { name: 'not base64', given: 'not base64 at all!' },
    { name: 'empty', given: '' },
    { name: 'base64 of garbage', given: Buffer.from('hello world, not xdr').toString('base64') },
  ])('refuses $name as tx_invalid', ({ given }) => {
    expect(code(() => inspect.inspectTransaction(given, PASS))).toBe('tx_invalid 400');
  });

  it.each([
    { name: 'a payment', ops: () => [Operation.payment({ destination: owner.publicKey(), asset: Asset.native(), amount: '1' })] },
    { name: 'two invocations', ops: () => [new Contract(vaultId).call('revoke_vault'), new Contract(vaultId).call('revoke_vault')] },
    { name: 'a contract upload', ops: () => [Operation.uploadContractWasm({ wasm: Buffer.from([0, 97, 115, 109]) })] },
  ])('refuses $name as tx_operation_mismatch', ({ ops }) => {
    expect(code(() => inspect.inspectTransaction(signed(txWith(ops()), issuer), PASS))).toBe('tx_operation_mismatch 400');
  });

  it('lists auth addresses: source-account credentials resolve to the operation source', () => {
    const args = new xdr.InvokeContractArgs({ contractAddress: new Address(vaultId).toScAddress(), functionName: 'issue', args: [] });
    const root = new xdr.SorobanAuthorizedInvocation({ function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(args), subInvocations: [] });
    const byAddress = new xdr.SorobanAuthorizationEntry({
      credentials: xdr.SorobanCredentials.sorobanCredentialsAddress(new xdr.SorobanAddressCredentials({
        address: new Address(owner.publicKey()).toScAddress(), nonce: xdr.Int64.fromString('1'), signatureExpirationLedger: 100, signature: xdr.ScVal.scvVoid(),
      })),
      rootInvocation: root,
    });
    const bySource = new xdr.SorobanAuthorizationEntry({ credentials: xdr.SorobanCredentials.sorobanCredentialsSourceAccount(), rootInvocation: root });
    const op = Operation.invokeHostFunction({ func: xdr.HostFunction.hostFunctionTypeInvokeContract(args), auth: [bySource, byAddress] });
    const inv = inspect.inspectTransaction(signed(signed(txWith([op]), issuer), owner), PASS);
    expect(inv.authAddresses).toEqual([issuer.publicKey(), owner.publicKey()]);
    expect(inv.signedBy).toEqual([issuer.publicKey(), owner.publicKey()]);
  });

  it('reads a fee bump: the inner invocation, and the fee payer among the signers', async () => {
    const sponsor = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 4));
    const { xdr: unsigned } = await vault.revokeVault({ source: owner.publicKey(), vault: vaultId });
    const inner = TransactionBuilder.fromXdr(unsigned, PASS);
    inner.sign(owner);
    const bump = TransactionBuilder.buildFeeBumpTransaction(sponsor, '200', inner as never, PASS);
    bump.sign(sponsor);
    const inv = inspect.inspectTransaction(bump.toXdr(), PASS);
    expect(inv).toMatchObject({ fn: 'revoke_vault', source: owner.publicKey(), feeSource: sponsor.publicKey() });
    expect(inv.signedBy.sort()).toEqual([owner.publicKey(), sponsor.publicKey()].sort());
  });
});

describe('typed decoders round-trip the typed builders', () => {
  const client = localClient();
  const vault = createVaultApi(client);
  const factory = createFactoryApi(client, { factoryId });
  const registry = createRegistryApi(client, { registryId });
  const src = issuer.publicKey();
  const inv = async (p: Promise<{ xdr: string }>): Promise<Invocation> => inspect.inspectTransaction((await p).xdr, PASS);

  it.each<{ fn: string; build: () => Promise<{ xdr: string }>; decode: (i: Invocation) => unknown; want: unknown }>([
    {
      fn: 'issue',
      build: () => vault.issue({ source: src, vault: vaultId, vcId: 'vc-1', vcData: '{"a":1}', issuer: src, issuerDid: 'did:ledger:testnet:abc' }),
      decode: inspect.decodeIssueArgs,
      want: { vcId: 'vc-1', vcData: '{"a":1}', vaultContract: vaultId, issuer: src, issuerDid: 'did:ledger:testnet:abc' },
    },
    {
      fn: 'batch_issue',
      build: () => vault.batchIssue({ source: src, vault: vaultId, issuer: src, issuerDid: 'did:x', vcs: [{ vcId: 'a', vcData: 'A' }, { vcId: 'b', vcData: 'B' }] }),
      decode: inspect.decodeBatchIssueArgs,
      want: { issuer: src, vaultContract: vaultId, issuerDid: 'did:x', vcs: [{ vcId: 'a', vcData: 'A' }, { vcId: 'b', vcData: 'B' }] },
    },
    { fn: 'revoke', build: () => vault.revoke({ source: src, vault: vaultId, vcId: 'v', date: '2026-01-01T00:00:00Z' }), decode: inspect.decodeRevokeArgs, want: { vcId: 'v', date: '2026-01-01T00:00:00Z' } },
    { fn: 'deny_issuer', build: () => vault.denyIssuer({ source: src, vault: vaultId, issuer: owner.publicKey() }), decode: inspect.decodeDenyIssuerArgs, want: { issuer: owner.publicKey() } },
    { fn: 'allow_issuer', build: () => vault.allowIssuer({ source: src, vault: vaultId, issuer: owner.publicKey() }), decode: inspect.decodeAllowIssuerArgs, want: { issuer: owner.publicKey() } },
    { fn: 'set_vault_did', build: () => vault.setVaultDid({ source: src, vault: vaultId, didUri: 'did:web:x' }), decode: inspect.decodeSetVaultDidArgs, want: { didUri: 'did:web:x' } },
    { fn: 'set_vault_admin', build: () => vault.setVaultAdmin({ source: src, vault: vaultId, newAdmin: owner.publicKey() }), decode: inspect.decodeSetVaultAdminArgs, want: { newAdmin: owner.publicKey() } },
    { fn: 'revoke_vault', build: () => vault.revokeVault({ source: src, vault: vaultId }), decode: inspect.decodeRevokeVaultArgs, want: {} },
    { fn: 'push', build: () => vault.push({ source: src, vault: vaultId, vcId: 'v', destVault: otherVault }), decode: inspect.decodePushArgs, want: { vcId: 'v', destVault: otherVault } },
    {
      fn: 'deploy', build: () => factory.deploy({ source: src, owner: src, didUri: 'did:web:o' }), decode: inspect.decodeDeployArgs,
      want: { owner: src, didUri: 'did:web:o', userSalt: '00'.repeat(32) },
    },
    {
      fn: 'deploy_sponsored', build: () => factory.deploySponsored({ source: src, deployer: src, owner: owner.publicKey(), didUri: 'd', userSalt: 'ab'.repeat(32) }),
      decode: inspect.decodeDeploySponsoredArgs, want: { deployer: src, owner: owner.publicKey(), didUri: 'd', userSalt: 'ab'.repeat(32) },
    },
    { fn: 'register', build: () => registry.register({ source: src, didId, record }), decode: inspect.decodeRegisterArgs, want: { didId, record } },
    { fn: 'update', build: () => registry.update({ source: src, didId, expectedVersion: 3, record }), decode: inspect.decodeUpdateArgs, want: { didId, expectedVersion: 3, record } },
    {
      fn: 'transfer_controller', build: () => registry.transferController({ source: src, didId, expectedVersion: 2, newController: owner.publicKey() }),
      decode: inspect.decodeTransferControllerArgs, want: { didId, expectedVersion: 2, newController: owner.publicKey() },
    },
    { fn: 'deactivate', build: () => registry.deactivate({ source: src, didId, expectedVersion: 1 }), decode: inspect.decodeDeactivateArgs, want: { didId, expectedVersion: 1 } },
  ])('$fn', async ({ fn, build, decode, want }) => {
    const i = await inv(build());
    expect(i.fn).toBe(fn);
    expect(decode(i)).toEqual(want);
  });

  it('a decoder refuses a call of another function (a signed revoke posted to issue)', async () => {
    const i = await inv(vault.revoke({ source: src, vault: vaultId, vcId: 'v', date: 'd' }));
    expect(code(() => inspect.decodeIssueArgs(i))).toBe('tx_operation_mismatch 400');
  });

  it('a decoder refuses arguments of the wrong type', () => {
    const x = txWith([new Contract(vaultId).call('issue', xdr.ScVal.scvU32(1), xdr.ScVal.scvU32(1), xdr.ScVal.scvU32(1), xdr.ScVal.scvU32(1), xdr.ScVal.scvU32(1))]);
    expect(code(() => inspect.decodeIssueArgs(inspect.inspectTransaction(x, PASS)))).toBe('tx_operation_mismatch 400');
  });

  it('expectCall checks function and target', async () => {
    const i = await inv(vault.revoke({ source: src, vault: vaultId, vcId: 'v', date: 'd' }));
    expect(code(() => inspect.expectCall(i, { fn: 'revoke', contractId: vaultId }))).toBe('no error');
    expect(code(() => inspect.expectCall(i, { fn: 'revoke', contractId: otherVault }))).toBe('tx_operation_mismatch 400');
    expect(code(() => inspect.expectCall(i, { fn: 'issue' }))).toBe('tx_operation_mismatch 400');
  });
});
