#!/usr/bin/env node
// Generates TypeScript types from the hand-written OpenAPI specs (openapi-typescript's Node API), and each
// spec's error codes (`components.x-error-codes`) as a union with their statuses.
//   node scripts/generate.mjs          write src/generated/*.ts
//   node scripts/generate.mjs --check  regenerate in memory; exit 1 naming each file that differs
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import YAML from 'yaml';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Each spec and the file its types go to. */
export const TARGETS = [
  { spec: 'spec/vault-api.yaml', out: 'src/generated/vault-api.ts', make: generate },
  { spec: 'spec/did-resolver.yaml', out: 'src/generated/did-resolver.ts', make: generate },
  {
    spec: 'spec/vault-api.yaml',
    out: 'src/generated/vault-api-errors.ts',
    make: (p) => generateErrorCodes(p, 'Vault'),
  },
  {
    spec: 'spec/did-resolver.yaml',
    out: 'src/generated/did-resolver-errors.ts',
    make: (p) => generateErrorCodes(p, 'Resolver'),
  },
];

/** The generated source for one spec: a fixed header, then the types. */
export async function generate(specPath) {
  const ast = await openapiTS(pathToFileURL(specPath), { silent: true });
  return COMMENT_HEADER + astToString(ast);
}

/**
 * A spec's `components.x-error-codes` as TypeScript: the codes and their statuses as a constant, the codes
 * as a union type (`vcs[i].vcId_too_long` is a family: `vcs[${number}].vcId_too_long`), and the status of
 * each code. `prefix` names them (`VaultErrorCode`, `VAULT_ERROR_CODES`).
 */
export function generateErrorCodes(specPath, prefix) {
  const doc = YAML.parse(readFileSync(specPath, 'utf8'));
  const list = doc?.components?.['x-error-codes'];
  if (!Array.isArray(list) || list.length === 0)
    throw new Error(`${specPath}: components.x-error-codes is missing or empty`);
  const seen = new Set();
  for (const entry of list) {
    if (typeof entry?.code !== 'string' || !Number.isInteger(entry?.status))
      throw new Error(`${specPath}: an x-error-codes entry without code and status`);
    if (seen.has(entry.code)) throw new Error(`${specPath}: x-error-codes lists ${entry.code} twice`);
    seen.add(entry.code);
  }
  const upper = prefix.toUpperCase();
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the text written is a TypeScript template literal type
  const numberIndex = '[${number}]';
  const typeOf = (code) => (code.includes('[i]') ? '`' + code.replace('[i]', numberIndex) + '`' : JSON.stringify(code));
  const lines = [
    `// The error codes of ${path.basename(specPath)} (components.x-error-codes), written by scripts/generate.mjs.`,
    '// Do not edit: change the spec and run npm run generate.',
    '',
    `/** Every code the spec lists, with its status; \`[i]\` stands for an item's index. */`,
    `export const ${upper}_ERROR_CODES = [`,
    ...list.map((e) => `  { code: ${JSON.stringify(e.code)}, status: ${e.status} },`),
    '] as const;',
    '',
    `/** A code of the spec's error envelope. */`,
    `export type ${prefix}ErrorCode =`,
    ...list.map((e, i) => `  | ${typeOf(e.code)}${i === list.length - 1 ? ';' : ''}`),
    '',
    `/** The status the spec gives each code (the families of \`[i]\` codes under their listed name). */`,
    `export const ${upper}_ERROR_STATUS: Readonly<Record<(typeof ${upper}_ERROR_CODES)[number]['code'], number>> = Object.fromEntries(`,
    `  ${upper}_ERROR_CODES.map((e) => [e.code, e.status]),`,
    `) as Record<(typeof ${upper}_ERROR_CODES)[number]['code'], number>;`,
    '',
    ...constructorLines(list, prefix),
  ];
  return lines.join('\n');
}

/** A code's constructor name: `vc_not_found` → `vcNotFound`, `vcs[i].vcId_too_long` → `vcsVcIdTooLong`. */
export const constructorName = (code) =>
  code
    .split(/_|\[i\]\./)
    .map((part, i) => (i === 0 ? part : part.charAt(0).toUpperCase() + part.slice(1)))
    .join('');

/**
 * Named constructors of every listed code (`vaultErrorsOf`), each with the status the spec gives its code.
 * The service passes how its error is made; a family's constructor takes the item's index first.
 */
function constructorLines(list, prefix) {
  const lower = prefix.charAt(0).toLowerCase() + prefix.slice(1);
  const names = new Set();
  const members = list.map((e) => {
    const name = constructorName(e.code);
    if (!/^[a-z][A-Za-z0-9]*$/.test(name) || names.has(name))
      throw new Error(`${prefix}: the error code ${e.code} has no constructor name of its own (${name})`);
    names.add(name);
    const family = e.code.includes('[i]');
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the text written is a TypeScript template literal
    const code = family ? '`' + e.code.replace('[i]', '[${i}]') + '`' : JSON.stringify(e.code);
    const args = family ? 'i: number, message: string, ...rest: A' : 'message: string, ...rest: A';
    return [
      `    /** ${e.status} \`${e.code}\` */`,
      `    ${name}: (${args}): E => make(${e.status}, ${code}, message, ...rest),`,
    ];
  });
  return [
    `/**`,
    ` * Named constructors of the codes, each with its status: \`${lower}ErrorsOf(make).vcNotFound(message)\`. \`make\``,
    ` * builds the service's error; a family's constructor (\`[i]\`) takes the item's index first.`,
    ` */`,
    `export function ${lower}ErrorsOf<E, A extends unknown[] = []>(`,
    `  make: (status: number, code: ${prefix}ErrorCode, message: string, ...rest: A) => E,`,
    `) {`,
    `  return {`,
    ...members.flat(),
    `  } as const;`,
    `}`,
    '',
  ];
}

async function main(argv) {
  const check = argv.includes('--check');
  const differing = [];
  for (const { spec, out, make } of TARGETS) {
    const specPath = path.join(root, spec);
    const outPath = path.join(root, out);
    if (!existsSync(specPath)) {
      console.warn(`warning: ${spec} does not exist yet; skipping ${out}`);
      continue;
    }
    const source = await make(specPath);
    if (check) {
      const committed = existsSync(outPath) ? readFileSync(outPath, 'utf8') : null;
      if (committed !== source) differing.push(out);
    } else {
      mkdirSync(path.dirname(outPath), { recursive: true });
      writeFileSync(outPath, source);
      console.log(`wrote ${out}`);
    }
  }
  if (differing.length > 0) {
    for (const out of differing) console.error(`${out} differs from a fresh generation; run npm run generate`);
    return 1;
  }
  if (check) console.log('generated types are up to date');
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  process.exitCode = await main(process.argv.slice(2));
}
