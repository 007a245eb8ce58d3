// Keeps the reverse lookup (src/stores/did-index.ts) caught up with a network's registry: reads the registry's
// events with getEvents from where the index stopped (or, the first time, from the oldest ledger the RPC keeps)
// to the latest ledger, page by page, and applies them. Started at start-up and before each lookup; one catch-up
// per network at a time in a process, and instances sharing the store may run theirs together (every write is
// guarded by the DID's version). A DID the events name that the index lacks (registered before the window) is
// read once from the registry.
import { bytesToDidId, didIdToBytes } from '../../did/index.ts';
import { oldestLedgerOf, readRegistryEvents, type RegistryEvent } from '../../chain/registry-events.ts';
import type { DidIndexStore, IndexedChange, IndexedDid, IndexProgress } from '../../stores/did-index.ts';
import type { ServedNetwork } from '../routes/shared.ts';

/** Events read per getEvents call. */
const PAGE = 200;
/** Pages read per catch-up at most (a long outage is caught up over several lookups). */
const MAX_PAGES = 50;
/** stellar-rpc's default event retention (a day of 5-second ledgers): where a first catch-up starts. */
const DEFAULT_RETENTION = 17_280;

export interface CatchUp {
  /** Reads and applies the events not yet indexed; resolves to the progress after it. */
  run(): Promise<IndexProgress | undefined>;
}

/** A DID the index does not hold yet, read from the registry (undefined when not registered). */
async function readIndexed(net: ServedNetwork, didId: string): Promise<IndexedDid | undefined> {
  const entry = await net.chain.registry.get(didIdToBytes(didId));
  if (!entry) return undefined;
  const r = entry.record;
  return {
    network: net.name,
    didId,
    controller: r.controller,
    version: r.version,
    deactivated: r.deactivated,
    updatedLedger: r.updatedLedger,
  };
}

/** Applies one page's events in order. */
async function apply(store: DidIndexStore, net: ServedNetwork, events: readonly RegistryEvent[]): Promise<void> {
  for (const e of events) {
    const didId = bytesToDidId(e.didId);
    if (e.kind === 'registered' || e.kind === 'transferred') {
      const did: IndexedDid = {
        network: net.name,
        didId,
        controller: e.controller,
        version: e.version,
        deactivated: false,
        updatedLedger: e.ledger,
      };
      await store.put([did]);
      continue;
    }
    const change: IndexedChange = {
      network: net.name,
      didId,
      version: e.version,
      updatedLedger: e.ledger,
      ...(e.kind === 'deactivated' ? { deactivated: true as const } : {}),
    };
    if (await store.get(net.name, didId)) {
      await store.change([change]);
      continue;
    }
    // A DID registered before the window: its record says who controls it now.
    const read = await readIndexed(net, didId);
    if (read) await store.put([read]);
  }
}

/** The ledger of a getEvents cursor (stellar-rpc's TOID `%019d-%010d`: the ledger is its top 32 bits). */
function ledgerOfCursor(cursor: string): number | undefined {
  const m = /^(\d{1,19})-\d+$/.exec(cursor);
  return m ? Number(BigInt(m[1]!) >> 32n) : undefined;
}

/** The first page's start: the oldest ledger the RPC keeps events for. */
async function firstPage(net: ServedNetwork) {
  const latest = (await net.chain.client.health()).latestLedger;
  const guess = Math.max(1, latest - DEFAULT_RETENTION + 1);
  try {
    return { start: guess, page: await readRegistryEvents(net.chain.client, net.registryId, { ledger: guess }, PAGE) };
  } catch (err) {
    const oldest = oldestLedgerOf(err);
    if (oldest === undefined) throw err;
    return {
      start: oldest,
      page: await readRegistryEvents(net.chain.client, net.registryId, { ledger: oldest }, PAGE),
    };
  }
}

export function createCatchUp(store: DidIndexStore, net: ServedNetwork): CatchUp {
  let running: Promise<IndexProgress | undefined> | undefined;
  const once = async (): Promise<IndexProgress | undefined> => {
    let progress = await store.progress(net.name);
    let reset = false;
    let page;
    if (!progress) {
      const first = await firstPage(net);
      page = first.page;
      progress = { fromLedger: first.start, toLedger: first.start - 1, eventCursor: '' };
    } else {
      try {
        page = await readRegistryEvents(net.chain.client, net.registryId, { cursor: progress.eventCursor }, PAGE);
      } catch (err) {
        // The cursor fell out of the RPC's window (the service was down longer than it keeps events): start
        // again from the oldest ledger kept, and say the index reaches back only that far.
        if (oldestLedgerOf(err) === undefined) throw err;
        const first = await firstPage(net);
        page = first.page;
        progress = { ...progress, fromLedger: first.start };
        reset = true;
      }
    }
    for (let pages = 0; ; pages++) {
      await apply(store, net, page.events);
      const toLedger = Math.min(page.latestLedger, ledgerOfCursor(page.cursor) ?? page.latestLedger);
      progress = { fromLedger: progress.fromLedger, toLedger, eventCursor: page.cursor };
      await store.advance(net.name, progress, { reset });
      reset = false;
      if (!page.full || pages + 1 >= MAX_PAGES) return progress;
      page = await readRegistryEvents(net.chain.client, net.registryId, { cursor: page.cursor }, PAGE);
    }
  };
  return {
    run() {
      running ??= once().finally(() => {
        running = undefined;
      });
      return running;
    },
  };
}
