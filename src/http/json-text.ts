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

/**
 * Scans a JSON text; undefined when it is not well-formed enough to scan (JSON.parse then says why).
 * Linear in the text: each character is looked at a bounded number of times.
 */
export function inspectJsonText(text: string, maxDuplicates = 20): JsonTextFindings | undefined {
  const findings: JsonTextFindings = { duplicateMembers: [], depth: 0 };
  const stack: Frame[] = [];
  const n = text.length;
  let i = 0;
  const skipWs = () => {
    while (i < n && isWs(text.charCodeAt(i))) i++;
  };

  /** Reads the string starting at text[i] === '"'; answers its end (index after the closing quote). */
  const readString = (wantValue: boolean): { end: number; value?: string; lone: boolean } | undefined => {
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
    // Escapes: walk to the real closing quote, pairing \uD8xx with \uDCxx.
    let j = k;
    let lone = false;
    let pendingHigh = false;
    for (;;) {
      if (j >= n) return undefined;
      const c = text.charCodeAt(j);
      if (c === 0x22) break;
      if (c === 0x5c) {
        const e = text.charCodeAt(j + 1);
        if (e === 0x75) {
          const code = Number.parseInt(text.slice(j + 2, j + 6), 16);
          if (Number.isNaN(code)) return undefined;
          if (code >= 0xd800 && code <= 0xdbff) {
            if (pendingHigh) lone = true;
            pendingHigh = true;
          } else if (code >= 0xdc00 && code <= 0xdfff) {
            if (!pendingHigh) lone = true;
            pendingHigh = false;
          } else if (pendingHigh) {
            lone = true;
            pendingHigh = false;
          }
          j += 6;
          continue;
        }
        if (pendingHigh) lone = true;
        pendingHigh = false;
        j += 2;
        continue;
      }
      if (pendingHigh) lone = true;
      pendingHigh = false;
      j++;
    }
    if (pendingHigh) lone = true;
    const end = j + 1;
    if (!wantValue || lone) return { end, lone };
    try {
      return { end, lone, value: JSON.parse(text.slice(i, end)) as string };
    } catch {
      return undefined;
    }
  };

  /**
   * After a value: `,` or closing brackets; answers false when the text is not well-formed. A loop, not a
   * recursion: a text may close 100,000 brackets in a row.
   */
  const afterValue = (): boolean => {
    for (;;) {
      skipWs();
      const top = stack[stack.length - 1];
      if (!top) return i === n;
      const c = text.charCodeAt(i);
      if (c === 0x2c) {
        i++;
        if (top.kind === 'array') top.index++;
        return true;
      }
      if ((c === 0x7d && top.kind === 'object') || (c === 0x5d && top.kind === 'array')) {
        i++;
        stack.pop();
        continue;
      }
      return false;
    }
  };

  /** In an object, before a member: reads the name and the colon. */
  const memberName = (): boolean => {
    skipWs();
    if (text.charCodeAt(i) !== 0x22) return false;
    const top = stack[stack.length - 1] as Extract<Frame, { kind: 'object' }>;
    const s = readString(true);
    if (!s) return false;
    if (s.lone) {
      findings.loneSurrogateAt ??= pointer(stack.slice(0, -1));
      top.name = undefined;
    } else {
      const name = s.value!;
      if (!addName(top, name) && findings.duplicateMembers.length < maxDuplicates)
        findings.duplicateMembers.push(pointer(stack.slice(0, -1), name));
      top.name = name;
    }
    i = s.end;
    skipWs();
    if (text.charCodeAt(i) !== 0x3a) return false;
    i++;
    return true;
  };

  for (;;) {
    skipWs();
    if (i >= n) return undefined;
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) findings.depth = Math.max(findings.depth, stack.length + 1);
    if (c === 0x7b) {
      i++;
      skipWs();
      if (text.charCodeAt(i) === 0x7d) {
        i++;
      } else {
        stack.push({ kind: 'object', names: [], name: undefined });
        if (!memberName()) return undefined;
        continue;
      }
    } else if (c === 0x5b) {
      i++;
      skipWs();
      if (text.charCodeAt(i) === 0x5d) {
        i++;
      } else {
        stack.push({ kind: 'array', index: 0 });
        continue;
      }
    } else if (c === 0x22) {
      const s = readString(false);
      if (!s) return undefined;
      if (s.lone) findings.loneSurrogateAt ??= pointer(stack);
      i = s.end;
    } else {
      // A number or a literal: up to the next delimiter; JSON.parse judges its spelling.
      const start = i;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d === 0x2c || d === 0x5d || d === 0x7d || isWs(d)) break;
        i++;
      }
      if (i === start) return undefined;
    }
    if (!afterValue()) return undefined;
    if (stack.length === 0) return findings;
    const top = stack[stack.length - 1]!;
    // After a comma in an object comes a member name; closing brackets were consumed by afterValue.
    if (top.kind === 'object' && text.charCodeAt(i - 1) === 0x2c && !memberName()) return undefined;
  }
}
