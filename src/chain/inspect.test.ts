import { describe, expect, it } from 'vitest';
import {
  Account,
  Address,
  Asset,
  Contract,
  Keypair,
  Networks,
  Operation,
  StrKey,
  TransactionBuilder,
  authorizeEntry,
  buildWithDelegatesEntry,
  xdr,
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
    network: 'testnet',
    networkPassphrase: PASS,
    rpcUrl: 'http://127.0.0.1:1',
    protocolVersion: 28,
    async prepare(req: PrepareRequest) {
      const tx = new TransactionBuilder(new Account(req.source, '41'), { fee: '100', networkPassphrase: PASS })
        .addOperation(new Contract(req.contractId).call(req.fn, ...req.args))
        .setTimeout(300)
        .build();
      return { xdr: tx.toXdr(), network: PASS };
    },
    sequence: unsupported,
    read: unsupported,
    readFootprint: unsupported,
    submit: unsupported,
    prepareTtl: unsupported,
    submitTtl: unsupported,
    getLedgerEntries: unsupported,
    getEvents: unsupported,
    health: unsupported,
    verifyNetwork: unsupported,
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
  const issueArgs = {
    source: issuer.publicKey(),
    vault: vaultId,
    vcId: 'vc-1',
    vcData: 'cipher',
    issuer: issuer.publicKey(),
    issuerDid: 'did:ledger:testnet:x',
  };

  it('decodes the invocation and its valid signers', async () => {
    const { xdr: unsigned, network } = await vault.issue(issueArgs);
    expect(network).toBe(PASS);
    const inv = inspect.inspectTransaction(signed(unsigned, issuer), PASS);
    expect(inv).toMatchObject({
      source: issuer.publicKey(),
      operationSource: issuer.publicKey(),
      contractId: vaultId,
      fn: 'issue',
      signedBy: [issuer.publicKey()],
    });
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
    {
      name: 'a payment',
      ops: () => [Operation.payment({ destination: owner.publicKey(), asset: Asset.native(), amount: '1' })],
    },
    {
      name: 'two invocations',
      ops: () => [new Contract(vaultId).call('revoke_vault'), new Contract(vaultId).call('revoke_vault')],
    },
    { name: 'a contract upload', ops: () => [Operation.uploadContractWasm({ wasm: Buffer.from([0, 97, 115, 109]) })] },
  ])('refuses $name as tx_operation_mismatch', ({ ops }) => {
    expect(code(() => inspect.inspectTransaction(signed(txWith(ops()), issuer), PASS))).toBe(
      'tx_operation_mismatch 400',
    );
  });

  it('lists auth addresses: source-account credentials resolve to the operation source', () => {
    const args = new xdr.InvokeContractArgs({
      contractAddress: new Address(vaultId).toScAddress(),
      functionName: 'issue',
      args: [],
    });
    const root = new xdr.SorobanAuthorizedInvocation({
      function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(args),
      subInvocations: [],
    });
    const byAddress = new xdr.SorobanAuthorizationEntry({
      credentials: xdr.SorobanCredentials.sorobanCredentialsAddress(
        new xdr.SorobanAddressCredentials({
          address: new Address(owner.publicKey()).toScAddress(),
          nonce: xdr.Int64.fromString('1'),
          signatureExpirationLedger: 100,
          signature: xdr.ScVal.scvVoid(),
        }),
      ),
      rootInvocation: root,
    });
    const bySource = new xdr.SorobanAuthorizationEntry({
      credentials: xdr.SorobanCredentials.sorobanCredentialsSourceAccount(),
      rootInvocation: root,
    });
    const op = Operation.invokeHostFunction({
      func: xdr.HostFunction.hostFunctionTypeInvokeContract(args),
      auth: [bySource, byAddress],
    });
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
  const inv = async (p: Promise<{ xdr: string }>): Promise<Invocation> =>
    inspect.inspectTransaction((await p).xdr, PASS);

  it.each<{ fn: string; build: () => Promise<{ xdr: string }>; decode: (i: Invocation) => unknown; want: unknown }>([
    {
      fn: 'issue',
      build: () =>
        vault.issue({
          source: src,
          vault: vaultId,
          vcId: 'vc-1',
          vcData: '{"a":1}',
          issuer: src,
          issuerDid: 'did:ledger:testnet:abc',
        }),
      decode: inspect.decodeIssueArgs,
      want: {
        vcId: 'vc-1',
        vcData: '{"a":1}',
        vaultContract: vaultId,
        issuer: src,
        issuerDid: 'did:ledger:testnet:abc',
      },
    },
    {
      fn: 'batch_issue',
      build: () =>
        vault.batchIssue({
          source: src,
          vault: vaultId,
          issuer: src,
          issuerDid: 'did:x',
          vcs: [
            { vcId: 'a', vcData: 'A' },
            { vcId: 'b', vcData: 'B' },
          ],
        }),
      decode: inspect.decodeBatchIssueArgs,
      want: {
        issuer: src,
        vaultContract: vaultId,
        issuerDid: 'did:x',
        vcs: [
          { vcId: 'a', vcData: 'A' },
          { vcId: 'b', vcData: 'B' },
        ],
      },
    },
    {
      fn: 'revoke',
      build: () => vault.revoke({ source: src, vault: vaultId, vcId: 'v', date: '2026-01-01T00:00:00Z' }),
      decode: inspect.decodeRevokeArgs,
      want: { vcId: 'v', date: '2026-01-01T00:00:00Z' },
    },
    {
      fn: 'deny_issuer',
      build: () => vault.denyIssuer({ source: src, vault: vaultId, issuer: owner.publicKey() }),
      decode: inspect.decodeDenyIssuerArgs,
      want: { issuer: owner.publicKey() },
    },
    {
      fn: 'allow_issuer',
      build: () => vault.allowIssuer({ source: src, vault: vaultId, issuer: owner.publicKey() }),
      decode: inspect.decodeAllowIssuerArgs,
      want: { issuer: owner.publicKey() },
    },
    {
      fn: 'set_vault_did',
      build: () => vault.setVaultDid({ source: src, vault: vaultId, didUri: 'did:web:x' }),
      decode: inspect.decodeSetVaultDidArgs,
      want: { didUri: 'did:web:x' },
    },
    {
      fn: 'set_vault_admin',
      build: () => vault.setVaultAdmin({ source: src, vault: vaultId, newAdmin: owner.publicKey() }),
      decode: inspect.decodeSetVaultAdminArgs,
      want: { newAdmin: owner.publicKey() },
    },
    {
      fn: 'revoke_vault',
      build: () => vault.revokeVault({ source: src, vault: vaultId }),
      decode: inspect.decodeRevokeVaultArgs,
      want: {},
    },
    {
      fn: 'push',
      build: () => vault.push({ source: src, vault: vaultId, vcId: 'v', destVault: otherVault }),
      decode: inspect.decodePushArgs,
      want: { vcId: 'v', destVault: otherVault },
    },
    {
      fn: 'deploy',
      build: () => factory.deploy({ source: src, owner: src, didUri: 'did:web:o' }),
      decode: inspect.decodeDeployArgs,
      want: { owner: src, didUri: 'did:web:o', userSalt: '00'.repeat(32) },
    },
    {
      fn: 'deploy_sponsored',
      build: () =>
        factory.deploySponsored({
          source: src,
          deployer: src,
          owner: owner.publicKey(),
          didUri: 'd',
          userSalt: 'ab'.repeat(32),
        }),
      decode: inspect.decodeDeploySponsoredArgs,
      want: { deployer: src, owner: owner.publicKey(), didUri: 'd', userSalt: 'ab'.repeat(32) },
    },
    {
      fn: 'register',
      build: () => registry.register({ source: src, didId, record }),
      decode: inspect.decodeRegisterArgs,
      want: { didId, record },
    },
    {
      fn: 'update',
      build: () => registry.update({ source: src, didId, expectedVersion: 3, record }),
      decode: inspect.decodeUpdateArgs,
      want: { didId, expectedVersion: 3, record },
    },
    {
      fn: 'transfer_controller',
      build: () =>
        registry.transferController({ source: src, didId, expectedVersion: 2, newController: owner.publicKey() }),
      decode: inspect.decodeTransferControllerArgs,
      want: { didId, expectedVersion: 2, newController: owner.publicKey() },
    },
    {
      fn: 'deactivate',
      build: () => registry.deactivate({ source: src, didId, expectedVersion: 1 }),
      decode: inspect.decodeDeactivateArgs,
      want: { didId, expectedVersion: 1 },
    },
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
    const x = txWith([
      new Contract(vaultId).call(
        'issue',
        xdr.ScVal.scvU32(1),
        xdr.ScVal.scvU32(1),
        xdr.ScVal.scvU32(1),
        xdr.ScVal.scvU32(1),
        xdr.ScVal.scvU32(1),
      ),
    ]);
    expect(code(() => inspect.decodeIssueArgs(inspect.inspectTransaction(x, PASS)))).toBe('tx_operation_mismatch 400');
  });

  it('expectCall checks function and target', async () => {
    const i = await inv(vault.revoke({ source: src, vault: vaultId, vcId: 'v', date: 'd' }));
    expect(code(() => inspect.expectCall(i, { fn: 'revoke', contractId: vaultId }))).toBe('no error');
    expect(code(() => inspect.expectCall(i, { fn: 'revoke', contractId: otherVault }))).toBe(
      'tx_operation_mismatch 400',
    );
    expect(code(() => inspect.expectCall(i, { fn: 'issue' }))).toBe('tx_operation_mismatch 400');
  });
});

// CAP-71 (Protocol 27): the three address credential types. Each row builds an entry of that type, signs it
// with the SDK's authorizeEntry and reads it back through inspect and the submit-time signature check.
describe('authorization entries of every credential type', () => {
  const relayer = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 5));
  const delegate = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 6));
  const nested = Keypair.fromRawEd25519Seed(Buffer.alloc(32, 10));
  /** A custom account (C…) that would accept the owner's key: the address a replayed signature targets. */
  const sharedKeyAccount = StrKey.encodeContract(Buffer.alloc(32, 11));
  const args = new xdr.InvokeContractArgs({
    contractAddress: new Address(vaultId).toScAddress(),
    functionName: 'deny_issuer',
    args: [new Address(issuer.publicKey()).toScVal()],
  });
  const root = new xdr.SorobanAuthorizedInvocation({
    function: xdr.SorobanAuthorizedFunction.sorobanAuthorizedFunctionTypeContractFn(args),
    subInvocations: [],
  });
  const creds = (address: string, nonce = 77n) =>
    new xdr.SorobanAddressCredentials({
      address: new Address(address).toScAddress(),
      nonce,
      signatureExpirationLedger: 0,
      signature: xdr.ScVal.scvVoid(),
    });

  type Kind = 'sourceAccount' | 'address' | 'addressV2' | 'addressWithDelegates';
  /** An unsigned entry of `kind` for `address` (with delegates: `delegate`, which has `nested` below it). */
  function unsigned(kind: Kind, address = owner.publicKey()): xdr.SorobanAuthorizationEntry {
    switch (kind) {
      case 'sourceAccount':
        return new xdr.SorobanAuthorizationEntry({
          credentials: xdr.SorobanCredentials.sorobanCredentialsSourceAccount(),
          rootInvocation: root,
        });
      case 'address':
        return new xdr.SorobanAuthorizationEntry({
          credentials: xdr.SorobanCredentials.sorobanCredentialsAddress(creds(address)),
          rootInvocation: root,
        });
      case 'addressV2':
        return new xdr.SorobanAuthorizationEntry({
          credentials: xdr.SorobanCredentials.sorobanCredentialsAddressV2(creds(address)),
          rootInvocation: root,
        });
      case 'addressWithDelegates':
        return buildWithDelegatesEntry({
          entry: unsigned('addressV2', address),
          validUntilLedgerSeq: 0,
          delegates: [{ address: delegate.publicKey(), nestedDelegates: [{ address: nested.publicKey() }] }],
        });
    }
  }
  /** Signed by the owner (and, with delegates, by both delegates) for `passphrase`. */
  async function signedEntry(kind: Kind, passphrase = PASS): Promise<xdr.SorobanAuthorizationEntry> {
    let e = unsigned(kind);
    if (kind === 'sourceAccount') return e;
    e = await authorizeEntry(e, owner, 500, passphrase, owner.publicKey());
    if (kind === 'addressWithDelegates') {
      e = await authorizeEntry(e, delegate, 500, passphrase, delegate.publicKey());
      e = await authorizeEntry(e, nested, 500, passphrase, nested.publicKey());
    }
    return e;
  }
  /** `entry`'s credentials moved to `address`, signatures, nonce and expiration kept: a replay attempt. */
  function movedTo(entry: xdr.SorobanAuthorizationEntry, address: string): xdr.SorobanAuthorizationEntry {
    const c = entry.credentials;
    const move = (a: xdr.SorobanAddressCredentials) =>
      new xdr.SorobanAddressCredentials({
        address: new Address(address).toScAddress(),
        nonce: a.nonce,
        signatureExpirationLedger: a.signatureExpirationLedger,
        signature: a.signature,
      });
    const moved =
      c.type === 'sorobanCredentialsAddress'
        ? xdr.SorobanCredentials.sorobanCredentialsAddress(move(c.address))
        : c.type === 'sorobanCredentialsAddressV2'
          ? xdr.SorobanCredentials.sorobanCredentialsAddressV2(move(c.addressV2))
          : c.type === 'sorobanCredentialsAddressWithDelegates'
            ? xdr.SorobanCredentials.sorobanCredentialsAddressWithDelegates(
                new xdr.SorobanAddressCredentialsWithDelegates({
                  addressCredentials: move(c.addressWithDelegates.addressCredentials),
                  delegates: c.addressWithDelegates.delegates,
                }),
              )
            : c;
    return new xdr.SorobanAuthorizationEntry({ credentials: moved, rootInvocation: entry.rootInvocation });
  }
  /** A relayed transaction (relayer is source and signs the envelope) carrying `entries`. */
  const relayed = (entries: xdr.SorobanAuthorizationEntry[]): string =>
    signed(
      txWith(
        [Operation.invokeHostFunction({ func: xdr.HostFunction.hostFunctionTypeInvokeContract(args), auth: entries })],
        relayer,
      ),
      relayer,
    );
  const check = (x: string, passphrase = PASS) =>
    code(() => inspect.checkAuthSignatures(inspect.parseEnvelope(x, passphrase), passphrase));

  it.each<{ kind: Kind; summary: object }>([
    { kind: 'sourceAccount', summary: { credentials: 'sourceAccount', address: relayer.publicKey(), delegates: [] } },
    { kind: 'address', summary: { credentials: 'address', address: owner.publicKey(), delegates: [] } },
    { kind: 'addressV2', summary: { credentials: 'addressV2', address: owner.publicKey(), delegates: [] } },
    {
      kind: 'addressWithDelegates',
      summary: {
        credentials: 'addressWithDelegates',
        address: owner.publicKey(),
        delegates: [delegate.publicKey(), nested.publicKey()],
      },
    },
  ])(
    '$kind: inspect names the authorizing address and delegates; its own signatures pass',
    async ({ kind, summary }) => {
      const x = relayed([await signedEntry(kind)]);
      const inv = inspect.inspectTransaction(x, PASS);
      expect(inv.auth).toEqual([summary]);
      expect(inv.authAddresses).toEqual([(summary as { address: string }).address]);
      expect(inv.signedBy).toEqual([relayer.publicKey()]);
      expect(check(x)).toBe('no error');
    },
  );

  // The replay CAP-71 closes: the owner's signature copied under another address that accepts the same key.
  it.each<{ kind: Kind; want: string }>([
    { kind: 'address', want: 'no error' }, // the legacy payload names no address: only the network can refuse it
    { kind: 'addressV2', want: 'tx_invalid 400' },
    { kind: 'addressWithDelegates', want: 'tx_invalid 400' },
  ])('$kind: a signature made for one address, put under another → $want', async ({ kind, want }) => {
    const forOwner = await signedEntry(kind);
    expect(check(relayed([movedTo(forOwner, sharedKeyAccount)]))).toBe(want);
    expect(check(relayed([movedTo(forOwner, relayer.publicKey())]))).toBe(want);
    expect(inspect.inspectTransaction(relayed([movedTo(forOwner, sharedKeyAccount)]), PASS).authAddresses).toEqual([
      sharedKeyAccount,
    ]);
  });

  it.each<{ kind: Kind }>([{ kind: 'address' }, { kind: 'addressV2' }, { kind: 'addressWithDelegates' }])(
    '$kind: signed for another network → tx_invalid naming the entry',
    async ({ kind }) => {
      const x = relayed([await signedEntry(kind, OTHER)]);
      let message = '';
      try {
        inspect.checkAuthSignatures(inspect.parseEnvelope(x, PASS), PASS);
      } catch (e) {
        message = (e as Error).message;
      }
      expect(message).toContain(`authorization entry for ${owner.publicKey()}`);
      expect(check(x)).toBe('tx_invalid 400');
    },
  );

  it('a delegate signature that does not verify is refused, naming the delegate', async () => {
    const good = await signedEntry('addressWithDelegates');
    const w = (good.credentials as xdr.SorobanCredentialsAddressWithDelegates).addressWithDelegates;
    // the delegate's node as signed for another network, under the owner's valid signature
    const other = (await signedEntry('addressWithDelegates', OTHER))
      .credentials as xdr.SorobanCredentialsAddressWithDelegates;
    const forged = other.addressWithDelegates.delegates[0]!;
    const entry = new xdr.SorobanAuthorizationEntry({
      credentials: xdr.SorobanCredentials.sorobanCredentialsAddressWithDelegates(
        new xdr.SorobanAddressCredentialsWithDelegates({
          addressCredentials: w.addressCredentials,
          delegates: [forged],
        }),
      ),
      rootInvocation: good.rootInvocation,
    });
    let message = '';
    try {
      inspect.checkAuthSignatures(inspect.parseEnvelope(relayed([entry]), PASS), PASS);
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toMatch(
      new RegExp(
        `ADDRESS_WITH_DELEGATES authorization entry for ${owner.publicKey()} .*\\(delegate ${delegate.publicKey()}\\)`,
      ),
    );
  });

  it('unsigned entries and non-Ed25519 signature forms are left to the network', () => {
    const custom = new xdr.SorobanAuthorizationEntry({
      credentials: xdr.SorobanCredentials.sorobanCredentialsAddressV2(
        new xdr.SorobanAddressCredentials({
          address: new Address(sharedKeyAccount).toScAddress(),
          nonce: 1n,
          signatureExpirationLedger: 9,
          signature: xdr.ScVal.scvBytes(Buffer.alloc(64, 1)),
        }),
      ),
      rootInvocation: root,
    });
    expect(check(relayed([unsigned('address'), unsigned('addressV2'), unsigned('addressWithDelegates'), custom]))).toBe(
      'no error',
    );
  });
});
