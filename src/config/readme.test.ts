import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { renderReadmeSettings } from './readme.ts';

it('README.md lists every setting with its documented default (npm run readme regenerates it)', () => {
  const readme = readFileSync('README.md', 'utf8');
  expect(renderReadmeSettings(readme)).toBe(readme);
});
