// What the figures were measured on: CPU, cores, memory, Node, OS, date and the git commit.
import { execFileSync } from 'node:child_process';
import os from 'node:os';

export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  os: string;
  date: string;
  commit: string;
  /** Load average at the start (1 min), a hint of how quiet the machine was. */
  load1: number;
}

export function machineInfo(now: Date = new Date()): Machine {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? 'unknown',
    cores: typeof os.availableParallelism === 'function' ? os.availableParallelism() : cpus.length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    os: `${os.type()} ${os.release()} (${os.arch()})`,
    date: now.toISOString(),
    commit: gitCommit(),
    load1: Math.round(os.loadavg()[0]! * 100) / 100,
  };
}

/** `abc1234` plus ` (+ uncommitted changes)` when the tree is dirty; read-only git commands only. */
function gitCommit(): string {
  try {
    const head = execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
    return dirty ? `${head} (+ uncommitted changes)` : head;
  } catch {
    return 'unknown (not a git checkout)';
  }
}

/** Load averages (1, 5, 15 min) now. */
export function loadNow(): [number, number, number] {
  const [a = 0, b = 0, c = 0] = os.loadavg().map((n) => Math.round(n * 100) / 100);
  return [a, b, c];
}

/** `endLoad`: the load averages when the run ended, for a run whose sections took minutes. */
export function machineLines(m: Machine, endLoad?: readonly number[]): string[] {
  return [
    `- CPU: ${m.cpu}, ${m.cores} cores available to Node`,
    `- memory: ${m.memoryGiB} GiB`,
    `- Node ${m.node} on ${m.os}`,
    `- date: ${m.date}; commit ${m.commit}`,
    `- load average (1 min) at start: ${m.load1}${endLoad ? `; at the end (1, 5, 15 min): ${endLoad.join(', ')}` : ''} (${m.cores} cores; the machine is shared with other work)`,
  ];
}

/** One line for a section measured on its own (`--only`, `npm run load`). */
export function machineSummary(m: Machine): string {
  return `${m.date} · ${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB · Node ${m.node} · commit ${m.commit} · load ${m.load1}`;
}
