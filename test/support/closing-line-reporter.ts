// Prints one plain closing line, "Tests: N passed, N failed, N skipped", that CI reads
// to know how many tests ran. A failure outside any test (a file that does not load, a
// failing beforeAll/afterAll, an unhandled error) counts as a failed test too, so the
// line says "0 failed" exactly when vitest exits 0.
import { appendFileSync } from 'node:fs';
import type { Reporter, SerializedError, TestModule, TestRunEndReason } from 'vitest/node';

export interface ClosingCounts {
  passed: number;
  failed: number;
  skipped: number;
  /** The failures counted in `failed` that are not a test's own: what they were. */
  outside: string[];
}

/** Counts the tests and the failures outside them, as the closing line reports them. */
export function closingCounts(
  testModules: ReadonlyArray<TestModule>,
  unhandledErrors: ReadonlyArray<SerializedError>,
  reason: TestRunEndReason,
): ClosingCounts {
  const counts: ClosingCounts = { passed: 0, failed: 0, skipped: 0, outside: [] };
  for (const module of testModules) {
    for (const test of module.children.allTests()) {
      const state = test.result().state;
      if (state === 'passed') counts.passed += 1;
      else if (state === 'failed') counts.failed += 1;
      else counts.skipped += 1;
    }
    // A module or suite error that no test carries: collection (syntax, a throw at import)
    // or a beforeAll/afterAll hook. When its tests failed with it, they were counted.
    const suites = [module, ...module.children.allSuites()];
    for (const suite of suites) {
      if (suite.errors().length === 0) continue;
      if ([...suite.children.allTests('failed')].length > 0) continue;
      counts.failed += 1;
      const where =
        suite.type === 'module' ? module.moduleId : `${module.moduleId} > ${suite.name}`;
      counts.outside.push(`${where}: ${suite.errors()[0]?.message ?? 'failed'}`);
    }
  }
  for (const error of unhandledErrors) {
    counts.failed += 1;
    counts.outside.push(`unhandled error: ${error.message ?? String(error)}`);
  }
  // Whatever else made the run fail (vitest decides the exit code) is one more failure.
  if (reason === 'failed' && counts.failed === 0) {
    counts.failed += 1;
    counts.outside.push('the run failed outside any test');
  }
  return counts;
}

export default class ClosingLineReporter implements Reporter {
  /**
   * .ci/run runs two tiers and closes with one line for both: each appends its own line
   * to this file (and .ci/run one for its accuracy check, bench/accuracy-check.ts). Taken from the environment and removed from it before any test starts,
   * so that a vitest a test runs (the reporter's own tests) never adds its counts.
   */
  private readonly tally = process.env.PERF_GATE_TEST_COUNTS;

  constructor() {
    delete process.env.PERF_GATE_TEST_COUNTS;
  }

  onTestRunEnd(
    testModules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError>,
    reason: TestRunEndReason,
  ): void {
    const counts = closingCounts(testModules, unhandledErrors, reason);
    // The notes come first: the closing line stays the last line of the output.
    const outside = counts.outside.map((line) => `\nFailed outside a test: ${line.split('\n')[0]}`);
    const line = `Tests: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`;
    process.stdout.write(`${outside.join('')}\n${line}\n`);
    if (this.tally) appendFileSync(this.tally, `${line}\n`);
  }
}
