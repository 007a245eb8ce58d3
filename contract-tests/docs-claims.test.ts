// What the user and contributor docs promise about the machine they run on (issue 26, Deliver 6): the test stores'
// settings in docs/testing.md are the ones test-support/stores/backends.ts reads, with their defaults; the docs say
// how to bring PostgreSQL and Redis up and how long a run takes; and no user doc carries a note about this project's
// own machine. And the mock-parity exceptions docs/testing.md lists are the ones contract-tests/mock-parity.test.ts
// allows, with the same codes (contract-tests/helpers/mock-exceptions.ts).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { RESOLVER_EXCEPTIONS, VAULT_EXCEPTIONS, type Exception } from './helpers/mock-exceptions.ts';

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

/** A row of docs/testing.md's table "Where a mock cannot refuse": its rule and the codes named for each service. */
interface ExceptionRow {
  rule: string;
  /** Codes by service label (`vault API:`, `resolver:`); `both` when the cell names no service. */
  codes: Partial<Record<'vault' | 'resolver' | 'both', string[]>>;
}

/** The backticked codes of a cell part; a verification result `verified: false` is the test's `verified:false`. */
const codesIn = (text: string): string[] =>
  [...text.matchAll(/`([^`]+)`/g)]
    .map((m) => (m[1] === 'verified: false' ? 'verified:false' : m[1]!))
    .filter((c) => /^[A-Za-z_]+(:false)?$/.test(c));

function exceptionRows(testing: string): ExceptionRow[] {
  const section = testing.split(/^#### /m).find((s) => s.startsWith('Where a mock cannot refuse'));
  if (!section) throw new Error('docs/testing.md has no "Where a mock cannot refuse" section');
  const rows = section.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| rule |'));
  return rows.map((line) => {
    const [rule, , cell] = line.split(' | ').map((c) => c.replace(/^\| |\|$/g, '').trim());
    const labelled = /vault API:(.*?)(?:;\s*resolver:(.*))?$/.exec(cell!);
    const codes: ExceptionRow['codes'] = labelled
      ? { vault: codesIn(labelled[1]!), ...(labelled[2] !== undefined ? { resolver: codesIn(labelled[2]) } : {}) }
      : { both: codesIn(cell!) };
    return { rule: rule!.toLowerCase(), codes };
  });
}

describe('docs/testing.md "Where a mock cannot refuse" and contract-tests/mock-parity.test.ts', () => {
  const rows = exceptionRows(read('docs/testing.md'));
  const tables: [service: 'vault' | 'resolver', table: readonly Exception[]][] = [
    ['vault', VAULT_EXCEPTIONS],
    ['resolver', RESOLVER_EXCEPTIONS],
  ];

  it('the document lists the rules the test allows, and no other', () => {
    expect(rows.length, 'the table was found').toBeGreaterThanOrEqual(5);
    const inTests = new Set(tables.flatMap(([, t]) => t.map((e) => e.rule.toLowerCase())));
    expect(rows.map((r) => r.rule).sort()).toEqual([...inTests].sort());
  });

  it.each(tables)('each rule of the %s names in the document the codes the test excuses', (service, table) => {
    for (const e of table) {
      if (!e.codes) continue; // a rule by mutation kind (StrKey checksums) names what the service answers
      const row = rows.find((r) => r.rule === e.rule.toLowerCase())!;
      const documented = row.codes[service] ?? row.codes.both;
      expect(documented, `${service}: ${e.rule}`).toBeDefined();
      expect([...documented!].sort(), `${service}: ${e.rule}`).toEqual([...e.codes].sort());
    }
  });

  it("tx_invalid is its own rule, not the ledger's: it is decoding and signatures, and reads no state", () => {
    const ledger = rows.find((r) => r.rule === 'the ledger')!;
    expect(ledger.codes.vault).not.toContain('tx_invalid');
    const own = rows.filter((r) => (r.codes.vault ?? r.codes.both ?? []).includes('tx_invalid'));
    expect(own.map((r) => r.rule)).toEqual(["an envelope's decoding and signatures"]);
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
