// Collection sizes checked before the validator: ajv with `allErrors` checks every item of an oversized array
// (`uniqueItems` every pair), so a 500 KB body of 80,000 items froze a service for 47 s. This walk stops at the
// first oversized collection, and never refuses a body the schema accepts.
import { type FailureItem, failureItem } from './failures.ts';

export type Json = Record<string, unknown>;
export const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Unknown keys of a closed object ajv may report one by one; beyond this the walk answers. */
export const UNKNOWN_KEYS_REPORTED = 10;

/** The size rules of one schema node, with $refs, oneOf/anyOf and allOf compiled in. */
export interface Bounds {
  maxItems?: number;
  items?: Bounds;
  prefixItems?: Bounds[];
  maxProperties?: number;
  /** The declared properties of a closed object (`additionalProperties: false`). */
  closed?: ReadonlySet<string>;
  required?: readonly string[];
  properties?: Map<string, Bounds>;
  additional?: Bounds;
  /** oneOf and anyOf. */
  anyOf?: Bounds[];
  allOf?: Bounds[];
}

const pointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

export function compileBounds(deref: (node: unknown) => unknown, node: unknown, seen: Map<unknown, Bounds>): Bounds {
  const compile = (n: unknown, m: Map<unknown, Bounds>) => compileBounds(deref, n, m);
  const s = deref(node);
  if (!isObject(s)) return {};
  const cached = seen.get(s);
  if (cached) return cached;
  const b: Bounds = {};
  seen.set(s, b); // before descending: a recursive schema refers to itself
  if (typeof s['maxItems'] === 'number') b.maxItems = s['maxItems'];
  if (s['items'] !== undefined && typeof s['items'] === 'object') b.items = compile(s['items'], seen);
  if (Array.isArray(s['prefixItems'])) b.prefixItems = s['prefixItems'].map((p) => compile(p, seen));
  if (typeof s['maxProperties'] === 'number') b.maxProperties = s['maxProperties'];
  const props = isObject(s['properties']) ? s['properties'] : undefined;
  if (props) b.properties = new Map(Object.entries(props).map(([k, v]) => [k, compile(v, seen)]));
  if (s['additionalProperties'] === false) b.closed = new Set(Object.keys(props ?? {}));
  else if (isObject(s['additionalProperties'])) b.additional = compile(s['additionalProperties'], seen);
  if (Array.isArray(s['required'])) b.required = s['required'] as string[];
  const alternatives = [...((s['oneOf'] as unknown[]) ?? []), ...((s['anyOf'] as unknown[]) ?? [])];
  if (alternatives.length) b.anyOf = alternatives.map((a) => compile(a, seen));
  if (Array.isArray(s['allOf'])) b.allOf = s['allOf'].map((a) => compile(a, seen));
  return b;
}

/** An alternative can match `value` at all: its required keys are there, and it knows every key. */
function plausible(b: Bounds, value: unknown): boolean {
  if (!isObject(value)) return true;
  if (b.required?.some((k) => !Object.hasOwn(value, k))) return false;
  if (b.closed) for (const k in value) if (Object.hasOwn(value, k) && !b.closed.has(k)) return false;
  return b.anyOf ? b.anyOf.some((a) => plausible(a, value)) : true;
}

/** In the validator's words, so the services map it as theirs. */
const failure = (path: string, keyword: string, message: string): FailureItem =>
  failureItem({ path, message, errorCode: `${keyword}.openapi.validation` });

export function oversizedIn(b: Bounds, value: unknown, path = '/body'): FailureItem[] | undefined {
  if (Array.isArray(value)) {
    if (b.maxItems !== undefined && value.length > b.maxItems)
      return [failure(path, 'maxItems', `must NOT have more than ${b.maxItems} items`)];
    for (let i = 0; i < value.length; i++) {
      const sub = b.prefixItems?.[i] ?? b.items;
      const f = sub && oversizedIn(sub, value[i], `${path}/${i}`);
      if (f) return f;
    }
  } else if (isObject(value)) {
    const keys = Object.keys(value);
    if (b.maxProperties !== undefined && keys.length > b.maxProperties)
      return [failure(path, 'maxProperties', `must NOT have more than ${b.maxProperties} properties`)];
    const unknown =
      b.closed && keys.length > b.closed.size + UNKNOWN_KEYS_REPORTED && keys.filter((k) => !b.closed!.has(k));
    if (unknown && unknown.length > UNKNOWN_KEYS_REPORTED)
      return unknown
        .slice(0, UNKNOWN_KEYS_REPORTED)
        .map((k) => failure(`${path}/${k}`, 'additionalProperties', 'must NOT have additional properties'));
    for (const k of keys) {
      const sub = b.properties?.get(k) ?? b.additional;
      const f = sub && oversizedIn(sub, value[k], `${path}/${pointer(k)}`);
      if (f) return f;
    }
  }
  for (const part of b.allOf ?? []) {
    const f = oversizedIn(part, value, path);
    if (f) return f;
  }
  if (b.anyOf) {
    // The alternatives the value could be meant for; when none could, any oversized collection is worth reporting.
    const candidates = b.anyOf.filter((a) => plausible(a, value));
    const tried = candidates.length ? candidates : b.anyOf;
    let first: FailureItem[] | undefined;
    for (const a of tried) {
      const f = oversizedIn(a, value, path);
      if (!f) {
        if (candidates.length) return undefined;
      } else first ??= f;
    }
    return first;
  }
  return undefined;
}
