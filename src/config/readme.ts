// The settings table of docs/operations.md is generated from SETTINGS, so the documented defaults cannot drift.
import { settingsTable } from './index.ts';

/** The page whose table lists every setting (the README links it). */
export const SETTINGS_DOC = 'docs/operations.md';

const START = '<!-- settings:start -->';
const END = '<!-- settings:end -->';

export function renderReadmeSettings(readme: string): string {
  const a = readme.indexOf(START);
  const b = readme.indexOf(END);
  if (a < 0 || b < a) throw new Error(`${SETTINGS_DOC} has no settings markers`);
  return `${readme.slice(0, a + START.length)}\n${settingsTable()}\n${readme.slice(b)}`;
}
