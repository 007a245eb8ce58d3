// The README's settings table is generated from SETTINGS, so the documented defaults cannot drift.
import { settingsTable } from './index.ts';

const START = '<!-- settings:start -->';
const END = '<!-- settings:end -->';

export function renderReadmeSettings(readme: string): string {
  const a = readme.indexOf(START);
  const b = readme.indexOf(END);
  if (a < 0 || b < a) throw new Error('README.md has no settings markers');
  return `${readme.slice(0, a + START.length)}\n${settingsTable()}\n${readme.slice(b)}`;
}
