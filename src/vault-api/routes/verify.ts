// POST /credentials/verify (vault-api.yaml verifyCredential, W3C VC API shape): a credential presented by
// its holder, or looked up in a vault by owner + vcId and decrypted as get-vc does, verified in one answer
// (src/vault-api/verification.ts). The key is optional for presented credentials (keyless callers are
// limited per client IP by the rate-limit middleware); a lookup by reference needs one.
import type { Router } from 'express';
import { ApiError, peekAuth, type VaultAppDeps } from '../context.ts';
import { sameCredential, verifyCredential, type VaultEntry } from '../verification.ts';
import { bodyOf, onVaults, optStr, vaultOf } from './contract-common.ts';
import { openVc } from './reads.ts';

export function registerVerifyRoutes(router: Router, deps: VaultAppDeps): void {
  router.post('/credentials/verify', async (req, res) => {
    const b = bodyOf(req);
    const presented = b['verifiableCredential'];
    const owner = optStr(b, 'owner');
    const vcId = optStr(b, 'vcId');
    if ((owner === undefined) !== (vcId === undefined)) {
      throw new ApiError(400, 'invalid_request', 'a vault reference is owner and vcId together');
    }
    if (presented === undefined && owner === undefined) {
      throw new ApiError(400, 'invalid_request', 'send verifiableCredential, or owner and vcId of a credential in a vault, or both');
    }
    if (presented !== undefined && (typeof presented !== 'object' || presented === null || Array.isArray(presented))) {
      throw new ApiError(400, 'invalid_request', 'verifiableCredential must be a JSON object');
    }

    let credential = presented as Record<string, unknown> | undefined;
    let entry: VaultEntry | undefined;
    let notTheStoredCredential = false;
    if (owner !== undefined && vcId !== undefined) {
      if (!peekAuth(req)) throw new ApiError(401, 'missing_api_key', 'verification by owner and vcId needs an API key; a presented credential does not');
      const vault = vaultOf(deps, owner, optStr(b, 'userSalt'), optStr(b, 'vaultContract'));
      const stored = await onVaults(deps, [{ vault }], () => deps.chain.vault.getVc({ vault, vcId }));
      if (!stored) throw new ApiError(404, 'vc_not_found', `the vault holds no credential ${vcId}`);
      const held = openVc(deps, owner, vcId, stored.data);
      entry = { vault, vcId, storedIssuerDid: stored.issuerDid };
      if (credential === undefined) credential = held;
      else notTheStoredCredential = !sameCredential(credential, held);
    }
    const options = b['options'] as { domain?: string; challenge?: string } | undefined;
    const result = await onVaults(deps, entry ? [{ vault: entry.vault }] : [], () =>
      verifyCredential(deps, {
        credential: credential!,
        ...(entry ? { entry } : {}),
        notTheStoredCredential,
        ...(options ? { options } : {}),
      }),
    );
    deps.metrics?.domain.verified(result.verified ? 'verified' : 'failed', result.errors[0]?.reason ?? 'none');
    res.json(result);
  });
}
