// Writes the settings table of src/config into docs/operations.md between the settings markers.
// `--check` exits 1 when the page's table differs (the unit test src/config/readme.test.ts does the same).
import { readFileSync, writeFileSync } from 'node:fs';
import { SETTINGS_DOC, renderReadmeSettings } from '../src/config/readme.ts';

const page = readFileSync(SETTINGS_DOC, 'utf8');
const next = renderReadmeSettings(page);
if (process.argv.includes('--check')) {
  if (next !== page) {
    console.error(`${SETTINGS_DOC} settings table is stale: run npm run readme`);
    process.exit(1);
  }
} else if (next !== page) {
  writeFileSync(SETTINGS_DOC, next);
  console.log(`${SETTINGS_DOC} settings table updated`);
}
