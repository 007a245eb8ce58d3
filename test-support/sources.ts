// The production TypeScript files under a folder (tests left out), for the rules that read the code itself.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** Every `.ts` file under `root/dir` that is not a test, named relative to `root`, with its text. */
export function productionSources(root: string, dir: string): { file: string; text: string }[] {
  const out: { file: string; text: string }[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
        out.push({ file: path.relative(root, full), text: readFileSync(full, 'utf8') });
    }
  };
  walk(path.join(root, dir));
  return out;
}
