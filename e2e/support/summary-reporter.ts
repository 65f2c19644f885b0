// Writes the browser suite's counts for the closing line of `npm test` (scripts/test.ts), and names
// the failed tests: CI keeps only the end of the log.
import { mkdirSync, writeFileSync } from 'node:fs';
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';

export default class SummaryReporter implements Reporter {
  private counts = { passed: 0, failed: 0, skipped: 0, failures: [] as string[] };
  onTestEnd(test: TestCase, result: TestResult) {
    if (result.retry < test.retries && result.status !== 'passed' && result.status !== 'skipped') return;
    if (result.status === 'passed') this.counts.passed++;
    else if (result.status === 'skipped') this.counts.skipped++;
    else {
      this.counts.failed++;
      const message = (result.error?.message ?? result.status).split('\n')[0].slice(0, 300);
      this.counts.failures.push(
        `${test.location.file.replace(`${process.cwd()}/`, '')}:${test.location.line} › ${test.titlePath().slice(3).join(' › ')}: ${message}`,
      );
    }
  }
  onEnd(_result: FullResult) {
    mkdirSync('.test-summary', { recursive: true });
    writeFileSync('.test-summary/e2e.json', JSON.stringify(this.counts));
  }
}
