import { defineConfig } from 'vitest/config';
import { SHOW_OUTPUT } from './test-support/log-level.ts';

// A passing test's console output (coverage tallies, a library's warnings) is shown only when asked
// (DEBUG=1 or LOG_LEVEL=…); a failing test's always.
const silent = SHOW_OUTPUT ? false : ('passed-only' as const);

// Every project runs its files in a random order and shuffles the tests inside each file too: each `it` runs
// alone, setting up what it needs itself or in a beforeAll/beforeEach (CONTRIBUTING.md "Test layers"). The
// reporter prints the seed ("Running tests with seed …"); replay an order with `--sequence.seed=<seed>`. The seed
// is the root config's, shared by every project. The pact runs have their own configs and keep the pact file's
// order.
const sequence = { shuffle: { files: true, tests: true } };

// Four separate runs (npm run test:unit | test:property | test:contract | test:browser); npm test runs all of them.
export default defineConfig({
  test: {
    // The reporter reads this one (the projects' own copies govern their workers).
    silent,
    sequence,
    globalSetup: ['scripts/node-check.setup.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          silent,
          sequence,
          include: ['src/**/*.test.ts', 'simulator/**/*.test.ts', 'scripts/**/*.test.ts', 'scale-tests/**/*.test.ts'],
          // Its own run (npm run test:crash, in .ci/run): twenty restarts of the whole product.
          exclude: ['scale-tests/crash.test.ts'],
          // A limit that only catches a hang: a test that starts services met 30 s on a host at load 20.
          testTimeout: 120_000,
          // A hook that starts a simulator and services can take more than vitest's 10 s on a loaded host:
          // time a test by the machine's speed nowhere, set-up included.
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          // SIGKILL at random instants under a write load (scale-tests/crash.test.ts).
          name: 'crash',
          silent,
          sequence,
          include: ['scale-tests/crash.test.ts'],
          testTimeout: 1_800_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          name: 'property',
          silent,
          sequence,
          include: ['property-tests/**/*.test.ts'],
          testTimeout: 300_000,
          hookTimeout: 120_000,
        },
      },
      {
        test: {
          // playwright-core driving /usr/bin/chromium or the one @sparticuz/chromium ships (browser-tests/chromium.ts).
          name: 'browser',
          silent,
          sequence,
          include: ['browser-tests/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'contract',
          silent,
          sequence,
          include: ['contract-tests/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
