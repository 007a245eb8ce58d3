// What every section of bench/run.ts receives, and how a case that cannot run is reported instead of
// ending the run.
import type { RunSettings } from './http-load.ts';
import type { Stack } from './stack.ts';

export interface SectionContext {
  settings: RunSettings;
  /** Run only the cases whose name contains one of these (all when undefined). */
  cases?: Set<string>;
  log: (line: string) => void;
  /** The real services, started once on first use and shared by the sections; rejects with why not. */
  stack(): Promise<Stack>;
}

export interface SectionResult {
  /** Markdown of the section (without its markers). */
  markdown: string;
  /** One line per case for the console summary. */
  summary: string[];
}

export function wanted(ctx: SectionContext, name: string): boolean {
  if (!ctx.cases) return true;
  for (const c of ctx.cases) if (name.includes(c)) return true;
  return false;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: string };

/** Runs one case; a failure becomes a clear one-line message in the results. */
export async function attempt<T>(ctx: SectionContext, name: string, fn: () => Promise<T>): Promise<Outcome<T>> {
  ctx.log(`  · ${name}`);
  try {
    return { ok: true, value: await fn() };
  } catch (e) {
    const error = (e instanceof Error ? e.message : String(e)).split('\n')[0]!.slice(0, 300);
    ctx.log(`    ✗ ${name}: ${error}`);
    return { ok: false, error };
  }
}
