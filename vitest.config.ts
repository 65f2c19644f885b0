import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    globalSetup: ['tests/support/build.ts', 'tests/support/postgres-server.ts'],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // argon2 and PGlite are CPU-bound: two workers for two cores.
    maxWorkers: 2,
    reporters: ['default', './tests/support/summary-reporter.ts'],
  },
});
