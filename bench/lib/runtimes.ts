// The runtimes the http section measures side by side. Always: this tree on the Node that runs the bench
// (the pinned Node 24). With --node20-tree: the product of before the migration (a checkout of it, with its
// own npm ci: SDK 15, run through its tsx loader bin/run-ts.js) on the system's Node 20. This tree cannot
// run on Node 20 at all (it needs node:sqlite and Node's own type stripping), so the Node 20 rows are of
// that older product; the two baselines (bare node:http, framework ceiling) are this tree's servers.ts on
// both Nodes, loaded on Node 20 through the old tree's tsx.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ROOT, THIS_RUNTIME, type HostRuntime } from './child.ts';

export interface Runtime {
  /** `Node 24`, `Node 20`: the column and row label. */
  label: string;
  /** Prefix of this runtime's case names (`--case node20` selects them): '' or 'node20-'. */
  prefix: string;
  /** `v24.21.0` */
  version: string;
  /** bare node:http and the framework ceiling: this tree's servers.ts. */
  baseline: HostRuntime;
  /** The real services and their chain simulator. */
  product: HostRuntime;
  /** One line for the doc: which Node, which product. */
  description: string;
}

function run(file: string, args: string[], cwd?: string): string {
  return execFileSync(file, args, {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
    ...(cwd ? { cwd } : {}),
  }).trim();
}

function commitOf(tree: string): string {
  try {
    const head = run('git', ['rev-parse', '--short=12', 'HEAD'], tree);
    return run('git', ['status', '--porcelain', '--untracked-files=no'], tree)
      ? `${head} (+ uncommitted changes)`
      : head;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

export function currentRuntime(): Runtime {
  return {
    label: `Node ${process.versions.node.split('.')[0]}`,
    prefix: '',
    version: process.version,
    baseline: THIS_RUNTIME,
    product: THIS_RUNTIME,
    description: `Node ${process.version} (${process.execPath}): this tree, commit ${commitOf(ROOT)}, type-stripped by Node itself`,
  };
}

/** The first `node` on PATH (or the one given) whose version is 20.x; npm scripts put the pinned Node 24 first. */
function findNode20(given: string | undefined): { node: string; version: string } {
  let onPath: string[] = [];
  try {
    onPath = run('which', ['-a', 'node']).split('\n').filter(Boolean);
  } catch {
    // no `which`: the usual places below
  }
  const candidates = given ? [given] : [...new Set([...onPath, '/usr/local/bin/node', '/usr/bin/node'])];
  for (const node of candidates) {
    if (!existsSync(node)) continue;
    let version: string;
    try {
      version = run(node, ['--version']);
    } catch {
      continue;
    }
    if (version.startsWith('v20.')) return { node, version };
    if (given) throw new Error(`--node20-bin ${given} is ${version}, not Node 20`);
  }
  throw new Error(`no Node 20 found (looked at ${candidates.join(', ')}); give one with --node20-bin`);
}

export function node20Runtime(tree: string, nodeBin?: string): Runtime {
  const root = path.resolve(tree);
  const loader = path.join(root, 'bin', 'run-ts.js');
  const host = path.join(root, 'bench', 'lib', 'host.ts');
  for (const f of [loader, host, path.join(root, 'node_modules', 'tsx')]) {
    if (!existsSync(f))
      throw new Error(
        `--node20-tree ${tree}: ${path.relative(root, f)} is missing (a checkout of the pre-migration product with its npm ci done)`,
      );
  }
  const { node, version } = findNode20(nodeBin);
  return {
    label: 'Node 20',
    prefix: 'node20-',
    version,
    baseline: { node, prefix: [loader], host: THIS_RUNTIME.host, cwd: ROOT },
    product: { node, prefix: [loader], host, cwd: root },
    description: `Node ${version} (${node}): the product before the migration, ${root} at commit ${commitOf(root)} (@stellar/stellar-sdk 15, simulator at Protocol 23), run through its tsx loader (bin/run-ts.js)`,
  };
}
