// JSON Canonicalization Scheme, RFC 8785.

export class JcsError extends TypeError {}

/**
 * The canonical JSON text of a value (RFC 8785 §3.2): no whitespace; object properties sorted by their
 * UTF-16 code units (§3.2.3); numbers as ECMAScript Number::toString (§3.2.2.3); strings escaped as
 * ECMAScript JSON.stringify does (§3.2.2.2). Like JSON.stringify, properties whose value is undefined
 * are left out and `toJSON` is honoured. Throws JcsError on what JSON cannot carry: NaN, ±Infinity,
 * bigint, functions, symbols, lone surrogates (I-JSON, RFC 7493 §2.1).
 */
export function canonicalize(value: unknown): string {
  const out = serialize(value, new Set());
  if (out === undefined) throw new JcsError(`cannot canonicalize ${typeof value}`);
  return out;
}

/** The UTF-8 bytes of the canonical form: what gets hashed or signed (§3.2.5). */
export function canonicalizeToBytes(value: unknown): Buffer {
  return Buffer.from(canonicalize(value), 'utf8');
}

function serialize(value: unknown, seen: Set<object>): string | undefined {
  if (value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    value = (value as { toJSON: () => unknown }).toJSON();
  }
  switch (typeof value) {
    case 'string':
      return serializeString(value);
    case 'number':
      if (!Number.isFinite(value)) throw new JcsError(`${value} has no JSON form`);
      // ECMAScript Number::toString, which is what RFC 8785 §3.2.2.3 specifies; -0 becomes "0".
      return JSON.stringify(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'undefined':
    case 'function':
    case 'symbol':
      return undefined;
    case 'bigint':
      throw new JcsError('bigint has no JSON form; convert it to a number or a string first');
  }
  if (value === null) return 'null';
  const obj = value as object;
  if (seen.has(obj)) throw new JcsError('cyclic structure');
  seen.add(obj);
  try {
    if (Array.isArray(obj)) {
      return `[${obj.map((item) => serialize(item, seen) ?? 'null').join(',')}]`;
    }
    const parts: string[] = [];
    // Array.prototype.sort compares strings by UTF-16 code units, exactly §3.2.3.
    for (const key of Object.keys(obj).sort()) {
      const member = serialize((obj as Record<string, unknown>)[key], seen);
      if (member !== undefined) parts.push(`${serializeString(key)}:${member}`);
    }
    return `{${parts.join(',')}}`;
  } finally {
    seen.delete(obj);
  }
}

const LONE_SURROGATE = /\p{Surrogate}/u;

function serializeString(s: string): string {
  if (LONE_SURROGATE.test(s)) throw new JcsError('string holds a lone surrogate');
  // JSON.stringify escapes exactly what §3.2.2.2 requires: " \ and U+0000..U+001F, with the short
  // forms \b \t \n \f \r and lowercase \u00xx for the rest; everything else is emitted as is.
  return JSON.stringify(s);
}
