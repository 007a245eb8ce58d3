// JSON-LD without the network (JSON-LD 1.1 API §9.4 LoadDocumentCallback): the contexts a verifier needs are
// bundled from digitalbazaar's context packages (VC 1.1 and 2.0, Data Integrity, Multikey, Ed25519 2020, DID v1,
// Bitstring Status List), the ledger-vault context is this product's own, and an operator adds more from a
// folder (config CV_JSONLD_CONTEXTS_DIR). Any other URL is refused with ContextNotBundledError, never fetched.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
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
  /** Contexts beside the bundled ones, by URL (an operator's folder: readContextsFolder). */
  contexts?: ReadonlyMap<string, unknown>;
  /**
   * Contexts every deployment of this product serves under one path, whatever its host (the ledger-vault
   * context, `GET /contexts/ledger-vault/v1`): the path → the document.
   */
  pathContexts?: ReadonlyMap<string, unknown>;
}

/** The context document of `url`, or undefined: bundled, then the operator's, then a product path. */
export function findContext(url: string, source: ContextSource = {}): unknown {
  const found = BUNDLED_CONTEXTS.get(url) ?? source.contexts?.get(url);
  if (found !== undefined || !source.pathContexts) return found;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if ((parsed.protocol !== 'https:' && parsed.protocol !== 'http:') || parsed.search || parsed.hash) return undefined;
  return source.pathContexts.get(parsed.pathname);
}

/**
 * A document loader over the known contexts and the given documents (a proof's verification method, already
 * found by DID resolution). Anything else throws ContextNotBundledError: the loader never reaches a network.
 */
export function staticDocumentLoader(source: ContextSource, documents?: ReadonlyMap<string, unknown>): DocumentLoader {
  return async (url) => {
    const document = findContext(url, source) ?? documents?.get(url);
    if (document === undefined) throw new ContextNotBundledError(url);
    return { contextUrl: null, documentUrl: url, document };
  };
}

/** The most contexts one folder may add, and the largest file read. */
const MAX_FOLDER_CONTEXTS = 256;
const MAX_CONTEXT_BYTES = 1024 * 1024;

/**
 * The contexts an operator adds: the folder's `index.json` maps each context URL to a file of the folder
 * holding its JSON-LD document (`{"https://example.org/ctx/v1": "example-v1.jsonld"}`). Read once, at start;
 * a missing file or text that is not JSON is an error then, not at verification.
 */
export async function readContextsFolder(dir: string): Promise<Map<string, unknown>> {
  const index = JSON.parse(await readFile(path.join(dir, 'index.json'), 'utf8')) as unknown;
  if (typeof index !== 'object' || index === null || Array.isArray(index))
    throw new TypeError(`${dir}/index.json must map context URLs to file names`);
  const entries = Object.entries(index as Record<string, unknown>);
  if (entries.length > MAX_FOLDER_CONTEXTS)
    throw new RangeError(`${dir}/index.json names ${entries.length} contexts; at most ${MAX_FOLDER_CONTEXTS}`);
  const out = new Map<string, unknown>();
  for (const [url, file] of entries) {
    if (typeof file !== 'string' || file.includes('/') || file.includes('\\') || file.startsWith('.'))
      throw new TypeError(`${dir}/index.json: the file of ${url} must be a plain file name of the folder`);
    new URL(url); // throws on what is not an absolute URL
    const text = await readFile(path.join(dir, file), 'utf8');
    if (text.length > MAX_CONTEXT_BYTES) throw new RangeError(`${file} is larger than ${MAX_CONTEXT_BYTES} bytes`);
    out.set(url, JSON.parse(text) as unknown);
  }
  return out;
}
