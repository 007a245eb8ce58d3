// Under `start`, the testnet and mainnet vault APIs share their request validators (src/platform/validator.ts
// `validatorPool`): once every path is warmed, the process has made one express-openapi-validator instance per path
// of each description, not one per path of each app. Each instance compiles the OpenAPI meta-schema as it loads.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import * as OpenApiValidator from 'express-openapi-validator';
import { afterAll, expect, it, vi } from 'vitest';
import { loadConfig } from './config/index.ts';
import { resolverModel } from './platform/resolver-model.ts';
import { vaultModel } from './platform/vault-model.ts';
import { startServices } from './services.ts';

// Counts the instances made: every call of the validator's one entry point.
vi.mock('express-openapi-validator', async (importOriginal) => {
  const real = await importOriginal<typeof import('express-openapi-validator')>();
  return { ...real, middleware: vi.fn(real.middleware) };
});
const made = () => vi.mocked(OpenApiValidator.middleware).mock.calls.length;

const dir = mkdtempSync(path.join(tmpdir(), 'cv-validators-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Resolves once `made()` has not changed over `turns` turns of the event loop (the warm-up makes one per turn). */
async function settled(turns: number): Promise<number> {
  for (let still = 0, last = made(); still < turns; ) {
    await new Promise((resolve) => setImmediate(resolve));
    still = made() === last ? still + 1 : 0;
    last = made();
  }
  return made();
}

it('makes one validator instance per path of each description, shared by the two vault APIs', async () => {
  const args = ['--testnet-port', '0', '--mainnet-port', '0', '--resolver-port', '0', '--simulator-port', '0'];
  const { config } = loadConfig([...args, '--data-dir', dir, '--log-level', 'error'], {});
  const running = await startServices(config, { mode: 'start', logWrite: () => undefined });
  try {
    const paths = vaultModel.routes.length + resolverModel.routes.length;
    await vi.waitFor(() => expect(made()).toBeGreaterThanOrEqual(paths), { timeout: 60_000 });
    expect(await settled(20)).toBe(paths);
    // Both vault APIs answer through the shared instances.
    for (const url of [running.vault.testnet!.url, running.vault.mainnet!.url]) {
      const answer = await fetch(new URL('/config?unknown=1', url));
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as { error: string }).error).toBeTypeOf('string');
    }
    expect(made()).toBe(paths);
  } finally {
    await running.close();
  }
});
