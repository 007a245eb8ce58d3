// The resolution cache's in-process memo of built bodies: bounded, the least recently used going first.
import { describe, expect, it } from 'vitest';
import { createMemoryCache } from '../../stores/memory.ts';
import type { DidRecord } from '../../did/index.ts';
import { ResolutionCache, type ResolvedEntry } from './resolution-cache.ts';

const entry = (n: number): ResolvedEntry => ({ record: { version: n } as unknown as DidRecord });

describe('ResolutionCache memo', () => {
  it('keeps the bodies of the DIDs in use: a hit makes one the most recently used', async () => {
    const c = new ResolutionCache({ cache: createMemoryCache(), ttlMs: 60_000, maxMemo: 2 });
    const a = await c.put('testnet', 'a', entry(1));
    const b = await c.put('testnet', 'b', entry(2));
    expect(await c.get('testnet', 'a')).toBe(a); // a hit: 'b' is now the least recently used
    await c.put('testnet', 'c', entry(3));
    expect(await c.get('testnet', 'a')).toBe(a);
    const b2 = await c.get('testnet', 'b'); // its memo is gone: rebuilt from the cached value
    expect(b2).not.toBe(b);
    expect(b2?.entry).toEqual(entry(2));
  });

  it('is not consulted once the cache has forgotten the key', async () => {
    const c = new ResolutionCache({ cache: createMemoryCache(), ttlMs: 60_000 });
    await c.put('testnet', 'a', entry(1));
    await c.evict('testnet', 'a');
    expect(await c.get('testnet', 'a')).toBeUndefined();
  });
});
