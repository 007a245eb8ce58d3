// Express routes everything: no module hand-writes the router's loop over middleware. Checked on the syntax
// tree (TypeScript's compiler API), so a renamed equivalent is found too. A function breaks the rule when it
//   - calls its own `next` parameter inside a loop (other than to return at once), or
//   - hands itself on as the `next` of a middleware call from inside its own body (`handler(req, res, step)`
//     inside `step`: the router's loop written as recursion).
// Each form is shown to fail on a sample.
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { productionSources } from '../../test-support/sources.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

const sources = (dir: string) => productionSources(ROOT, dir);

const isLoop = (n: ts.Node) =>
  ts.isForStatement(n) ||
  ts.isForOfStatement(n) ||
  ts.isForInStatement(n) ||
  ts.isWhileStatement(n) ||
  ts.isDoStatement(n);

/** The name a function is known by inside its body: its own name, or the variable it is assigned to. */
function selfName(fn: ts.FunctionLikeDeclaration): string | undefined {
  if (fn.name && ts.isIdentifier(fn.name)) return fn.name.text;
  const parent = fn.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return undefined;
}

/** What breaks the rule in `text`: one line per function, `file:line name: why`. */
function handWrittenNextLoops(file: string, text: string): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const at = (n: ts.Node) => `${file}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1}`;
  const visitFunction = (fn: ts.FunctionLikeDeclaration) => {
    if (!fn.body) return;
    const next = fn.parameters.find((p) => ts.isIdentifier(p.name) && p.name.text === 'next');
    const self = selfName(fn);
    const scan = (n: ts.Node, inLoop: boolean): void => {
      // A nested function is checked on its own (its `next` is its own).
      if (n !== fn.body && ts.isFunctionLike(n)) return;
      const loop = inLoop || isLoop(n);
      if (ts.isCallExpression(n)) {
        const callsNext = next && ts.isIdentifier(n.expression) && n.expression.text === 'next';
        if (callsNext && loop && !ts.isReturnStatement(n.parent))
          found.push(`${at(n)} ${self ?? '(anonymous)'}: calls its own next in a loop`);
        const third = n.arguments.length === 3 ? n.arguments[2] : undefined;
        if (self && third && ts.isIdentifier(third) && third.text === self)
          found.push(`${at(n)} ${self}: hands itself on as a middleware's next (a hand-written next loop)`);
      }
      ts.forEachChild(n, (c) => scan(c, loop));
    };
    scan(fn.body, false);
  };
  const walk = (n: ts.Node) => {
    if (ts.isFunctionLike(n) && 'body' in n) visitFunction(n as ts.FunctionLikeDeclaration);
    ts.forEachChild(n, walk);
  };
  walk(sf);
  return found;
}

describe('no hand-written next loop', () => {
  it('refuses the removed front runner (a continuation that re-enters itself)', () => {
    const sample = `
      export function inSequence(steps) {
        return function front(req, res, next) {
          let i = 0;
          const step = (err) => {
            if (err) return next(err);
            if (i === steps.length) return next();
            steps[i++](req, res, step);
          };
          step();
        };
      }`;
    expect(handWrittenNextLoops('sample.ts', sample)).toEqual([
      "sample.ts:8 step: hands itself on as a middleware's next (a hand-written next loop)",
    ]);
  });

  it('refuses a middleware that calls its own next in a loop', () => {
    const sample = `
      const each = (req, res, next) => {
        for (const h of handlers) h(req, res, () => undefined);
        while (pending()) next();
      };`;
    expect(handWrittenNextLoops('sample.ts', sample)).toEqual(['sample.ts:4 each: calls its own next in a loop']);
  });

  it('lets ordinary middleware and recursion over data through', () => {
    const sample = `
      function gate(req, res, next) { if (ok(req)) return next(); next(new Error('no')); }
      function walk(node, out) { for (const c of node.children) walk(c, out); }
      function check(req, res, next) { for (const q of req.query) if (bad(q)) return next(new Error(q)); next(); }`;
    expect(handWrittenNextLoops('sample.ts', sample)).toEqual([]);
  });

  it('holds in src/ and simulator/', () => {
    const found = [...sources('src'), ...sources('simulator')].flatMap((f) => handWrittenNextLoops(f.file, f.text));
    expect(found).toEqual([]);
  });
});
