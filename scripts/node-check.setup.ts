// Every test run proves its runtime: it stops before any test on a Node older than the pinned one.
import { nodeVersionProblem } from './check-node.mjs';

export default function checkNode(): void {
  const problem = nodeVersionProblem();
  if (problem) throw new Error(problem);
}
