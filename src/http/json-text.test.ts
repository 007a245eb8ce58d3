import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { inspectJsonText } from './json-text.ts';

describe('inspectJsonText', () => {
  it.each([
    { given: '{"a":1,"b":[1,2,{"c":"x"}]}', want: { depth: 3, duplicateMembers: [] } },
    { given: ' [ ] ', want: { depth: 1, duplicateMembers: [] } },
    { given: '"\\ud83d\\ude00"', want: { depth: 0, duplicateMembers: [] } },
    { given: '{"a":1,"a":2}', want: { depth: 1, duplicateMembers: ['/a'] } },
    { given: '{"a":1,"\\u0061":2}', want: { depth: 1, duplicateMembers: ['/a'] } },
    {
      given: '{"vc":{"validUntil":"2099","validUntil":"2035"}}',
      want: { depth: 2, duplicateMembers: ['/vc/validUntil'] },
    },
    { given: '[{"x":[0,{"a/b":1,"a/b":2}]}]', want: { depth: 4, duplicateMembers: ['/0/x/1/a~1b'] } },
    { given: '{"a":"\\ud800"}', want: { loneSurrogateAt: '/a', depth: 1, duplicateMembers: [] } },
    { given: '{"a":["ok","\\udc00x"]}', want: { loneSurrogateAt: '/a/1', depth: 2, duplicateMembers: [] } },
    { given: '{"\\ud800":1}', want: { loneSurrogateAt: '', depth: 1, duplicateMembers: [] } },
    { given: '{"a":"\\ud800\\u0041"}', want: { loneSurrogateAt: '/a', depth: 1, duplicateMembers: [] } },
    { given: '{"a":"\\ud800\\ud800\\udc00"}', want: { loneSurrogateAt: '/a', depth: 1, duplicateMembers: [] } },
    { given: '{"a":"\\\\ud800"}', want: { depth: 1, duplicateMembers: [] } },
    // An escaped quote after a \u escape is inside the string, not its end.
    { given: '{"a":"\\u0041\\"\\ud800"}', want: { loneSurrogateAt: '/a', depth: 1, duplicateMembers: [] } },
    { given: '{"a":"\\u00e9\\"","a":1}', want: { depth: 1, duplicateMembers: ['/a'] } },
    { given: '{"\\u0061\\"":1,"a\\"":2}', want: { depth: 1, duplicateMembers: ['/a"'] } },
  ])('$given', ({ given, want }) => {
    expect(inspectJsonText(given)).toEqual(want);
  });

  it.each(['', '{', '{"a"}', '{"a":1,}', '[1,', '"abc', '{"a":1}x'])(
    'undefined for text that is not JSON: %j',
    (text) => {
      expect(inspectJsonText(text)).toBeUndefined();
    },
  );

  it('agrees with JSON.parse on every JSON text of random values: no finding, nothing refused', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = JSON.stringify(v);
        const depth = inspectJsonText(text)?.depth;
        expect(inspectJsonText(text)).toEqual({ depth, duplicateMembers: [] });
        expect(inspectJsonText(JSON.stringify(v, null, 2))).toEqual({ depth, duplicateMembers: [] });
      }),
      { numRuns: 300 },
    );
  });

  it('finds a lone surrogate wherever JSON.parse produces one', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (s) => {
        const text = JSON.stringify({ k: s });
        const lone = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(s);
        expect(inspectJsonText(text)?.loneSurrogateAt).toBe(lone ? '/k' : undefined);
      }),
      { numRuns: 500 },
    );
  });

  // Strings dense in what JSON.stringify escapes (\u for a control character or a lone surrogate, \" and \\).
  const escapable = fc.string({ unit: fc.constantFrom('a', '"', '\\', '\u0001', '\ud800', '\udc00', '\ud83d\ude00') });
  const hasLone = (s: string) => /\p{Cs}/u.test(s);

  it('finds a lone surrogate, and a member named twice, in strings of escapes of every kind', () => {
    fc.assert(
      fc.property(escapable, escapable, (s, t) => {
        const [ks, kt] = [JSON.stringify(`k${s}`), JSON.stringify(t)];
        const text = `{"v":${JSON.stringify([t, s])},${ks}:1,${ks}:${kt}}`;
        const found = inspectJsonText(text);
        const loneAt = hasLone(t) ? '/v/0' : hasLone(s) ? '/v/1' : undefined;
        expect(found).toEqual({
          depth: 2,
          duplicateMembers: hasLone(s) ? [] : [`/k${s.replace(/~/g, '~0').replace(/\//g, '~1')}`],
          ...(loneAt === undefined ? {} : { loneSurrogateAt: loneAt }),
        });
      }),
      { numRuns: 1000 },
    );
  });

  it('is linear: 50,000 members of one object', () => {
    const text = `{${Array.from({ length: 50_000 }, (_, i) => `"k${i}":${i}`).join(',')},"k7":0}`;
    expect(inspectJsonText(text)).toEqual({ depth: 1, duplicateMembers: ['/k7'] });
  });

  // Closing brackets were read by recursion: 20,000 of them overflowed the stack inside the body reader, which
  // then answered "the body cannot be read" without its I-JSON checks.
  it('reads a text nested 200,000 deep, and says how deep', () => {
    const d = 200_000;
    expect(inspectJsonText(`{"a":${'['.repeat(d)}"\\ud800"${']'.repeat(d)},"a":1}`)).toEqual({
      depth: d + 1,
      loneSurrogateAt: `/a${'/0'.repeat(d)}`,
      duplicateMembers: ['/a'],
    });
    expect(inspectJsonText(`${'[{"b":'.repeat(1000)}1${'}]'.repeat(1000)}`)?.depth).toBe(2000);
  });
});

describe('a string with escapes', () => {
  it.each([
    { given: '"\\ud83d\\ude00"', lone: false },
    { given: '"\\ud83d"', lone: true },
    { given: '"\\ude00x"', lone: true },
    { given: '"\\ud83dx\\ude00"', lone: true },
    { given: '"\\ud83d\\n"', lone: true },
    { given: '"\\"\\\\a"', lone: false },
    { given: '"\\u00e9"', lone: false },
  ])('$given → lone surrogate: $lone', ({ given, lone }) => {
    expect(inspectJsonText(given)).toEqual({
      depth: 0,
      duplicateMembers: [],
      ...(lone ? { loneSurrogateAt: '' } : {}),
    });
  });

  it('answers undefined for a string that does not end or a \\u escape that is not hexadecimal', () => {
    expect(inspectJsonText('"\\n abc')).toBeUndefined();
    expect(inspectJsonText('"\\uzzzz"')).toBeUndefined();
  });
});
