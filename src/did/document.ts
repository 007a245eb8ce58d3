// DID documents and resolution results from registry records (docs/did-resolver.md, "Media types";
// W3C DID Core 1.1 §4-§7, W3C DID Resolution).
import type {
  DidDocument,
  DidDocumentMetadata,
  DidRecord,
  DidRepresentation,
  DidResolutionResult,
  ParsedDid,
  ResolutionError,
  VerificationMethod,
} from './types.ts';

/** `@context` of the JSON-LD representation: DID Core 1.1 and the Multikey vocabulary. */
export const DID_CONTEXT: readonly string[] = [
  'https://www.w3.org/ns/did/v1.1',
  'https://w3id.org/security/multikey/v1',
];

export const DID_LD_JSON: DidRepresentation = 'application/did+ld+json';
export const DID_JSON: DidRepresentation = 'application/did+json';

/** Fragment of each relationship's keys, numbered from 1 in record order. */
export const KEY_FRAGMENT = { authentication: 'auth', assertionMethod: 'assert', keyAgreement: 'keyagr' } as const;

type Relationship = keyof typeof KEY_FRAGMENT;
const RELATIONSHIPS = Object.keys(KEY_FRAGMENT) as Relationship[];

export interface BuildDocumentOptions {
  did: string;
  record: DidRecord;
  representation?: DidRepresentation;
}

/**
 * The DID document of a record. Verification method ids are absolute (`{did}#auth-1`); the relationships
 * hold the relative fragment references the document names (`#auth-1`), which DID Core 1.1 resolves
 * against the document's `id`. No root `controller`: the controlling wallet is method metadata.
 * A deactivated record yields the tombstone: `id` only.
 */
export function buildDidDocument({ did, record, representation = DID_LD_JSON }: BuildDocumentOptions): DidDocument {
  const doc: DidDocument = representation === DID_LD_JSON ? { '@context': [...DID_CONTEXT], id: did } : { id: did };
  if (record.deactivated) return doc;

  const verificationMethod: VerificationMethod[] = [];
  for (const rel of RELATIONSHIPS) {
    const refs = record[rel].map((key, i) => {
      const fragment = `#${KEY_FRAGMENT[rel]}-${i + 1}`;
      verificationMethod.push({
        id: did + fragment,
        type: 'Multikey',
        controller: did,
        publicKeyMultibase: key.publicKeyMultibase,
      });
      return fragment;
    });
    if (refs.length > 0) doc[rel] = refs;
  }
  if (verificationMethod.length > 0) doc.verificationMethod = verificationMethod;
  if (record.services.length > 0) {
    doc.service = record.services.map((s) => ({
      id: `${did}#service-${s.idSuffix}`,
      type: s.serviceType,
      serviceEndpoint: s.serviceEndpoint,
    }));
  }
  // Key order of the output as DID Core lists the properties.
  const { '@context': ctx, id, verificationMethod: vm, authentication, assertionMethod, keyAgreement, service } = doc;
  return stripUndefined({
    '@context': ctx,
    id,
    verificationMethod: vm,
    authentication,
    assertionMethod,
    keyAgreement,
    service,
  });
}

/** Ledger sequence → close time; undefined when unknown (the field is then left out). */
export type LedgerTime = (sequence: number) => Date | undefined;

export interface BuildResolutionOptions {
  parsed: ParsedDid;
  record: DidRecord;
  representation?: DidRepresentation;
  ledgerTime?: LedgerTime;
}

/** The resolution result of a registered DID, active or deactivated (the caller answers 200 or 410). */
export function buildResolutionResult({
  parsed,
  record,
  representation = DID_LD_JSON,
  ledgerTime,
}: BuildResolutionOptions): DidResolutionResult {
  const created = ledgerTime?.(record.createdLedger);
  const updated = ledgerTime?.(record.updatedLedger);
  const didDocumentMetadata: DidDocumentMetadata = stripUndefined({
    versionId: String(record.version),
    created: created && xmlDateTime(created),
    updated: updated && xmlDateTime(updated),
    deactivated: record.deactivated,
    method: { network: parsed.network, stellarAccount: record.controller },
  });
  return {
    didDocument: buildDidDocument({ did: parsed.did, record, representation }),
    didDocumentMetadata,
    didResolutionMetadata: { contentType: representation },
  };
}

/** A failed resolution: no document, empty document metadata, the error in the resolution metadata. */
export function resolutionError(error: ResolutionError, message?: string): DidResolutionResult {
  return {
    didDocument: null,
    didDocumentMetadata: {},
    didResolutionMetadata: message === undefined ? { error } : { error, message },
  };
}

/** HTTP status of a resolution outcome (docs/did-resolver.md, "Errors"). */
export function resolutionStatus(result: DidResolutionResult): number {
  switch (result.didResolutionMetadata.error) {
    case 'invalidDid':
    case 'invalidOptions':
      return 400;
    case 'notFound':
      return 404;
    case 'representationNotSupported':
      return 406;
    case 'methodNotSupported':
      return 501;
    case 'internalError':
      return 502;
    default:
      return result.didDocumentMetadata.deactivated ? 410 : 200;
  }
}

/** DID Core datetime: XML Schema dateTime, UTC, no fractional seconds (§7.1.3 `created`). */
export function xmlDateTime(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** W3C DID Resolution's media types of the whole resolution (or dereferencing) result. */
export const DID_RESOLUTION = 'application/did-resolution';
export const DID_RESOLUTION_PROFILE = 'https://w3id.org/did-resolution';
export const LD_JSON_DID_RESOLUTION = `application/ld+json;profile="${DID_RESOLUTION_PROFILE}"`;
/** W3C DID Resolution's media type of a dereferencing result. */
export const DID_URL_DEREFERENCING = 'application/did-url-dereferencing';
/** `@context` of a resolution result answered as JSON-LD (DIF Universal Resolver). */
export const DID_RESOLUTION_CONTEXT = 'https://w3id.org/did-resolution/v1';

export interface Negotiated {
  /** The representation of the document (and the resolution metadata's contentType). */
  representation: DidRepresentation;
  /** The response's Content-Type. */
  mediaType:
    | 'application/did+ld+json'
    | 'application/did+json'
    | 'application/json'
    | typeof DID_RESOLUTION
    | typeof LD_JSON_DID_RESOLUTION
    | typeof DID_URL_DEREFERENCING;
  /**
   * `result`: the client asked for the resolution result itself (W3C DID Resolution media types), which a
   * DID URL with a fragment answers as the whole dereferencing result; `representation`: the document's
   * own media types, which a fragment answers with the resource alone.
   */
  shape: 'representation' | 'result';
}

const OFFERS: readonly (Negotiated & { profile?: string })[] = [
  { mediaType: 'application/did+ld+json', representation: DID_LD_JSON, shape: 'representation' },
  { mediaType: 'application/did+json', representation: DID_JSON, shape: 'representation' },
  // Plain JSON clients get the JSON representation, labelled as what they asked for.
  { mediaType: 'application/json', representation: DID_JSON, shape: 'representation' },
  // Universal Resolver clients ask for the result by its own media types; its document is the JSON-LD one.
  { mediaType: DID_RESOLUTION, representation: DID_LD_JSON, shape: 'result' },
  { mediaType: LD_JSON_DID_RESOLUTION, representation: DID_LD_JSON, shape: 'result', profile: DID_RESOLUTION_PROFILE },
  // DID URL dereferencing asked for by its own media type: always the dereferencing result.
  { mediaType: DID_URL_DEREFERENCING, representation: DID_LD_JSON, shape: 'result' },
];

/**
 * Content negotiation of the resolution endpoint (RFC 9110 §12.5.1, q-values honoured).
 * No Accept header, `*∕*` or `application/*` → `application/did+ld+json`, the default.
 * `application/ld+json` matches the DID Resolution profile unless the range names another profile.
 * undefined → nothing acceptable (406, `representationNotSupported`).
 */
export function negotiateRepresentation(accept: string | undefined): Negotiated | undefined {
  if (accept === undefined || accept.trim() === '') return strip(OFFERS[0]!);
  const ranges = accept.split(',').flatMap((range) => {
    const [type, ...params] = range.split(';').map((p) => p.trim());
    const lower = type?.toLowerCase();
    if (!lower || !/^[^/\s]+\/[^/\s]+$/.test(lower)) return [];
    const qParam = params.find((p) => p.toLowerCase().startsWith('q='));
    const q = qParam && /^q=[01](\.\d{0,3})?$/i.test(qParam) ? Number(qParam.slice(2)) : 1;
    const profileParam = params.find((p) => p.toLowerCase().startsWith('profile='));
    const profile = profileParam?.slice('profile='.length).replace(/^"(.*)"$/, '$1');
    return [{ type: lower, q, profile }];
  });
  let best: { offer: (typeof OFFERS)[number]; q: number } | undefined;
  for (const offer of OFFERS) {
    // The most specific matching range sets the offer's quality (RFC 9110 §12.5.1).
    let match: { q: number; specificity: number } | undefined;
    for (const r of ranges) {
      const type = offer.profile ? 'application/ld+json' : offer.mediaType;
      let specificity = rangeSpecificity(r.type, type);
      if (offer.profile && specificity === 3 && r.profile !== undefined && r.profile !== offer.profile) specificity = 0;
      if (specificity > 0 && (!match || specificity > match.specificity)) match = { q: r.q, specificity };
    }
    // Strictly greater: at equal quality the server's order (the default first) decides.
    if (match && match.q > 0 && (!best || match.q > best.q)) best = { offer, q: match.q };
  }
  return best && strip(best.offer);
}

function strip({ mediaType, representation, shape }: (typeof OFFERS)[number]): Negotiated {
  return { mediaType, representation, shape };
}

/** 0: no match; 1: `*∕*`; 2: `type/*`; 3: exact. */
function rangeSpecificity(range: string, mediaType: string): number {
  if (range === mediaType) return 3;
  if (range === '*/*') return 1;
  if (range.endsWith('/*') && mediaType.startsWith(range.slice(0, -1))) return 2;
  return 0;
}

function stripUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}
