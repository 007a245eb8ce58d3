// The resolution cache (spec "Headers, limits and caching"): what is cached is the registry entry with its
// ledger times, keyed by network and didId — not a representation — in the injected Cache (memory or Redis)
// for cacheTtlMs. A mutation submitted through this resolver evicts its DID, so the client reads its write.
//
// The cached path stays lean: the serialized bodies built from a cached value are remembered in process,
// keyed by the value itself, so a hit costs one cache get and a string comparison, no parse and no build.
// Expiry stays with the Cache: once it forgets the key, the memo is not consulted. The memo is an lru-cache LRU
// of RESOLUTION_MEMO_ENTRIES.
import { LRUCache } from 'lru-cache';
import type { Cache } from '../../stores/index.ts';
import type { DidRecord } from '../../did/index.ts';
import type { Network } from '../../domain.ts';

/** What a resolution needs from the ledger: the record and the close times of its two ledgers. */
export interface ResolvedEntry {
  record: DidRecord;
  /** XML Schema dateTime of createdLedger's close, when known. */
  created?: string;
  updated?: string;
}

interface Memo {
  raw: string;
  entry: ResolvedEntry;
  bodies: Partial<Record<string, string>>;
}

export interface CachedResolution {
  entry: ResolvedEntry;
  /** Serialized results already built for this value, by response media type. */
  bodies: Partial<Record<string, string>>;
}

/**
 * DIDs whose built bodies are remembered: the most resolved ones. The memo only saves building a body again (a
 * miss costs a parse and a build, never a ledger read), so it is a bound on memory, not an operator's choice;
 * it matches the embedded cache's default size (src/stores/memory.ts).
 */
const RESOLUTION_MEMO_ENTRIES = 10_000;

export class ResolutionCache {
  readonly #cache: Cache;
  readonly #ttlMs: number;
  readonly #memo: LRUCache<string, Memo>;
  readonly #onError: (err: unknown) => void;

  constructor({
    cache,
    ttlMs,
    maxMemo = RESOLUTION_MEMO_ENTRIES,
    onError = () => {},
  }: { cache: Cache; ttlMs: number; maxMemo?: number; onError?: (err: unknown) => void }) {
    this.#cache = cache;
    this.#ttlMs = ttlMs;
    this.#memo = new LRUCache({ max: maxMemo });
    this.#onError = onError;
  }

  get ttlSeconds(): number {
    return Math.max(0, Math.round(this.#ttlMs / 1000));
  }

  static key(network: Network, didId: string): string {
    return `did-resolution:${network}:${didId}`;
  }

  /** The cached entry, or undefined on a miss. A cache that fails is a miss (resolution reads the ledger). */
  async get(network: Network, didId: string): Promise<CachedResolution | undefined> {
    const key = ResolutionCache.key(network, didId);
    let raw: string | undefined;
    try {
      raw = await this.#cache.get(key);
    } catch (err) {
      this.#onError(err);
      return undefined;
    }
    if (raw === undefined) return undefined;
    const memo = this.#memo.get(key);
    if (memo && memo.raw === raw) return memo;
    let entry: ResolvedEntry;
    try {
      entry = JSON.parse(raw) as ResolvedEntry;
    } catch {
      return undefined;
    }
    return this.#remember(key, raw, entry);
  }

  async put(network: Network, didId: string, entry: ResolvedEntry): Promise<CachedResolution> {
    const key = ResolutionCache.key(network, didId);
    const raw = JSON.stringify(entry);
    if (this.#ttlMs > 0) {
      try {
        await this.#cache.set(key, raw, this.#ttlMs);
      } catch (err) {
        this.#onError(err);
      }
    }
    return this.#remember(key, raw, entry);
  }

  async evict(network: Network, didId: string): Promise<void> {
    const key = ResolutionCache.key(network, didId);
    this.#memo.delete(key);
    if (this.#ttlMs <= 0) return;
    try {
      await this.#cache.delete(key);
    } catch (err) {
      this.#onError(err);
    }
  }

  #remember(key: string, raw: string, entry: ResolvedEntry): Memo {
    const memo: Memo = { raw, entry, bodies: {} };
    this.#memo.set(key, memo);
    return memo;
  }
}
