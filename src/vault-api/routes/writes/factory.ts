// Vault creation through the factory: by the owner's source account (createVault) or paid by a sponsor
// (createSponsoredVault).
import type { VaultAppDeps } from '../../context.ts';
import { decodeDeployArgs, decodeDeploySponsoredArgs } from '../../../chain/index.ts';
import { bindAuthorizers, bindToWallet, expectFactory } from '../contract-common.ts';
import { checkDidUriNetwork } from '../issue-rules.ts';
import { salt, type WriteRouteOf } from './route.ts';

export function createVaultRoute(deps: VaultAppDeps): WriteRouteOf<'createVault'> {
  return {
    prepare(b) {
      checkDidUriNetwork(deps, b.didUri);
      return deps.chain.factory.deploy({
        source: b.sourcePublicKey,
        owner: b.owner,
        didUri: b.didUri,
        ...salt(b.userSalt),
      });
    },
    check(inv) {
      checkDidUriNetwork(deps, decodeDeployArgs(inv).didUri);
      expectFactory(deps, inv);
    },
  };
}

export function createSponsoredVaultRoute(deps: VaultAppDeps): WriteRouteOf<'createSponsoredVault'> {
  return {
    prepare(b, auth) {
      bindToWallet(auth, 'sponsor', 'sponsor', b.sponsor);
      bindToWallet(auth, 'sponsor', 'sourcePublicKey', b.sourcePublicKey);
      checkDidUriNetwork(deps, b.didUri);
      return deps.chain.factory.deploySponsored({
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
  };
}
