// The credentialStatus check of a credential verification (docs/vault-api.md "Verify a credential"): the status of
// the vault slot the caller names (owner and vcId), or of each status entry the credential carries, read from this
// network's vaults only under a verified proof.
import { ChainError } from '../chain/index.ts';
import { canonicalize } from '../did/index.ts';
import type { components } from '../generated/vault-api.ts';
import type { VaultAppDeps } from './context.ts';
import { otherStatusEntry } from './verification-bitstring.ts';
import { clipText, problem, type ProblemDetails } from './verification-problems.ts';
import { issuerOf, type RequestResolver } from './verification-resolver.ts';
import {
  type LedgerVaultStatusEntry,
  readSlot,
  statusEntries,
  statusInput,
  type StatusInput,
  type VaultSlot,
} from './verification-status.ts';

type StatusResult = components['schemas']['StatusResult'];

/** Where the caller says the credential sits (`owner` + `vcId`), read with the owner's or an admin key. */
export interface VaultReference {
  owner: string;
  vault: string;
  vcId: string;
  /** The stored credential differs from the one presented with the reference. */
  notTheStoredCredential?: boolean;
  slot: VaultSlot;
}

/** The status of the slot a reference names, or a failure when the vault holds another credential there. */
export function referenceStatus(
  deps: Pick<VaultAppDeps, 'profile'>,
  reference: VaultReference,
  add: (p: ProblemDetails) => void,
): StatusResult {
  const input = {
    type: 'VaultReference',
    network: deps.profile.network,
    vaultContract: reference.vault,
    vcId: clipText(reference.vcId),
  };
  if (!reference.notTheStoredCredential) return statusResult(reference.slot, input, add);
  add(
    problem(
      'STATUS_VERIFICATION_ERROR',
      'credentialStatus',
      'not_the_stored_credential',
      `the vault holds a different credential under ${clipText(reference.vcId, 64)}`,
    ),
  );
  return { verified: false, input };
}

/** The status a vault reports for its slot, as a result (and a problem unless valid). */
export function statusResult(slot: VaultSlot, input: StatusInput, add: (p: ProblemDetails) => void): StatusResult {
  const s = slot.status;
  if (s.status === 'revoked')
    add(problem('CREDENTIAL_REVOKED', 'credentialStatus', 'revoked', `the credential was revoked on ${s.since}`));
  else if (s.status !== 'valid')
    add(
      problem(
        'STATUS_VERIFICATION_ERROR',
        'credentialStatus',
        s.status,
        `the vault reports the credential as ${s.status}`,
      ),
    );
  return {
    verified: s.status === 'valid',
    status: s.status,
    ...(s.status === 'revoked' ? { since: s.since } : {}),
    input,
  };
}

/** The status of each LedgerVaultStatusEntry: read only under a verified proof, from this network's vault. */
export async function statusFromEntries(
  deps: VaultAppDeps,
  credential: Record<string, unknown>,
  proofVerified: boolean,
  add: (p: ProblemDetails) => void,
  resolver?: RequestResolver,
): Promise<{ results: StatusResult[]; slots: VaultSlot[] }> {
  const results: StatusResult[] = [];
  const slots: VaultSlot[] = [];
  const entries = statusEntries(credential);
  if (entries.length === 0) {
    add(
      problem(
        'STATUS_NOT_CHECKED',
        'credentialStatus',
        'no_status_entry',
        'the credential carries no LedgerVaultStatusEntry and no owner and vcId were given: its status was not checked',
      ),
    );
  }
  for (const e of entries) {
    if (e.kind === 'other') {
      // Status is dispatched by type (as digitalbazaar/vc does): verification-bitstring.ts.
      const read = await otherStatusEntry(deps, e, issuerOf(credential)!, proofVerified, resolver);
      if (read.problem) add(read.problem);
      results.push(read.result);
      continue;
    }
    if (e.kind === 'invalid') {
      add(e.problem);
      results.push({ verified: false, input: e.input });
      continue;
    }
    const { entry } = e;
    const input = statusInput(entry as unknown as Record<string, unknown>);
    const read = await ledgerEntrySlot(deps, entry, credential, proofVerified);
    if ('reason' in read) {
      add(problem('STATUS_VERIFICATION_ERROR', 'credentialStatus', read.reason, read.detail));
      results.push({ verified: false, input });
      continue;
    }
    const slot = read.slot;
    slots.push(slot);
    results.push(statusResult(slot, input, add));
  }
  return { results, slots };
}

/**
 * The vault slot a LedgerVaultStatusEntry names, when it may be trusted: under a verified proof, on this network,
 * readable (not archived), and holding the very credential presented; else why not.
 */
async function ledgerEntrySlot(
  deps: VaultAppDeps,
  entry: LedgerVaultStatusEntry,
  credential: Record<string, unknown>,
  proofVerified: boolean,
): Promise<{ slot: VaultSlot } | { reason: ProblemDetails['reason']; detail: string }> {
  if (!proofVerified)
    return {
      reason: 'status_unconfirmed',
      detail:
        'the LedgerVaultStatusEntry is trusted only under a verified proof, and the proof did not verify: the status was not read',
    };
  if (entry.network !== deps.profile.network)
    return {
      reason: 'network_mismatch',
      detail: `the status lives on ${entry.network}; this service reads ${deps.profile.network}: verify at the ${entry.network} service`,
    };
  let read: Awaited<ReturnType<typeof readSlot>>;
  try {
    read = await readSlot(deps, entry.vaultContract, entry.vcId);
  } catch (e) {
    // a presented credential whose status entry is archived: its status is unknown until someone restores it
    if (!(e instanceof ChainError && e.code === 'state_archived')) throw e;
    return {
      reason: 'status_unconfirmed',
      detail: `the vault's ledger state for ${clipText(entry.vcId, 64)} is archived (its TTL ran out): the status cannot be read until it is restored`,
    };
  }
  if (!read.ok) return { reason: 'vc_not_found', detail: read.detail };
  if (!read.slot.document)
    return {
      reason: 'status_unconfirmed',
      detail: `the vault's copy of ${clipText(entry.vcId, 64)} cannot be opened by this service, so it cannot be matched with the credential presented`,
    };
  if (!sameCredential(read.slot.document, credential))
    return {
      reason: 'not_the_stored_credential',
      detail: `the vault holds a different credential under ${clipText(entry.vcId, 64)}`,
    };
  return { slot: read.slot };
}

/** Whether two credentials are the same JSON (canonical forms). */
export function sameCredential(a: unknown, b: unknown): boolean {
  try {
    return canonicalize(a) === canonicalize(b);
  } catch {
    return false;
  }
}
