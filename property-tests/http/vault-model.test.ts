// The HTTP-level model over the RPC simulator: random sequences of vault API calls with real signing,
// every answer's status and body checked against the model, the ownership properties (no key reads or
// moves another wallet's credentials; another wallet's signature or key never lands a write), and response
// conformance (the app validates every answer against spec/vault-api.yaml; a non-conforming answer turns
// into a 500, which no command ever expects).
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVaultTestEnv, stubChain } from '../../test-support/vault-api.ts';
import { startSimulatorModelEnv, type ModelEnv } from './model-env.ts';
import { runParams } from './params.ts';
import { runVaultModel } from './run-model.ts';

/**
 * Sequences of at most 16 commands (7.6 on average), each in a fresh world (sim_revert) and followed by an
 * audit of every vault. Measured on 2 shared cores at load average 5-7: 150-320 ms per sequence with its
 * audit (about 36 requests), so 200 sequences take 30-65 s — inside the ~2 minute budget, the full 200 run.
 */
const MAX_COMMANDS = 16;
const RUNS = 200;

describe('vault API over HTTP against the model (simulator)', () => {
  let env: ModelEnv & { vault: { deps: { validateResponses?: boolean } } };
  beforeAll(async () => {
    env = await startSimulatorModelEnv();
  }, 120_000);
  afterAll(async () => {
    await env?.close();
  });

  it('validates every response against the spec: a non-conforming answer becomes a 500', async () => {
    expect(env.vault.deps.validateResponses).toBe(true);
    // The same app with a route that answers outside the spec, with response validation on and off.
    for (const validateResponses of [true, false]) {
      const router = express.Router();
      router.post('/contracts/vault/verify-vc', (_req, res) => {
        res.json({ status: 'maybe', extra: true });
      });
      const stub = await startVaultTestEnv({ chain: stubChain(), contractRoutes: router, validateResponses });
      try {
        const { key, record } = await stub.mintKey();
        const a = await stub.request('/contracts/vault/verify-vc', {
          key,
          body: { owner: record.walletAddress, vcId: 'x' },
        });
        if (validateResponses) expect([a.status, a.body.error]).toEqual([500, 'internal_error']);
        else expect([a.status, a.body]).toEqual([200, { status: 'maybe', extra: true }]);
      } finally {
        await stub.close();
      }
    }
  });

  it("property: random call sequences match the model; no key reads or moves another wallet's credentials", async () => {
    const report = await runVaultModel(env, runParams('HTTP vault model (simulator)', RUNS), {
      maxCommands: MAX_COMMANDS,
    });
    console.log(
      `[property] HTTP vault model: ${report.runs} sequences, ${report.requests} requests, ${(report.totalMs / 1000).toFixed(1)} s, ${report.meanMs} ms per sequence`,
    );
    console.log(
      [...report.seen]
        .sort()
        .map(([k, n]) => `  ${String(n).padStart(5)}  ${k}`)
        .join('\n'),
    );
  });
});
