// The child of ./quiet-verifier.ts: runs Pact's verifier with the options in the file named by its argument,
// its provider states asked of the parent, and writes `{passed, results}` to the options' results file.
import { readFileSync, writeFileSync } from 'node:fs';
import { Verifier, type VerifierOptions } from '@pact-foundation/pact';
import type { ChildOptions } from './quiet-verifier.ts';

const given = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as ChildOptions;
const { states, stateUrl, resultsFile, ...options } = given;

type JsonMap = Record<string, string | number | boolean>;

const ask = async (state: string, params?: unknown): Promise<JsonMap> => {
  const res = await fetch(stateUrl, { method: 'POST', body: JSON.stringify({ state, params }) });
  const text = await res.text();
  if (!res.ok) throw new Error(`provider state ${JSON.stringify(state)} failed: ${text}`);
  return JSON.parse(text) as JsonMap;
};
const stateHandlers: VerifierOptions['stateHandlers'] = Object.fromEntries(
  states.map((s) => [s, (params?: unknown) => ask(s, params)]),
);

let passed = false;
let results: string;
try {
  results = await new Verifier({ ...options, stateHandlers }).verifyProvider();
  passed = true;
} catch (err) {
  results = err instanceof Error ? err.message : String(err);
}
writeFileSync(resultsFile, JSON.stringify({ passed, results }));
process.exitCode = passed ? 0 : 1;
