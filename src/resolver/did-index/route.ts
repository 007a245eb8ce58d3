// GET /v1/dids/stellar?controller=G…&network=…: the DIDs a wallet controls now (spec listDidsByController),
// answered from the index after catching it up with the registry's events. Resolving a DID adds it too
// (`remember`), so a DID older than the RPC's event window is listed once it was resolved.
import type { DidRecord, ParsedDid } from '../../did/index.ts';
import type { operations } from '../../generated/did-resolver.ts';
import type { OperationHandler } from '../../platform/typed.ts';
import { memoryDidIndex, type DidIndexStore } from '../../stores/did-index.ts';
import { StoreUnavailableError } from '../../stores/types.ts';
import { ResolverErrors } from '../context.ts';
import type { RouteContext } from '../routes/shared.ts';
import { createCatchUp, type CatchUp } from './catch-up.ts';
import type { Network } from '../../domain.ts';

const DEFAULT_LIMIT = 50;

export interface DidIndexRoutes {
  list: OperationHandler<operations['listDidsByController']>;
  /** Adds (or refreshes) a DID from a record just read; best effort. */
  remember(parsed: ParsedDid, record: DidRecord): Promise<void>;
  /** Catches every served network up (at start). */
  catchUpAll(): Promise<void>;
}

function unavailable(err: unknown): never {
  if (err instanceof StoreUnavailableError)
    throw ResolverErrors.indexUnavailable(`the DID index store is unreachable: ${err.message}`);
  throw err;
}

export function didIndexRoutes(ctx: RouteContext, store: DidIndexStore = memoryDidIndex()): DidIndexRoutes {
  const catchUps = new Map<Network, CatchUp>();
  for (const [name, net] of ctx.served) catchUps.set(name, createCatchUp(store, net));

  const list: DidIndexRoutes['list'] = async (req, res) => {
    // The validator has checked every parameter against the spec.
    const q = req.query as unknown as operations['listDidsByController']['parameters']['query'];
    const network: Network = q.network ?? 'testnet';
    const controller = q.controller;
    const status = q.status ?? 'active';
    const limit = q.limit === undefined ? DEFAULT_LIMIT : Number(q.limit);
    const catchUp = catchUps.get(network);
    if (!catchUp) throw ResolverErrors.invalidRequest(`this resolver does not serve ${network}`);
    const progress = await catchUp.run().catch(unavailable);
    // One more than the page: whether a next page exists.
    const rows = await store
      .list({ network, controller, status, limit: limit + 1, ...(q.cursor ? { after: q.cursor } : {}) })
      .catch(unavailable);
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    res.setHeader('Cache-Control', 'no-store');
    res.json({
      controller,
      network,
      status,
      dids: page.map((d) => ({
        did: `did:ledger:${network}:${d.didId}`,
        didId: d.didId,
        version: d.version,
        deactivated: d.deactivated,
        updatedLedger: d.updatedLedger,
      })),
      index: { fromLedger: progress?.fromLedger ?? 0, toLedger: progress?.toLedger ?? 0 },
      ...(rows.length > limit && last ? { nextCursor: last.didId } : {}),
    });
  };

  const remember: DidIndexRoutes['remember'] = async (parsed, record) => {
    await store
      .put([
        {
          network: parsed.network,
          didId: parsed.didId,
          controller: record.controller,
          version: record.version,
          deactivated: record.deactivated,
          updatedLedger: record.updatedLedger,
        },
      ])
      .catch((err: unknown) => ctx.deps.log?.({ event: 'did_index_unavailable', message: String(err) }));
  };

  const catchUpAll = async () => {
    await Promise.all(
      [...catchUps.entries()].map(([network, c]) =>
        c
          .run()
          .catch((err: unknown) =>
            ctx.deps.log?.({ event: 'did_index_catch_up_failed', network, message: String(err) }),
          ),
      ),
    );
  };
  return { list, remember, catchUpAll };
}
