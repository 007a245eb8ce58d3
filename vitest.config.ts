import { defineConfig } from 'vitest/config';

// Four separate runs (npm run test:unit | test:property | test:contract | test:browser); npm test runs all of them.
export default defineConfig({
  test: {
    globalSetup: ['scripts/node-check.setup.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts', 'simulator/**/*.test.ts', 'scripts/**/*.test.ts', 'scale-tests/**/*.test.ts'],
          testTimeout: 30_000,
        },
      },
      {
        test: {
          name: 'property',
          include: ['property-tests/**/*.test.ts'],
          testTimeout: 300_000,
        },
      },
      {
        test: {
          // Debian's chromium through playwright-core (npm run test:browser); .ci/run installs it.
          name: 'browser',
          include: ['browser-tests/**/*.test.ts'],
          testTimeout: 120_000,
          hookTimeout: 120_000,
          fileParallelism: false,
        },
      },
      {
        test: {
          name: 'contract',
          include: ['contract-tests/**/*.test.ts'],
          testTimeout: 120_000,
          fileParallelism: false,
        },
      },
    ],
  },
});
