// Parent side of bench/lib/host.ts: start a host process, wait for it to be ready, call its commands, read
// its memory, stop it. Also starts plain commands (the `serve` processes of the load test).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const HOST = path.join(ROOT, 'bench', 'lib', 'host.ts');

export type HostKind = 'bare' | 'express' | 'simulator' | 'services';
export interface HostSpec {
  kind: HostKind;
  args?: unknown;
}
export interface HostReady {
  type: 'ready';
  ok: boolean;
  result?: unknown;
  error?: string;
}
export interface Call {
  type: 'call';
  id: number;
  cmd: string;
  args?: Record<string, unknown>;
}
export interface Reply {
  type: 'reply';
  id: number;
  ok: boolean;
  result?: unknown;
  error?: string;
}

export interface Host<R> {
  readonly pid: number;
  readonly ready: R;
  call<T = unknown>(cmd: string, args?: Record<string, unknown>, timeoutMs?: number): Promise<T>;
  /** Resident set size in bytes. */
  rss(): Promise<number>;
  stop(): Promise<void>;
}

/** Last lines a child wrote to stderr, for error messages. */
function tail(child: ChildProcess): () => string {
  let text = '';
  child.stderr?.on('data', (c: Buffer) => {
    text = (text + c.toString()).slice(-4_000);
  });
  return () => text.trim();
}

/**
 * BENCH_CPU_PROF_DIR=<dir>: every host (the services, the simulator, the ceilings) runs with `--cpu-prof`
 * and writes its profile there when it stops (it is asked to exit, not killed, so the profile is written).
 */
const CPU_PROF_DIR = process.env['BENCH_CPU_PROF_DIR'];
const PROFILE_FLAGS = CPU_PROF_DIR ? ['--cpu-prof', '--cpu-prof-dir', CPU_PROF_DIR] : [];

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  if (CPU_PROF_DIR && child.connected) {
    // The host exits by itself when its parent disconnects (host.ts), writing its profile.
    child.disconnect();
    const gone = await Promise.race([
      exited.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), 10_000)),
    ]);
    if (gone) return;
  }
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/**
 * Which Node runs a host, and which tree's host.ts: this tree on this Node by default; the Node 20 rows run
 * through the loader of the pre-migration tree (bench/lib/runtimes.ts).
 */
export interface HostRuntime {
  node: string;
  /** Arguments before the host file (a TypeScript loader on Node 20). */
  prefix: string[];
  /** host.ts to run, and the directory it runs in. */
  host: string;
  cwd: string;
}

export const THIS_RUNTIME: HostRuntime = { node: process.execPath, prefix: [], host: HOST, cwd: ROOT };

export async function startHost<R>(
  spec: HostSpec,
  readyTimeoutMs = 120_000,
  rt: HostRuntime = THIS_RUNTIME,
): Promise<Host<R>> {
  const child = spawn(
    rt.node,
    [...PROFILE_FLAGS, ...rt.prefix, rt.host, Buffer.from(JSON.stringify(spec)).toString('base64')],
    {
      cwd: rt.cwd,
      // stdout is dropped (request logs of the services would otherwise cost the parent); stderr is kept for errors.
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    },
  );
  const stderr = tail(child);
  let nextId = 1;
  const pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  let exited = false;
  child.once('exit', (code, signal) => {
    exited = true;
    for (const p of pending.values()) p.reject(new Error(`${spec.kind} host exited (${signal ?? code}): ${stderr()}`));
    pending.clear();
  });
  const ready = await new Promise<R>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${spec.kind} host not ready after ${readyTimeoutMs} ms: ${stderr()}`)),
      readyTimeoutMs,
    );
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`${spec.kind} host exited before it was ready (${signal ?? code}): ${stderr() || 'no output'}`));
    });
    child.on('message', (msg: HostReady | Reply) => {
      if (msg.type === 'ready') {
        clearTimeout(timer);
        if (msg.ok) resolve(msg.result as R);
        else reject(new Error(`${spec.kind} host failed to start: ${msg.error}`));
      } else if (msg.type === 'reply') {
        const p = pending.get(msg.id);
        pending.delete(msg.id);
        if (msg.ok) p?.resolve(msg.result);
        else p?.reject(new Error(msg.error));
      }
    });
  }).catch(async (e: unknown) => {
    await stopChild(child);
    throw e;
  });

  const call = <T>(cmd: string, args?: Record<string, unknown>, timeoutMs = 600_000): Promise<T> => {
    if (exited) return Promise.reject(new Error(`${spec.kind} host has exited: ${stderr()}`));
    const id = nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`${spec.kind} host: ${cmd} took over ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as T);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      child.send({ type: 'call', id, cmd, ...(args ? { args } : {}) } satisfies Call);
    });
  };
  return {
    pid: child.pid!,
    ready,
    call,
    rss: () => call<number>('rss', {}, 10_000),
    stop: () => stopChild(child),
  };
}

/** A plain process (e.g. `credential-vault serve …`) that is ready when `readyWhen` matches its stdout. */
export interface Proc {
  readonly pid: number;
  output(): string;
  stop(): Promise<void>;
}

export async function startProcess(
  args: string[],
  o: { readyWhen: RegExp; timeoutMs?: number; env?: NodeJS.ProcessEnv },
): Promise<Proc> {
  const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: o.env ?? {} });
  let out = '';
  let seenReady = false;
  const collect = (c: Buffer) => {
    // Keep the start of the output (the banner) and a bounded tail (request logs go on for as long as it runs).
    out =
      out.length < 8_000
        ? out + c.toString()
        : out.slice(0, 4_000) + '\n…\n' + (out.slice(4_000) + c.toString()).slice(-4_000);
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`not ready after ${o.timeoutMs ?? 60_000} ms: ${out.trim()}`)),
      o.timeoutMs ?? 60_000,
    );
    const check = () => {
      if (!seenReady && o.readyWhen.test(out)) {
        seenReady = true;
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (!seenReady) reject(new Error(`exited (${code}) before it was ready: ${out.trim() || 'no output'}`));
    });
  }).catch(async (e: unknown) => {
    await stopChild(child);
    throw e;
  });
  return { pid: child.pid!, output: () => out, stop: () => stopChild(child) };
}

/** RSS in bytes of any process of ours, from /proc (Linux); undefined elsewhere. */
export async function rssOf(pid: number): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}
