// Keeping a vault's state live (docs/vault-api.md "Credential lifetime"): POST /contracts/vault/extend-ttl prepares
// the ExtendFootprintTTL of the vault's instance and credentials, or the RestoreFootprint their archived entries
// need first, and submits either after the safe-submit checks: the operation, a footprint of one vault of this
// network's factory, and (for a key that is not an admin's) that vault's owner is the key's wallet.
import { Address } from '@stellar/stellar-sdk';
import type { components, operations as O } from '../../../generated/vault-api.ts';
import type { OperationHandler } from '../../../platform/typed.ts';
import { writeOperation, type PrepareBodyOf } from '../../../platform/write.ts';
import { mismatch, type TtlInvocation } from '../../../chain/index.ts';
import { VaultErrors, getAuth, type AuthContext, type VaultAppDeps } from '../../context.ts';
import { bindToWallet, bodyOf, keyWallet, onVaults, submitAlone, vaultOf, writeOptions } from '../contract-common.ts';

/**
 * Credentials one transaction keeps live (vault-api.yaml ExtendTtlPrepare.vcIds): a RestoreFootprint writes each
 * entry it restores, at most 50 a transaction on testnet and mainnet, and each credential is two entries beside the
 * vault's instance (1 + 2 × 24 = 49).
 */
export const MAX_TTL_VC_IDS = 24;

type Prepared = components['schemas']['ExtendTtlPrepareResponse'];

export function extendVaultTtlHandler(deps: VaultAppDeps): OperationHandler<O['extendVaultTtl']> {
  return writeOperation<O['extendVaultTtl']>(writeOptions(deps), {
    prepare: async (body, req, res) => {
      bodyOf(req);
      res.json(await prepareExtension(deps, body, getAuth(req)));
    },
    submit: async (signedXdr, req, res) => {
      submitAlone(req);
      const auth = getAuth(req);
      const sent = await deps.chain.client.submitTtl(signedXdr, (inv) => checkTtl(deps, auth, inv));
      res.json({ tx_id: sent.txId, txId: sent.txId });
    },
  });
}

/** The extension of the vault and the credentials asked for (all it lists when none are), or their restore. */
async function prepareExtension(
  deps: VaultAppDeps,
  b: PrepareBodyOf<O['extendVaultTtl']>,
  auth: AuthContext,
): Promise<Prepared> {
  bindToWallet(auth, 'ownership', 'owner', b.owner);
  const vault = vaultOf(deps, b.owner, b.userSalt);
  const vcIds = b.vcIds ?? (await listedVcIds(deps, vault));
  const state = await deps.chain.vault.ttlState({ vault, vcIds });
  if (!state.vaultExists)
    throw VaultErrors.vaultNotFound(`no vault is deployed for this owner and userSalt (${vault})`);
  if (state.missing.length > 0)
    throw VaultErrors.vcNotFound(`the vault holds no credential ${state.missing.join(', ')}`);
  const most = state.settings.maxEntryTTL - 1;
  const ledgers = b.ledgers ?? most;
  if (ledgers > most) {
    throw VaultErrors.invalidRequest(`ledgers must be at most ${most} on this network (its maxEntryTTL less one)`);
  }
  const p = await deps.chain.client.prepareTtl({ source: b.sourcePublicKey, keys: state.keys, extendTo: ledgers });
  return {
    xdr: p.xdr,
    network: p.network,
    networkPassphrase: p.network,
    operation: p.operation,
    vault,
    vcIds,
    restoring: p.restoring,
    ledgers,
    ...(p.operation === 'extendFootprintTtl' ? { liveUntilLedger: p.latestLedger + 1 + ledgers } : {}),
    fee: p.fee,
  };
}

/** Every credential the vault lists, when one transaction covers them (else 400 batch_too_large). */
async function listedVcIds(deps: VaultAppDeps, vault: string): Promise<string[]> {
  const ids = await onVaults(deps, [{ vault }], () =>
    deps.chain.vault.listVcIds({ vault, offset: 0, limit: MAX_TTL_VC_IDS + 1 }),
  );
  if (ids.length <= MAX_TTL_VC_IDS) return ids;
  const count = await deps.chain.vault.vcCount({ vault });
  throw VaultErrors.batchTooLarge(
    `the vault lists ${count} credentials, more than the ${MAX_TTL_VC_IDS} one transaction keeps live: name them in vcIds, ${MAX_TTL_VC_IDS} at a time`,
  );
}

/**
 * Safe submit: the footprint names contract data of one contract only, a vault of this network's factory, and a
 * key that is not an admin's owns it (ownership binding).
 */
async function checkTtl(deps: VaultAppDeps, auth: AuthContext, inv: TtlInvocation): Promise<void> {
  let vault: string | undefined;
  for (const k of [...inv.readOnly, ...inv.readWrite]) {
    if (k.type !== 'contractData') throw mismatch(`the ${inv.operation} names a ${k.type} entry, not a vault's state`);
    const c = Address.fromScAddress(k.contractData.contract).toString();
    if (vault !== undefined && c !== vault) throw mismatch(`the ${inv.operation} names the state of two contracts`);
    vault = c;
  }
  if (vault === undefined) throw mismatch(`the ${inv.operation} names no ledger entry`);
  if (vault === deps.chain.factory.factoryId || !(await deps.chain.factory.isVault(vault))) {
    throw mismatch(`the ${inv.operation} names the state of ${vault}, which is not a vault of this network's factory`);
  }
  if (auth.role === 'admin') return;
  const owner = await deps.chain.vault.vaultOwner({ vault });
  if (owner !== keyWallet(auth)) {
    throw VaultErrors.forbidden(
      `the ${inv.operation} keeps live the vault of ${owner}, which is not the wallet bound to the API key (ownership binding)`,
    );
  }
}
