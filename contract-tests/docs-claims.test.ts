// What the user and contributor docs promise about the machine they run on (issue 26, Deliver 6): the test stores'
// settings in docs/testing.md are the ones test-support/stores/backends.ts reads, with their defaults; the docs say
// how to bring PostgreSQL and Redis up and how long a run takes; and no user doc carries a note about this project's
// own machine.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

describe('docs/testing.md', () => {
  const testing = read('docs/testing.md');

  it('names every CV_TEST_* setting test-support/stores/backends.ts reads, with its default, and no other', () => {
    const backends = read('test-support/stores/backends.ts');
    const settings = new Map<string, string>();
    for (const m of backends.matchAll(/env\['(CV_TEST_[A-Z_]+)'\] \|\| '?([^')]+)'?\)?/g)) settings.set(m[1]!, m[2]!);
    expect(settings.size, 'the settings backends.ts reads').toBeGreaterThanOrEqual(6);
    const documented = new Set(testing.match(/CV_TEST_[A-Z_]+/g) ?? []);
    expect([...documented].sort()).toEqual([...settings.keys()].sort());
    // Each default is in the table row that names the setting.
    for (const [name, fallback] of settings) {
      const row = testing.split('\n').find((l) => l.trimStart().startsWith('|') && l.includes(name));
      expect(row, name).toContain(`\`${fallback}\``);
    }
  });

  it('says how to bring PostgreSQL and Redis up, and how long a run takes', () => {
    expect(testing).toMatch(/apt-get install -y postgresql redis-server/);
    expect(testing).toMatch(/docker run .*postgres/);
    expect(testing).toMatch(/docker run .*redis/);
    expect(testing).toMatch(/`npm test` took about \d+ minutes/);
  });
});

/** A note about the machine this project is developed on. */
const INTERNAL_NOTE = /this project['’]s\b[^.\n]{0,40}\bmachine|\bon this project['’]s\b/i;

describe('user docs', () => {
  const files = [
    'README.md',
    'simulator/README.md',
    ...readdirSync(path.join(ROOT, 'docs'))
      .filter((f) => f.endsWith('.md'))
      .map((f) => `docs/${f}`),
  ];

  it.each(files)('%s: no note about this project’s own machine', (file) => {
    expect(read(file)).not.toMatch(INTERNAL_NOTE);
  });

  it('the rule refuses what the issue found', () => {
    expect('(20 on this project’s machine)').toMatch(INTERNAL_NOTE);
    expect("this project's shared 2-core machine").toMatch(INTERNAL_NOTE);
  });
});
