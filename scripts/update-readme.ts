// Writes the settings table of src/config into README.md between the settings markers.
// `--check` exits 1 when the README's table differs (the unit test src/config/readme.test.ts does the same).
import { readFileSync, writeFileSync } from 'node:fs';
import { renderReadmeSettings } from '../src/config/readme.ts';

const readme = readFileSync('README.md', 'utf8');
const next = renderReadmeSettings(readme);
if (process.argv.includes('--check')) {
  if (next !== readme) {
    console.error('README.md settings table is stale: run npm run readme');
    process.exit(1);
  }
} else if (next !== readme) {
  writeFileSync('README.md', next);
  console.log('README.md settings table updated');
}
