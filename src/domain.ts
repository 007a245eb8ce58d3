// The domain's small shared types, declared once: the networks, the roles and scopes of an API key, and the clock.
// Every module (config, chain, stores, did, the two apps, the simulator) imports them from here.
import type { components } from './generated/vault-api.ts';

/** The two networks the service serves; a DID, an API key and a chain client each belong to one (vault-api.yaml `Network`). */
export type Network = components['schemas']['Network'];
/** Every network, testnet first (the order settings, help texts and `start` list them in). */
export const NETWORKS: readonly Network[] = ['testnet', 'mainnet'];

/**
 * Service names: the `service` of a service's log lines, of its metric series and of its `/health` and `GET /`
 * answers, one name each (docs/glossary.md, "Service names"). The process's own lines (stores, start-up) under
 * `start` name its role, `credential-vault`.
 */
export const vaultServiceName = (network: Network) => `vault-api-${network}` as const;
export const RESOLVER_SERVICE = 'resolver';
export const PROCESS_SERVICE = 'credential-vault';

/** Roles of an API key; each has its own rate limits (docs/operations.md, the CV_RATE_* settings). */
export type KeyRole = 'standard' | 'early' | 'admin';
export const KEY_ROLES: readonly KeyRole[] = ['standard', 'early', 'admin'];

/** Scopes a key may carry; none means unrestricted (spec/vault-api.yaml, the key routes). Stored as `string[]`. */
export const API_KEY_SCOPES = [
  'credentials:issue',
  'credentials:read',
  'credentials:revoke',
  'credentials:verify',
  'vault:write',
  'vault:admin',
  'sponsor',
] as const;
export type Scope = (typeof API_KEY_SCOPES)[number];
export const isScope = (s: string): s is Scope => (API_KEY_SCOPES as readonly string[]).includes(s);

/**
 * A clock: milliseconds, read each time it is called. Wall clocks (`Date.now`, the default where a time is
 * compared with a stored date or a ledger's close time) and monotonic clocks (`performance.now`, for durations)
 * have this one shape; an option's comment says which one it expects.
 */
export type Clock = () => number;

/**
 * lru-cache's clock options for a cache with a `ttl`, from a Clock: `perf` reads the clock at each check and
 * `ttlResolution: 0` keeps lru-cache from reusing a reading for a millisecond (by a timer per read), so an injected
 * test clock takes effect at once. Readings are counted from 1 at creation: lru-cache takes a start time of 0 for
 * "no TTL", and test clocks often start at 0. lru-cache calls an entry stale once its age exceeds its ttl.
 */
export function lruClock(clock: Clock): { perf: { now(): number }; ttlResolution: 0 } {
  const origin = clock() - 1;
  return { perf: { now: () => clock() - origin || Number.MIN_VALUE }, ttlResolution: 0 };
}
