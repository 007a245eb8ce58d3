// The JSON-LD contexts the vault API's verifier reads credentials with (src/did/json-ld.ts): the bundled ones, the
// operator's (config CV_JSONLD_CONTEXTS_DIR, read at start into VaultAppDeps.jsonLdContexts), and this product's
// ledger-vault context under its path on any deployment (the same bytes everywhere: vault-api.yaml
// getLedgerVaultContext).
import type { ContextSource } from '../did/index.ts';
import type { operations } from '../generated/vault-api.ts';
import type { OkBody } from '../platform/typed.ts';
import type { VaultAppDeps } from './context.ts';

type GetLedgerVaultContext = operations['getLedgerVaultContext'];

export const LEDGER_VAULT_CONTEXT_PATH = '/contexts/ledger-vault/v1';

/** The JSON-LD context that defines LedgerVaultStatusEntry (vault-api.yaml getLedgerVaultContext). */
export const LEDGER_VAULT_CONTEXT = {
  '@context': {
    '@protected': true,
    LedgerVaultStatusEntry: {
      '@id': 'urn:credential-vault:vocab#LedgerVaultStatusEntry',
      '@context': {
        '@protected': true,
        id: '@id',
        type: '@type',
        statusPurpose: 'https://www.w3.org/ns/credentials/status#statusPurpose',
        network: 'urn:credential-vault:vocab#network',
        vaultContract: 'urn:credential-vault:vocab#vaultContract',
        vcId: 'urn:credential-vault:vocab#vcId',
      },
    },
  },
} as const satisfies OkBody<GetLedgerVaultContext>;

const PATH_CONTEXTS: ReadonlyMap<string, unknown> = new Map([[LEDGER_VAULT_CONTEXT_PATH, LEDGER_VAULT_CONTEXT]]);

/** Where the verifier finds a credential's contexts; never the network. */
export function contextSource(deps: Pick<VaultAppDeps, 'jsonLdContexts'>): ContextSource {
  return { pathContexts: PATH_CONTEXTS, ...(deps.jsonLdContexts ? { contexts: deps.jsonLdContexts } : {}) };
}
