// The model of a vault (docs/chain-abi.md "Vault"):
// its state, one rule per write (the outcome the chain must give and the state change on success), and the
// check that the chain's reads agree with the model. The vault properties differ only in which commands they mix.
//
// Precedence of failures follows the contract: a simulation records `require_auth` and goes on, so any contract
// error of the call wins over a missing signature, which is reported last.
import fc from 'fast-check';
import { toStr } from '../src/chain/codec.ts';
import { code, expectEqual, needsAuthOf, OK, type Chain, type Transition } from './harness.ts';
import {
  deniedCount,
  getVc,
  isVault,
  listDenied,
  listVcIds,
  vaultDid,
  vaultOwner,
  vcCount,
  verifyVc,
  walkPages,
  type StoredVc,
  type VcStatus,
} from './vault-io.ts';

export const VaultErr = {
  VaultRevoked: 4,
  VCNotFound: 6,
  VCAlreadyRevoked: 7,
  InvalidVaultContract: 10,
  VCAlreadyExists: 12,
  LimitTooLarge: 16,
  BatchTooLarge: 17,
  BatchEmpty: 18,
  IssuerDenied: 25,
  PushOwnerMismatch: 26,
} as const;

export interface VaultState {
  readonly address: string;
  readonly owner: string;
  deployed: boolean;
  did?: string;
  admin: string;
  revoked: boolean;
  /** Denied issuers in the order they were (last) denied. */
  denied: string[];
  /** Every credential the vault holds (Valid or Revoked). */
  vcs: Map<string, { status: VcStatus; vc: StoredVc }>;
  /** Ids of the Valid credentials in the order they arrived (issued or pushed in). */
  active: string[];
}

export function vaultState(address: string, owner: string, deployed = false, did?: string): VaultState {
  return { address, owner, deployed, did, admin: owner, revoked: false, denied: [], vcs: new Map(), active: [] };
}

const fail = (n: number): Transition => ({ expected: code(n) });
const auth = (who: string): Transition => ({ expected: needsAuthOf(who) });
const remove = (list: string[], item: string): void => {
  const i = list.indexOf(item);
  if (i >= 0) list.splice(i, 1);
};

export const rules = {
  deploy(v: VaultState, did: string): Transition {
    if (v.deployed) return { expected: { text: 'contract already exists' } };
    return { expected: OK, apply: () => Object.assign(v, vaultState(v.address, v.owner, true, did)) };
  },

  setDid(v: VaultState, signer: string, did: string): Transition {
    if (v.revoked) return fail(VaultErr.VaultRevoked);
    if (signer !== v.owner) return auth(v.owner);
    return { expected: OK, apply: () => void (v.did = did) };
  },

  setAdmin(v: VaultState, signer: string, admin: string): Transition {
    if (v.revoked) return fail(VaultErr.VaultRevoked);
    if (signer !== v.admin) return auth(v.admin);
    return { expected: OK, apply: () => void (v.admin = admin) };
  },

  deny(v: VaultState, signer: string, issuer: string): Transition {
    if (v.revoked) return fail(VaultErr.VaultRevoked);
    if (signer !== v.admin) return auth(v.admin);
    return { expected: OK, apply: () => void (v.denied.includes(issuer) || v.denied.push(issuer)) };
  },

  allow(v: VaultState, signer: string, issuer: string): Transition {
    if (v.revoked) return fail(VaultErr.VaultRevoked);
    if (signer !== v.admin) return auth(v.admin);
    return { expected: OK, apply: () => remove(v.denied, issuer) };
  },

  revokeVault(v: VaultState, signer: string): Transition {
    if (v.revoked) return fail(VaultErr.VaultRevoked);
    if (signer !== v.admin) return auth(v.admin);
    return { expected: OK, apply: () => void (v.revoked = true) };
  },

  /** `issue` (one entry) or `batch_issue` (`batch`) naming `vaultContract`; the issuer signs. */
  issue(
    v: VaultState,
    issuer: string,
    issuerDid: string,
    vcs: { id: string; data: string }[],
    batch: boolean,
    vaultContract = v.address,
  ): Transition {
    if (batch && vcs.length === 0) return fail(VaultErr.BatchEmpty);
    if (batch && vcs.length > 5) return fail(VaultErr.BatchTooLarge);
    if (vaultContract !== v.address) return fail(VaultErr.InvalidVaultContract);
    if (v.revoked) return fail(VaultErr.VaultRevoked);
    if (v.denied.includes(issuer)) return fail(VaultErr.IssuerDenied);
    const ids = vcs.map((x) => x.id);
    if (new Set(ids).size !== ids.length || ids.some((id) => v.vcs.has(id))) return fail(VaultErr.VCAlreadyExists);
    return {
      expected: OK,
      apply: () => {
        for (const x of vcs) {
          v.vcs.set(x.id, {
            status: { tag: 'Valid' },
            vc: { id: x.id, data: x.data, issuanceContract: v.address, issuerDid },
          });
          v.active.push(x.id);
        }
      },
    };
  },

  revoke(v: VaultState, signer: string, id: string, date: string): Transition {
    if (v.revoked) return fail(VaultErr.VaultRevoked);
    const held = v.vcs.get(id);
    if (!held) return fail(VaultErr.VCNotFound);
    if (held.status.tag !== 'Valid') return fail(VaultErr.VCAlreadyRevoked);
    if (signer !== v.owner) return auth(v.owner);
    return {
      expected: OK,
      apply: () => {
        held.status = { tag: 'Revoked', date };
        remove(v.active, id);
      },
    };
  },

  push(src: VaultState, dest: VaultState, signer: string, id: string): Transition {
    if (src.revoked) return fail(VaultErr.VaultRevoked);
    const held = src.vcs.get(id);
    if (!held) return fail(VaultErr.VCNotFound);
    if (dest === src) return fail(VaultErr.InvalidVaultContract);
    if (dest.revoked) return fail(VaultErr.VaultRevoked);
    if (dest.owner !== src.owner) return fail(VaultErr.PushOwnerMismatch);
    if (dest.vcs.has(id)) return fail(VaultErr.VCAlreadyExists);
    if (signer !== src.admin) return auth(src.admin);
    return {
      expected: OK,
      apply: () => {
        src.vcs.delete(id);
        remove(src.active, id);
        dest.vcs.set(id, held);
        if (held.status.tag === 'Valid') dest.active.push(id);
      },
    };
  },
};

/** An id to act on: a fixed one, or the k-th credential the vault holds (any status) when it holds some. */
export type IdChoice = string | { held: number };

/** Mostly a credential the vault holds, sometimes any id of `pool`. */
export const idChoiceOf = (pool: readonly string[]): fc.Arbitrary<IdChoice> =>
  fc.oneof(
    { weight: 3, arbitrary: fc.nat({ max: 9 }).map((held) => ({ held })) },
    { weight: 1, arbitrary: fc.constantFrom(...pool) },
  );

export function resolveId(choice: IdChoice, v: VaultState, pool: readonly string[]): string {
  if (typeof choice === 'string') return choice;
  const held = [...v.vcs.keys()];
  return held.length ? held[choice.held % held.length]! : pool[choice.held % pool.length]!;
}

export const idLabel = (choice: IdChoice, used?: string): string =>
  typeof choice === 'string' ? choice : `held#${choice.held}${used ? `=${used}` : ''}`;

/** The model's status of `id` in `v` (`Invalid` when the vault does not hold it). */
export const modelStatus = (v: VaultState, id: string): VcStatus => v.vcs.get(id)?.status ?? { tag: 'Invalid' };

/** Every read of the vault agrees with the model: owner, DID, credentials of `ids`, the active index, the denied list. */
export function checkVault(chain: Chain, v: VaultState, ids: readonly string[]): void {
  const where = `vault ${v.address.slice(0, 6)}…`;
  expectEqual(`${where} is_vault`, isVault(chain, v.address), v.deployed);
  if (!v.deployed) return;
  expectEqual(`${where} version`, toStr(chain.read(v.address, 'version')), '0.4.0');
  expectEqual(`${where} vault_owner`, vaultOwner(chain, v.address), v.owner);
  expectEqual(`${where} vault_did`, vaultDid(chain, v.address), v.did);
  for (const id of ids) {
    expectEqual(`${where} verify_vc(${id})`, verifyVc(chain, v.address, id), modelStatus(v, id));
    expectEqual(`${where} get_vc(${id})`, getVc(chain, v.address, id), v.vcs.get(id)?.vc);
  }
  expectEqual(`${where} vc_count`, vcCount(chain, v.address), v.active.length);
  expectEqual(
    `${where} list_vc_ids`,
    walkPages((o, l) => listVcIds(chain, v.address, o, l), 200),
    v.active,
  );
  expectEqual(`${where} denied_issuer_count`, deniedCount(chain, v.address), v.denied.length);
  expectEqual(
    `${where} list_denied_issuers`,
    walkPages((o, l) => listDenied(chain, v.address, o, l), 200),
    v.denied,
  );
}
