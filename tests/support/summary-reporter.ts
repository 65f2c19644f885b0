// Counts the unit and integration tests for the closing line of `npm test` (scripts/test.ts), and
// names the failed ones: CI keeps only the end of the log.
import { mkdirSync, writeFileSync } from 'node:fs';
import type { Reporter, TestModule } from 'vitest/node';

const firstLine = (error: unknown) =>
  String((error as { message?: unknown })?.message ?? error)
    .split('\n')[0]
    .slice(0, 300);

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>) {
    const count = { passed: 0, failed: 0, skipped: 0, failures: [] as string[] };
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const result = test.result();
        if (result.state === 'passed') count.passed++;
        else if (result.state === 'failed') {
          count.failed++;
          count.failures.push(`${module.moduleId.replace(`${process.cwd()}/`, '')} › ${test.fullName}: ${firstLine(result.errors?.[0])}`);
        } else count.skipped++;
      }
      // A file that failed to load has no tests but must count as a failure.
      if (module.state() === 'failed' && [...module.children.allTests()].length === 0) {
        count.failed++;
        count.failures.push(`${module.moduleId.replace(`${process.cwd()}/`, '')}: ${firstLine(module.errors()[0])}`);
      }
    }
    count.failed += unhandledErrors.length;
    for (const error of unhandledErrors) count.failures.push(`unhandled: ${firstLine(error)}`);
    mkdirSync('.test-summary', { recursive: true });
    writeFileSync('.test-summary/vitest.json', JSON.stringify(count));
  }
}
