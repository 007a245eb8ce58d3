// What JSON.parse does not say: whether a text is I-JSON (RFC 7493 §2.3 repeated names, §2.1 lone surrogates, which
// no UTF-8 encoder or JCS (RFC 8785) can hold). One linear pass finds both, as JSON Pointers (RFC 6901).

export interface JsonTextFindings {
  loneSurrogateAt?: string;
  /** At most `maxDuplicates`, in text order. */
  duplicateMembers: string[];
  /** 0 for a scalar, 1 for `[]` or `{"a":1}`, 2 for `[[]]`. */
  depth: number;
}

/** An open container: an object's names and member (undefined after a lone surrogate), or an array's index. */
interface Frame {
  /** A list while small (a Set for each small object made a credential's scan 15-50 % slower), then `set`. */
  names?: string[];
  set?: Set<string>;
  at: string | number | undefined;
}

/** With `u`, a pair is one code point: only a lone surrogate is of category Cs. */
const LONE_SURROGATE = /\p{Cs}/u;

const isWs = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;

/** The JSON Pointer of the first `depth` open containers' members, then `last`. */
function pointer(stack: readonly Frame[], depth: number, last?: string): string {
  const parts = stack.slice(0, depth).map((f) => f.at);
  if (last !== undefined) parts.push(last);
  return parts
    .filter((p) => p !== undefined)
    .map((p) => '/' + String(p).replace(/~/g, '~0').replace(/\//g, '~1'))
    .join('');
}

/** The string at text[from]: the index after it, and its value (`''` for an escaped value not asked for; null with a lone surrogate). */
function stringAt(text: string, from: number, wantValue: boolean): { end: number; value: string | null } | undefined {
  let k = from + 1;
  let escaped = false;
  let unicode = false; // only a `\u` escape can make a lone surrogate
  for (; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c === 0x22) break;
    if (c === 0x5c) {
      escaped = true;
      // Past the escaped character whatever came before: `||=` would not step over the `"` of a later `\"`.
      if (text.charCodeAt(++k) === 0x75) unicode = true;
    }
  }
  if (k >= text.length) return undefined;
  if (!escaped) return { end: k + 1, value: text.slice(from + 1, k) };
  if (!unicode && !wantValue) return { end: k + 1, value: '' };
  try {
    const value = JSON.parse(text.slice(from, k + 1)) as string;
    return { end: k + 1, value: LONE_SURROGATE.test(value) ? null : value };
  } catch {
    return undefined;
  }
}

/** Undefined when not well-formed enough to scan. A loop, not a recursion: a text may open 100,000 brackets. */
export function inspectJsonText(text: string, maxDuplicates = 20): JsonTextFindings | undefined {
  const findings: JsonTextFindings = { duplicateMembers: [], depth: 0 };
  const stack: Frame[] = [];
  const n = text.length;
  let i = 0;
  const skipWs = () => {
    while (i < n && isWs(text.charCodeAt(i))) i++;
  };
  /** A member name of the object on top and its colon; false when not well-formed. */
  const member = (): boolean => {
    skipWs();
    if (text.charCodeAt(i) !== 0x22) return false;
    const top = stack[stack.length - 1]!;
    const str = stringAt(text, i, true);
    if (!str) return false;
    const name = str.value;
    i = str.end;
    if (name === null) findings.loneSurrogateAt ??= pointer(stack, stack.length - 1);
    else if (top.set ? top.set.has(name) : top.names!.includes(name)) {
      if (findings.duplicateMembers.length < maxDuplicates)
        findings.duplicateMembers.push(pointer(stack, stack.length - 1, name));
    } else if (top.set) top.set.add(name);
    else if (top.names!.push(name) > 16) top.set = new Set(top.names);
    top.at = name ?? undefined;
    skipWs();
    return text.charCodeAt(i++) === 0x3a;
  };
  for (;;) {
    // A value; JSON.parse judges a number's or literal's spelling.
    skipWs();
    const c = text.charCodeAt(i);
    if (c === 0x7b || c === 0x5b) {
      findings.depth = Math.max(findings.depth, stack.length + 1);
      i++;
      skipWs();
      if (text.charCodeAt(i) === (c === 0x7b ? 0x7d : 0x5d)) i++;
      else if (c === 0x5b) {
        stack.push({ names: undefined, at: 0 });
        continue;
      } else {
        stack.push({ names: [], at: undefined });
        if (!member()) return undefined;
        continue;
      }
    } else if (c === 0x22) {
      const str = stringAt(text, i, false);
      if (!str) return undefined;
      if (str.value === null) findings.loneSurrogateAt ??= pointer(stack, stack.length);
      i = str.end;
    } else {
      const start = i;
      for (let d = c; i < n && d !== 0x2c && d !== 0x5d && d !== 0x7d && !isWs(d); d = text.charCodeAt(++i));
      if (i === start) return undefined;
    }
    // After a value: closing brackets, then a comma or the end.
    for (;;) {
      skipWs();
      const top = stack[stack.length - 1];
      if (!top) return i === n ? findings : undefined;
      const d = text.charCodeAt(i++);
      if (d === 0x2c) {
        if (!top.names) (top.at as number)++;
        else if (!member()) return undefined;
        break;
      }
      if (d !== (top.names ? 0x7d : 0x5d)) return undefined;
      stack.pop();
    }
  }
}
