// The issuer DIDs a verification resolves, each once per request, and the credential's issuer (docs/vault-api.md
// "Verify a credential"): did:ledger through this network's registry, did:key offline, did:web when the web is read.
import {
  DID_KEY_PREFIX,
  DID_WEB_PREFIX,
  didIdToBytes,
  resolutionError,
  resolveDidKey,
  resolveDidWeb,
  resolveFromRegistry,
  type DidResolutionResult,
} from '../did/index.ts';
import { ChainError } from '../chain/index.ts';
import type { VaultAppDeps } from './context.ts';

/**
 * DID resolution for one request, each DID once: `did:ledger` of this network through its registry (the chain
 * client's read cache), `did:key` offline, any other method `methodNotSupported`. A registry read that fails
 * is kept and rethrown by `rethrow()` once the verification is done (502).
 */
/**
 * The status lists a keyless request may make the service read and verify: one, so that it and the request's own
 * body share the keyless RDF limit and stay within the keyless CPU bound (docs/vault-api.md "Rate limits").
 */
export const KEYLESS_STATUS_LISTS = 1;

export function requestResolver(deps: VaultAppDeps, request: { keyless?: boolean; rdfBytes?: number } = {}) {
  const seen = new Map<string, Promise<DidResolutionResult>>();
  let failure: unknown;
  let listsRead = 0;
  const resolveOnce = (did: string): Promise<DidResolutionResult> => {
    if (did.startsWith(DID_KEY_PREFIX)) return Promise.resolve(resolveDidKey(did));
    if (did.startsWith(DID_WEB_PREFIX) && deps.fetchJson) return resolveDidWeb(did, deps.fetchJson);
    if (!did.startsWith('did:ledger:')) {
      const method = /^did:([a-z0-9]+):/.exec(did)?.[1];
      const methods = deps.fetchJson ? 'did:ledger, did:key and did:web' : 'did:ledger and did:key';
      return Promise.resolve(
        resolutionError(
          'methodNotSupported',
          `this verifier resolves ${methods}, not ${method ? `did:${method}` : 'this identifier'}`,
        ),
      );
    }
    return resolveFromRegistry({
      did,
      networks: [deps.profile.network],
      readRecord: async (parsed) => {
        try {
          return (await deps.chain.registry.get(didIdToBytes(parsed.didId)))?.record;
        } catch (e) {
          if (e instanceof ChainError) failure ??= e;
          throw e;
        }
      },
      // The chain client says every failure to read the ledger as a ChainError; anything else is a defect.
      isReadFailure: (e) => e instanceof ChainError,
    });
  };
  const resolve = (did: string): Promise<DidResolutionResult> => {
    let r = seen.get(did);
    if (!r) {
      r = resolveOnce(did);
      seen.set(did, r);
    }
    return r;
  };
  return {
    resolve,
    /** The request came without an API key: what it makes this service fetch and verify gets the keyless bounds. */
    keyless: request.keyless === true,
    /** The bytes the keyless body spent of the keyless RDF limit (keyless-rdf.ts); a status list has the rest. */
    rdfBytes: request.rdfBytes ?? 0,
    /** Whether the request may have one more status list read: a keyless one reads at most KEYLESS_STATUS_LISTS. */
    takeStatusList(): boolean {
      if (request.keyless !== true) return true;
      listsRead += 1;
      return listsRead <= KEYLESS_STATUS_LISTS;
    },
    rethrow(): void {
      if (failure !== undefined) throw failure;
    },
  };
}

export type RequestResolver = ReturnType<typeof requestResolver>;

/** The credential's `issuer`: a URL, or an object with `id` (VC Data Model 2.0 §4.7). */
export function issuerOf(credential: Record<string, unknown>): string | undefined {
  const issuer = credential['issuer'];
  if (typeof issuer === 'string') return issuer;
  if (typeof issuer === 'object' && issuer !== null && typeof (issuer as { id?: unknown }).id === 'string')
    return (issuer as { id: string }).id;
  return undefined;
}
