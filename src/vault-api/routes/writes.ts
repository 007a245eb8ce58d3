// Contract write routes (docs/vault-api.md "Writes: prepare, sign, submit"): each prepares on the route and submits
// on the same route after the safe-submit checks (the function, the contract, the key's binding). The routes
// themselves are in ./writes/: issuing, the owner's vault writes, and the factory's deployments.
import type { VaultAppDeps } from '../context.ts';
import type { operations as O } from '../../generated/vault-api.ts';
import type { RouteTable } from '../../platform/app.ts';
import { writeHandler } from './contract-common.ts';
import { createSponsoredVaultRoute, createVaultRoute } from './writes/factory.ts';
import { batchIssueVcRoute, issueVcRoute } from './writes/issue.ts';
import { extendVaultTtlHandler } from './writes/lifetime.ts';
import {
  allowIssuerRoute,
  denyIssuerRoute,
  pushVcRoute,
  revokeVaultRoute,
  revokeVcRoute,
  setNewOwnerRoute,
  setVaultDidRoute,
} from './writes/vault.ts';

/** The write operations' handlers, by operationId. */
export function writeRoutes(deps: VaultAppDeps): RouteTable<O> {
  const denyIssuer = denyIssuerRoute(deps);
  const allowIssuer = allowIssuerRoute(deps);
  return {
    issueVc: writeHandler<O['issueVc']>(deps, issueVcRoute(deps)),
    batchIssueVc: writeHandler<O['batchIssueVc']>(deps, batchIssueVcRoute(deps)),
    revokeVc: writeHandler<O['revokeVc']>(deps, revokeVcRoute(deps)),
    createVault: writeHandler<O['createVault']>(deps, createVaultRoute(deps)),
    denyIssuer: writeHandler<O['denyIssuer']>(deps, denyIssuer),
    revokeIssuerAlias: writeHandler<O['revokeIssuerAlias']>(deps, denyIssuer),
    allowIssuer: writeHandler<O['allowIssuer']>(deps, allowIssuer),
    authorizeIssuerAlias: writeHandler<O['authorizeIssuerAlias']>(deps, allowIssuer),
    setVaultDid: writeHandler<O['setVaultDid']>(deps, setVaultDidRoute(deps)),
    pushVc: writeHandler<O['pushVc']>(deps, pushVcRoute(deps)),
    revokeVault: writeHandler<O['revokeVault']>(deps, revokeVaultRoute(deps)),
    setNewOwner: writeHandler<O['setNewOwner']>(deps, setNewOwnerRoute(deps)),
    createSponsoredVault: writeHandler<O['createSponsoredVault']>(deps, createSponsoredVaultRoute(deps)),
    extendVaultTtl: extendVaultTtlHandler(deps),
  };
}
