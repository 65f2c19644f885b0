// Writes the browser suite's counts for the closing line of `npm test` (scripts/test.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import type { FullResult, Reporter, TestCase, TestResult } from '@playwright/test/reporter';

export default class SummaryReporter implements Reporter {
  private counts = { passed: 0, failed: 0, skipped: 0 };
  onTestEnd(test: TestCase, result: TestResult) {
    if (result.retry < test.retries && result.status !== 'passed' && result.status !== 'skipped') return;
    if (result.status === 'passed') this.counts.passed++;
    else if (result.status === 'skipped') this.counts.skipped++;
    else this.counts.failed++;
  }
  onEnd(_result: FullResult) {
    mkdirSync('.test-summary', { recursive: true });
    writeFileSync('.test-summary/e2e.json', JSON.stringify(this.counts));
  }
}
