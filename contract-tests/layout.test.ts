// The repository's layout, read off the import graph (docs/architecture.md): production code under src/
// reaches the simulator only through the `start` wiring and never imports test support; src/ holds no test
// harnesses; the simulator's modules import each other without cycles and nothing from src/. Imports are
// read from the syntax tree (the TypeScript compiler's parser), so a re-export, a dynamic import over several lines
// or a type-only import counts, and text that only looks like an import (a comment, a string) does not.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { functionSizes, measure, overLimits, PRODUCTION_DIRS } from '../scripts/sizes.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Repository-relative paths (with `/`) of the .ts files under `dir`. */
function tsFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => path.relative(ROOT, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .sort();
}

const isTest = (file: string): boolean => file.endsWith('.test.ts');

/** The module specifiers `text` imports: import and export declarations, `import x = require(…)`, `import(…)`. */
function specifiersOf(file: string, text: string, runtimeOnly = false): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const found: string[] = [];
  const visit = (n: ts.Node): void => {
    if ((ts.isImportDeclaration(n) || ts.isExportDeclaration(n)) && n.moduleSpecifier) {
      const typeOnly = ts.isImportDeclaration(n) ? n.importClause?.isTypeOnly === true : n.isTypeOnly;
      if (ts.isStringLiteral(n.moduleSpecifier) && !(runtimeOnly && typeOnly)) found.push(n.moduleSpecifier.text);
    } else if (ts.isImportEqualsDeclaration(n) && ts.isExternalModuleReference(n.moduleReference)) {
      const e = n.moduleReference.expression;
      if (ts.isStringLiteral(e)) found.push(e.text);
    } else if (ts.isCallExpression(n) && n.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = n.arguments[0];
      if (arg && ts.isStringLiteralLike(arg)) found.push(arg.text);
    } else if (
      !runtimeOnly &&
      ts.isImportTypeNode(n) &&
      ts.isLiteralTypeNode(n.argument) &&
      ts.isStringLiteral(n.argument.literal)
    ) {
      found.push(n.argument.literal.text);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

/** The repository-relative files that `file` (whose source is `text`) imports by relative path. */
function importsIn(file: string, text: string, runtimeOnly = false): string[] {
  return specifiersOf(file, text, runtimeOnly)
    .filter((s) => s.startsWith('./') || s.startsWith('../'))
    .map((s) => path.posix.normalize(path.posix.join(path.posix.dirname(file), s)));
}

const importsOf = (file: string, runtimeOnly = false): string[] =>
  importsIn(file, readFileSync(path.join(ROOT, file), 'utf8'), runtimeOnly);

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
const WIRING = ['src/cli.ts → simulator/cli.ts', 'src/services/profiles.ts → simulator/index.ts'];
const TEST_ONLY = /^(simulator|test-support|scale-tests|property-tests|contract-tests|browser-tests|bench)\//;

/** `file → target` for each import of `files` (given as [file, source text]) into a folder of TEST_ONLY. */
function testOnlyEdges(files: readonly (readonly [string, string])[]): string[] {
  return files.flatMap(([f, text]) =>
    importsIn(f, text)
      .filter((t) => TEST_ONLY.test(t))
      .map((t) => `${f} → ${t}`),
  );
}

/** Files whose name or folder says test harness. */
const harnesses = (files: readonly string[]): string[] =>
  files.filter((f) => /(^|\/)(testing|scale-tests)\/|(^|[./])(testing|harness)\.ts$/.test(f));

/** `file → target` for each import of src/ by the simulator's `files`: it encodes with the SDK alone. */
function simulatorSrcImports(files: readonly (readonly [string, string])[]): string[] {
  return files
    .flatMap(([f, text]) => importsIn(f, text).map((t) => `${f} → ${t}`))
    .filter((edge) => / → src\//.test(edge));
}

const withText = (files: readonly string[]) => files.map((f) => [f, readFileSync(path.join(ROOT, f), 'utf8')] as const);

describe('layout', () => {
  const production = tsFiles('src').filter((f) => !isTest(f));
  const simulator = tsFiles('simulator').filter((f) => !isTest(f));

  it('src/ reaches the simulator only through the start wiring, and test support not at all', () => {
    expect(testOnlyEdges(withText(production)).sort()).toEqual(WIRING);
  });

  it('src/ holds no test harnesses: they live in test-support/ and scale-tests/', () => {
    expect(harnesses(production)).toEqual([]);
  });

  // A type-only import is erased: only the imports that load a module can make a loading cycle.
  it("the simulator's modules import each other without cycles", () => {
    const known = new Set(simulator);
    const graph = new Map(simulator.map((f) => [f, importsOf(f, true).filter((t) => known.has(t))]));
    expect(graph.get('simulator/core/network.ts')).toContain('simulator/core/rpc/index.ts'); // the walker sees the graph
    expect(cycles(graph)).toEqual([]);
  });

  it("the simulator's modules import nothing from src/: it encodes with the SDK alone, an oracle apart from the service", () => {
    expect(importsOf('simulator/cli.ts')).toContain('simulator/listen-failure.ts'); // the walker sees the imports
    expect(simulatorSrcImports(withText(simulator))).toEqual([]);
  });

  // Each rule on a sample that breaks it, and on text that only looks like an import.
  describe('the rules catch what breaks them', () => {
    it.each([
      ["export * from '../simulator/core/rpc.ts';", ['src/x.ts → simulator/core/rpc.ts']],
      ["export { harness } from '../test-support/vault-api.ts';", ['src/x.ts → test-support/vault-api.ts']],
      ["import type { A } from '../bench/lib/stats.ts';", ['src/x.ts → bench/lib/stats.ts']],
      ["const m = await import(\n  '../simulator/index.ts'\n);", ['src/x.ts → simulator/index.ts']],
      ["type T = typeof import('../contract-tests/helpers/prism.ts');", ['src/x.ts → contract-tests/helpers/prism.ts']],
      ["import x = require('../scale-tests/harness.ts');", ['src/x.ts → scale-tests/harness.ts']],
      // not imports
      ["// import { a } from '../simulator/index.ts';", []],
      ["/* export * from '../test-support/x.ts'; */", []],
      ['const s = "import { a } from \'../simulator/index.ts\'";', []],
      ["import { a } from './chain/client.ts';", []],
    ])('src/ edge rule on %j', (text, want) => {
      expect(testOnlyEdges([['src/x.ts', text]])).toEqual(want);
    });

    it('the harness rule', () => {
      expect(harnesses(['src/testing/a.ts', 'src/x/harness.ts', 'src/x/testing.ts', 'src/x/attesting.ts'])).toEqual([
        'src/testing/a.ts',
        'src/x/harness.ts',
        'src/x/testing.ts',
      ]);
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

    it('the simulator rule refuses an import of src/, however written', () => {
      const samples = [
        ['simulator/core/ledger.ts', "export { encode } from '../../src/chain/codec.ts';"],
        ['simulator/core/new.ts', "const d = await import('../../src/domain.ts');"],
        ['simulator/core/ledger.ts', "import type { Network } from '../../src/domain.ts';"],
      ] as const;
      expect(simulatorSrcImports(samples)).toEqual([
        'simulator/core/ledger.ts → src/chain/codec.ts',
        'simulator/core/new.ts → src/domain.ts',
        'simulator/core/ledger.ts → src/domain.ts',
      ]);
    });
  });

  // CONTRIBUTING.md "Sizes": no production function over 80 lines, no file over 500 (npm run sizes prints them).
  describe('sizes', () => {
    it('no production function is over 80 lines and no production file over 500, generated code aside', () => {
      const sizes = measure();
      expect(sizes.files.map((f) => f.file)).toContain('bin/credential-vault.js'); // the walker sees bin/ too
      expect(new Set(sizes.files.map((f) => f.file.split('/')[0]))).toEqual(new Set(PRODUCTION_DIRS));
      expect(sizes.files.some((f) => f.file.startsWith('src/generated/'))).toBe(false);
      const over = overLimits(sizes);
      expect(over).toEqual([]);
    });

    it('counts a function from its signature to its closing brace, comments and blank lines included, nested functions in their outer one', () => {
      const text = [
        'export function outer(a: number) {', // 1
        '  // a comment', // 2
        '',
        '  const inner = (b: number) => {', // 4
        '    return b;',
        '  };', // 6
        '  return inner(a);',
        '}', // 8
        'class C {',
        '  m() {', // 10
        '    return 1;',
        '  }',
        '}',
        'const f = (x: number) =>',
        '  x + 1;', // 15
        'function long(', // 16: the signature's lines count, as the house measure counts them
        '  a: number,',
        ') {',
        '  return a;',
        '}', // 20
      ].join('\n');
      expect(functionSizes('src/x.ts', text).map((f) => [f.name, f.line, f.lines])).toEqual([
        ['outer', 1, 8],
        ['inner', 4, 3],
        ['m', 10, 3],
        ['f', 14, 2],
        ['long', 16, 5],
      ]);
    });

    it('names what is over the limits', () => {
      const sizes = {
        functions: [
          { file: 'src/a.ts', line: 3, name: 'big', lines: 81 },
          { file: 'src/a.ts', line: 90, name: 'ok', lines: 80 },
        ],
        files: [
          { file: 'src/a.ts', lines: 501 },
          { file: 'src/b.ts', lines: 500 },
        ],
      };
      expect(overLimits(sizes)).toEqual(['function big (src/a.ts:3): 81 lines > 80', 'file src/a.ts: 501 lines > 500']);
    });
  });
});
