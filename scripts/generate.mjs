#!/usr/bin/env node
// Generates TypeScript types from the hand-written OpenAPI specs (openapi-typescript's Node API).
//   node scripts/generate.mjs          write src/generated/*.ts
//   node scripts/generate.mjs --check  regenerate in memory; exit 1 naming each file that differs
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Each spec and the file its types go to. */
export const TARGETS = [
  { spec: 'spec/vault-api.yaml', out: 'src/generated/vault-api.ts' },
  { spec: 'spec/did-resolver.yaml', out: 'src/generated/did-resolver.ts' },
];

/** The generated source for one spec: a fixed header, then the types. */
export async function generate(specPath) {
  const ast = await openapiTS(pathToFileURL(specPath), { silent: true });
  return COMMENT_HEADER + astToString(ast);
}

async function main(argv) {
  const check = argv.includes('--check');
  const differing = [];
  for (const { spec, out } of TARGETS) {
    const specPath = path.join(root, spec);
    const outPath = path.join(root, out);
    if (!existsSync(specPath)) {
      console.warn(`warning: ${spec} does not exist yet; skipping ${out}`);
      continue;
    }
    const source = await generate(specPath);
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
