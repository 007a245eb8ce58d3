// The `did:ledger:{network}:{didId}` identifier (docs/did-resolver.md, "DID syntax").
import { base32nopad } from '@scure/base';
import { randomBytes } from 'node:crypto';
import type { ParsedDid } from './types.ts';
import type { Network } from '../domain.ts';

export const DID_METHOD = 'ledger';
/** Bytes behind a didId. */
export const DID_ID_BYTES = 16;
/** Characters of a didId: ceil(16 * 8 / 5). */
export const DID_ID_LENGTH = 26;

// Named pieces of the syntax, as the document's table lists them.
const NETWORK = '(mainnet|testnet)';
const DID_ID = `([a-z2-7]{${DID_ID_LENGTH}})`;
/** The document's validation pattern. */
export const DID_PATTERN = new RegExp(`^did:${DID_METHOD}:${NETWORK}:${DID_ID}$`);

export type ParseDidResult = { ok: true; value: ParsedDid } | { ok: false; error: 'invalidDid'; message: string };

/**
 * Parses a DID string. Errors are values, never thrown.
 * Beyond the pattern, the last didId character must carry zero padding bits (one of `aeimquy4`):
 * 26 characters hold 130 bits for 128, and accepting the other spellings would let four DID strings
 * name the same registry entry.
 */
export function parseDid(input: unknown): ParseDidResult {
  if (typeof input !== 'string') return invalid('a DID is a string');
  const m = DID_PATTERN.exec(input);
  if (!m) return invalid('expected did:ledger:(mainnet|testnet):<26 characters of [a-z2-7]>');
  const didId = m[2]!;
  if (!isCanonicalDidId(didId)) return invalid('didId is not the canonical base32 form of 16 bytes');
  return { ok: true, value: { did: input, network: m[1] as Network, didId } };
}

function invalid(message: string): ParseDidResult {
  return { ok: false, error: 'invalidDid', message };
}

export function isValidDid(input: unknown): input is string {
  return parseDid(input).ok;
}

export function formatDid({ network, didId }: { network: Network; didId: string }): string {
  return `did:${DID_METHOD}:${network}:${didId}`;
}

/** A fresh DID: 16 random bytes (injectable for tests). */
export function generateDid({
  network,
  random = randomBytes,
}: {
  network: Network;
  random?: (n: number) => Uint8Array;
}): ParsedDid {
  const didId = bytesToDidId(random(DID_ID_BYTES));
  return { did: formatDid({ network, didId }), network, didId };
}

/** RFC 4648 base32, lowercase, no padding (@scure/base). */
export function bytesToDidId(bytes: Uint8Array): string {
  if (bytes.length !== DID_ID_BYTES) throw new RangeError(`didId needs ${DID_ID_BYTES} bytes, got ${bytes.length}`);
  return base32nopad.encode(bytes).toLowerCase();
}

/** The 16 bytes of a canonical didId (the registry's `BytesN<16>` key); throws on anything else. */
export function didIdToBytes(didId: string): Uint8Array {
  const bytes = decodeBase32(didId);
  if (!bytes) throw new RangeError(`not a canonical didId: ${JSON.stringify(didId)}`);
  return bytes;
}

/** Lowercase only, and the leftover bits zero (@scure/base refuses them), or the spelling is not canonical. */
function decodeBase32(didId: string): Uint8Array | undefined {
  if (didId.length !== DID_ID_LENGTH || didId !== didId.toLowerCase()) return undefined;
  try {
    return base32nopad.decode(didId.toUpperCase());
  } catch {
    return undefined;
  }
}

function isCanonicalDidId(didId: string): boolean {
  return decodeBase32(didId) !== undefined;
}

/**
 * A `{did}` path parameter as the client sent it: percent-decoded at most twice, because clients
 * encode the colons (`did%3Aledger%3A…`) and some proxies encode the percent again. Malformed escapes
 * leave the value unchanged, so it then fails parsing as an invalid DID.
 */
export function decodeDidParam(raw: string): string {
  let value = raw;
  for (let i = 0; i < 2 && value.includes('%'); i++) {
    try {
      value = decodeURIComponent(value);
    } catch {
      return value;
    }
  }
  return value;
}
