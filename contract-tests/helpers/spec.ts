// Reading the committed OpenAPI specs: parse one and follow its local `$ref`s.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export type Json = any; // parsed YAML is walked dynamically

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Parses a spec; `file` is absolute or relative to the repository root. */
export function loadSpec(file: string): Json {
  return parse(readFileSync(path.resolve(root, file), 'utf8'));
}

/** Follows a local `$ref` (`#/a/b`) until it reaches an object without one. */
export function deref(spec: Json, node: Json): Json {
  let current = node;
  while (current && typeof current.$ref === 'string') {
    const pointer = current.$ref.replace(/^#\//, '').split('/');
    current = pointer.reduce((acc: Json, key: string) => acc?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], spec);
  }
  return current;
}
