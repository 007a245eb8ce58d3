// The repository's layout, read off the import graph (docs/architecture.md): production code under src/
// reaches the simulator only through the `start` wiring and never imports test support; src/ holds no test
// harnesses; the simulator's modules import each other without cycles, and nothing from src/.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Repository-relative paths (with `/`) of the .ts files under `dir`. */
function tsFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}

const isTest = (file: string): boolean => file.endsWith('.test.ts');

// Static imports and re-exports (`… from '…'`, `import '…'`, type-only included) and dynamic `import('…')`.
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.{1,2}\/[^'"]+)\1/g;

/** The repository-relative files that `file` imports by relative path (comment lines skipped). */
function importsOf(file: string): string[] {
  const code = readFileSync(path.join(ROOT, file), 'utf8')
    .split('\n')
    .filter((line) => !/^\s*(\/\/|\/?\*)/.test(line))
    .join('\n');
  return [...code.matchAll(IMPORT)].map((m) => path.posix.normalize(path.posix.join(path.posix.dirname(file), m[2]!)));
}

/** Every cycle's path (a → b → … → a) found by a depth-first search over `graph`; one per back edge. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[] {
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const found: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      if (state.get(next) === 'open') found.push([...stack.slice(stack.indexOf(next)), next].join(' → '));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return found;
}

// The only production paths to the simulator: `credential-vault start` embeds it, `credential-vault simulator` runs it.
const WIRING = ['src/cli.ts → simulator/cli.ts', 'src/services.ts → simulator/index.ts'];
const TEST_ONLY = /^(simulator|test-support|scale-tests|property-tests|contract-tests|browser-tests|bench)\//;

describe('layout', () => {
  const production = tsFiles('src').filter((f) => !isTest(f));

  it('src/ reaches the simulator only through the start wiring, and test support not at all', () => {
    const edges = production.flatMap((f) =>
      importsOf(f)
        .filter((t) => TEST_ONLY.test(t))
        .map((t) => `${f} → ${t}`),
    );
    expect(edges.sort()).toEqual(WIRING);
  });

  it('src/ holds no test harnesses: they live in test-support/ and scale-tests/', () => {
    expect(production.filter((f) => /(^|\/)(testing|scale-tests)\/|(^|[./])(testing|harness)\.ts$/.test(f))).toEqual(
      [],
    );
  });

  it("the simulator's modules import each other without cycles", () => {
    const modules = tsFiles('simulator').filter((f) => !isTest(f));
    const known = new Set(modules);
    const graph = new Map(modules.map((f) => [f, importsOf(f).filter((t) => known.has(t))]));
    expect(graph.get('simulator/core/network.ts')).toContain('simulator/core/rpc/index.ts'); // the walker sees the graph
    expect(cycles(graph)).toEqual([]);
  });

  it("the simulator's modules import nothing from src/: it encodes with the SDK alone, an oracle apart from the service", () => {
    const modules = tsFiles('simulator').filter((f) => !isTest(f));
    expect(importsOf('simulator/cli.ts')).toContain('simulator/listen-failure.ts'); // the walker sees the imports
    expect(
      modules.flatMap((f) =>
        importsOf(f)
          .filter((t) => t.startsWith('src/'))
          .map((t) => `${f} → ${t}`),
      ),
    ).toEqual([]);
  });

  it('the cycle search finds a cycle', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', ['a.ts']],
    ]);
    expect(cycles(graph)).toEqual(['a.ts → b.ts → c.ts → a.ts']);
  });
});
