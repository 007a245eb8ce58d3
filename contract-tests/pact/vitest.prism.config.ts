import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { SHOW_OUTPUT } from '../../test-support/log-level.ts';

// The same pacts replayed against the Prism mock of each spec.
export default defineConfig({
  test: {
    name: 'pact-prism',
    root: fileURLToPath(new URL('../..', import.meta.url)),
    silent: SHOW_OUTPUT ? false : 'passed-only',
    include: ['contract-tests/pact/prism/**/*.pact.ts'],
    globalSetup: ['scripts/node-check.setup.ts'],
    testTimeout: 120_000,
    hookTimeout: 120_000,
  },
});
