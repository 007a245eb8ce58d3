import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import { SHOW_OUTPUT } from '../../test-support/log-level.ts';

// Consumer pact tests: write pacts/*.json from the typed clients' expectations. A run of its own (Pact's
// consumer and provider sides must not share a process).
export default defineConfig({
  test: {
    name: 'pact-consumer',
    root: fileURLToPath(new URL('../..', import.meta.url)),
    silent: SHOW_OUTPUT ? false : 'passed-only',
    include: ['contract-tests/pact/consumer/**/*.pact.ts'],
    globalSetup: ['scripts/node-check.setup.ts', 'contract-tests/pact/consumer/global-setup.ts'],
    testTimeout: 30_000,
    // Set-up starts a conformance proxy: no limit by the machine's speed (vitest's 10 s failed on a loaded host).
    hookTimeout: 120_000,
    // Every file of one provider writes the same pact file.
    fileParallelism: false,
  },
});
