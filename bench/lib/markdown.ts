// docs/benchmarks.md is made of sections between markers (`<!-- http:start -->` … `<!-- http:end -->`), so
// `npm run bench --only X` and `npm run load` replace their own section and keep everyone else's.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

/** Section names in document order. */
export const SECTION_ORDER = [
  'intro',
  'machine',
  'http',
  'registrar',
  'cycle',
  'vault-size',
  'verify',
  'oversized',
  'hostile',
  'simulator',
  'stores',
  'load',
] as const;
export type SectionName = (typeof SECTION_ORDER)[number];

export type Cell = string | number;

export function table(
  headers: readonly string[],
  rows: readonly (readonly Cell[])[],
  align?: readonly ('l' | 'r')[],
): string {
  const esc = (c: Cell) => String(c).replace(/\|/g, '\\|').replace(/\n/g, ' ');
  const sep = headers.map((_, i) => ((align?.[i] ?? 'l') === 'r' ? '---:' : '---'));
  return [
    `| ${headers.map(esc).join(' | ')} |`,
    `| ${sep.join(' | ')} |`,
    ...rows.map((r) => `| ${r.map(esc).join(' | ')} |`),
  ].join('\n');
}

const start = (name: string) => `<!-- ${name}:start -->`;
const end = (name: string) => `<!-- ${name}:end -->`;

/** Replaces the section `name` (markers included), or inserts it before the next section in SECTION_ORDER. */
export function upsertSection(doc: string, name: SectionName, body: string): string {
  const block = `${start(name)}\n${body.trim()}\n${end(name)}`;
  const s = doc.indexOf(start(name));
  const e = doc.indexOf(end(name));
  if (s >= 0 && e > s) return doc.slice(0, s) + block + doc.slice(e + end(name).length);
  const later = SECTION_ORDER.slice(SECTION_ORDER.indexOf(name) + 1);
  for (const next of later) {
    const at = doc.indexOf(start(next));
    if (at >= 0) return `${doc.slice(0, at)}${block}\n\n${doc.slice(at)}`;
  }
  return `${doc.trimEnd()}${doc.trim() ? '\n\n' : ''}${block}\n`;
}

export async function readDoc(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw e;
  }
}

export async function writeDoc(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.tmp-${process.pid}`;
  await writeFile(tmp, text.endsWith('\n') ? text : `${text}\n`);
  await rename(tmp, file);
}

export async function updateDoc(file: string, sections: Partial<Record<SectionName, string>>): Promise<void> {
  let doc = await readDoc(file);
  for (const name of SECTION_ORDER) {
    const body = sections[name];
    if (body !== undefined) doc = upsertSection(doc, name, body);
  }
  await writeDoc(file, doc);
}

// ---- number formatting ---------------------------------------------------------------------------------------------

export const fmtInt = (n: number): string => Math.round(n).toLocaleString('en-US');
export const fmtRate = (n: number): string => (n >= 100 ? fmtInt(n) : n.toFixed(1));
/** Milliseconds; autocannon's histogram counts whole ms, so 0 means "under 1 ms". */
export const fmtMs = (n: number | undefined): string =>
  n === undefined ? '—' : n === 0 ? '<1' : n < 10 && !Number.isInteger(n) ? n.toFixed(2) : fmtInt(n);
export const fmtRatio = (n: number | undefined): string =>
  n === undefined || !Number.isFinite(n) ? '—' : `${n.toFixed(2)}×`;
export const verdict = (ok: boolean | undefined): string =>
  ok === undefined ? 'not measured' : ok ? '**pass**' : '**FAIL**';
