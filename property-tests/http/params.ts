// fast-check parameters of the HTTP-level properties: a fixed seed printed with every run (FC_SEED overrides
// it, FC_PATH replays one counterexample), and a run count per property that FC_RUNS overrides.
import type fc from 'fast-check';

/** Default seed of the HTTP-level properties (override with FC_SEED). */
export const HTTP_SEED = 20260630;

export function runParams(
  name: string,
  defaultRuns: number,
  env: NodeJS.ProcessEnv = process.env,
): fc.Parameters<unknown> {
  const seed = Number(env['FC_SEED'] ?? HTTP_SEED);
  const numRuns = Number(env['FC_RUNS'] ?? defaultRuns);
  const path = env['FC_PATH'];
  console.log(
    `[property] ${name}: seed=${seed} numRuns=${numRuns}${path ? ` path=${path}` : ''}` +
      ` (replay: FC_SEED=${seed} FC_PATH=<path from the report> npx vitest run --project property property-tests/http)`,
  );
  return { seed, numRuns, ...(path ? { path, endOnFailure: true } : {}) };
}
