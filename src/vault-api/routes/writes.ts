// Contract write routes (docs/vault-api.md "Writes: prepare, sign, submit"): each prepares on the route and submits
// on the same route after the safe-submit checks (the function, the contract, the key's binding).
import { VaultErrors, type VaultAppDeps } from '../context.ts';
import {
  decodeAllowIssuerArgs,
  decodeBatchIssueArgs,
  decodeDenyIssuerArgs,
  decodeDeployArgs,
  decodeDeploySponsoredArgs,
  decodeIssueArgs,
  decodePushArgs,
  decodeRevokeArgs,
  decodeRevokeVaultArgs,
  decodeSetVaultAdminArgs,
  decodeSetVaultDidArgs,
  mismatch,
  type Invocation,
} from '../../chain/index.ts';
import type { operations as O } from '../../generated/vault-api.ts';
import type { RouteTable } from '../../platform/app.ts';
import {
  bindAuthorizers,
  bindToWallet,
  expectFactory,
  expectFactoryVault,
  onVaults,
  requireSame,
  vaultOf,
  writeHandler,
  type WriteRoute,
} from './contract-common.ts';
import {
  batchEntry,
  checkBatchSize,
  checkDidUriNetwork,
  checkIssuerDid,
  checkLengths,
  checkSealedVcData,
  checkVcData,
  sealVcData,
} from './issue-rules.ts';
import { checkVcProof } from '../verification.ts';
import { checkStatusEntry } from '../verification-status.ts';

/** The write operations' handlers, by operationId. */
export function writeRoutes(deps: VaultAppDeps): RouteTable<O> {
  const { chain } = deps;
  // Each route's prepare body is its operation's (src/platform/write.ts PrepareBodyOf).
  const write = <Op>(route: WriteRoute<Op>) => writeHandler<Op>(deps, route);

  /** Issuer binding and the route rule "sourcePublicKey must be the issuer". */
  const issuerRules = (auth: Parameters<typeof bindToWallet>[0], issuer: string, source: string) => {
    bindToWallet(auth, 'issuer', 'issuer', issuer);
    bindToWallet(auth, 'issuer', 'sourcePublicKey', source);
    requireSame('sourcePublicKey', source, 'the issuer', issuer);
  };

  /** At submit, issue and batch_issue: a factory vault, this vault as vault_contract, the issuer's rules. */
  const checkIssued = async (
    inv: Invocation,
    auth: Parameters<typeof bindToWallet>[0],
    a: { vaultContract: string; issuer: string; issuerDid: string },
  ) => {
    await expectFactoryVault(deps, inv);
    if (a.vaultContract !== inv.contractId)
      throw mismatch(`vault_contract ${a.vaultContract} is not the invoked vault ${inv.contractId}`);
    issuerRules(auth, a.issuer, inv.source);
    bindAuthorizers(auth, 'issuer', inv);
    await checkIssuerDid(deps, a.issuerDid, a.issuer);
    return chain.vault.vaultOwner({ vault: inv.contractId });
  };

  const issueVc = write<O['issueVc']>({
    async prepare(b, auth) {
      issuerRules(auth, b.issuer, b.sourcePublicKey);
      checkLengths('', b.vcId, b.vcData);
      checkVcData('', b.vcData);
      // The source's account is read while the issuer DID and the proof are checked (two independent chain reads
      // at once); prepare takes its answer, and a refused request leaves it unread.
      const sequence = chain.client.sequence(b.sourcePublicKey);
      sequence.catch(() => {});
      await checkIssuerDid(deps, b.issuerDid, b.issuer);
      await checkVcProof(deps, '', b.vcData, b.issuerDid);
      const vault = vaultOf(deps, b.owner, b.userSalt);
      checkStatusEntry(deps, '', b.vcData, { vault, vcId: b.vcId });
      const vcData = sealVcData(deps, '', { owner: b.owner, vcId: b.vcId, vcData: b.vcData, issuer: b.issuer });
      return onVaults(deps, [{ vault }], () =>
        chain.vault.issue({
          vault,
          source: b.sourcePublicKey,
          sequence,
          vcId: b.vcId,
          vcData,
          issuer: b.issuer,
          issuerDid: b.issuerDid,
        }),
      );
    },
    async check(inv, auth) {
      const a = decodeIssueArgs(inv);
      const owner = await checkIssued(inv, auth, a);
      const vcData = checkSealedVcData(deps, '', { owner, vcId: a.vcId, data: a.vcData, issuer: a.issuer });
      checkStatusEntry(deps, '', vcData, { vault: inv.contractId, vcId: a.vcId });
      await checkVcProof(deps, '', vcData, a.issuerDid);
    },
  });

  const batchIssueVc = write<O['batchIssueVc']>({
    async prepare(b, auth) {
      issuerRules(auth, b.issuer, b.sourcePublicKey);
      checkBatchSize(b.vcs.length);
      b.vcs.forEach((c, i) => checkLengths(batchEntry(i), c.vcId, c.vcData));
      b.vcs.forEach((c, i) => checkVcData(batchEntry(i), c.vcData));
      await checkIssuerDid(deps, b.issuerDid, b.issuer);
      for (const [i, c] of b.vcs.entries()) await checkVcProof(deps, batchEntry(i), c.vcData, b.issuerDid);
      const vault = vaultOf(deps, b.owner, b.userSalt);
      b.vcs.forEach((c, i) => checkStatusEntry(deps, batchEntry(i), c.vcData, { vault, vcId: c.vcId }));
      const vcs = b.vcs.map((c, i) => ({
        vcId: c.vcId,
        vcData: sealVcData(deps, batchEntry(i), { owner: b.owner, issuer: b.issuer, ...c }),
      }));
      return onVaults(deps, [{ vault }], () =>
        chain.vault.batchIssue({ vault, source: b.sourcePublicKey, issuer: b.issuer, issuerDid: b.issuerDid, vcs }),
      );
    },
    async check(inv, auth) {
      const a = decodeBatchIssueArgs(inv);
      checkBatchSize(a.vcs.length);
      const owner = await checkIssued(inv, auth, a);
      const plaintexts = a.vcs.map((c, i) =>
        checkSealedVcData(deps, batchEntry(i), { owner, vcId: c.vcId, data: c.vcData, issuer: a.issuer }),
      );
      plaintexts.forEach((vcData, i) =>
        checkStatusEntry(deps, batchEntry(i), vcData, { vault: inv.contractId, vcId: a.vcs[i]!.vcId }),
      );
      for (const [i, vcData] of plaintexts.entries()) await checkVcProof(deps, batchEntry(i), vcData, a.issuerDid);
    },
  });

  const revokeVc = write<O['revokeVc']>({
    prepare(b) {
      const vault = vaultOf(deps, b.owner, b.userSalt);
      const date = b.date ?? new Date(deps.now()).toISOString();
      return onVaults(deps, [{ vault }], () =>
        chain.vault.revoke({ vault, source: b.sourcePublicKey, vcId: b.vcId, date }),
      );
    },
    async check(inv) {
      decodeRevokeArgs(inv);
      await expectFactoryVault(deps, inv);
    },
  });

  const createVault = write<O['createVault']>({
    prepare(b) {
      checkDidUriNetwork(deps, b.didUri);
      return chain.factory.deploy({ source: b.sourcePublicKey, owner: b.owner, didUri: b.didUri, ...salt(b.userSalt) });
    },
    check(inv) {
      checkDidUriNetwork(deps, decodeDeployArgs(inv).didUri);
      expectFactory(deps, inv);
    },
  });

  const denyIssuerRoute: WriteRoute<O['denyIssuer']> = {
    prepare(b) {
      const vault = vaultOf(deps, b.owner, b.userSalt);
      return onVaults(deps, [{ vault }], () =>
        chain.vault.denyIssuer({ vault, source: b.sourcePublicKey, issuer: b.issuer }),
      );
    },
    async check(inv) {
      decodeDenyIssuerArgs(inv);
      await expectFactoryVault(deps, inv);
    },
  };
  const denyIssuer = write<O['denyIssuer']>(denyIssuerRoute);
  const revokeIssuerAlias = write<O['revokeIssuerAlias']>(denyIssuerRoute);

  const allowIssuerRoute: WriteRoute<O['allowIssuer']> = {
    prepare(b) {
      const vault = vaultOf(deps, b.owner, b.userSalt);
      return onVaults(deps, [{ vault }], () =>
        chain.vault.allowIssuer({ vault, source: b.sourcePublicKey, issuer: b.issuer }),
      );
    },
    async check(inv) {
      decodeAllowIssuerArgs(inv);
      await expectFactoryVault(deps, inv);
    },
  };
  const allowIssuer = write<O['allowIssuer']>(allowIssuerRoute);
  const authorizeIssuerAlias = write<O['authorizeIssuerAlias']>(allowIssuerRoute);

  const setVaultDid = write<O['setVaultDid']>({
    prepare(b) {
      checkDidUriNetwork(deps, b.didUri);
      const vault = vaultOf(deps, b.owner, b.userSalt);
      return onVaults(deps, [{ vault }], () =>
        chain.vault.setVaultDid({ vault, source: b.sourcePublicKey, didUri: b.didUri }),
      );
    },
    async check(inv) {
      checkDidUriNetwork(deps, decodeSetVaultDidArgs(inv).didUri);
      await expectFactoryVault(deps, inv);
    },
  });

  // Decision (vault-api.yaml pushVc): the source is (fromOwner, userSalt), the destination toOwner's
  // canonical vault; the contract requires both vaults to have the same owner.
  const pushVc = write<O['pushVc']>({
    prepare(b, auth) {
      bindToWallet(auth, 'ownership', 'fromOwner', b.fromOwner);
      requireSame('sourcePublicKey', b.sourcePublicKey, 'fromOwner', b.fromOwner);
      const source = vaultOf(deps, b.fromOwner, b.userSalt);
      const dest = vaultOf(deps, b.toOwner);
      if (source === dest) {
        throw VaultErrors.invalidRequest(
          'source and destination are the same vault: give the userSalt of the salted source vault',
        );
      }
      return onVaults(
        deps,
        [
          { vault: source, label: 'for fromOwner and userSalt' },
          { vault: dest, label: "as toOwner's canonical vault" },
        ],
        () => chain.vault.push({ vault: source, source: b.sourcePublicKey, vcId: b.vcId, destVault: dest }),
      );
    },
    async check(inv, auth) {
      const a = decodePushArgs(inv);
      await expectFactoryVault(deps, inv);
      await expectFactoryVault(deps, inv, a.destVault);
      const fromOwner = await chain.vault.vaultOwner({ vault: inv.contractId });
      bindToWallet(auth, 'ownership', 'fromOwner', fromOwner);
      requireSame('sourcePublicKey', inv.source, 'fromOwner', fromOwner);
      bindAuthorizers(auth, 'ownership', inv);
    },
  });

  const revokeVault = write<O['revokeVault']>({
    prepare(b) {
      const vault = vaultOf(deps, b.owner, b.userSalt);
      return onVaults(deps, [{ vault }], () => chain.vault.revokeVault({ vault, source: b.sourcePublicKey }));
    },
    async check(inv) {
      decodeRevokeVaultArgs(inv);
      await expectFactoryVault(deps, inv);
    },
  });

  const setNewOwner = write<O['setNewOwner']>({
    prepare(b) {
      const vault = vaultOf(deps, b.owner, b.userSalt);
      return onVaults(deps, [{ vault }], () =>
        chain.vault.setVaultAdmin({ vault, source: b.sourcePublicKey, newAdmin: b.new_owner }),
      );
    },
    async check(inv) {
      decodeSetVaultAdminArgs(inv);
      await expectFactoryVault(deps, inv);
    },
  });

  const createSponsoredVault = write<O['createSponsoredVault']>({
    prepare(b, auth) {
      bindToWallet(auth, 'sponsor', 'sponsor', b.sponsor);
      bindToWallet(auth, 'sponsor', 'sourcePublicKey', b.sourcePublicKey);
      checkDidUriNetwork(deps, b.didUri);
      return chain.factory.deploySponsored({
        source: b.sourcePublicKey,
        deployer: b.sponsor,
        owner: b.owner,
        didUri: b.didUri,
        ...salt(b.userSalt),
      });
    },
    check(inv, auth) {
      const a = decodeDeploySponsoredArgs(inv);
      checkDidUriNetwork(deps, a.didUri);
      expectFactory(deps, inv);
      bindToWallet(auth, 'sponsor', 'sponsor', a.deployer);
      bindToWallet(auth, 'sponsor', 'sourcePublicKey', inv.source);
      bindAuthorizers(auth, 'sponsor', inv);
    },
  });

  return {
    issueVc,
    batchIssueVc,
    revokeVc,
    createVault,
    denyIssuer,
    revokeIssuerAlias,
    allowIssuer,
    authorizeIssuerAlias,
    setVaultDid,
    pushVc,
    revokeVault,
    setNewOwner,
    createSponsoredVault,
  };
}

const salt = (userSalt: string | undefined): { userSalt?: string } => (userSalt !== undefined ? { userSalt } : {});
