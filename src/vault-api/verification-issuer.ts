// How a credential's issuer enters its verification: which key may make the proof (an issuer that is not a DID
// binds none, and a warning says so), which DID methods have a ledger state, the issuerDid check (that state) and
// the issuerAllowed check (the vault owner's denials).
import { DID_KEY_PREFIX, DID_WEB_PREFIX, parseDid } from '../did/index.ts';
import type { VaultAppDeps } from './context.ts';
import { contextSource } from './json-ld-contexts.ts';
import { clipText, problem, type ProblemDetails } from './verification-problems.ts';
import type { RequestResolver } from './verification-resolver.ts';
import { deniedWallet, type VaultSlot } from './verification-status.ts';

/**
 * Whether the issuer is a DID, and so must make the proof. A URI's scheme is case-insensitive (RFC 3986 §3.1):
 * `DID:…` is a DID too, which then fails as one, never a URL that binds nothing.
 */
export const isDid = (issuer: string): boolean => /^did:/i.test(issuer);

/**
 * The proof options every credential verification shares: an issuer that is not a DID (a URL) binds no key (each
 * proof is checked with the key it names, and `unboundIssuerWarning` says so); a DID issuer must make one proof at
 * least, and other proofs of the set (co-signers, a chain's earlier proof) verify with their own DID's keys;
 * contexts from the service's own (json-ld-contexts.ts).
 */
export function issuerBinding(deps: Pick<VaultAppDeps, 'jsonLdContexts'>, issuer: string) {
  return {
    ...(isDid(issuer) ? { expectedController: issuer, coSigners: true } : {}),
    contexts: contextSource(deps),
  };
}

/**
 * The warning of a proof check whose issuer is not a DID. VC Data Model 2.0 and Data Integrity leave "the issuer
 * controls the proof's key" to validation, the verifier's trust decision, when the issuer is a URL: the W3C
 * suites expect such a credential to verify (docs/testing.md "W3C suites run as written").
 */
export function unboundIssuerWarning(issuer: string): ProblemDetails | undefined {
  if (isDid(issuer)) return undefined;
  return problem(
    'ISSUER_BINDING_NOT_CHECKED',
    'proof',
    'issuer_not_did',
    `the issuer ${clipText(issuer, 100)} is not a DID: each proof was verified with the key it names, but nothing binds that key to the issuer (whether to trust it is up to the verifier)`,
  );
}

/**
 * did:key and (when the web is read) did:web have no ledger state, and an issuer that is not a DID has no DID:
 * issuerDid is not applicable to them. Any other DID method fails it.
 */
export function issuerMethod(
  deps: Pick<VaultAppDeps, 'fetchJson'>,
  issuer: string,
): 'ledger' | 'key' | 'url' | 'other' {
  if (!isDid(issuer)) return 'url';
  if (issuer.startsWith('did:ledger:')) return 'ledger';
  const web = deps.fetchJson !== undefined && issuer.startsWith(DID_WEB_PREFIX);
  return issuer.startsWith(DID_KEY_PREFIX) || web ? 'key' : 'other';
}

/** issuerDid: the ledger state of a did:ledger issuer, and that it is the one the vault stored (`storedIssuerDid`). */
export async function checkIssuerDid(
  deps: VaultAppDeps,
  issuer: string,
  method: 'ledger' | 'key' | 'url' | 'other',
  storedIssuerDid: string | undefined,
  resolver: RequestResolver,
  add: (p: ProblemDetails) => void,
): Promise<'passed' | 'failed' | 'not_applicable'> {
  const fail = (
    title: 'ISSUER_DID_INVALID' | 'UNSUPPORTED_DID_METHOD',
    reason: ProblemDetails['reason'],
    detail: string,
  ) => {
    add(problem(title, 'issuerDid', reason, detail));
    return 'failed' as const;
  };
  if (method === 'key' || method === 'url') return 'not_applicable';
  if (method === 'other')
    return fail(
      'UNSUPPORTED_DID_METHOD',
      'did_method_not_supported',
      `the issuer ${clipText(issuer, 100)} is not a did:ledger or did:key DID`,
    );
  const parsed = parseDid(issuer);
  if (!parsed.ok)
    return fail(
      'ISSUER_DID_INVALID',
      'did_not_found',
      `the issuer ${clipText(issuer, 100)} is not a valid did:ledger DID: ${parsed.message}`,
    );
  if (parsed.value.network !== deps.profile.network) {
    return fail(
      'ISSUER_DID_INVALID',
      'network_mismatch',
      `the issuer DID belongs to ${parsed.value.network}, this service to ${deps.profile.network}`,
    );
  }
  const resolved = await resolver.resolve(issuer);
  resolver.rethrow();
  const error = resolved.didResolutionMetadata.error;
  if (error === 'notFound')
    return fail('ISSUER_DID_INVALID', 'did_not_found', `the issuer DID ${issuer} is not registered`);
  if (error !== undefined)
    return fail('ISSUER_DID_INVALID', 'did_unresolvable', `the issuer DID ${issuer} could not be resolved (${error})`);
  if (resolved.didDocumentMetadata.deactivated)
    return fail('ISSUER_DID_INVALID', 'did_deactivated', `the issuer DID ${issuer} is deactivated`);
  if (storedIssuerDid !== undefined && storedIssuerDid !== issuer) {
    return fail(
      'ISSUER_DID_INVALID',
      'stored_issuer_mismatch',
      `the vault stored the issuer DID ${storedIssuerDid}, the credential names ${issuer}`,
    );
  }
  return 'passed';
}

/** issuerAllowed: whether the owner of a vault that holds the credential denies its issuer. */
export async function checkIssuerAllowed(
  deps: VaultAppDeps,
  slots: VaultSlot[],
  resolver: RequestResolver,
  add: (p: ProblemDetails) => void,
): Promise<'passed' | 'failed' | 'not_checked'> {
  if (slots.length === 0) {
    add(
      problem(
        'ISSUER_ACCESS_NOT_CHECKED',
        'issuerAllowed',
        'no_vault',
        'no vault holds the credential as far as this request says (no owner and vcId, no LedgerVaultStatusEntry read): issuer access was not checked',
      ),
    );
    return 'not_checked';
  }
  let checked = false;
  for (const slot of slots) {
    const wallets = await issuerWallets(slot, resolver);
    if (wallets.length === 0) continue;
    checked = true;
    const denied = await deniedWallet(deps, slot.vault, wallets);
    if (denied) {
      add(problem('ISSUER_DENIED', 'issuerAllowed', 'issuer_denied', `the vault owner denies the issuer ${denied}`));
      return 'failed';
    }
  }
  if (!checked) {
    add(
      problem(
        'ISSUER_ACCESS_NOT_CHECKED',
        'issuerAllowed',
        'issuer_unknown',
        "the issuer's wallet is unknown (not recorded at issuance, and its DID did not resolve): issuer access was not checked",
      ),
    );
    return 'not_checked';
  }
  return 'passed';
}

/**
 * The wallets whose denial fails issuerAllowed: the one this service recorded when it sealed the credential,
 * and the current controller of the issuer DID the vault stored (a DID moved to another wallet after it was
 * denied does not get its credentials allowed again).
 */
async function issuerWallets(slot: VaultSlot, resolver: RequestResolver): Promise<string[]> {
  const wallets = new Set<string>();
  if (slot.issuerWallet) wallets.add(slot.issuerWallet);
  const resolved = await resolver.resolve(slot.issuerDid);
  resolver.rethrow();
  const controller = resolved.didDocumentMetadata.method?.stellarAccount;
  if (controller) wallets.add(controller);
  return [...wallets];
}
