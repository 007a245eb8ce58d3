// Read routes (vault-api.yaml tag Reads): everything comes from the chain through
// simulation; get-vc decrypts. POST reads take a body, GET reads take owner and userSalt as query.
import { accountExists } from '../../chain/index.ts';
import { VaultErrors, getAuth, type VaultAppDeps } from '../context.ts';
import { decryptVcData } from '../../crypto/envelope.ts';
import type { operations } from '../../generated/vault-api.ts';
import { sendJsonText } from '../../platform/json-answer.ts';
import type { RouteTable } from '../../platform/app.ts';
import type { OperationHandler } from '../../platform/typed.ts';
import { DEFAULT_LIMIT, bindToWallet, intParam, onVaults, optStr, str, vaultOf, type Body } from './contract-common.ts';

export const FACTORY_VERSION_NOTE = "The factory has no version of its own; pass owner to read a vault's version.";

/** The read operations' handlers, by operationId. */
export function readRoutes(deps: VaultAppDeps): RouteTable<operations> {
  return {
    listVcIds: listVcIds(deps),
    getVcCount: getVcCount(deps),
    getVc: getVc(deps),
    verifyVc: verifyVc(deps),
    listDeniedIssuers: listDeniedIssuers(deps),
    countDeniedIssuers: countDeniedIssuers(deps),
    getVersion: getVersion(deps),
    getVault: getVault(deps),
  };
}

/** The vault a read names: (owner, userSalt), or the `vaultContract` that must equal it. */
function target(deps: VaultAppDeps, p: Body): { owner: string; vault: string } {
  const owner = str(p, 'owner');
  return { owner, vault: vaultOf(deps, owner, optStr(p, 'userSalt'), optStr(p, 'vaultContract')) };
}

const read = <T>(deps: VaultAppDeps, vault: string, f: () => Promise<T>): Promise<T> => onVaults(deps, [{ vault }], f);

// The POST reads take their body and answer through the generated operation types (src/platform/typed.ts).
export function listVcIds(deps: VaultAppDeps): OperationHandler<operations['listVcIds']> {
  return async (req, res) => {
    const b = req.body;
    const offset = intParam(b.offset, 'offset', 0);
    const limit = intParam(b.limit, 'limit', DEFAULT_LIMIT);
    const vault = vaultOf(deps, b.owner, b.userSalt, b.vaultContract);
    bindToWallet(getAuth(req), 'ownership', 'owner', b.owner);
    const result = await read(deps, vault, () => deps.chain.vault.listVcIds({ vault, offset, limit }));
    res.json({ result, offset, limit });
  };
}

export function getVcCount(deps: VaultAppDeps): OperationHandler<operations['getVcCount']> {
  return async (req, res) => {
    const { vault } = target(deps, req.query);
    res.json({ count: await read(deps, vault, () => deps.chain.vault.vcCount({ vault })) });
  };
}

export function getVc(deps: VaultAppDeps): OperationHandler<operations['getVc']> {
  return async (req, res) => {
    const { owner, userSalt, vaultContract, vcId } = req.body;
    const vault = vaultOf(deps, owner, userSalt, vaultContract);
    bindToWallet(getAuth(req), 'ownership', 'owner', owner);
    const stored = await read(deps, vault, () => deps.chain.vault.getVc({ vault, vcId }));
    if (!stored) throw VaultErrors.vcNotFound(`the vault holds no credential ${vcId}`);
    // The envelope is bound to the vault owner; a vault derived from (factory, owner, salt) has this owner
    // as vault_owner, and push only moves credentials between vaults of one owner.
    res.json({ result: openVc(deps, owner, vcId, stored.data) });
  };
}

export function verifyVc(deps: VaultAppDeps): OperationHandler<operations['verifyVc']> {
  // Response validation (tests) reads answers through res.json (src/platform/json-answer.ts).
  const viaResJson = deps.validateResponses === true;
  return async (req, res) => {
    const { owner, userSalt, vaultContract, vcId } = req.body;
    const vault = vaultOf(deps, owner, userSalt, vaultContract);
    const status = await read(deps, vault, () => deps.chain.vault.verifyVc({ vault, vcId }));
    sendJsonText(req, res, status, JSON.stringify(status), { viaResJson });
  };
}

export function listDeniedIssuers(deps: VaultAppDeps): OperationHandler<operations['listDeniedIssuers']> {
  return async (req, res) => {
    const q = req.query;
    const offset = intParam(q['offset'], 'offset', 0);
    const limit = intParam(q['limit'], 'limit', DEFAULT_LIMIT);
    const { vault } = target(deps, q);
    const issuers = await read(deps, vault, () => deps.chain.vault.listDeniedIssuers({ vault, offset, limit }));
    res.json({ issuers, offset, limit });
  };
}

export function countDeniedIssuers(deps: VaultAppDeps): OperationHandler<operations['countDeniedIssuers']> {
  return async (req, res) => {
    const { vault } = target(deps, req.query);
    res.json({ count: await read(deps, vault, () => deps.chain.vault.deniedIssuerCount({ vault })) });
  };
}

export function getVersion(deps: VaultAppDeps): OperationHandler<operations['getVersion']> {
  const { chain } = deps;
  return async (req, res) => {
    const q = req.query;
    if (q['owner'] === undefined) {
      res.json({ factory_id: chain.factory.factoryId, note: FACTORY_VERSION_NOTE });
      return;
    }
    const { vault } = target(deps, q);
    const source = optStr(q, 'sourcePublicKey');
    if (source !== undefined && !(await accountExists(chain.client, source))) {
      throw VaultErrors.sourceAccountNotFound(`source account ${source} does not exist on ${deps.profile.network}`);
    }
    res.json({ version: await read(deps, vault, () => chain.vault.version({ vault, ...(source ? { source } : {}) })) });
  };
}

// Registered after the static GET routes beside it; the validator also constrains {owner} to G….
export function getVault(deps: VaultAppDeps): OperationHandler<operations['getVault']> {
  const { chain } = deps;
  return async (req, res) => {
    const owner = req.params.owner;
    if (!/^G[A-Z2-7]{55}$/.test(owner)) throw VaultErrors.invalidRequest('owner must be an account address');
    const { vault } = target(deps, { ...req.query, owner });
    const [didUri, version, vcCount, deniedCount] = await read(deps, vault, () =>
      Promise.all([
        chain.vault.vaultDid({ vault }),
        chain.vault.version({ vault }),
        chain.vault.vcCount({ vault }),
        chain.vault.deniedIssuerCount({ vault }),
      ]),
    );
    res.json({
      owner,
      vault_address: vault,
      did_uri: didUri ?? '',
      version,
      vc_count: vcCount,
      denied_issuer_count: deniedCount,
    });
  };
}

/**
 * Decrypts a stored credential. A payload this service cannot open (another deployment's key, a key no
 * longer in the keyring, data not written through this API) is 500 vc_decryption_failed: the credential
 * exists, the service cannot read it.
 */
export function openVc(deps: VaultAppDeps, owner: string, vcId: string, data: string): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = JSON.parse(decryptVcData(deps.keyring, { owner, vcId, data }));
  } catch (e) {
    throw VaultErrors.vcDecryptionFailed(
      `credential ${vcId} cannot be decrypted by this service: ${e instanceof Error ? e.message : String(e)}`,
    );
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw VaultErrors.vcDecryptionFailed(`credential ${vcId} decrypts to something other than a JSON object`);
  }
  return doc as Record<string, unknown>;
}
