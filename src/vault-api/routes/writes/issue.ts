// Issuing into a vault (issueVc, batchIssueVc): the issuer's binding, the credential's size, data, proof and
// status entry at prepare, and the same again on the sealed data at submit.
import type { VaultAppDeps } from '../../context.ts';
import { decodeBatchIssueArgs, decodeIssueArgs, mismatch, type Invocation } from '../../../chain/index.ts';
import {
  bindAuthorizers,
  bindToWallet,
  expectFactoryVault,
  onVaults,
  requireSame,
  vaultOf,
} from '../contract-common.ts';
import {
  batchEntry,
  checkBatchSize,
  checkIssuerDid,
  checkLengths,
  checkSealedVcData,
  checkVcData,
  sealVcData,
} from '../issue-rules.ts';
import { checkVcProof } from '../../verification-issuance.ts';
import { checkStatusEntry } from '../../verification-status.ts';
import type { WriteRouteOf } from './route.ts';

type Auth = Parameters<typeof bindToWallet>[0];

/** Issuer binding and the route rule "sourcePublicKey must be the issuer". */
export function issuerRules(auth: Auth, issuer: string, source: string): void {
  bindToWallet(auth, 'issuer', 'issuer', issuer);
  bindToWallet(auth, 'issuer', 'sourcePublicKey', source);
  requireSame('sourcePublicKey', source, 'the issuer', issuer);
}

/** At submit, issue and batch_issue: a factory vault, this vault as vault_contract, the issuer's rules. The owner. */
async function checkIssued(
  deps: VaultAppDeps,
  inv: Invocation,
  auth: Auth,
  a: { vaultContract: string; issuer: string; issuerDid: string },
): Promise<string> {
  await expectFactoryVault(deps, inv);
  if (a.vaultContract !== inv.contractId)
    throw mismatch(`vault_contract ${a.vaultContract} is not the invoked vault ${inv.contractId}`);
  issuerRules(auth, a.issuer, inv.source);
  bindAuthorizers(auth, 'issuer', inv);
  await checkIssuerDid(deps, a.issuerDid, a.issuer);
  return deps.chain.vault.vaultOwner({ vault: inv.contractId });
}

export function issueVcRoute(deps: VaultAppDeps): WriteRouteOf<'issueVc'> {
  const { chain } = deps;
  return {
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
      const owner = await checkIssued(deps, inv, auth, a);
      const vcData = checkSealedVcData(deps, '', { owner, vcId: a.vcId, data: a.vcData, issuer: a.issuer });
      checkStatusEntry(deps, '', vcData, { vault: inv.contractId, vcId: a.vcId });
      await checkVcProof(deps, '', vcData, a.issuerDid);
    },
  };
}

export function batchIssueVcRoute(deps: VaultAppDeps): WriteRouteOf<'batchIssueVc'> {
  const { chain } = deps;
  return {
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
      const owner = await checkIssued(deps, inv, auth, a);
      const plaintexts = a.vcs.map((c, i) =>
        checkSealedVcData(deps, batchEntry(i), { owner, vcId: c.vcId, data: c.vcData, issuer: a.issuer }),
      );
      plaintexts.forEach((vcData, i) =>
        checkStatusEntry(deps, batchEntry(i), vcData, { vault: inv.contractId, vcId: a.vcs[i]!.vcId }),
      );
      for (const [i, vcData] of plaintexts.entries()) await checkVcProof(deps, batchEntry(i), vcData, a.issuerDid);
    },
  };
}
