// How a credential's issuer enters its verification: which key may make the proof, and which DID methods have a
// ledger state for the issuerDid check.
import { DID_KEY_PREFIX, DID_WEB_PREFIX } from '../did/index.ts';
import type { VaultAppDeps } from './context.ts';
import { contextSource } from './json-ld-contexts.ts';

/**
 * The proof options every credential verification shares: an issuer that is not a DID (a URL) binds no key (the
 * proof is checked as made, and the issuerDid check fails); a DID issuer must make one proof at least, and other
 * proofs of the set (co-signers, a chain's earlier proof) verify with their own DID's keys; contexts from the
 * service's own (json-ld-contexts.ts).
 */
export function issuerBinding(deps: Pick<VaultAppDeps, 'jsonLdContexts'>, issuer: string) {
  return {
    ...(issuer.startsWith('did:') ? { expectedController: issuer, coSigners: true } : {}),
    contexts: contextSource(deps),
  };
}

/** did:key and (when the web is read) did:web have no ledger state: issuerDid is not applicable to them. */
export function issuerMethod(deps: Pick<VaultAppDeps, 'fetchJson'>, issuer: string): 'ledger' | 'key' | 'other' {
  if (issuer.startsWith('did:ledger:')) return 'ledger';
  const web = deps.fetchJson !== undefined && issuer.startsWith(DID_WEB_PREFIX);
  return issuer.startsWith(DID_KEY_PREFIX) || web ? 'key' : 'other';
}
