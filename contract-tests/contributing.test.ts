// CONTRIBUTING.md's recipes "Add a route" and "Add a check" against the code (issue 27, Done when: they "still
// work as written"): every file they name exists, every symbol they name is exported where they say (or anywhere
// under src/ when they name no file), every route and npm script they name exists, and each code block's lines
// are lines of the file named last before it, in order. "Add a check" is held to the code too: a check name is in
// every place the recipe lists. Following the recipes end to end: contract-tests/contributing-route.test.ts and
// src/vault-api/routes/verify-checks.test.ts.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { resolverModel } from '../src/platform/resolver-model.ts';
import { vaultModel } from '../src/platform/vault-model.ts';
import { CREDENTIAL_CHECKS } from '../src/vault-api/verification.ts';
import { deref, loadSpec } from './helpers/spec.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

/** The text of `## title`, up to the next `## ` heading. */
function section(markdown: string, title: string): string {
  const start = markdown.indexOf(`\n## ${title}\n`);
  if (start < 0) throw new Error(`no section "## ${title}"`);
  const end = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start + 1, end < 0 ? undefined : end);
}

const FENCE = /^ *```(\w*)\n([\s\S]*?)^ *```$/gm;

/** One backticked token of the prose, and the file named right after it (`x` in `file`, `x` (`file`…)). */
interface Mention {
  token: string;
  file?: string;
}

const PATH = /^[\w.@-]+(\/[\w.@-]+)*\/?$/;
const isPath = (t: string): boolean => PATH.test(t) && (t.includes('/') || /\.(md|ts|json|yaml)$/.test(t));

/** The backticked tokens of a section's prose (code blocks aside), in order. */
function mentionsOf(text: string): Mention[] {
  const prose = text.replace(FENCE, '');
  const out: Mention[] = [];
  for (const m of prose.matchAll(/`([^`\n]+)`/g)) {
    const after = prose.slice(m.index + m[0].length);
    const next = /^\s+in\s+`([^`]+)`/.exec(after) ?? /^\s*\((?:in\s+)?`([^`]+)`/.exec(after);
    out.push({ token: m[1]!, ...(next && isPath(next[1]!) ? { file: next[1]! } : {}) });
  }
  return out;
}

/** A code block and the file it quotes: the last file the section names before it. */
function codeBlocksOf(text: string): { file: string | undefined; code: string }[] {
  return [...text.matchAll(FENCE)].map((m) => {
    const before = [...text.slice(0, m.index).matchAll(/`([^`\n]+)`/g)].map((t) => t[1]!).filter(isPath);
    return { file: before.at(-1), code: m[2]! };
  });
}

/** A line without its trailing comment, its whitespace collapsed; '' for a comment or blank line. */
function normalizedLine(line: string): string {
  const text = line.replace(/\s\/\/\s.*$/, '').trim();
  return text.startsWith('//') ? '' : text.replace(/\s+/g, ' ');
}

/** The lines of `code` that are not lines of `source` in the same order (whitespace and comments aside). */
function linesNotIn(code: string, source: string): string[] {
  const lines = source.split('\n').map(normalizedLine);
  const missing: string[] = [];
  let at = 0;
  for (const line of code.split('\n').map(normalizedLine).filter(Boolean)) {
    const found = lines.indexOf(line, at);
    if (found < 0) missing.push(line);
    else at = found + 1;
  }
  return missing;
}

const IDENTIFIERS = /^(?:new\s+)?([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(?:<.*>)?(?:\(.*\))?$/;
/** The dotted name a code token starts with (`VaultErrors.vcNotFound('…')` → `VaultErrors.vcNotFound`). */
const codeName = (t: string): string[] | undefined => IDENTIFIERS.exec(t)?.[1]?.split('.');

const isExported = (source: string, name: string): boolean =>
  new RegExp(
    `^export\\s+(?:declare\\s+)?(?:async\\s+)?(?:function\\*?|const|let|class|abstract\\s+class|interface|type|enum)\\s+${name}\\b`,
    'm',
  ).test(source) || new RegExp(`^export\\s+(?:type\\s+)?\\{[^}]*\\b${name}\\b[^}]*\\}`, 'm').test(source);

/**
 * Names the recipes use that are not exports: spec keywords and fields, members of an interface, local names
 * of the code they quote. Each must still be a word of the file it is listed under.
 */
const WORDS_OF: Record<string, readonly string[]> = {
  'spec/vault-api.yaml': [
    'operationId',
    'security',
    'maxLength',
    'maxItems',
    'checks',
    'results',
    'problemDetails',
    'type',
    'title',
    'reason',
    'verified',
    'validUntil',
    'issuerAllowed',
    'proof',
  ],
  'src/platform/app.ts': ['Allow'],
  'src/vault-api/routes/reads.ts': ['deps'],
  'src/vault-api/routes/contract-common.ts': ['prepare', 'check'],
  'src/vault-api/verification.ts': ['add'],
  'src/vault-api/verification-problems.ts': ['TYPES', 'WARNINGS'],
};
const LISTED = new Map(Object.entries(WORDS_OF).flatMap(([file, words]) => words.map((w) => [w, file] as const)));

function sourcesUnder(dir: string): Map<string, string> {
  const files = readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' });
  return new Map(
    files
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'))
      .map((f) => [`${dir}/${f}`, read(`${dir}/${f}`)] as const),
  );
}
const SRC = sourcesUnder('src');
const word = (name: string) => new RegExp(`(?<![\\w$])${name.replace(/\$/g, '\\$')}(?![\\w$])`);
const SPECS = [loadSpec('spec/vault-api.yaml'), loadSpec('spec/did-resolver.yaml')];
/** The schema names and error codes of the specs (`VerifyCredentialResults`, `invalid_request`). */
const SPEC_NAMES = new Set(
  SPECS.flatMap((s) => [
    ...Object.keys(s.components.schemas),
    ...(s.components['x-error-codes'] as { code: string }[]).map((c) => c.code),
  ]),
);

/** Why a code token of a recipe does not hold, or undefined when it does. */
function codeProblem(names: string[], file: string | undefined): string | undefined {
  const [head, ...members] = names as [string, ...string[]];
  const membersMissing = members.filter((m) => ![...SRC.values()].some((s) => word(m).test(s)));
  if (membersMissing.length > 0) return `${membersMissing.join(', ')}: no such name under src/`;
  if (file !== undefined) return isExported(read(file), head) ? undefined : `${head} is not exported by ${file}`;
  if ([...SRC.values()].some((s) => isExported(s, head)) || SPEC_NAMES.has(head)) return undefined;
  const listed = LISTED.get(head);
  if (listed === undefined) return `${head}: exported nowhere under src/, and not listed in WORDS_OF`;
  return word(head).test(read(listed)) ? undefined : `${head} is no longer a word of ${listed}`;
}

const ROUTE = /^(GET|POST|PUT|PATCH|DELETE) (\/\S*)$/;
const OPERATIONS = [...vaultModel.operations.values(), ...resolverModel.operations.values()];
const SCRIPTS = (JSON.parse(read('package.json')) as { scripts: Record<string, string> }).scripts;

/** Why a backticked token of a recipe does not hold, or undefined when it does (or is not checked). */
function mentionProblem({ token, file }: Mention): string | undefined {
  if (isPath(token)) return existsSync(path.join(ROOT, token)) ? undefined : 'no such file';
  const route = ROUTE.exec(token);
  if (route) {
    const [, method, template] = route;
    const found = OPERATIONS.some((o) => o.method === method!.toLowerCase() && o.template === template);
    return found ? undefined : 'no such operation in either spec';
  }
  const script = /^npm run ([\w:-]+)$/.exec(token);
  if (script) return script[1]! in SCRIPTS ? undefined : 'no such script in package.json';
  const names = codeName(token);
  return names ? codeProblem(names, file) : undefined;
}

const CONTRIBUTING = read('CONTRIBUTING.md');
const RECIPES = ['Add a route', 'Add a check'].map((title) => ({ title, text: section(CONTRIBUTING, title) }));

describe.each(RECIPES)('CONTRIBUTING.md "$title"', ({ text }) => {
  it('names files that exist, symbols exported where it says, routes of the specs and scripts of package.json', () => {
    const mentions = mentionsOf(text);
    expect(mentions.length).toBeGreaterThan(20);
    const problems = mentions.flatMap((m) => {
      const p = mentionProblem(m);
      return p === undefined ? [] : [`\`${m.token}\`${m.file ? ` (in ${m.file})` : ''}: ${p}`];
    });
    expect(problems).toEqual([]);
  });

  it("quotes code as it is: each block's lines are lines of the file named before it, in order", () => {
    const blocks = codeBlocksOf(text);
    expect(blocks.length).toBeGreaterThan(0);
    for (const { file, code } of blocks) {
      expect(file, code).toBeDefined();
      expect(linesNotIn(code, read(file!)), file).toEqual([]);
    }
  });
});

describe('the rules of this test', () => {
  it('every word listed as no export is used by a recipe', () => {
    const used = new Set(RECIPES.flatMap(({ text }) => mentionsOf(text).flatMap((m) => codeName(m.token) ?? [])));
    expect([...LISTED.keys()].filter((w) => !used.has(w))).toEqual([]);
  });

  it('refuses a drifted example, a symbol another file exports, a missing file and an unknown route', () => {
    const source = 'function f() {\n  const a = 1; // one\n  return a;\n}\n';
    expect(linesNotIn('function f() {\n  // …\n  return a;\n}', source)).toEqual([]);
    expect(linesNotIn('  return a;\n  const a = 1;', source)).toEqual(['const a = 1;']);
    expect(mentionProblem({ token: 'createServiceApp', file: 'src/platform/typed.ts' })).toMatch(/not exported/);
    expect(mentionProblem({ token: 'createServiceAp' })).toMatch(/exported nowhere/);
    expect(mentionProblem({ token: 'src/platform/nothing.ts' })).toBe('no such file');
    expect(mentionProblem({ token: 'GET /contracts/vault/vc-counts' })).toMatch(/no such operation/);
    expect(mentionProblem({ token: 'npm run generated' })).toMatch(/no such script/);
    expect(mentionProblem({ token: 'VaultErrors.vcNotFund(…)' })).toMatch(/vcNotFund: no such name/);
  });

  it('reads the file named next to a symbol, in either form', () => {
    const text = '`a` in `src/x.ts`, `b` (`src/y.ts`; z), `c` (in `src/z.ts`), `d`, then `e` of `src/w.ts`.';
    expect(mentionsOf(text)).toEqual([
      { token: 'a', file: 'src/x.ts' },
      { token: 'src/x.ts' },
      { token: 'b', file: 'src/y.ts' },
      { token: 'src/y.ts' },
      { token: 'c', file: 'src/z.ts' },
      { token: 'src/z.ts' },
      { token: 'd' },
      { token: 'e' },
      { token: 'src/w.ts' },
    ]);
  });
});

const SPEC = SPECS[0];
const schema = (name: string) => SPEC.components.schemas[name];

describe('"Add a check": a check name is in every place the recipe lists', () => {
  const names: string[] = schema('CredentialCheckName').enum;

  it('CREDENTIAL_CHECKS (the default) is the spec enum CredentialCheckName, in its order', () => {
    expect([...CREDENTIAL_CHECKS]).toEqual(names);
  });

  it('each is a VerificationCheckName, a member of VerifyCredentialResults, and `checks` can ask them all', () => {
    expect(schema('VerificationCheckName').enum).toEqual(expect.arrayContaining(names));
    expect(Object.keys(schema('VerifyCredentialResults').properties).sort()).toEqual([...names].sort());
    expect(deref(SPEC, schema('VerifyCredentialOptions').properties.checks).maxItems).toBe(names.length);
  });

  it("verifyCredential's description lists each, and the invalid_request example names them all", () => {
    const op = SPEC.paths['/credentials/verify'].post;
    for (const name of names) expect(op.description, name).toContain(`\`${name}\``);
    const example = op.responses['400'].content['application/json'].examples.invalid_request.value;
    expect(example.message).toBe(`options.checks[0] must be one of ${names.join(', ')}`);
  });

  it('docs/vault-api.md "Verify a credential" has each in its list of checks', () => {
    const doc = section(read('docs/vault-api.md'), 'Verify a credential');
    const missing = names.filter((n) => !new RegExp(`(?:^- |, |\\band\\s+)\`${n}\``, 'm').test(doc));
    expect(missing).toEqual([]);
  });
});
