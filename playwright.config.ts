import { defineConfig } from '@playwright/test';

const PORT = Number(process.env.E2E_PORT ?? 4599);
export const baseURL = `http://localhost:${PORT}`;

export default defineConfig({
  testDir: 'e2e',
  // One browser at a time: the tests share the demo accounts, and the machine has 2 cores.
  workers: 1,
  fullyParallel: false,
  retries: 0,
  timeout: 30_000,
  reporter: [['list'], ['./e2e/support/summary-reporter.ts']],
  use: {
    baseURL,
    locale: 'fr-FR',
    timezoneId: 'Europe/Paris',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        '--disable-sync',
        '--disable-quic',
      ],
    },
    trace: 'retain-on-failure',
  },
  projects: [
    { name: 'setup', testMatch: /.*\.setup\.ts/ },
    { name: 'chromium', dependencies: ['setup'], use: { browserName: 'chromium' } },
  ],
  webServer: {
    command: 'node e2e/support/serve.ts',
    url: `${baseURL}/readyz`,
    timeout: 180_000,
    reuseExistingServer: false,
    // The server in UTC, the browser in Paris (timezoneId above): the workshop's clock must hold (decision 038).
    env: { TZ: 'UTC', PORT: String(PORT), DATA_DIR: 'test-results/e2e-data', LOG_LEVEL: 'error', AUTH_RATE_LIMIT_FACTOR: '100', HOST: '127.0.0.1' },
  },
});
