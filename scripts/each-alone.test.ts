// scripts/each-alone.ts: which lines it runs alone, read from `vitest list --json`, and when a run counts as passed.
import { describe, expect, it } from 'vitest';
import { listedTests, noTestAtLine, ranSome, testLines } from './each-alone.ts';

const FILE = '/repo/src/a.test.ts';

describe('testLines', () => {
  it.each([
    { given: [], want: [] },
    {
      given: [
        { name: 'b > second', file: FILE, location: { line: 20 } },
        { name: 'a > first', file: FILE, location: { line: 7 } },
      ],
      want: [
        { line: 7, names: ['a > first'] },
        { line: 20, names: ['b > second'] },
      ],
    },
    {
      // A describe.each declares the same test once per case, at one line.
      given: [
        { name: '$service > has paths', file: FILE, location: { line: 47 } },
        { name: '$service > has paths', file: FILE, location: { line: 47 } },
        { name: 'other > at the same line', file: FILE, location: { line: 47 } },
      ],
      want: [{ line: 47, names: ['$service > has paths', 'other > at the same line'] }],
    },
  ])('$given.length listed → $want.length lines', ({ given, want }) => {
    expect(testLines(given)).toEqual(want);
  });

  it('refuses a test listed without its line', () => {
    expect(() => testLines([{ name: 'x', file: FILE }])).toThrow('vitest listed x without a line');
  });
});

describe('listedTests', () => {
  it('reads the JSON after whatever a setup printed first', () => {
    const out = `node check: ok\n${JSON.stringify([{ name: 'x', file: FILE, location: { line: 3 } }], null, 2)}\n`;
    expect(listedTests(out)).toEqual([{ name: 'x', file: FILE, location: { line: 3 } }]);
  });

  it('refuses output without JSON', () => {
    expect(() => listedTests('Error: No test suite found')).toThrow(/printed no JSON/);
  });
});

describe('ranSome', () => {
  it.each([
    { given: '      Tests  1 passed | 60 skipped (61)', want: true },
    { given: '      Tests  12 passed (12)', want: true },
    { given: '      Tests  61 skipped (61)', want: false },
    { given: '      Tests  1 failed | 0 passed (1)', want: false },
    { given: 'No test files found, exiting with code 1', want: false },
  ])('$given → $want', ({ given, want }) => {
    expect(ranSome(given)).toBe(want);
  });
});

describe('noTestAtLine', () => {
  it.each([
    { given: 'Error: No test found in src/vault-api/routes/public.test.ts in line 20', want: true },
    { given: 'AssertionError: expected 2 to be +0', want: false },
  ])('$given → $want', ({ given, want }) => {
    expect(noTestAtLine(given)).toBe(want);
  });
});
