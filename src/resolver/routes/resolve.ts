// GET /1.0/identifiers/{did}: W3C DID Resolution (spec: resolveDid). Failures are resolution results, not
// envelopes. A cached resolution costs no ledger read and, once built, no serialization either.
// A DID URL with a fragment (`…%23assert-1`) is dereferenced (W3C DID Resolution, "Dereferencing the
// Secondary Resource"): the verification method or service it names, alone for the document's media
// types, inside a dereferencing result for the DID Resolution media types (Universal Resolver clients).
// `application/did-url-dereferencing` always answers the dereferencing result, for a DID alone its document.
// Every answer varies with Accept (`Vary: Accept`), so a shared cache never serves one representation for another.
import type { Request, Response } from 'express';
import { clip } from '../../openapi/error-bounds.ts';
import type { Failure } from '../../platform/failures.ts';
import { LRUCache } from 'lru-cache';
import {
  DID_CONTEXT,
  DID_LD_JSON,
  DID_RESOLUTION,
  DID_RESOLUTION_CONTEXT,
  DID_URL_DEREFERENCING,
  LD_JSON_DID_RESOLUTION,
  buildResolutionResult,
  decodeDidParam,
  dereferenceFragment,
  negotiateRepresentation,
  parseDid,
  resolutionError,
  type DidRepresentation,
  type Negotiated,
  type ParsedDid,
} from '../../did/index.ts';
import { sendTypedText } from '../../platform/json-answer.ts';
import { ResolverError } from '../context.ts';
import type { CachedResolution, ResolvedEntry } from './resolution-cache.ts';
import { notServedMessage, readEntry, type RouteContext } from './shared.ts';

const OFFERED =
  'application/did+ld+json, application/did+json, application/json, application/did-resolution, application/ld+json;profile="https://w3id.org/did-resolution", application/did-url-dereferencing';

export function resolutionResult(parsed: ParsedDid, entry: ResolvedEntry, representation: DidRepresentation) {
  const { record, created, updated } = entry;
  const times = new Map<number, Date>();
  if (updated) times.set(record.updatedLedger, new Date(updated));
  if (created) times.set(record.createdLedger, new Date(created));
  return buildResolutionResult({ parsed, record, representation, ledgerTime: (seq) => times.get(seq) });
}

/** The body of a resolution in the negotiated media type: JSON-LD results carry the DID Resolution context. */
function resolutionBody(parsed: ParsedDid, entry: ResolvedEntry, negotiated: Negotiated): object {
  const result = resolutionResult(parsed, entry, negotiated.representation);
  return negotiated.mediaType === LD_JSON_DID_RESOLUTION ? { '@context': DID_RESOLUTION_CONTEXT, ...result } : result;
}

/** Accept headers whose negotiation a route remembers, the least recently used going first (clients send few). */
const MAX_REMEMBERED_ACCEPTS = 256;

/** `negotiateRepresentation`, each Accept header negotiated once per route: clients repeat theirs on every request. */
function rememberedNegotiation(): (accept: string | undefined) => Negotiated | undefined {
  // Boxed: a header that negotiates nothing (undefined) is remembered too, and lru-cache keeps no undefined value.
  const known = new LRUCache<string, { negotiated: Negotiated | undefined }>({ max: MAX_REMEMBERED_ACCEPTS });
  return (accept) => {
    if (accept === undefined) return negotiateRepresentation(accept);
    const hit = known.get(accept);
    if (hit) return hit.negotiated;
    const negotiated = negotiateRepresentation(accept);
    known.set(accept, { negotiated });
    return negotiated;
  };
}

export function resolveRoute(ctx: RouteContext) {
  const validateResponses = ctx.deps.validateResponses === true;
  const cacheControl = `max-age=${ctx.cache.ttlSeconds}`;
  const negotiate = rememberedNegotiation();
  return async function resolveDid(req: Request, res: Response): Promise<void> {
    res.setHeader('Vary', 'Accept');
    const negotiated = negotiate(req.headers.accept);
    if (!negotiated) {
      return sendResolutionFailure(
        req,
        res,
        406,
        'representationNotSupported',
        `Accept ${req.headers.accept}: available are ${OFFERED}`,
      );
    }
    const text = decodeDidParam(String(req.params.did));
    const hash = text.indexOf('#');
    const fragment = hash < 0 ? undefined : text.slice(hash + 1);
    const did = parseDid(hash < 0 ? text : text.slice(0, hash));
    // A DID URL, or a DID asked for as a dereferencing result: failures are dereferencing failures.
    const dereferencing = fragment !== undefined || negotiated.mediaType === DID_URL_DEREFERENCING;
    if (!did.ok) {
      if (dereferencing) return sendDereferencingFailure(res, negotiated, 400, 'invalidDidUrl', did.message);
      return sendResolutionFailure(req, res, 400, 'invalidDid', did.message);
    }
    const parsed = did.value;
    const net = ctx.served.get(parsed.network);
    if (!net) return sendResolutionFailure(req, res, 400, 'invalidDid', notServedMessage(ctx, parsed.network));

    let cached = await ctx.cache.get(parsed.network, parsed.didId);
    if (!cached) {
      let entry: ResolvedEntry | undefined;
      try {
        entry = await readEntry(net, parsed);
      } catch (err) {
        if (err instanceof ResolverError && err.status === 502)
          return sendResolutionFailure(req, res, 502, 'internalError', err.message);
        throw err;
      }
      // Not cached: a registration right after this answer resolves at once.
      if (!entry) {
        if (dereferencing)
          return sendDereferencingFailure(res, negotiated, 404, 'notFound', `${parsed.did} is not registered`);
        return sendResolutionFailure(req, res, 404, 'notFound', `${parsed.did} is not registered`);
      }
      await ctx.recordRead?.(parsed, entry.record);
      cached = await ctx.cache.put(parsed.network, parsed.didId, entry);
    }
    if (fragment !== undefined) return dereference(res, parsed, fragment, cached, negotiated, cacheControl);
    if (dereferencing) return dereferenceDocument(res, parsed, cached, negotiated, cacheControl);

    const { mediaType } = negotiated;
    const status = cached.entry.record.deactivated ? 410 : 200;
    res.setHeader('Cache-Control', cacheControl);
    res.setHeader('Content-Type', `${mediaType}; charset=utf-8`);
    if (validateResponses) {
      sendJson(res, status, negotiated, resolutionBody(parsed, cached.entry, negotiated));
      return;
    }
    let body = cached.bodies[mediaType];
    if (body === undefined) {
      body = JSON.stringify(resolutionBody(parsed, cached.entry, negotiated));
      cached.bodies[mediaType] = body;
    }
    res.status(status);
    sendTypedText(req, res, body);
  };
}

/**
 * The resource a fragment names. Unknown fragment → 404 `notFound`; a deactivated DID's tombstone names
 * nothing → 410 with the document metadata (`deactivated: true`) as the content metadata.
 */
function dereference(
  res: Response,
  parsed: ParsedDid,
  fragment: string,
  cached: CachedResolution,
  negotiated: Negotiated,
  cacheControl: string,
): void {
  const result = resolutionResult(parsed, cached.entry, negotiated.representation);
  const found = result.didDocument && dereferenceFragment(result.didDocument, fragment);
  if (cached.entry.record.deactivated) {
    return sendDereferencingFailure(
      res,
      negotiated,
      410,
      'notFound',
      `${parsed.did} is deactivated`,
      result.didDocumentMetadata,
    );
  }
  if (!found)
    return sendDereferencingFailure(
      res,
      negotiated,
      404,
      'notFound',
      `${parsed.did} has no verification method or service #${fragment}`,
    );
  const resource =
    negotiated.representation === DID_LD_JSON ? { '@context': [...DID_CONTEXT], ...found.value } : found.value;
  res.setHeader('Cache-Control', cacheControl);
  res.setHeader('Content-Type', `${negotiated.mediaType}; charset=utf-8`);
  if (negotiated.shape === 'representation') {
    sendJson(res, 200, negotiated, resource);
    return;
  }
  sendJson(res, 200, negotiated, {
    ...(negotiated.mediaType === LD_JSON_DID_RESOLUTION ? { '@context': DID_RESOLUTION_CONTEXT } : {}),
    dereferencingMetadata: { contentType: negotiated.representation },
    contentStream: resource,
    contentMetadata: result.didDocumentMetadata,
  });
}

/** A DID alone dereferenced (`application/did-url-dereferencing`): its document is the content. */
function dereferenceDocument(
  res: Response,
  parsed: ParsedDid,
  cached: CachedResolution,
  negotiated: Negotiated,
  cacheControl: string,
): void {
  const result = resolutionResult(parsed, cached.entry, negotiated.representation);
  if (cached.entry.record.deactivated) {
    return sendDereferencingFailure(
      res,
      negotiated,
      410,
      'notFound',
      `${parsed.did} is deactivated`,
      result.didDocumentMetadata,
    );
  }
  res.setHeader('Cache-Control', cacheControl);
  res.setHeader('Content-Type', `${negotiated.mediaType}; charset=utf-8`);
  sendJson(res, 200, negotiated, {
    dereferencingMetadata: { contentType: negotiated.representation },
    contentStream: result.didDocument,
    contentMetadata: result.didDocumentMetadata,
  });
}

/** A failed dereferencing (W3C DID Resolution): no content, the error in the dereferencing metadata. */
function sendDereferencingFailure(
  res: Response,
  negotiated: Negotiated,
  status: number,
  error: 'invalidDidUrl' | 'notFound',
  message: string,
  contentMetadata: object = {},
): void {
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Type', `${negotiated.mediaType}; charset=utf-8`);
  sendJson(res, status, negotiated, {
    dereferencingMetadata: { error, message },
    contentStream: null,
    contentMetadata,
  });
}

/**
 * Through res.json, which the response validator hooks (tests validate every answer), except for
 * `application/did-resolution`: the validator checks only JSON and `+json` media types and would hold the
 * body to another media type's schema. Its bodies are the JSON-LD ones the tests check field by field.
 */
function sendJson(res: Response, status: number, negotiated: Negotiated, body: object): void {
  if (negotiated.mediaType === DID_RESOLUTION || negotiated.mediaType === DID_URL_DEREFERENCING)
    res.status(status).send(JSON.stringify(body));
  else res.status(status).json(body);
}

/**
 * A request-validation failure of the resolution route in DID Resolution's words: `invalidDid` only when the
 * DID itself fails (its syntax, or its length limit), else `invalidOptions` (an unknown query parameter is
 * an unknown resolution option; the DID may well be valid).
 */
/** The resolution route's path prefix (did-resolver.yaml resolveDid). */
export const RESOLVE_PREFIX = '/1.0/identifiers/';

export function resolutionValidationFailure(
  err: Failure,
  req: Request,
): { error: 'invalidDid' | 'invalidOptions'; message: string } {
  const openapi = (req as Request & { openapi?: { pathParams?: Record<string, unknown> } }).openapi;
  const param = openapi?.pathParams?.did ?? req.path.slice(RESOLVE_PREFIX.length);
  const parsed = parseDid(decodeDidParam(String(param)));
  if (!parsed.ok) return { error: 'invalidDid', message: parsed.message };
  const didErrors = err.items.filter((e) => e.path === '/params/did' || e.path.startsWith('/params/did/'));
  if (didErrors.length > 0) return { error: 'invalidDid', message: didErrors[0]!.message };
  return { error: 'invalidOptions', message: err.message };
}

/** A failed resolution as its result body, in the negotiated media type (JSON when none is acceptable). */
export function sendResolutionFailure(
  req: Request,
  res: Response,
  status: number,
  error: 'invalidDid' | 'invalidOptions' | 'notFound' | 'representationNotSupported' | 'internalError',
  message: string,
): void {
  const mediaType =
    (error !== 'representationNotSupported' && negotiateRepresentation(req.headers.accept)?.mediaType) ||
    'application/json';
  res.setHeader('Cache-Control', 'no-store');
  // The body's media type was negotiated on Accept (did-resolver.yaml resolveDid).
  res.setHeader('Vary', 'Accept');
  res.setHeader('Content-Type', `${mediaType}; charset=utf-8`);
  // application/did-resolution is not a `+json` type: the response validator would hold it to another
  // media type's schema (see routes/resolve.ts), so it is sent as text.
  if (mediaType === 'application/did-resolution' || mediaType === 'application/did-url-dereferencing') {
    res.status(status).send(JSON.stringify(resolutionError(error, clip(message, 1000))));
  } else res.status(status).json(resolutionError(error, clip(message, 1000)));
}
