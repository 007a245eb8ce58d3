import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { SHOW_OUTPUT } from '../../test-support/log-level.ts';

// Provider verification: the committed pacts against the real apps over the chain simulator.
export default defineConfig({
  test: {
    name: 'pact-provider',
    root: fileURLToPath(new URL('../..', import.meta.url)),
    silent: SHOW_OUTPUT ? false : 'passed-only',
    include: ['contract-tests/pact/provider/**/*.pact.ts'],
    globalSetup: ['scripts/node-check.setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
