// The size limits of production code (CONTRIBUTING.md "Sizes"): no function over 80 lines, no file over 500,
// generated code aside. `npm run sizes` prints what exceeds them (and, with --all, the largest of each);
// contract-tests/layout.test.ts fails while anything does.
//
// The lines of a function are its physical lines, from the line where its declaration starts (its signature,
// parameters included) to the line of its closing `}`, blank lines and comments inside included: as the house's
// own measure (../shared/tools/sizes.mjs) counts them.
// A nested function's lines count in the function around it too: a closure that holds a module is one long function.
// The lines of a file are its physical lines (what `wc -l` counts for a file ending in a newline).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import ts from 'typescript';

export const MAX_FUNCTION_LINES = 80;
export const MAX_FILE_LINES = 500;

/** The production folders: the services, the simulator and the command. Tests (`*.test.ts`) are not production. */
export const PRODUCTION_DIRS = ['src', 'simulator', 'bin'] as const;
/** Written by `npm run generate` from the specs, not by hand. */
const GENERATED = /^src\/generated\//;
const SOURCE = /\.(ts|mts|js|mjs)$/;

export interface FunctionSize {
  file: string;
  /** 1-based line of the function's start. */
  line: number;
  name: string;
  lines: number;
}

export interface FileSize {
  file: string;
  lines: number;
}

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** Repository-relative paths (with `/`) of the production source files under `dir`, generated code left out. */
export function productionFiles(root: string, dir: string): string[] {
  return readdirSync(path.join(root, dir), { recursive: true, withFileTypes: true })
    .filter(
      (e) => e.isFile() && SOURCE.test(e.name) && !/\.test\.[mc]?[jt]s$/.test(e.name) && !e.name.endsWith('.d.ts'),
    )
    .map((e) => path.relative(root, path.join(e.parentPath, e.name)).split(path.sep).join('/'))
    .filter((f) => !GENERATED.test(f))
    .sort();
}

/** Physical lines of `text`: its newlines, plus one for a last line without one. */
export function fileLines(text: string): number {
  if (text === '') return 0;
  const newlines = text.split('\n').length - 1;
  return text.endsWith('\n') ? newlines : newlines + 1;
}

type FunctionNode = ts.FunctionLikeDeclaration;

const isFunction = (n: ts.Node): n is FunctionNode =>
  ts.isFunctionDeclaration(n) ||
  ts.isFunctionExpression(n) ||
  ts.isArrowFunction(n) ||
  ts.isMethodDeclaration(n) ||
  ts.isConstructorDeclaration(n) ||
  ts.isGetAccessorDeclaration(n) ||
  ts.isSetAccessorDeclaration(n);

const nameText = (name: ts.Node | undefined, sf: ts.SourceFile): string | undefined =>
  name === undefined ? undefined : name.getText(sf);

/** The name a reader would search for: the declared name, or that of the variable, property or call it is given to. */
function functionName(n: FunctionNode, sf: ts.SourceFile): string {
  const own = ts.isConstructorDeclaration(n) ? 'constructor' : nameText(n.name, sf);
  if (own) return own;
  const parent = n.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText(sf);
  if (ts.isCallExpression(parent)) return `(argument of ${parent.expression.getText(sf).slice(0, 40)})`;
  return '(anonymous)';
}

/** Each function of `text` (file `file`) with the physical lines of its body. */
export function functionSizes(file: string, text: string): FunctionSize[] {
  const kind = /\.[mc]?js$/.test(file) ? ts.ScriptKind.JS : ts.ScriptKind.TS;
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const lineOf = (pos: number) => sf.getLineAndCharacterOfPosition(pos).line;
  const found: FunctionSize[] = [];
  const visit = (n: ts.Node): void => {
    if (isFunction(n) && n.body) {
      const start = lineOf(n.getStart(sf));
      const end = lineOf(n.body.getEnd());
      found.push({ file, line: lineOf(n.getStart(sf)) + 1, name: functionName(n, sf), lines: end - start + 1 });
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return found;
}

export interface Sizes {
  functions: FunctionSize[];
  files: FileSize[];
}

/** Every production function and file under `dirs` of `root`, largest first. */
export function measure(root: string = ROOT, dirs: readonly string[] = PRODUCTION_DIRS): Sizes {
  const functions: FunctionSize[] = [];
  const files: FileSize[] = [];
  for (const file of dirs.flatMap((d) => productionFiles(root, d))) {
    const text = readFileSync(path.join(root, file), 'utf8');
    files.push({ file, lines: fileLines(text) });
    functions.push(...functionSizes(file, text));
  }
  return {
    functions: functions.sort((a, b) => b.lines - a.lines),
    files: files.sort((a, b) => b.lines - a.lines),
  };
}

/** What exceeds the limits, as the lines `npm run sizes` prints. */
export function overLimits(sizes: Sizes): string[] {
  return [
    ...sizes.functions
      .filter((f) => f.lines > MAX_FUNCTION_LINES)
      .map((f) => `function ${f.name} (${f.file}:${f.line}): ${f.lines} lines > ${MAX_FUNCTION_LINES}`),
    ...sizes.files
      .filter((f) => f.lines > MAX_FILE_LINES)
      .map((f) => `file ${f.file}: ${f.lines} lines > ${MAX_FILE_LINES}`),
  ];
}

function report(sizes: Sizes, all: boolean): string {
  const over = overLimits(sizes);
  const out = [
    `production code in ${PRODUCTION_DIRS.join('/, ')}/ (generated code aside): ${sizes.files.length} files, ` +
      `${sizes.functions.length} functions`,
    `largest function: ${sizes.functions[0]?.lines ?? 0} lines (limit ${MAX_FUNCTION_LINES}); ` +
      `largest file: ${sizes.files[0]?.lines ?? 0} lines (limit ${MAX_FILE_LINES})`,
  ];
  if (all) {
    out.push('', 'largest functions:');
    for (const f of sizes.functions.slice(0, 15))
      out.push(`  ${String(f.lines).padStart(4)}  ${f.name} (${f.file}:${f.line})`);
    out.push('', 'largest files:');
    for (const f of sizes.files.slice(0, 15)) out.push(`  ${String(f.lines).padStart(4)}  ${f.file}`);
  }
  out.push('', over.length === 0 ? 'nothing over the limits' : `${over.length} over the limits:`, ...over);
  return out.join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const sizes = measure();
  console.log(report(sizes, process.argv.includes('--all')));
  if (overLimits(sizes).length > 0) process.exitCode = 1;
}
