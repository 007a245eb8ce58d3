import { readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { SETTINGS_DOC, renderReadmeSettings } from './readme.ts';

it(`${SETTINGS_DOC} lists every setting with its documented default (npm run readme regenerates it)`, () => {
  const page = readFileSync(SETTINGS_DOC, 'utf8');
  expect(renderReadmeSettings(page)).toBe(page);
});
