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
          // playwright-core driving /usr/bin/chromium, or the one @sparticuz/chromium ships (browser-tests/chromium.ts).
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
