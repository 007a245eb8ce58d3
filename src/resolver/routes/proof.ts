// Proof of control (spec tag "proof"): POST /v1/proof/challenge issues {did, domain, nonce, timestamp};
// POST /v1/proof/verify checks, in order, the 5-minute window, the domain, the nonce (spent once, whatever
// follows) and the signature against every authentication key of the DID's document, read fresh from the
// ledger (a key removed seconds ago must not verify from a cached document). An unreachable nonce store is
// 503 nonce_store_unavailable on both: without it a nonce can be neither issued nor spent once.
import {
  createChallenge,
  resolutionError,
  verifyProof,
  DID_LD_JSON,
  type DidResolutionResult,
  type NonceStore,
} from '../../did/index.ts';
import type { operations } from '../../generated/did-resolver.ts';
import type { OperationHandler } from '../../platform/typed.ts';
import { ResolverError } from '../context.ts';
import { resolutionResult } from './resolve.ts';
import { notServedMessage, readEntry, parseDidOrThrow, type RouteContext } from './shared.ts';

export function proofRoutes(ctx: RouteContext, nonceStore: NonceStore) {
  const now = () => new Date(ctx.deps.now());

  /** Resolution for verification: no cache; the fresh entry refreshes the resolution cache. */
  async function resolveFresh(did: string): Promise<DidResolutionResult> {
    const parsed = parseDidOrThrow(did);
    const net = ctx.served.get(parsed.network);
    if (!net) return resolutionError('invalidDid', notServedMessage(ctx, parsed.network));
    try {
      const entry = await readEntry(net, parsed);
      if (!entry) return resolutionError('notFound', `${parsed.did} is not registered`);
      await ctx.cache.put(parsed.network, parsed.didId, entry);
      return resolutionResult(parsed, entry, DID_LD_JSON);
    } catch (err) {
      if (err instanceof ResolverError && err.status === 502) return resolutionError('internalError', err.message);
      throw err;
    }
  }

  // Both take their body and answer through the generated operation types (src/platform/typed.ts).
  const challenge: OperationHandler<operations['createProofChallenge']> = async (req, res) => {
    const { did, domain } = req.body;
    const result = await createChallenge({ did, domain, now: now(), nonceStore });
    if (!result.ok) {
      throw new ResolverError(result.error, result.message, result.error === 'did_invalid' ? { did } : undefined);
    }
    res.setHeader('Cache-Control', 'no-store');
    res.json(result.challenge);
  };

  const verify: OperationHandler<operations['verifyProof']> = async (req, res) => {
    const body = req.body;
    const expectedDomain = body.domain ?? (typeof body.challenge.domain === 'string' ? body.challenge.domain : '');
    const result = await verifyProof({
      challenge: body.challenge,
      signature: body.signature,
      expectedDomain,
      resolve: resolveFresh,
      now: now(),
      nonceStore,
    });
    if (!result.verified) throw new ResolverError(result.error, result.message);
    res.setHeader('Cache-Control', 'no-store');
    res.json({ verified: true, did: result.did, verificationMethod: result.verificationMethod });
  };

  return { challenge, verify };
}
