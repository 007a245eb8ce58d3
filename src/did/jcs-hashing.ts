// Canonical hashing for `eddsa-jcs-2022` verification (RFC 8785 JCS, SHA-256): the unsecured document is
// canonicalized once, member by member, and each proof's hash input (the document, its own @context, the proofs it
// chains to) is composed from those texts, never canonicalized again; the members before `proof` are hashed once
// per @context and the hash state copied, so a proof costs the hashing of what follows. Its agreement with
// digitalbazaar's @digitalbazaar/eddsa-jcs-2022-cryptosuite is held by property-tests/eddsa-jcs-2022-differential.
import { createHash, type Hash } from 'node:crypto';
import { canonicalize } from './jcs.ts';

/** The unsecured document's canonical (JCS) members: `"name":value` texts in UTF-8, names in JCS order. */
export interface CanonicalMembers {
  names: string[];
  /** The member texts, as strings and in UTF-8. */
  strings: Map<string, string>;
  texts: Map<string, Buffer>;
  values: Map<string, unknown>;
  /** SHA-256 states over `{` and the members before `proof`, per @context member (hash.copy() per proof). */
  prefixes: Map<string, Hash>;
}

export function canonicalMembers(doc: Record<string, unknown>, cache?: WeakMap<object, string>): CanonicalMembers {
  const names: string[] = [];
  const strings = new Map<string, string>();
  const texts = new Map<string, Buffer>();
  const values = new Map<string, unknown>();
  // RFC 8785 §3.2.3: names sorted by UTF-16 code units, which is what sort() compares.
  for (const name of Object.keys(doc).sort()) {
    const v = doc[name];
    if (v === undefined || typeof v === 'function' || typeof v === 'symbol') continue;
    names.push(name);
    const text = memberText(name, v, cache);
    strings.set(name, text);
    texts.set(name, Buffer.from(text, 'utf8'));
    values.set(name, v);
  }
  return { names, strings, texts, values, prefixes: new Map() };
}

export function memberText(name: string, value: unknown, cache?: WeakMap<object, string>): string {
  return `${canonicalize(name)}:${cachedCanonical(value, cache)}`;
}

/** JCS of a value, from the cache for a verified document or a list of them (RFC 8785: `[a,b]` of their texts). */
function cachedCanonical(value: unknown, cache?: WeakMap<object, string>): string {
  if (cache && typeof value === 'object' && value !== null) {
    const hit = cache.get(value);
    if (hit !== undefined) return hit;
    if (Array.isArray(value) && value.length > 0) {
      const items = value.map((v) => (typeof v === 'object' && v !== null ? cache.get(v) : undefined));
      if (items.every((t) => t !== undefined)) return `[${items.join(',')}]`;
    }
  }
  return canonicalize(value);
}

/** JCS of the whole secured document: its members with the `proof` member in its place. */
export function securedText(members: CanonicalMembers, proof: unknown, proofTexts: Map<number, string>): string {
  const proofs = Array.isArray(proof) ? proof : undefined;
  const proofText =
    proofs && proofTexts.size === proofs.length
      ? `[${proofs.map((_, i) => proofTexts.get(i)!).join(',')}]`
      : canonicalize(proof);
  const parts: string[] = [];
  let placed = false;
  for (const name of members.names) {
    if (!placed && name > 'proof') {
      parts.push(`"proof":${proofText}`);
      placed = true;
    }
    parts.push(members.strings.get(name)!);
  }
  if (!placed) parts.push(`"proof":${proofText}`);
  return `{${parts.join(',')}}`;
}

const OPEN = Buffer.from('{');
const COMMA = Buffer.from(',');
const CLOSE = Buffer.from('}');

/**
 * SHA-256 of the JCS text of the unsecured document with its `@context` member replaced (a proof's own
 * @context) and a `proof` member added (the proofs a chained proof signs over). Texts are composed, never
 * canonicalized again; the members before `proof` are hashed once per @context and the state copied, so a
 * proof costs the hashing of what follows; equal inputs are hashed once.
 */
export function documentHash(
  members: CanonicalMembers,
  hashes: Map<string, Buffer>,
  contextMember: string | undefined,
  proofMember: string | undefined,
): Buffer {
  const key = `${contextMember ?? ''}\u0000${proofMember ?? ''}`;
  const cached = hashes.get(key);
  if (cached) return cached;
  const { names, texts, prefixes } = members;
  const before = names.filter((n) => n < 'proof');
  const after = names.filter((n) => n > 'proof');
  const textOf = (name: string) =>
    name === '@context' && contextMember !== undefined ? Buffer.from(contextMember, 'utf8') : texts.get(name)!;
  let prefix = prefixes.get(contextMember ?? '');
  if (!prefix) {
    prefix = createHash('sha256').update(OPEN);
    before.forEach((name, i) => {
      if (i > 0) prefix!.update(COMMA);
      prefix!.update(textOf(name));
    });
    prefixes.set(contextMember ?? '', prefix);
  }
  const hash = prefix.copy();
  let first = before.length === 0;
  const put = (text: Buffer) => {
    if (!first) hash.update(COMMA);
    hash.update(text);
    first = false;
  };
  if (proofMember !== undefined) put(Buffer.from(proofMember, 'utf8'));
  for (const name of after) put(textOf(name));
  hash.update(CLOSE);
  const digest = hash.digest();
  hashes.set(key, digest);
  return digest;
}

export const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();
