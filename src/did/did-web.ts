// The `did:web` method (W3C CCG "did:web Method Specification" §3.2 Read): `did:web:example.com` is the document
// at https://example.com/.well-known/did.json, `did:web:example.com:user:alice` the one at
// https://example.com/user/alice/did.json (a port percent-encoded: `example.com%3A8443`). The fetch is injected
// (src/vault-api/web-fetch.ts: HTTPS only, public addresses, bounded); the document must name the DID it was read for.
import { resolutionError } from './document.ts';
import type { DidDocument, DidResolutionResult } from './types.ts';

export const DID_WEB_PREFIX = 'did:web:';

/** The URL of a did:web DID's document; undefined for what is not a did:web DID. */
export function didWebUrl(did: string): string | undefined {
  if (!did.startsWith(DID_WEB_PREFIX) || did.length > 2048) return undefined;
  const parts = did.slice(DID_WEB_PREFIX.length).split(':');
  if (parts.some((p) => p === '' || !/^(?:[A-Za-z0-9._~!$&'()*+,;=-]|%[0-9A-Fa-f]{2})+$/.test(p))) return undefined;
  let host: string;
  try {
    host = decodeURIComponent(parts[0]!);
  } catch {
    return undefined;
  }
  if (!/^[A-Za-z0-9.-]+(?::\d{1,5})?$/.test(host)) return undefined;
  const path = parts.slice(1);
  return `https://${host}/${path.length === 0 ? '.well-known' : path.join('/')}/did.json`;
}

/** W3C DID Resolution `resolve(did)` for did:web; failures are resolution metadata. */
export async function resolveDidWeb(
  did: string,
  fetchJson: (url: string) => Promise<{ ok: true; json: unknown } | { ok: false; reason: string }>,
): Promise<DidResolutionResult> {
  const url = didWebUrl(did);
  if (!url) return resolutionError('invalidDid', `${did.slice(0, 100)} is not a did:web DID`);
  const got = await fetchJson(url);
  if (!got.ok) return resolutionError('notFound', `the did:web document at ${url} could not be read: ${got.reason}`);
  const doc = got.json as Partial<DidDocument> | null;
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc) || doc.id !== did)
    return resolutionError('invalidDid', `the document at ${url} is not the DID document of ${did.slice(0, 100)}`);
  return {
    didDocument: doc as DidDocument,
    didDocumentMetadata: {},
    didResolutionMetadata: { contentType: 'application/did+ld+json' },
  };
}
