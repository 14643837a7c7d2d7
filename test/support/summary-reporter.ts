import type { Reporter, TestModule } from 'vitest/node';

/** How many of the slowest test files the summary lists. */
const SLOWEST_SHOWN = 25;

/**
 * Ends the run with the slowest test files (where CI's time goes, in the part of the log a
 * reader sees) and one plain line, `tests: N passed, N failed, N skipped`, so that a CI
 * log reader that does not know vitest's own summary can still count the tests.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const module of testModules) {
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') passed++;
        else if (state === 'failed') failed++;
        else skipped++;
      }
      if (module.state() === 'failed' && module.children.size === 0) failed++;
    }
    const slowest = testModules
      .map((module) => ({ file: module.relativeModuleId, seconds: module.diagnostic().duration / 1000 }))
      .sort((a, b) => b.seconds - a.seconds)
      .slice(0, SLOWEST_SHOWN);
    process.stdout.write(`\nslowest test files (tests and hooks, seconds):\n`);
    for (const { file, seconds } of slowest)
      process.stdout.write(`${seconds.toFixed(1).padStart(8)}  ${file}\n`);
    process.stdout.write(`\ntests: ${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
