// DID URL dereferencing of fragments (W3C DID Resolution §"Dereferencing the Secondary Resource"; DID Core
// 1.1 §3.2 DID URL Syntax): `did:…#assert-1` names one verification method or service of the resolved
// document. Pure functions over a document: the resolver answers them over HTTP, and the Data Integrity
// verifier (data-integrity.ts) uses them to find the key of a proof's `verificationMethod`.
import type { DidDocument, ServiceEndpoint, VerificationMethod } from './types.ts';

/** The verification relationships of DID Core 1.1 §5.3. */
export type VerificationRelationship =
  | 'authentication'
  | 'assertionMethod'
  | 'keyAgreement'
  | 'capabilityInvocation'
  | 'capabilityDelegation';

export const VERIFICATION_RELATIONSHIPS: readonly VerificationRelationship[] = [
  'authentication',
  'assertionMethod',
  'keyAgreement',
  'capabilityInvocation',
  'capabilityDelegation',
];

/** A DID URL split into its DID and fragment (DID Core 1.1 §3.2: `did-url = did path-abempty [ "?" query ] [ "#" fragment ]`). */
export interface ParsedDidUrl {
  didUrl: string;
  /** The DID before any path, query or fragment. */
  did: string;
  /** Without the `#`; undefined when the URL has none. */
  fragment?: string;
  /** Path and query, when present; this resolver dereferences fragments only. */
  pathAndQuery?: string;
}

// did = "did:" method-name ":" method-specific-id; method-specific-id = *( *idchar ":" ) 1*idchar.
const DID_PART = /^did:[a-z0-9]+:(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2}|:)*(?:[A-Za-z0-9._-]|%[0-9A-Fa-f]{2})/;
// fragment = *( pchar / "/" / "?" ), RFC 3986 §3.5.
const FRAGMENT = /^(?:[A-Za-z0-9._~!$&'()*+,;=:@/?-]|%[0-9A-Fa-f]{2})*$/;

/** undefined when the text is not a DID URL. */
export function parseDidUrl(input: unknown): ParsedDidUrl | undefined {
  if (typeof input !== 'string') return undefined;
  const m = DID_PART.exec(input);
  if (!m) return undefined;
  const did = m[0];
  let rest = input.slice(did.length);
  let fragment: string | undefined;
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
    if (!FRAGMENT.test(fragment)) return undefined;
  }
  if (rest !== '' && !/^[/?]/.test(rest)) return undefined;
  return {
    didUrl: input,
    did,
    ...(fragment !== undefined ? { fragment } : {}),
    ...(rest !== '' ? { pathAndQuery: rest } : {}),
  };
}

/** An id made absolute against the document's id (`#assert-1` → `did:…#assert-1`). */
export function absoluteId(document: Pick<DidDocument, 'id'>, id: string): string {
  return id.startsWith('#') ? document.id + id : id;
}

/**
 * The verification method or service a fragment names, or undefined. Embedded verification methods of the
 * relationships count as well as `verificationMethod` entries.
 */
export function dereferenceFragment(
  document: DidDocument,
  fragment: string,
): { kind: 'verificationMethod'; value: VerificationMethod } | { kind: 'service'; value: ServiceEndpoint } | undefined {
  const target = `${document.id}#${fragment}`;
  for (const vm of allMethods(document))
    if (absoluteId(document, vm.id) === target) return { kind: 'verificationMethod', value: vm };
  for (const s of document.service ?? [])
    if (absoluteId(document, s.id) === target) return { kind: 'service', value: s };
  return undefined;
}

/**
 * The verification methods a relationship authorizes, with absolute ids (DID Core 1.1 §5.3: entries are
 * references to `verificationMethod` entries, relative or absolute, or embedded methods).
 */
export function methodsFor(document: DidDocument, relationship: VerificationRelationship): VerificationMethod[] {
  const byId = new Map((document.verificationMethod ?? []).map((vm) => [absoluteId(document, vm.id), vm]));
  const entries = ((document as unknown as Record<string, unknown>)[relationship] ?? []) as unknown[];
  const out: VerificationMethod[] = [];
  if (!Array.isArray(entries)) return out;
  for (const entry of entries) {
    const vm = typeof entry === 'string' ? byId.get(absoluteId(document, entry)) : isMethod(entry) ? entry : undefined;
    if (vm) out.push({ ...vm, id: absoluteId(document, vm.id) });
  }
  return out;
}

function allMethods(document: DidDocument): VerificationMethod[] {
  const out = [...(document.verificationMethod ?? [])];
  for (const rel of VERIFICATION_RELATIONSHIPS) {
    const entries = (document as unknown as Record<string, unknown>)[rel];
    if (Array.isArray(entries)) for (const e of entries) if (isMethod(e)) out.push(e);
  }
  return out;
}

function isMethod(v: unknown): v is VerificationMethod {
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as { id?: unknown }).id === 'string' &&
    typeof (v as { type?: unknown }).type === 'string'
  );
}
