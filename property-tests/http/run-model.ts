// Runs the HTTP-level model: random sequences of the commands in vault-commands.ts against one running
// vault API, each sequence in a fresh world, then an audit of every vault the model knows (and of the
// absence of the others). Used by vault-model.test.ts (simulator) and scripts/test-network.ts (real network).
import fc from 'fast-check';
import { WALLET_NAMES, type ModelEnv } from './model-env.ts';
import { commandArbs } from './vault-scenarios.ts';
import { Real, auditAll, initialModel } from './vault-model.ts';
import { send } from './spec.ts';

export interface ModelRunOptions {
  /** Longest command sequence. */
  maxCommands: number;
  /** Called after every sequence with its duration. */
  onRun?: (ms: number) => void;
}

export interface ModelRunReport {
  runs: number;
  totalMs: number;
  meanMs: number;
  requests: number;
  /** How often each route answered each outcome, over all sequences. */
  seen: Map<string, number>;
}

/** The factory id of the vault API's network (GET /config), for the expected vault addresses. */
async function factoryIdOf(env: ModelEnv): Promise<string> {
  const a = await send(env.vaultUrl, { method: 'GET', path: '/config' });
  const id = (a.body as { factoryContractId?: unknown } | undefined)?.factoryContractId;
  if (a.status !== 200 || typeof id !== 'string') throw new Error(`GET /config answered ${a.status} ${a.text}`);
  return id;
}

export async function runVaultModel(
  env: ModelEnv,
  params: fc.Parameters<unknown>,
  o: ModelRunOptions,
): Promise<ModelRunReport> {
  const factoryId = await factoryIdOf(env);
  let runs = 0;
  let sequences = 0;
  let totalMs = 0;
  let requests = 0;
  const seen = new Map<string, number>();
  await fc.assert(
    fc.asyncProperty(fc.commands(commandArbs, { maxCommands: o.maxCommands, size: 'max' }), async (cmds) => {
      const started = Date.now();
      const world = await env.freshWorld();
      const real = new Real(env, world, factoryId, `${process.pid}-${sequences++}`);
      const model = initialModel(world);
      await fc.asyncModelRun(() => ({ model, real }), cmds);
      await auditAll(model, real, WALLET_NAMES);
      const ms = Date.now() - started;
      requests += real.requests;
      for (const [k, n] of real.seen) seen.set(k, (seen.get(k) ?? 0) + n);
      runs++;
      totalMs += ms;
      o.onRun?.(ms);
    }),
    params,
  );
  return { runs, totalMs, meanMs: runs ? Math.round(totalMs / runs) : 0, requests, seen };
}
