import { describe, expect, it } from 'vitest';
import { JcsError, canonicalize, canonicalizeToBytes } from './jcs.ts';

// RFC 8785 §3.2.2 (the transformation example) and §3.2.3 (the sorting example), and the reference
// test data of cyberphone/json-canonicalization (testdata/input → testdata/output): JSON text in, canonical text out.
const DOCUMENTS = [
  {
    name: 'RFC 8785 §3.2.2 example',
    input:
      '{"numbers": [333333333.33333329, 1E30, 4.50, 2e-3, 0.000000000000000000000000001],' +
      ' "string": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}',
    output:
      '{"literals":[null,true,false],"numbers":[333333333.3333333,1e+30,4.5,0.002,1e-27],"string":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/"}',
  },
  {
    name: 'RFC 8785 §3.2.3 sorting example',
    input:
      '{"\\u20ac": "Euro Sign", "\\r": "Carriage Return", "\\ufb33": "Hebrew Letter Dalet With Dagesh", "1": "One",' +
      ' "\\ud83d\\ude00": "Emoji: Grinning Face", "\\u0080": "Control", "\\u00f6": "Latin Small Letter O With Diaeresis"}',
    output:
      '{"\\r":"Carriage Return","1":"One","\u0080":"Control","\u00f6":"Latin Small Letter O With Diaeresis",' +
      '"\u20ac":"Euro Sign","\ud83d\ude00":"Emoji: Grinning Face","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
  },
  {
    name: 'testdata weird.json',
    input:
      '{"\\u20ac": "Euro Sign", "1": "One", "\\u0080": "Control\\u007f", "\\ud83d\\ude02": "Smiley",' +
      ' "\\u00f6": "Latin Small Letter O With Diaeresis", "\\ufb33": "Hebrew Letter Dalet With Dagesh", "</script>": "Browser Challenge"}',
    output:
      '{"1":"One","</script>":"Browser Challenge","\u0080":"Control\u007f","\u00f6":"Latin Small Letter O With Diaeresis",' +
      '"\u20ac":"Euro Sign","\ud83d\ude02":"Smiley","\ufb33":"Hebrew Letter Dalet With Dagesh"}',
  },
  {
    name: 'testdata values.json',
    input:
      '{"numbers": [1E30, 4.50, 333333333.33333329, 2e-3, 0.000000000000000000000000001],' +
      ' "escaping": "\\u20ac$\\u000F\\u000aA\'\\u0042\\u0022\\u005c\\\\\\"\\/", "literals": [null, true, false]}',
    output:
      '{"escaping":"\u20ac$\\u000f\\nA\'B\\"\\\\\\\\\\"/","literals":[null,true,false],"numbers":[1e+30,4.5,333333333.3333333,0.002,1e-27]}',
  },
  {
    name: 'testdata french.json (locale ignored)',
    input:
      '{"peach": "This sorting order", "p\u00e9ch\u00e9": "is wrong according to French",' +
      ' "p\u00eache": "but canonicalization MUST", "sin": "ingnore locale"}',
    output:
      '{"peach":"This sorting order","p\u00e9ch\u00e9":"is wrong according to French",' +
      '"p\u00eache":"but canonicalization MUST","sin":"ingnore locale"}',
  },
  {
    name: 'nested objects and arrays keep element order',
    input: '{"b": [3, {"z": 1, "a": [2, 1]}], "a": {"d": {}, "c": []}}',
    output: '{"a":{"c":[],"d":{}},"b":[3,{"a":[2,1],"z":1}]}',
  },
];

describe.each(DOCUMENTS)('canonicalize: $name', ({ input, output }) => {
  it('produces the expected text', () => expect(canonicalize(JSON.parse(input))).toBe(output));
  it('is idempotent', () => expect(canonicalize(JSON.parse(output))).toBe(output));
});

describe('canonicalizeToBytes', () => {
  it('is the UTF-8 of the §3.2.2 sample (the RFC prints these bytes)', () => {
    // RFC 8785 §3.2.4, in the RFC's 20-bytes-per-line grouping.
    const hex = `
      7b 22 6c 69 74 65 72 61 6c 73 22 3a 5b 6e 75 6c 6c 2c 74 72
      75 65 2c 66 61 6c 73 65 5d 2c 22 6e 75 6d 62 65 72 73 22 3a
      5b 33 33 33 33 33 33 33 33 33 2e 33 33 33 33 33 33 33 2c 31
      65 2b 33 30 2c 34 2e 35 2c 30 2e 30 30 32 2c 31 65 2d 32 37
      5d 2c 22 73 74 72 69 6e 67 22 3a 22 e2 82 ac 24 5c 75 30 30
      30 66 5c 6e 41 27 42 5c 22 5c 5c 5c 5c 5c 22 2f 22 7d`.replace(/\s+/g, '');
    expect(canonicalizeToBytes(JSON.parse(DOCUMENTS[0]!.input)).toString('hex')).toBe(hex);
  });
});

// RFC 8785 Appendix B: IEEE-754 bit patterns and their required serialization.
const NUMBERS: [string, string][] = [
  ['0000000000000000', '0'],
  ['8000000000000000', '0'],
  ['0000000000000001', '5e-324'],
  ['8000000000000001', '-5e-324'],
  ['7fefffffffffffff', '1.7976931348623157e+308'],
  ['ffefffffffffffff', '-1.7976931348623157e+308'],
  ['4340000000000000', '9007199254740992'],
  ['c340000000000000', '-9007199254740992'],
  ['4430000000000000', '295147905179352830000'],
  ['44b52d02c7e14af5', '9.999999999999997e+22'],
  ['44b52d02c7e14af6', '1e+23'],
  ['44b52d02c7e14af7', '1.0000000000000001e+23'],
  ['444b1ae4d6e2ef4e', '999999999999999700000'],
  ['444b1ae4d6e2ef4f', '999999999999999900000'],
  ['444b1ae4d6e2ef50', '1e+21'],
  ['3eb0c6f7a0b5ed8c', '9.999999999999997e-7'],
  ['3eb0c6f7a0b5ed8d', '0.000001'],
  ['41b3de4355555553', '333333333.3333332'],
  ['41b3de4355555554', '333333333.33333325'],
  ['41b3de4355555555', '333333333.3333333'],
  ['41b3de4355555556', '333333333.3333334'],
  ['41b3de4355555557', '333333333.33333343'],
  ['becbf647612f3696', '-0.0000033333333333333333'],
  ['43143ff3c1cb0959', '1424953923781206.2'],
];

describe.each(NUMBERS.map(([bits, want]) => ({ bits, want })))('number 0x$bits', ({ bits, want }) => {
  it(`serializes as ${want}`, () => {
    const n = Buffer.from(bits, 'hex').readDoubleBE(0);
    expect(canonicalize(n)).toBe(want);
    expect(canonicalize({ n })).toBe(`{"n":${want}}`);
  });
});

// Appendix B's non-finite rows, and what else has no JSON form.
describe.each([
  { name: 'NaN (7fffffffffffffff)', given: NaN },
  { name: 'Infinity (7ff0000000000000)', given: Infinity },
  { name: '-Infinity', given: { a: [-Infinity] } },
  { name: 'bigint', given: { a: 1n } },
  { name: 'lone high surrogate in a value', given: { a: '\ud83d' } },
  { name: 'lone low surrogate in a key', given: { '\ude00': 1 } },
  {
    name: 'cycle',
    given: (() => {
      const o: Record<string, unknown> = {};
      o.self = o;
      return o;
    })(),
  },
  { name: 'undefined at the top', given: undefined },
])('canonicalize rejects $name', ({ given }) => {
  it('throws JcsError', () => expect(() => canonicalize(given)).toThrow(JcsError));
});

describe.each([
  { name: 'undefined properties are left out', given: { b: undefined, a: 1 }, want: '{"a":1}' },
  { name: 'undefined in arrays becomes null', given: [undefined, 1], want: '[null,1]' },
  {
    name: 'toJSON is honoured (Date)',
    given: { t: new Date(Date.UTC(2025, 0, 2, 3, 4, 5)) },
    want: '{"t":"2025-01-02T03:04:05.000Z"}',
  },
  {
    name: 'shared (non-cyclic) references are fine',
    given: (() => {
      const x = { v: 1 };
      return { a: x, b: x };
    })(),
    want: '{"a":{"v":1},"b":{"v":1}}',
  },
  {
    name: 'control characters',
    given: '\u0000\u0008\u0009\u000a\u000c\u000d\u001f\u007f',
    want: '"\\u0000\\b\\t\\n\\f\\r\\u001f\u007f"',
  },
])('canonicalize: $name', ({ given, want }) => {
  it('matches', () => expect(canonicalize(given)).toBe(want));
});
