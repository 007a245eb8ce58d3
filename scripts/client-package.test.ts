// The published client's metadata: its version is the vault API's (packages/client/README.md
// "Versioning"), its CHANGELOG has an entry for that version, and its manifest points at built files only.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8');

interface Manifest {
  name: string;
  version: string;
  private?: boolean;
  type: string;
  sideEffects: boolean;
  engines: { node: string };
  exports: Record<string, unknown>;
  files: string[];
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  scripts?: Record<string, string>;
}

const manifest = JSON.parse(read('packages/client/package.json')) as Manifest;
const specVersion = (parse(read('spec/vault-api.yaml')) as { info: { version: string } }).info.version;

describe('packages/client', () => {
  it("has the vault API's version", () => {
    expect(manifest.version).toBe(specVersion);
  });

  it('has a CHANGELOG entry for that version', () => {
    const headings = read('packages/client/CHANGELOG.md').match(/^## .+$/gm) ?? [];
    expect(headings[0]).toBe(`## ${manifest.version}`);
  });

  it('is a publishable ESM package whose entry point has types', () => {
    expect(manifest.private).toBeUndefined();
    expect(manifest.type).toBe('module');
    expect(manifest.sideEffects).toBe(false);
    expect(manifest.exports['.']).toEqual({ types: './dist/client/index.d.ts', default: './dist/client/index.js' });
    expect(manifest.files).toContain('!dist/**/*.test.*');
    expect(manifest.files.every((f) => f.startsWith('dist/') || f.startsWith('!dist/') || f.endsWith('.md'))).toBe(
      true,
    );
  });

  it('builds dist/ in prepack, so that npm pack and npm publish in its folder ship the built files', () => {
    expect(manifest.scripts?.['prepack']).toMatch(/\bnpm run build\b/);
    expect(manifest.scripts?.['build']).toMatch(/^tsc -p tsconfig\.json$/);
  });

  it('asks for the openapi-fetch and stellar-sdk majors the repository builds with', () => {
    const root = JSON.parse(read('package.json')) as { dependencies: Record<string, string> };
    const major = (range: string) => /(\d+)\.(\d+)/.exec(range)!.slice(1, 3).map(Number);
    const fetchRange = manifest.dependencies?.['openapi-fetch'];
    const sdkRange = manifest.peerDependencies?.['@stellar/stellar-sdk'];
    expect(fetchRange && sdkRange).toBeTruthy();
    // openapi-fetch is 0.x: its minor is the breaking part.
    expect(major(fetchRange!)).toEqual(major(root.dependencies['openapi-fetch']!).slice(0, 2));
    expect(major(sdkRange!)[0]).toBe(major(root.dependencies['@stellar/stellar-sdk']!)[0]);
  });

  it('declares every package the compiled sources import (src/client, src/did, src/generated)', () => {
    const imported = new Set<string>();
    for (const dir of ['src/client', 'src/did', 'src/generated']) {
      for (const file of readdirSync(path.join(ROOT, dir))) {
        if (!file.endsWith('.ts') || file.endsWith('.test.ts')) continue;
        for (const m of read(`${dir}/${file}`).matchAll(/from '([^'.][^']*)'/g)) {
          const spec = m[1]!;
          if (spec.startsWith('node:')) continue;
          imported.add(spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!);
        }
      }
    }
    const declared = new Set([
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
    ]);
    expect([...imported].filter((p) => !declared.has(p)).sort()).toEqual([]);
  });
});
