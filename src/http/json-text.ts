// What JSON.parse does not say about a JSON text: whether it is I-JSON (RFC 7493). JSON.parse keeps the last
// of two members with one name and turns `"\ud800"` into a string no UTF-8 encoder, JCS (RFC 8785) or SHA-256
// input can hold. One linear pass over the text finds both, with where they are (JSON Pointers, RFC 6901), so
// the body reader can refuse lone surrogates on every route and a verifier can refuse a credential whose
// reader could see another document than the one checked.

export interface JsonTextFindings {
  /** JSON Pointer of the first string (member name or value) that holds a lone surrogate. */
  loneSurrogateAt?: string;
  /** JSON Pointers of the repeated members (at most `maxDuplicates`, in text order). */
  duplicateMembers: string[];
  /** How deep the text nests: 0 for a scalar, 1 for `[]` or `{"a":1}`, 2 for `[[]]`. */
  depth: number;
}

/** An open object keeps its names in a list while it is small, in a set once it is not. */
type Frame =
  | { kind: 'object'; names: string[]; set?: Set<string>; name: string | undefined }
  | { kind: 'array'; index: number };
const SMALL_OBJECT = 16;

/** Adds a member name; false when the object already has it. */
function addName(f: Extract<Frame, { kind: 'object' }>, name: string): boolean {
  if (f.set) {
    if (f.set.has(name)) return false;
    f.set.add(name);
    return true;
  }
  if (f.names.includes(name)) return false;
  f.names.push(name);
  if (f.names.length > SMALL_OBJECT) f.set = new Set(f.names);
  return true;
}

const isWs = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** RFC 6901: `~` → `~0`, `/` → `~1`. */
function pointer(stack: Frame[], last?: string): string {
  const parts: string[] = [];
  for (const f of stack) {
    const seg = f.kind === 'array' ? String(f.index) : f.name;
    if (seg !== undefined) parts.push(seg);
  }
  if (last !== undefined) parts.push(last);
  return parts.map((p) => '/' + p.replace(/~/g, '~0').replace(/\//g, '~1')).join('');
}

/** The scan of one text: where it is, the open containers, and what it has found so far. */
interface Scan {
  readonly text: string;
  readonly n: number;
  i: number;
  readonly stack: Frame[];
  readonly findings: JsonTextFindings;
  readonly maxDuplicates: number;
}

function skipWs(s: Scan): void {
  while (s.i < s.n && isWs(s.text.charCodeAt(s.i))) s.i++;
}

/**
 * From the first escape at `from` of a string, to its real closing quote, pairing \uD8xx with \uDCxx: that
 * quote's index and whether a surrogate stands alone; undefined when the string does not end.
 */
export function scanEscapes(text: string, from: number): { close: number; lone: boolean } | undefined {
  const n = text.length;
  let j = from;
  let lone = false;
  let pendingHigh = false;
  for (;;) {
    if (j >= n) return undefined;
    const c = text.charCodeAt(j);
    if (c === 0x22) break;
    if (c === 0x5c && text.charCodeAt(j + 1) === 0x75) {
      const code = Number.parseInt(text.slice(j + 2, j + 6), 16);
      if (Number.isNaN(code)) return undefined;
      const high = code >= 0xd800 && code <= 0xdbff;
      const low = code >= 0xdc00 && code <= 0xdfff;
      if ((high && pendingHigh) || (low && !pendingHigh) || (!high && !low && pendingHigh)) lone = true;
      pendingHigh = high;
      j += 6;
      continue;
    }
    if (pendingHigh) lone = true;
    pendingHigh = false;
    j += c === 0x5c ? 2 : 1;
  }
  return { close: j, lone: lone || pendingHigh };
}

/** Reads the string starting at text[i] === '"'; answers its end (index after the closing quote). */
function readString(s: Scan, wantValue: boolean): { end: number; value?: string; lone: boolean } | undefined {
  const { text, n, i } = s;
  // Up to the closing quote or the first escape, whichever comes first (a search for either alone could
  // run to the end of the text for every string).
  let k = i + 1;
  for (; k < n; k++) {
    const c = text.charCodeAt(k);
    if (c === 0x22 || c === 0x5c) break;
  }
  if (k >= n) return undefined;
  if (text.charCodeAt(k) === 0x22)
    return { end: k + 1, lone: false, ...(wantValue ? { value: text.slice(i + 1, k) } : {}) };
  const escaped = scanEscapes(text, k);
  if (!escaped) return undefined;
  const end = escaped.close + 1;
  if (!wantValue || escaped.lone) return { end, lone: escaped.lone };
  try {
    return { end, lone: false, value: JSON.parse(text.slice(i, end)) as string };
  } catch {
    return undefined;
  }
}

/**
 * After a value: `,` or closing brackets; answers false when the text is not well-formed. A loop, not a
 * recursion: a text may close 100,000 brackets in a row.
 */
function afterValue(s: Scan): boolean {
  for (;;) {
    skipWs(s);
    const top = s.stack[s.stack.length - 1];
    if (!top) return s.i === s.n;
    const c = s.text.charCodeAt(s.i);
    if (c === 0x2c) {
      s.i++;
      if (top.kind === 'array') top.index++;
      return true;
    }
    if ((c === 0x7d && top.kind === 'object') || (c === 0x5d && top.kind === 'array')) {
      s.i++;
      s.stack.pop();
      continue;
    }
    return false;
  }
}

/** In an object, before a member: reads the name (noting a repeated one) and the colon. */
function memberName(s: Scan): boolean {
  skipWs(s);
  if (s.text.charCodeAt(s.i) !== 0x22) return false;
  const top = s.stack[s.stack.length - 1] as Extract<Frame, { kind: 'object' }>;
  const str = readString(s, true);
  if (!str) return false;
  const { findings } = s;
  if (str.lone) {
    findings.loneSurrogateAt ??= pointer(s.stack.slice(0, -1));
    top.name = undefined;
  } else {
    const name = str.value!;
    if (!addName(top, name) && findings.duplicateMembers.length < s.maxDuplicates)
      findings.duplicateMembers.push(pointer(s.stack.slice(0, -1), name));
    top.name = name;
  }
  s.i = str.end;
  skipWs(s);
  if (s.text.charCodeAt(s.i) !== 0x3a) return false;
  s.i++;
  return true;
}

/**
 * Reads one value's start: an empty container whole, the opening of another (pushed, and for an object its
 * first member name), a string, or a number or literal; `'opened'` when a container was opened, false when
 * the text is not well-formed.
 */
function readValue(s: Scan): 'opened' | 'read' | false {
  const c = s.text.charCodeAt(s.i);
  if (c === 0x7b || c === 0x5b) {
    s.findings.depth = Math.max(s.findings.depth, s.stack.length + 1);
    s.i++;
    skipWs(s);
    if (s.text.charCodeAt(s.i) === (c === 0x7b ? 0x7d : 0x5d)) {
      s.i++;
      return 'read';
    }
    if (c === 0x5b) {
      s.stack.push({ kind: 'array', index: 0 });
      return 'opened';
    }
    s.stack.push({ kind: 'object', names: [], name: undefined });
    return memberName(s) && 'opened';
  }
  if (c === 0x22) {
    const str = readString(s, false);
    if (!str) return false;
    if (str.lone) s.findings.loneSurrogateAt ??= pointer(s.stack);
    s.i = str.end;
    return 'read';
  }
  // A number or a literal: up to the next delimiter; JSON.parse judges its spelling.
  const start = s.i;
  while (s.i < s.n) {
    const d = s.text.charCodeAt(s.i);
    if (d === 0x2c || d === 0x5d || d === 0x7d || isWs(d)) break;
    s.i++;
  }
  return s.i > start && 'read';
}

/**
 * Scans a JSON text; undefined when it is not well-formed enough to scan (JSON.parse then says why).
 * Linear in the text: each character is looked at a bounded number of times.
 */
export function inspectJsonText(text: string, maxDuplicates = 20): JsonTextFindings | undefined {
  const s: Scan = {
    text,
    n: text.length,
    i: 0,
    stack: [],
    findings: { duplicateMembers: [], depth: 0 },
    maxDuplicates,
  };
  for (;;) {
    skipWs(s);
    if (s.i >= s.n) return undefined;
    const read = readValue(s);
    if (read === false) return undefined;
    if (read === 'opened') continue;
    if (!afterValue(s)) return undefined;
    if (s.stack.length === 0) return s.findings;
    const top = s.stack[s.stack.length - 1]!;
    // After a comma in an object comes a member name; closing brackets were consumed by afterValue.
    if (top.kind === 'object' && text.charCodeAt(s.i - 1) === 0x2c && !memberName(s)) return undefined;
  }
}
