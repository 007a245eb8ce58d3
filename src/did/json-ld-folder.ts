// An operator's JSON-LD contexts (config CV_JSONLD_CONTEXTS_DIR), read from a folder at start: the verifier's
// loader (json-ld.ts) then knows them beside the bundled ones. Apart from json-ld.ts so that the verifier itself
// needs no file system (the client runs in browsers too).
import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** The most contexts one folder may add, and the largest file read. */
const MAX_FOLDER_CONTEXTS = 256;
const MAX_CONTEXT_BYTES = 1024 * 1024;

/**
 * The contexts an operator adds: the folder's `index.json` maps each context URL to a file of the folder
 * holding its JSON-LD document (`{"https://example.org/ctx/v1": "example-v1.jsonld"}`). Read once, at start;
 * a missing file or text that is not JSON is an error then, not at verification.
 */
export async function readContextsFolder(dir: string): Promise<Map<string, unknown>> {
  const index = JSON.parse(await readFile(path.join(dir, 'index.json'), 'utf8')) as unknown;
  if (typeof index !== 'object' || index === null || Array.isArray(index))
    throw new TypeError(`${dir}/index.json must map context URLs to file names`);
  const entries = Object.entries(index as Record<string, unknown>);
  if (entries.length > MAX_FOLDER_CONTEXTS)
    throw new RangeError(`${dir}/index.json names ${entries.length} contexts; at most ${MAX_FOLDER_CONTEXTS}`);
  const out = new Map<string, unknown>();
  for (const [url, file] of entries) {
    if (typeof file !== 'string' || file.includes('/') || file.includes('\\') || file.startsWith('.'))
      throw new TypeError(`${dir}/index.json: the file of ${url} must be a plain file name of the folder`);
    new URL(url); // throws on what is not an absolute URL
    const text = await readFile(path.join(dir, file), 'utf8');
    if (text.length > MAX_CONTEXT_BYTES) throw new RangeError(`${file} is larger than ${MAX_CONTEXT_BYTES} bytes`);
    out.set(url, JSON.parse(text) as unknown);
  }
  return out;
}
