// GET /1.0/identifiers/{did}: W3C DID Resolution (spec: resolveDid). Failures are resolution results, not
// envelopes. A cached resolution costs no ledger read and, once built, no serialization either.
import type { Request, Response } from 'express';
import {
  buildResolutionResult, decodeDidParam, negotiateRepresentation, parseDid, type DidRepresentation, type ParsedDid,
} from '../../did/index.ts';
import { ResolverError } from '../context.ts';
import { sendResolutionFailure } from '../middleware/errors.ts';
import type { ResolvedEntry } from './resolution-cache.ts';
import { notServedMessage, readEntry, type RouteContext } from './shared.ts';

const OFFERED = 'application/did+ld+json, application/did+json, application/json';

export function resolutionResult(parsed: ParsedDid, entry: ResolvedEntry, representation: DidRepresentation) {
  const { record, created, updated } = entry;
  const times = new Map<number, Date>();
  if (updated) times.set(record.updatedLedger, new Date(updated));
  if (created) times.set(record.createdLedger, new Date(created));
  return buildResolutionResult({ parsed, record, representation, ledgerTime: (seq) => times.get(seq) });
}

export function resolveRoute(ctx: RouteContext) {
  const validateResponses = ctx.deps.validateResponses === true;
  const cacheControl = `max-age=${ctx.cache.ttlSeconds}`;
  return async function resolveDid(req: Request, res: Response): Promise<void> {
    const negotiated = negotiateRepresentation(req.headers.accept);
    if (!negotiated) {
      return sendResolutionFailure(req, res, 406, 'representationNotSupported', `Accept ${req.headers.accept}: available are ${OFFERED}`);
    }
    const did = parseDid(decodeDidParam(String(req.params.did)));
    if (!did.ok) return sendResolutionFailure(req, res, 400, 'invalidDid', did.message);
    const parsed = did.value;
    const net = ctx.served.get(parsed.network);
    if (!net) return sendResolutionFailure(req, res, 400, 'invalidDid', notServedMessage(ctx, parsed.network));

    let cached = await ctx.cache.get(parsed.network, parsed.didId);
    if (!cached) {
      let entry: ResolvedEntry | undefined;
      try {
        entry = await readEntry(net, parsed);
      } catch (err) {
        if (err instanceof ResolverError && err.status === 502) return sendResolutionFailure(req, res, 502, 'internalError', err.message);
        throw err;
      }
      // Not cached: a registration right after this answer resolves at once.
      if (!entry) return sendResolutionFailure(req, res, 404, 'notFound', `${parsed.did} is not registered`);
      cached = await ctx.cache.put(parsed.network, parsed.didId, entry);
    }

    const { representation, mediaType } = negotiated;
    const status = cached.entry.record.deactivated ? 410 : 200;
    res.setHeader('Cache-Control', cacheControl);
    res.setHeader('Content-Type', `${mediaType}; charset=utf-8`);
    if (validateResponses) {
      // Through res.json, which the response validator hooks.
      res.status(status).json(resolutionResult(parsed, cached.entry, representation));
      return;
    }
    let body = cached.bodies[representation];
    if (body === undefined) {
      body = JSON.stringify(resolutionResult(parsed, cached.entry, representation));
      cached.bodies[representation] = body;
    }
    res.status(status).send(body);
  };
}
