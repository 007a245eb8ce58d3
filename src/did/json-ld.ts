// JSON-LD without the network (JSON-LD 1.1 API §9.4 LoadDocumentCallback): the contexts a verifier needs are
// bundled from digitalbazaar's context packages (VC 1.1 and 2.0, Data Integrity, Multikey, Ed25519 2020, DID v1,
// Bitstring Status List), the ledger-vault context is this product's own (served by every deployment), and an operator adds more from a
// folder (config CV_JSONLD_CONTEXTS_DIR, json-ld-folder.ts). Any other URL is refused with ContextNotBundledError, never fetched.
import { contexts as credentialsContexts } from '@digitalbazaar/credentials-context';
import { contexts as dataIntegrityContexts } from '@digitalbazaar/data-integrity-context';
import { contexts as multikeyContexts } from '@digitalbazaar/multikey-context';
import { contexts as ed25519Contexts } from 'ed25519-signature-2020-context';
import { contexts as didContexts } from 'did-context';
import { contexts as statusListContexts } from '@digitalbazaar/vc-bitstring-status-list-context';

/** A JSON-LD RemoteDocument (JSON-LD 1.1 API §9.4.1), as the libraries' document loaders answer it. */
export interface RemoteDocument {
  contextUrl: null;
  documentUrl: string;
  document: unknown;
  /**
   * `static`: the document never changes in this process, so jsonld keeps it resolved, and its processed
   * contexts, in its shared cache (jsonld ContextResolver) instead of resolving it again for every operation.
   */
  tag?: 'static';
}

export type DocumentLoader = (url: string) => Promise<RemoteDocument>;

/** The contexts bundled with the product, by URL. */
export const BUNDLED_CONTEXTS: ReadonlyMap<string, unknown> = new Map([
  ...credentialsContexts,
  ...dataIntegrityContexts,
  ...multikeyContexts,
  ...ed25519Contexts,
  ...didContexts,
  ...statusListContexts,
]);

/** A URL the verifier has no document for: reported as a problem, never fetched. */
export class ContextNotBundledError extends Error {
  readonly url: string;
  constructor(url: string) {
    super(`the JSON-LD context ${url.length > 200 ? `${url.slice(0, 200)}…` : url} is not bundled with this verifier`);
    this.url = url;
  }
}

export interface ContextSource {
  /** Contexts beside the bundled ones, by URL (an operator's folder: json-ld-folder.ts). */
  contexts?: ReadonlyMap<string, unknown>;
}

/** The path under which every deployment of this product serves the ledger-vault context (getLedgerVaultContext). */
export const LEDGER_VAULT_CONTEXT_PATH = '/contexts/ledger-vault/v1';

/** The JSON-LD context that defines LedgerVaultStatusEntry: the same bytes on every deployment. */
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
} as const;

/**
 * The context document of `url`, or undefined: bundled, then the operator's, then the ledger-vault context
 * under its path on any host (a deployment's `{base}/contexts/ledger-vault/v1`).
 */
export function findContext(url: string, source: ContextSource = {}): unknown {
  const found = BUNDLED_CONTEXTS.get(url) ?? source.contexts?.get(url);
  if (found !== undefined) return found;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const web = parsed.protocol === 'https:' || parsed.protocol === 'http:';
  return web && !parsed.search && !parsed.hash && parsed.pathname === LEDGER_VAULT_CONTEXT_PATH
    ? LEDGER_VAULT_CONTEXT
    : undefined;
}

/**
 * The context of `url` when it is the same in every process and every setting: a bundled one, or the ledger-vault
 * context at this product's own deployment path. An operator's folder is read per setting, so its contexts are
 * not (jsonld's shared cache is the process's, keyed by URL alone).
 */
function staticContext(url: string): unknown {
  return BUNDLED_CONTEXTS.get(url) ?? (findContext(url) === LEDGER_VAULT_CONTEXT ? LEDGER_VAULT_CONTEXT : undefined);
}

/**
 * A document loader over the known contexts and the given documents (a proof's verification method, already
 * found by DID resolution). Anything else throws ContextNotBundledError: the loader never reaches a network.
 */
export function staticDocumentLoader(source: ContextSource, documents?: ReadonlyMap<string, unknown>): DocumentLoader {
  return async (url) => {
    const fixed = staticContext(url);
    if (fixed !== undefined) return { contextUrl: null, documentUrl: url, document: fixed, tag: 'static' };
    const document = findContext(url, source) ?? documents?.get(url);
    if (document === undefined) throw new ContextNotBundledError(url);
    return { contextUrl: null, documentUrl: url, document };
  };
}
