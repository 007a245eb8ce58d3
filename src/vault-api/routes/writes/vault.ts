// The owner's writes on an existing vault: revoke a credential, deny or allow an issuer, set its DID, push a
// credential to another vault of the same owner, revoke the vault, hand it to a new owner.
import { VaultErrors, type VaultAppDeps } from '../../context.ts';
import {
  decodeAllowIssuerArgs,
  decodeDenyIssuerArgs,
  decodePushArgs,
  decodeRevokeArgs,
  decodeRevokeVaultArgs,
  decodeSetVaultAdminArgs,
  decodeSetVaultDidArgs,
} from '../../../chain/index.ts';
import {
  bindAuthorizers,
  bindToWallet,
  expectFactoryVault,
  onVaults,
  requireSame,
  vaultOf,
} from '../contract-common.ts';
import { checkDidUriNetwork } from '../issue-rules.ts';
import type { WriteRouteOf } from './route.ts';

export function revokeVcRoute(deps: VaultAppDeps): WriteRouteOf<'revokeVc'> {
  return {
    prepare(b) {
      const vault = vaultOf(deps, b.owner, b.userSalt);
      const date = b.date ?? new Date(deps.now()).toISOString();
      return onVaults(deps, [{ vault }], () =>
        deps.chain.vault.revoke({ vault, source: b.sourcePublicKey, vcId: b.vcId, date }),
      );
    },
    async check(inv) {
      decodeRevokeArgs(inv);
      await expectFactoryVault(deps, inv);
    },
  };
}

/** denyIssuer, and its alias revokeIssuerAlias. */
export function denyIssuerRoute(deps: VaultAppDeps): WriteRouteOf<'denyIssuer'> {
  return {
    prepare(b) {
      const vault = vaultOf(deps, b.owner, b.userSalt);
      return onVaults(deps, [{ vault }], () =>
        deps.chain.vault.denyIssuer({ vault, source: b.sourcePublicKey, issuer: b.issuer }),
      );
    },
    async check(inv) {
      decodeDenyIssuerArgs(inv);
      await expectFactoryVault(deps, inv);
    },
  };
}

/** allowIssuer, and its alias authorizeIssuerAlias. */
export function allowIssuerRoute(deps: VaultAppDeps): WriteRouteOf<'allowIssuer'> {
  return {
    prepare(b) {
      const vault = vaultOf(deps, b.owner, b.userSalt);
      return onVaults(deps, [{ vault }], () =>
        deps.chain.vault.allowIssuer({ vault, source: b.sourcePublicKey, issuer: b.issuer }),
      );
    },
    async check(inv) {
      decodeAllowIssuerArgs(inv);
      await expectFactoryVault(deps, inv);
    },
  };
}

export function setVaultDidRoute(deps: VaultAppDeps): WriteRouteOf<'setVaultDid'> {
  return {
    prepare(b) {
      checkDidUriNetwork(deps, b.didUri);
      const vault = vaultOf(deps, b.owner, b.userSalt);
      return onVaults(deps, [{ vault }], () =>
        deps.chain.vault.setVaultDid({ vault, source: b.sourcePublicKey, didUri: b.didUri }),
      );
    },
    async check(inv) {
      checkDidUriNetwork(deps, decodeSetVaultDidArgs(inv).didUri);
      await expectFactoryVault(deps, inv);
    },
  };
}

/**
 * Decision (vault-api.yaml pushVc): the source is (fromOwner, userSalt), the destination toOwner's canonical
 * vault; the contract requires both vaults to have the same owner.
 */
export function pushVcRoute(deps: VaultAppDeps): WriteRouteOf<'pushVc'> {
  const { chain } = deps;
  return {
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
  };
}

export function revokeVaultRoute(deps: VaultAppDeps): WriteRouteOf<'revokeVault'> {
  return {
    prepare(b) {
      const vault = vaultOf(deps, b.owner, b.userSalt);
      return onVaults(deps, [{ vault }], () => deps.chain.vault.revokeVault({ vault, source: b.sourcePublicKey }));
    },
    async check(inv) {
      decodeRevokeVaultArgs(inv);
      await expectFactoryVault(deps, inv);
    },
  };
}

export function setNewOwnerRoute(deps: VaultAppDeps): WriteRouteOf<'setNewOwner'> {
  return {
    prepare(b) {
      const vault = vaultOf(deps, b.owner, b.userSalt);
      return onVaults(deps, [{ vault }], () =>
        deps.chain.vault.setVaultAdmin({ vault, source: b.sourcePublicKey, newAdmin: b.new_owner }),
      );
    },
    async check(inv) {
      decodeSetVaultAdminArgs(inv);
      await expectFactoryVault(deps, inv);
    },
  };
}
