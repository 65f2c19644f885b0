import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // One copy of graphql, as Node loads it: Yoga and Pothos must see the same GraphQLError.
  resolve: { alias: [{ find: /^graphql$/, replacement: fileURLToPath(import.meta.resolve('graphql')) }] },
  test: {
    include: ['tests/**/*.test.ts'],
    // The server's own zone must not matter (decision 038): tests run it in UTC, as most servers are.
    env: { TZ: 'UTC' },
    globalSetup: ['tests/support/build.ts', 'tests/support/postgres-server.ts'],
    // A timeout catches a hang, never a slow machine: under load several tests (the backups, the
    // process's start, the nullability sweep of the 60 demo orders) take 25-30 s.
    testTimeout: 90_000,
    hookTimeout: 120_000,
    // argon2 and PGlite are CPU-bound: two workers for two cores.
    maxWorkers: 2,
    reporters: ['default', './tests/support/summary-reporter.ts'],
  },
});
