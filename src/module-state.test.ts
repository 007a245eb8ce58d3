// No module-level mutable state under src/: a cache or a counter lives in an instance that its owner creates and
// injects (sized by a setting where it holds requests' data), so that two apps in one process, or two tests, never
// share it by accident. Read with the TypeScript compiler's parser, not patterns: a top-level `let`/`var`, or a
// top-level `const` bound to a mutable container, fails this test unless ALLOWED names the file and says why.
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const SRC = path.join(import.meta.dirname);
const SIMULATOR = path.join(import.meta.dirname, '..', 'simulator');

/**
 * Files that may keep module-level state, each with its reason. Keep it short: a new entry needs a reason that a
 * reviewer accepts.
 */
const ALLOWED: Record<string, string> = {};

/**
 * Constructors of containers that can change after creation. Not WeakMap/WeakSet: their entries belong to the key
 * objects (a request, a response, a decoded key) and go with them; two apps or tests never share a key object.
 */
const MUTABLE_CONSTRUCTORS: ReadonlySet<string> = new Set(['Map', 'Set', 'Array', 'LRUCache']);
/** Declared types under which a Map, a Set or an array cannot be changed without a cast. */
const READONLY_TYPES = /^(ReadonlyMap|ReadonlySet|ReadonlyArray|readonly\s)/;

interface Finding {
  file: string;
  line: number;
  name: string;
  why: string;
}

function unwrap(e: ts.Expression): ts.Expression {
  while (ts.isParenthesizedExpression(e) || ts.isSatisfiesExpression(e) || ts.isNonNullExpression(e)) e = e.expression;
  return e;
}

const isAsConst = (e: ts.Expression): boolean =>
  ts.isAsExpression(e) && ts.isTypeReferenceNode(e.type) && e.type.typeName.getText() === 'const';

const isFrozen = (e: ts.Expression): boolean => ts.isCallExpression(e) && e.expression.getText() === 'Object.freeze';

/** The root identifier of `a.b[c].d` (undefined for anything else). */
function rootName(e: ts.Expression): string | undefined {
  let x: ts.Expression = e;
  while (
    ts.isPropertyAccessExpression(x) ||
    ts.isElementAccessExpression(x) ||
    ts.isParenthesizedExpression(x) ||
    ts.isNonNullExpression(x)
  ) {
    x = x.expression;
  }
  return ts.isIdentifier(x) ? x.text : undefined;
}

/** Names whose members the file assigns, deletes or Object.assign()s to, anywhere. */
function mutatedNames(sf: ts.SourceFile): Set<string> {
  const names = new Set<string>();
  const visit = (n: ts.Node): void => {
    if (
      ts.isBinaryExpression(n) &&
      n.operatorToken.kind >= ts.SyntaxKind.FirstAssignment &&
      n.operatorToken.kind <= ts.SyntaxKind.LastAssignment
    ) {
      const left = unwrap(n.left);
      if (ts.isPropertyAccessExpression(left) || ts.isElementAccessExpression(left)) {
        const r = rootName(left);
        if (r) names.add(r);
      }
    } else if (
      ts.isDeleteExpression(n) ||
      ((ts.isPrefixUnaryExpression(n) || ts.isPostfixUnaryExpression(n)) &&
        [ts.SyntaxKind.PlusPlusToken, ts.SyntaxKind.MinusMinusToken].includes(n.operator))
    ) {
      const operand = ts.isDeleteExpression(n) ? n.expression : n.operand;
      const r = rootName(unwrap(operand));
      if (r && !ts.isIdentifier(unwrap(operand))) names.add(r);
    } else if (ts.isCallExpression(n) && n.expression.getText(sf) === 'Object.assign' && n.arguments[0]) {
      const r = rootName(unwrap(n.arguments[0]));
      if (r) names.add(r);
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return names;
}

/** What is wrong with a top-level `const name: type = init`, or undefined when nothing is. */
function mutableInit(
  init: ts.Expression,
  type: ts.TypeNode | undefined,
  name: string,
  mutated: Set<string>,
): string | undefined {
  if (isAsConst(init) || isFrozen(unwrap(init))) return undefined;
  const e = unwrap(ts.isAsExpression(init) ? init.expression : init);
  const declared = type?.getText() ?? (ts.isAsExpression(init) ? init.type.getText() : undefined);
  const readonlyDeclared = declared !== undefined && READONLY_TYPES.test(declared);
  if (ts.isNewExpression(e) && ts.isIdentifier(e.expression) && MUTABLE_CONSTRUCTORS.has(e.expression.text)) {
    const ctor = e.expression.text;
    if ((ctor === 'Map' || ctor === 'Set' || ctor === 'Array') && readonlyDeclared) return undefined;
    return `a module-level ${ctor}`;
  }
  if (ts.isArrayLiteralExpression(e)) return readonlyDeclared ? undefined : 'a module-level array that is not readonly';
  if (ts.isObjectLiteralExpression(e) && mutated.has(name)) return 'a module-level object whose members are assigned';
  if (ts.isObjectLiteralExpression(e)) {
    const held = heldContainer(e);
    if (held) return `a module-level object holding a ${held}`;
  }
  return undefined;
}

/** A mutable container made in an object literal's members (not inside a function, which makes one per call). */
function heldContainer(e: ts.ObjectLiteralExpression): string | undefined {
  let found: string | undefined;
  const visit = (n: ts.Node): void => {
    if (found || ts.isFunctionLike(n) || ts.isClassLike(n)) return;
    if (ts.isNewExpression(n) && ts.isIdentifier(n.expression) && MUTABLE_CONSTRUCTORS.has(n.expression.text)) {
      found = n.expression.text;
      return;
    }
    ts.forEachChild(n, visit);
  };
  ts.forEachChild(e, visit);
  return found;
}

function findModuleState(file: string, text: string): Finding[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const mutated = mutatedNames(sf);
  const found: Finding[] = [];
  for (const st of sf.statements) {
    if (!ts.isVariableStatement(st)) continue;
    const list = st.declarationList;
    const isConst = (list.flags & ts.NodeFlags.Const) !== 0;
    for (const d of list.declarations) {
      const name = d.name.getText(sf);
      const line = sf.getLineAndCharacterOfPosition(d.getStart(sf)).line + 1;
      if (!isConst) {
        found.push({ file, line, name, why: 'a module-level let/var' });
        continue;
      }
      const why = d.initializer && mutableInit(d.initializer, d.type, name, mutated);
      if (why) found.push({ file, line, name, why });
    }
  }
  return found;
}

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const p = path.join(dir, d.name);
    if (d.isDirectory()) return d.name === 'generated' ? [] : sourceFiles(p);
    return d.name.endsWith('.ts') && !d.name.endsWith('.test.ts') && !d.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** Simulator files whose module-level tables are filled once from literals and never changed, each with its reason. */
const ALLOWED_SIMULATOR: Record<string, string> = {
  'contracts/index.ts': 'contractImpls: the built-in contracts by template hash, filled once',
  'core/check.ts': 'SOROBAN_OPS: the Soroban operation types, filled once',
  'core/sac.ts': 'stellarAssetContract: the asset contract implementation, its method table filled once',
  'listen-failure.ts': 'NO_SUCH_HOST: the resolver error codes, filled once',
};

describe('module-level state under simulator/', () => {
  it('finds none outside its allow-list: its caches are injected LRUs', () => {
    const files = sourceFiles(SIMULATOR);
    expect(files.length).toBeGreaterThan(20); // the walker reads simulator/
    const found = files.flatMap((p) => {
      const rel = path.relative(SIMULATOR, p).split(path.sep).join('/');
      return ALLOWED_SIMULATOR[rel] ? [] : findModuleState(rel, fs.readFileSync(p, 'utf8'));
    });
    expect(found.map((f) => `simulator/${f.file}:${f.line} ${f.name}: ${f.why}`)).toEqual([]);
  }, 120_000);
});

describe('module-level state under src/', () => {
  it('finds none outside the allow-list', () => {
    const found = sourceFiles(SRC).flatMap((p) => {
      const rel = path.relative(SRC, p).split(path.sep).join('/');
      return ALLOWED[rel] ? [] : findModuleState(rel, fs.readFileSync(p, 'utf8'));
    });
    expect(found.map((f) => `${f.file}:${f.line} ${f.name}: ${f.why}`)).toEqual([]);
  }, 120_000);

  it('lists only files that exist', () => {
    for (const rel of Object.keys(ALLOWED)) expect(fs.existsSync(path.join(SRC, rel)), rel).toBe(true);
  });

  // The checker itself: what it must catch and what it must let through.
  it.each([
    ['let n = 0;', ['n']],
    ['export let n: number | undefined;', ['n']],
    ['var v = 1;', ['v']],
    ['const m = new Map<string, number>();', ['m']],
    ['export const s = new Set(["a"]);', ['s']],
    ["import { LRUCache } from 'lru-cache'; const c = new LRUCache<string, string>({ max: 10 });", ['c']],
    ['const a: number[] = [];', ['a']],
    ['const a = [1, 2];', ['a']],
    ['const o = { n: 0 }; function f() { o.n = 1; }', ['o']],
    ['const o: Record<string, number> = {}; export function f(k: string) { o[k] = 1; }', ['o']],
    ['const o = { n: 0 }; function f() { o.n++; }', ['o']],
    ['const o = { a: { b: 1 } }; function f() { delete o.a; }', ['o']],
    ['const o = {}; Object.assign(o, { a: 1 });', ['o']],
    ['const state = { seen: new Map<string, number>() };', ['state']],
    [
      "import { LRUCache } from 'lru-cache'; export const caches = { keys: { hot: new LRUCache({ max: 9 }) } };",
      ['caches'],
    ],
    // immutable, or per instance: allowed
    ['const s: ReadonlySet<string> = new Set(["a"]);', []],
    ['const m: ReadonlyMap<string, number> = new Map();', []],
    ['const a: readonly string[] = ["x"];', []],
    ['const a = ["x", "y"] as const;', []],
    ['const a = Object.freeze([1]);', []],
    ['const o = { n: 0 };', []],
    ['const o = { make: () => new Map(), other() { return new Set(); } };', []],
    ['const w = new WeakMap<object, string>();', []],
    ['const n = 10_000;', []],
    ['export function f() { let n = 0; const m = new Map(); return () => m.set(n++, 1); }', []],
    ['export class C { #m = new Map(); }', []],
  ])('%s', (text, names) => {
    expect(findModuleState('x.ts', text).map((f) => f.name)).toEqual(names);
  });
});
