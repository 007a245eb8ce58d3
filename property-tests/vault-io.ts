// The vault and factory calls the properties make, as plain values: argument builders for the writes and
// decoders for the reads (VCStatus, VerifiableCredential, pages, FeeQuote), on ../src/chain/codec.ts only.
import type { xdr } from '@stellar/stellar-sdk';
import {
  address,
  bool,
  fromEnum,
  fromOption,
  fromStruct,
  field,
  i128,
  option,
  str,
  toAddress,
  toBigInt,
  toBool,
  toStr,
  toU32,
  toVec,
  u32,
  u64,
  vec,
} from '../src/chain/codec.ts';
import { decodeStoredVc } from '../src/chain/vault.ts';
import type { StoredVc } from '../src/chain/types.ts';
import type { Actor, Chain, Outcome } from './harness.ts';

/** VCStatus as the model keeps it: `Revoked` carries its date. */
export type VcStatus = { tag: 'Valid' } | { tag: 'Invalid' } | { tag: 'Revoked'; date: string };

export type { StoredVc };

export function verifyVc(chain: Chain, vault: string, id: string): VcStatus {
  const { tag, values } = fromEnum(chain.read(vault, 'verify_vc', [str(id)]));
  if (tag === 'Revoked') return { tag, date: toStr(values[0]!) };
  if (tag === 'Valid' || tag === 'Invalid') return { tag };
  throw new Error(`verify_vc returned an unknown variant ${tag}`);
}

export function getVc(chain: Chain, vault: string, id: string): StoredVc | undefined {
  return decodeStoredVc(chain.read(vault, 'get_vc', [str(id)]));
}

export const vcCount = (chain: Chain, vault: string): number => toU32(chain.read(vault, 'vc_count'));
export const deniedCount = (chain: Chain, vault: string): number => toU32(chain.read(vault, 'denied_issuer_count'));

export function listVcIds(chain: Chain, vault: string, offset: number, limit: number): string[] {
  return toVec(chain.read(vault, 'list_vc_ids', [u32(offset), u32(limit)])).map(toStr);
}

export function listDenied(chain: Chain, vault: string, offset: number, limit: number): string[] {
  return toVec(chain.read(vault, 'list_denied_issuers', [u32(offset), u32(limit)])).map(toAddress);
}

/** Every page of `limit` from offset 0 until a short page, concatenated. */
export function walkPages(list: (offset: number, limit: number) => string[], limit: number): string[] {
  const out: string[] = [];
  for (;;) {
    const page = list(out.length, limit);
    out.push(...page);
    if (page.length < limit) return out;
  }
}

export const vaultDid = (chain: Chain, vault: string): string | undefined =>
  fromOption(chain.read(vault, 'vault_did'), toStr);
export const vaultOwner = (chain: Chain, vault: string): string => toAddress(chain.read(vault, 'vault_owner'));
export const isVault = (chain: Chain, vault: string): boolean =>
  toBool(chain.read(chain.info.factoryId, 'is_vault', [address(vault)]));

/** `issue` by `issuer`; the transaction is submitted by `submitter` (the issuer itself unless given);
 *  `vaultContract` is the vault the call names (this one unless given). */
export function issue(
  chain: Chain,
  vault: string,
  issuer: Actor,
  vc: { id: string; data: string; issuerDid: string },
  submitter = issuer,
  vaultContract = vault,
): Outcome {
  const args = [str(vc.id), str(vc.data), address(vaultContract), address(issuer.id), str(vc.issuerDid)];
  return chain.call(submitter, vault, 'issue', args, submitter === issuer ? [] : [issuer]);
}

export function batchIssue(
  chain: Chain,
  vault: string,
  issuer: Actor,
  issuerDid: string,
  vcs: { id: string; data: string }[],
  submitter = issuer,
  vaultContract = vault,
): Outcome {
  const args = [
    address(issuer.id),
    address(vaultContract),
    str(issuerDid),
    vec(vcs.map((v) => vec([str(v.id), str(v.data)]))),
  ];
  return chain.call(submitter, vault, 'batch_issue', args, submitter === issuer ? [] : [issuer]);
}

export const revokeVc = (chain: Chain, vault: string, signer: Actor, id: string, date: string): Outcome =>
  chain.call(signer, vault, 'revoke', [str(id), str(date)]);
export const push = (chain: Chain, vault: string, signer: Actor, id: string, dest: string): Outcome =>
  chain.call(signer, vault, 'push', [str(id), address(dest)]);
export const denyIssuer = (chain: Chain, vault: string, signer: Actor, issuer: string): Outcome =>
  chain.call(signer, vault, 'deny_issuer', [address(issuer)]);
export const allowIssuer = (chain: Chain, vault: string, signer: Actor, issuer: string): Outcome =>
  chain.call(signer, vault, 'allow_issuer', [address(issuer)]);
export const setVaultDid = (chain: Chain, vault: string, signer: Actor, did: string): Outcome =>
  chain.call(signer, vault, 'set_vault_did', [str(did)]);
export const setVaultAdmin = (chain: Chain, vault: string, signer: Actor, admin: string): Outcome =>
  chain.call(signer, vault, 'set_vault_admin', [address(admin)]);
export const revokeVault = (chain: Chain, vault: string, signer: Actor): Outcome =>
  chain.call(signer, vault, 'revoke_vault', []);

// ---- factory fees ----------------------------------------------------------------------------------------------

export interface FeeQuote {
  enabled: boolean;
  amount: bigint;
  token?: string;
  dest?: string;
}

export function quoteFee(chain: Chain, issuer: string): FeeQuote {
  const s = fromStruct(chain.read(chain.info.factoryId, 'quote_fee', [address(issuer)]));
  return {
    enabled: toBool(field(s, 'enabled')),
    amount: toBigInt(field(s, 'amount')),
    token: fromOption(field(s, 'token'), toAddress),
    dest: fromOption(field(s, 'dest'), toAddress),
  };
}

export const factoryCall = (chain: Chain, admin: Actor, fn: string, args: xdr.ScVal[]): Outcome =>
  chain.call(admin, chain.info.factoryId, fn, args);
export const feeArgs = {
  enabled: (b: boolean) => [bool(b)],
  amount: (n: bigint) => [i128(n)],
  custom: (issuer: string, amount: bigint, expiresAt: bigint | undefined) => [
    address(issuer),
    i128(amount),
    option(expiresAt, u64),
  ],
  issuer: (issuer: string) => [address(issuer)],
};
