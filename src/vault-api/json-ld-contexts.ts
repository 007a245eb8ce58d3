// The JSON-LD contexts the vault API's verifier reads credentials with (src/did/json-ld.ts): the bundled ones, the
// ledger-vault context, and the operator's (config CV_JSONLD_CONTEXTS_DIR, read at start into
// VaultAppDeps.jsonLdContexts).
import { LEDGER_VAULT_CONTEXT as CONTEXT, type ContextSource } from '../did/index.ts';
import type { operations } from '../generated/vault-api.ts';
import type { OkBody } from '../platform/typed.ts';
import type { VaultAppDeps } from './context.ts';

/** vault-api.yaml getLedgerVaultContext: the answer, held to the spec's schema. */
export const LEDGER_VAULT_CONTEXT = CONTEXT satisfies OkBody<operations['getLedgerVaultContext']>;

/** Where the verifier finds a credential's contexts; never the network. */
export function contextSource(deps: Pick<VaultAppDeps, 'jsonLdContexts'>): ContextSource {
  return deps.jsonLdContexts ? { contexts: deps.jsonLdContexts } : {};
}
