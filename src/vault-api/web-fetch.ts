// Fetching a JSON document from the web for a verifier (did:web DID documents, Bitstring Status List credentials):
// HTTPS only; the host's addresses are checked when the socket connects (node:https `lookup`), so no name can lead
// to a loopback, private, link-local, shared or multicast address (no server-side request forgery, and no DNS
// rebinding between a check and the connection); no redirect; bounded size and time. A named test host (config
// CV_WEB_FETCH_TEST_HOSTS) is reached over plain HTTP (its https: URLs too) on any address: for tests only.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { LRUCache } from 'lru-cache';

export interface WebFetchOptions {
  /** `host:port` names that may be reached over HTTP, on any address (tests). */
  testHosts?: readonly string[];
  maxBytes?: number;
  timeoutMs?: number;
  /** Answers kept, by URL (a failure too, for as long), like resolutions. */
  cacheTtlMs?: number;
  cacheEntries?: number;
}

export type WebFetchResult = { ok: true; json: unknown } | { ok: false; reason: string };
export type FetchJson = (url: string) => Promise<WebFetchResult>;

const DEFAULTS = { maxBytes: 256 * 1024, timeoutMs: 3_000, cacheTtlMs: 5 * 60_000, cacheEntries: 1_000 };

/** Addresses a verifier never connects to (RFC 6890 special-purpose, IPv4 and IPv6). */
function blockedAddresses(): BlockList {
  const list = new BlockList();
  for (const [net, prefix] of [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['224.0.0.0', 3],
  ] as const)
    list.addSubnet(net, prefix, 'ipv4');
  for (const [net, prefix] of [
    // Not ::ffff:0:0/96: a BlockList matches IPv4 addresses against IPv4-mapped rules (isPublicAddress unmaps).
    ['::', 127],
    ['fc00::', 7],
    ['fe80::', 10],
    ['ff00::', 8],
  ] as const)
    list.addSubnet(net, prefix, 'ipv6');
  return list;
}

export function isPublicAddress(address: string, blocked: BlockList = blockedAddresses()): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return !blocked.check(mapped, 'ipv4');
  return !blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/** A lookup that answers only public addresses: the connection itself can reach no other. */
function publicLookup(blocked: BlockList): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const ok = addresses.filter((a) => isPublicAddress(a.address, blocked));
      if (ok.length === 0 || ok.length !== addresses.length)
        return callback(
          Object.assign(new Error(`${hostname} resolves to an address that is not public`), { code: 'EBLOCKED' }),
          '',
          0,
        );
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, ok);
      return callback(null, ok[0]!.address, ok[0]!.family);
    });
  };
}

/** A fetcher with its own cache; one per app. */
export function createWebFetch(options: WebFetchOptions = {}): FetchJson {
  const o = { ...DEFAULTS, ...options };
  const blocked = blockedAddresses();
  const lookup = publicLookup(blocked);
  const testHosts = new Set(o.testHosts ?? []);
  const cache = new LRUCache<string, Promise<WebFetchResult>>({ max: o.cacheEntries, ttl: o.cacheTtlMs });
  const fetchOnce = (url: string): Promise<WebFetchResult> => {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return Promise.resolve({ ok: false, reason: 'not a URL' });
    }
    const test = testHosts.has(parsed.host);
    if (parsed.protocol !== 'https:' && !(test && parsed.protocol === 'http:'))
      return Promise.resolve({ ok: false, reason: 'only https: URLs are fetched' });
    if (parsed.username || parsed.password) return Promise.resolve({ ok: false, reason: 'a URL with credentials' });
    if (
      !test &&
      isIP(parsed.hostname.replace(/^\[|\]$/g, '')) !== 0 &&
      !isPublicAddress(parsed.hostname.replace(/^\[|\]$/g, ''), blocked)
    )
      return Promise.resolve({ ok: false, reason: 'the host is not a public address' });
    if (test) parsed.protocol = 'http:';
    return request(parsed, test ? undefined : lookup, o);
  };
  return (url) => {
    let hit = cache.get(url);
    if (!hit) {
      hit = fetchOnce(url);
      cache.set(url, hit);
    }
    return hit;
  };
}

function request(url: URL, lookup: LookupFunction | undefined, o: typeof DEFAULTS): Promise<WebFetchResult> {
  return new Promise((resolve) => {
    const client = url.protocol === 'https:' ? https : http;
    const req = client.get(
      url,
      {
        headers: { accept: 'application/json, application/ld+json, application/did+json' },
        signal: AbortSignal.timeout(o.timeoutMs),
        ...(lookup ? { lookup } : {}),
      },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          return resolve({ ok: false, reason: `answered HTTP ${res.statusCode}` });
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > o.maxBytes) {
            res.destroy();
            resolve({ ok: false, reason: `larger than ${o.maxBytes} bytes` });
          } else chunks.push(chunk);
        });
        res.on('end', () => {
          try {
            resolve({ ok: true, json: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown });
          } catch {
            resolve({ ok: false, reason: 'the answer is not JSON' });
          }
        });
        res.on('error', (e) => resolve({ ok: false, reason: e.message }));
      },
    );
    req.on('error', (e) => resolve({ ok: false, reason: (e as Error).message }));
  });
}
