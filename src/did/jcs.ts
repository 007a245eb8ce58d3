// JSON Canonicalization Scheme, RFC 8785, by the `canonicalize` package (by one of the RFC's authors),
// with its refusals as JcsError.
import serialize from 'canonicalize';

export class JcsError extends TypeError {}

/**
 * The canonical JSON text of a value (RFC 8785 §3.2): no whitespace; object properties sorted by their
 * UTF-16 code units (§3.2.3); numbers as ECMAScript Number::toString (§3.2.2.3); strings escaped as
 * ECMAScript JSON.stringify does (§3.2.2.2). Like JSON.stringify, properties whose value is undefined
 * are left out and `toJSON` is honoured. Throws JcsError on what JSON cannot carry: NaN, ±Infinity,
 * bigint, functions, symbols, lone surrogates (I-JSON, RFC 7493 §2.1), and on cycles.
 */
export function canonicalize(value: unknown): string {
  let out: string | undefined;
  try {
    out = serialize(value);
  } catch (err) {
    throw new JcsError((err as Error).message);
  }
  if (out === undefined) throw new JcsError(`cannot canonicalize ${typeof value}`);
  return out;
}

/** The UTF-8 bytes of the canonical form: what gets hashed or signed (§3.2.5). */
export function canonicalizeToBytes(value: unknown): Buffer {
  return Buffer.from(canonicalize(value), 'utf8');
}
